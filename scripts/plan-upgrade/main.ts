// `admin-conformance plan-upgrade`: rollback floor, interface-relevant changes and the stepping plan
// between two homeserver versions. All rules live in lib/versions.ts; this file parses flags,
// optionally reads --from from a live homeserver, and prints.
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'
import {
  DEFAULT_TABLE,
  TABLE_NAMES,
  VersionError,
  formatVersion,
  normalisePrefix,
  parseServerVersionString,
  parseVersion,
  planUpgrade,
  type TableName,
  type UpgradePlan,
  type Version,
} from '../../lib/versions.ts'

const DEFAULT_TIMEOUT_MS = 5000
const MAX_BODY_BYTES = 64 * 1024

export const USAGE = `usage: admin-conformance plan-upgrade --to <version> (--from <version> | --hs-url <url>) [options]

Plans a homeserver upgrade: the rollback floor of the target, whether a rollback to the current
version stays possible, every interface-relevant change on the way (oldest first) with what it asks
of the operator, and the intermediate versions worth stepping through.

options:
  --from <version>      the version running now: v1.2.3 or 1.2.3 (release candidates are rejected)
  --hs-url <url>        read the running version from a homeserver instead:
                        GET <url><hs-prefix>/admin/v1/server_version (no authentication)
  --hs-prefix <path>    the homeserver's admin prefix (default /_synapse)
  --to <version>        the version to upgrade to
  --table <name>        rollback table: interface (default; the interface document's rows, which end
                        at v1.102.0) or reference (the reference's rows: v1.98.0-v1.105.0 -> v1.96.0,
                        v1.105.1 onward -> v1.100.0)
  --timeout <ms>        time limit for --hs-url, for connecting and for the whole answer
                        (default ${DEFAULT_TIMEOUT_MS})
  --json                print one JSON object instead of text
  -h, --help            print this help

exit codes: 0 plan printed, 2 bad input or usage, 1 the homeserver's version could not be read`

export class ServerReadError extends Error {
  override name = 'ServerReadError'
}

/** The URL without user:password, for messages. */
function shownUrl(u: URL): string {
  const c = new URL(u.href)
  c.username = ''
  c.password = ''
  return c.href
}

export function serverVersionUrl(hsUrl: string, hsPrefix: string): URL {
  let base: URL
  try {
    base = new URL(hsUrl)
  } catch {
    throw new VersionError(`--hs-url ${JSON.stringify(hsUrl)} is not a URL (expected e.g. http://127.0.0.1:8008)`)
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new VersionError(`--hs-url must be an http or https URL, got ${JSON.stringify(base.protocol)}`)
  }
  const url = new URL(base.href)
  url.search = ''
  url.hash = ''
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${normalisePrefix(hsPrefix)}/admin/v1/server_version`
  return url
}

function describeNetworkError(err: unknown, timeoutMs: number): string {
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } }
  const code = e.code ?? e.cause?.code
  switch (code) {
    case 'ECONNREFUSED': return 'connection refused'
    case 'ENOTFOUND': case 'EAI_AGAIN': return 'host name not found'
    case 'ECONNRESET': case 'UND_ERR_SOCKET': return 'connection closed by the server'
    case 'UND_ERR_CONNECT_TIMEOUT': return `no connection within ${timeoutMs} ms`
    case 'UND_ERR_HEADERS_TIMEOUT': return `no response within ${timeoutMs} ms`
    case 'UND_ERR_BODY_TIMEOUT': return `response body not received within ${timeoutMs} ms`
  }
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no complete answer within ${timeoutMs} ms`
  return `${code ? `${code}: ` : ''}${e.message ?? String(err)}`
}

