// The release tables (lib/data through lib/versions.ts and lib/deviations.ts) as one list of rows, each a
// dated fact about one product: a feature that appears (since) or goes (until), an interface-relevant
// change, a known deviation. Read generically: a new row or a new table entry needs no change here.
// `diff` labels a change expected when a row explains it; `plan-upgrade --snapshot` says which rows a
// deployment will meet.
import {
  allChanges,
  compareVersions,
  formatVersion,
  MAS_FEATURES,
  parseServerVersionString,
  parseVersion,
  SYNAPSE_FEATURES,
  type FeatureInfo,
  type Version,
} from '../../lib/versions.ts'
import { DEVIATIONS } from '../../lib/deviations.ts'

export type Product = 'mas' | 'hs'

export interface ReleaseRow {
  /** stable id: `synapse-features.json: server-version-python-version (until v1.94.0)` */
  id: string
  product: Product
  /** the version the row's event happens at */
  version: Version
  /** what happens then, in a few words: `removed in 1.94.0`, `added in v1.5.0`, `changed in 1.79.0` */
  event: string
  /** the families the row applies to (appliesTo, or the family of an action's path) */
  families: string[]
  /** the paths the row names (placeholders normalised to `{}`) */
  paths: string[]
  /** every text of the row, for matching evidence */
  text: string
  /** the file and the row's own source pointer */
  file: string
  source: string
}

/** `{id}`, `<report_id>`, `:id` → `{}`, for comparing paths across the tables and the route tables. */
export function normalisePathText(s: string): string {
  return s.replace(/\{[^}/]*\}|<[^>/]*>|:[A-Za-z_]\w*\??/g, '{}')
}

const PATH_RE = /\/[A-Za-z0-9_.{}<>:~-]+(?:\/[A-Za-z0-9_.{}<>:~-]+)+/g

function pathsIn(text: string): string[] {
  return [...new Set((text.match(PATH_RE) ?? []).map(normalisePathText))]
}

function familyOfPath(p: string): string | undefined {
  const m = /\/(?:api\/admin|_synapse\/admin)\/v\d+\/([A-Za-z0-9_-]+)/.exec(p)
  return m ? m[1]!.replace(/_/g, '-') : undefined
}

function featureRows(product: Product, file: string, table: Readonly<Record<string, FeatureInfo>>): ReleaseRow[] {
  const out: ReleaseRow[] = []
  for (const [name, f] of Object.entries(table)) {
    const text = `${name} ${f.description}`
    const base = { product, families: [...f.appliesTo], paths: pathsIn(f.description), text, file, source: `${f.source}: ${f.section}` }
    if (f.since)
      out.push({
        ...base,
        id: `${file}: ${name} (since ${formatVersion(f.since)})`,
        version: f.since,
        event: `added in ${formatVersion(f.since)}`,
      })
    if (f.until)
      out.push({
        ...base,
        id: `${file}: ${name} (until ${formatVersion(f.until)})`,
        version: f.until,
        event: `removed in ${formatVersion(f.until)}`,
      })
  }
  return out
}

let cache: ReleaseRow[] | undefined

/** Every dated row of every release table. */
export function releaseRows(): ReleaseRow[] {
  if (cache) return cache
  const rows: ReleaseRow[] = [
    ...featureRows('hs', 'synapse-features.json', SYNAPSE_FEATURES),
    ...featureRows('mas', 'mas-features.json', MAS_FEATURES),
  ]
  allChanges().forEach((r, i) => {
    const actionText = r.actions
      .map((a) =>
        Object.values(a)
          .filter((v) => typeof v === 'string' || typeof v === 'number')
          .join(' '),
      )
      .join(' ')
    const text = `${r.change} ${actionText}`
    const paths = pathsIn(text)
    rows.push({
      id: `homeserver-changes.json: ${r.version} #${i + 1} (${r.actions.map((a) => a.kind).join(', ')})`,
      product: 'hs',
      version: parseVersion(r.version),
      event: `changed in ${r.version}`,
      families: [...new Set(paths.map(familyOfPath).filter((f): f is string => f !== undefined))],
      paths,
      text,
      file: 'homeserver-changes.json',
      source: `${r.source}: ${r.section}`,
    })
  })
  for (const d of Object.values(DEVIATIONS)) {
    const product: Product = d.product === 'mas' ? 'mas' : 'hs'
    const text = `${d.id} ${d.fact}`
    const base = {
      product,
      families: [
        ...new Set(
          pathsIn(d.fact)
            .map(familyOfPath)
            .filter((f): f is string => f !== undefined),
        ),
      ],
      paths: pathsIn(d.fact),
      text,
      file: 'deviations.json',
      source: `${d.source}: ${d.section}`,
    }
    if (d.since)
      rows.push({
        ...base,
        id: `deviations.json: ${d.id} (since ${formatVersion(d.since)})`,
        version: d.since,
        event: `deviation from ${formatVersion(d.since)}`,
      })
    if (d.until)
      rows.push({
        ...base,
        id: `deviations.json: ${d.id} (until ${formatVersion(d.until)})`,
        version: d.until,
        event: `deviation ends at ${formatVersion(d.until)}`,
      })
  }
  cache = rows
  return cache
}

/** A version as the snapshot recorded it (a raw server string), or undefined when it cannot be read. */
export function versionOf(raw: string | undefined): Version | undefined {
  if (raw === undefined) return undefined
  const p = parseServerVersionString(raw)
  return p.ok ? p.version : undefined
}

/** Rows of a product whose event happens between two versions (lower exclusive, upper inclusive; either order). */
export function rowsBetween(product: Product, a: Version, b: Version): ReleaseRow[] {
  const [lo, hi] = compareVersions(a, b) <= 0 ? [a, b] : [b, a]
  return releaseRows().filter((r) => r.product === product && compareVersions(r.version, lo) > 0 && compareVersions(r.version, hi) <= 0)
}
