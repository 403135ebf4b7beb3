// Known deviations of released auth-service versions from the interface document, which the mock
// reproduces when it claims such a version. The facts are rows of lib/data/deviations.json, which the
// suites' side adds (with lib/deviations.ts) and whose suites then report such an answer as a
// deviation instead of a failure. The mock reads the file when it is there and reproduces nothing
// without it: deviating before those suites are merged would fail their checks (npm start). The
// range of the row, for the record: since v0.15.0 (when the route appeared), observed up to v1.22.0 (reference/mas-admin-api.md
// §1.8 and §2.3: the get handler fetches the latest).
// TODO(policy-data-get-returns-latest): use lib/deviations.ts `hasDeviation` once it is merged here.
import { existsSync, readFileSync } from 'node:fs'
import { compareVersions, parseServerVersionString } from '../../../lib/versions.ts'

export type MasDeviation = 'policy-data-get-returns-latest'

interface Row {
  since?: string
  until?: string
}

const FILE = new URL('../../../lib/data/deviations.json', import.meta.url)

function rows(): Record<string, Row & { product?: string }> {
  if (!existsSync(FILE)) return {}
  const data = JSON.parse(readFileSync(FILE, 'utf8')) as { deviations?: Record<string, Row & { product?: string }> }
  return data.deviations ?? {}
}
const ROWS = rows()

const cache = new Map<string, boolean>()

/** Is the version in the row's range? An unparsable version is the newest: in it unless a release left it. */
export function inRange(row: Row, version: string): boolean {
  const p = parseServerVersionString(version)
  if (!p.ok) return row.until === undefined
  return (
    (row.since === undefined || compareVersions(p.version, row.since) >= 0) &&
    (row.until === undefined || compareVersions(p.version, row.until) < 0)
  )
}

/** Whether lib/data knows the deviation (false until its file is merged here). */
export function masDeviationKnown(id: MasDeviation): boolean {
  return ROWS[id]?.product === 'mas'
}

/** Does the claimed version have the deviation (per lib/data)? */
export function masDeviates(version: string, id: MasDeviation): boolean {
  const key = `${id}\n${version}`
  let found = cache.get(key)
  if (found === undefined) {
    const row = ROWS[id]
    found = row !== undefined && row.product === 'mas' && inRange(row, version)
    cache.set(key, found)
  }
  return found
}