/** Reads `server_version` from a homeserver. Throws ServerReadError (exit 1) or VersionError for a bad URL (exit 2). */
export async function fetchServerVersion(hsUrl: string, opts: { hsPrefix?: string; timeoutMs?: number } = {}): Promise<{ url: string; serverVersion: string; version: Version }> {
  const url = serverVersionUrl(hsUrl, opts.hsPrefix ?? '/_synapse')
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const where = shownUrl(url)
  const fail = (why: string): never => {
    throw new ServerReadError(`could not read the homeserver version from ${where}: ${why}`)
  }
  const agent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  try {
    let status: number
    let text: string
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: agent,
        headers: { accept: 'application/json' },
        // The overall limit: undici's own timers are coarse (about 1 s), this one is exact.
        signal: AbortSignal.timeout(timeoutMs),
      })
      status = res.statusCode
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length
        if (size > MAX_BODY_BYTES) {
          res.body.destroy()
          return fail(`the response is larger than ${MAX_BODY_BYTES} bytes`)
        }
        chunks.push(chunk as Buffer)
      }
      text = Buffer.concat(chunks).toString('utf8')
    } catch (err) {
      if (err instanceof ServerReadError) throw err
      return fail(describeNetworkError(err, timeoutMs))
    }
    if (status !== 200) fail(`HTTP status ${status} (expected 200)`)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return fail('the response is not JSON')
    }
    const sv = (body as { server_version?: unknown } | null)?.server_version
    if (typeof sv !== 'string') return fail('the response has no string "server_version"')
    const parsed = parseServerVersionString(sv)
    if (!parsed.ok) return fail(`${parsed.reason}; pass --from explicitly`)
    return { url: where, serverVersion: sv, version: parsed.version }
  } finally {
    await agent.destroy().catch(() => undefined)
  }
}

// ---------------------------------------------------------------------------------------------
// Text output

function yesNo(b: boolean | null): string {
  return b === null ? 'unknown' : b ? 'possible' : 'NOT possible'
}

export function renderPlan(plan: UpgradePlan, fromNote?: string): string {
  const out: string[] = []
  const tableLabel = plan.table === 'interface'
    ? 'interface document (default)'
    : 'reference (reference/synapse-admin-api.md §4.1, chosen with --table reference)'
  out.push(`Upgrade plan ${plan.from} → ${plan.to}`)
  if (fromNote) out.push(fromNote)
  out.push(`Rollback table: ${tableLabel}`)
  out.push('')

  out.push('Rollback')
  if (plan.rollbackFloor !== null && plan.targetRange) {
    const r = plan.targetRange
    out.push(`  ${plan.to} is in the range ${r.from}${r.to ? `–${r.to}` : ' onward'}, which can be rolled back to ${plan.rollbackFloor} at the earliest.`)
    out.push(`  Rollback to ${plan.from} after the upgrade: ${yesNo(plan.canRollBackToFrom)}${plan.canRollBackToFrom === false ? ` (${plan.from} is older than ${plan.rollbackFloor})` : ''}.`)
  } else if (plan.beyondTable) {
    const l = plan.beyondTable.lastRow
    out.push(`  ${plan.to} is beyond the interface document's rollback table (its last row: ${l.from}–${l.to} → ${l.floor}).`)
    out.push(`  No rollback floor is assumed, so whether ${plan.from} stays reachable is unknown.`)
    const ref = plan.beyondTable.reference
    if (ref) {
      out.push(`  [${ref.label}]`)
      out.push(`    ${plan.to} is in ${ref.range.from}${ref.range.to ? `–${ref.range.to}` : ' onward'} → ${ref.rollbackFloor}${ref.extrapolated ? ' (extrapolated past the newest release it was computed from)' : ''}; rollback to ${plan.from}: ${yesNo(ref.canRollBackToFrom)}.`)
      out.push(`    Its steps: ${ref.steps.join(', ')}`)
    }
  }
  out.push('')

  if (plan.changes.length === 0) {
    out.push(`Changes after ${plan.from} up to ${plan.to}: none listed.`)
  } else {
    out.push(`Changes after ${plan.from} up to ${plan.to} (oldest first)`)
    for (const c of plan.changes) {
      out.push(`  ${c.version}  ${c.change}  [${c.source === 'interface' ? 'interface' : `reference: ${c.section.replace(/^reference\//, '')}`}]`)
      for (const a of c.actions) out.push(`      - ${a.kind}: ${a.detail}`)
    }
  }
  out.push('')

  if (plan.stepDetails.length > 0) {
    out.push('Steps (the last version of each incompatible schema range crossed, then the target: each hop can be rolled back to the step before it whenever any plan could allow it)')
    const width = Math.max(...plan.stepDetails.map((s) => s.version.length))
    plan.stepDetails.forEach((s, i) => {
      const last = i === plan.stepDetails.length - 1
      const range = s.range ? `range ${s.range.from}${s.range.to ? `–${s.range.to}` : ' onward'}, floor ${s.rollbackFloor}` : 'beyond the rollback table, floor unknown'
      const back = s.canRollBackToPrevious === null
        ? `rollback to ${s.previous} unknown`
        : s.canRollBackToPrevious
          ? `rollback to ${s.previous} possible`
          : `rollback to ${s.previous} NOT possible${s.rollbackPossibleAtAll === false ? ' (no plan avoids this: the floor is newer than every earlier release)' : ''}`
      out.push(`  ${String(i + 1).padStart(2)}. ${s.version.padEnd(width)}  ${last ? '(target) ' : ''}${range}; ${back}`)
    })
    out.push('')
  }

  out.push(plan.steps.length > 1 ? 'Between steps' : 'Reminder')
  for (const r of plan.reminders) out.push(`  - ${r}`)
  if (plan.warnings.length > 0) {
    out.push('')
    out.push('Warnings')
    for (const w of plan.warnings) out.push(`  - ${w}`)
  }
  return out.join('\n') + '\n'
}

// ---------------------------------------------------------------------------------------------

/** Where output goes; tests pass collectors, `main` the process streams. */
export interface Io {
  out(text: string): void
  err(text: string): void
}

export async function main(argv: string[]): Promise<number> {
  return run(argv, { out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(s) })
}

export async function run(argv: string[], io: Io): Promise<number> {
  const usageError = (message: string): number => {
    io.err(`plan-upgrade: ${message}\nrun 'admin-conformance plan-upgrade --help' for usage\n`)
    return 2
  }
  let values: Record<string, string | boolean | undefined>
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        'hs-url': { type: 'string' },
        'hs-prefix': { type: 'string' },
        table: { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (err) {
    return usageError((err as Error).message)
  }
  if (values.help) {
    io.out(USAGE + '\n')
    return 0
  }
  const str = (k: string): string | undefined => values[k] as string | undefined

  const table = (str('table') ?? DEFAULT_TABLE) as TableName
  if (!TABLE_NAMES.includes(table)) return usageError(`--table must be one of ${TABLE_NAMES.join(', ')}, got ${JSON.stringify(str('table'))}`)
  if (str('to') === undefined) return usageError('--to <version> is required')
  if (str('from') !== undefined && str('hs-url') !== undefined) return usageError('give either --from or --hs-url, not both')
  if (str('from') === undefined && str('hs-url') === undefined) return usageError('--from <version> or --hs-url <url> is required')
  if (str('hs-prefix') !== undefined && str('hs-url') === undefined) return usageError('--hs-prefix only applies with --hs-url')
  let timeoutMs = DEFAULT_TIMEOUT_MS
  if (str('timeout') !== undefined) {
    const t = str('timeout')!
    if (!/^[1-9][0-9]{0,6}$/.test(t)) return usageError(`--timeout must be a whole number of milliseconds (1 to 9999999), got ${JSON.stringify(t)}`)
    timeoutMs = Number(t)
  }
  const hsPrefix = str('hs-prefix') ?? '/_synapse'

  let to: Version
  try {
    to = parseVersion(str('to')!)
  } catch (err) {
    return usageError(`--to: ${(err as Error).message}`)
  }

  let from: Version
  let fromSource: { kind: 'argument' } | { kind: 'homeserver'; url: string; serverVersion: string }
  if (str('from') !== undefined) {
    try {
      from = parseVersion(str('from')!)
    } catch (err) {
      return usageError(`--from: ${(err as Error).message}`)
    }
    fromSource = { kind: 'argument' }
  } else {
    try {
      normalisePrefix(hsPrefix)
      const got = await fetchServerVersion(str('hs-url')!, { hsPrefix, timeoutMs })
      from = got.version
      fromSource = { kind: 'homeserver', url: got.url, serverVersion: got.serverVersion }
    } catch (err) {
      if (err instanceof VersionError) return usageError(err.message)
      io.err(`plan-upgrade: ${(err as Error).message}\n`)
      return 1
    }
  }

  let plan: UpgradePlan
  try {
    plan = planUpgrade(from, to, { table, hsPrefix })
  } catch (err) {
    if (err instanceof VersionError) return usageError(err.message)
    throw err
  }

  if (values.json) {
    io.out(JSON.stringify({ ...plan, fromSource }, null, 2) + '\n')
  } else {
    const note = fromSource.kind === 'homeserver'
      ? `Running version ${formatVersion(from)} read from ${fromSource.url} (server_version ${JSON.stringify(fromSource.serverVersion)})`
      : undefined
    io.out(renderPlan(plan, note))
  }
  return 0
}
