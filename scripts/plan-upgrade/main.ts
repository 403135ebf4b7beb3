// `admin-conformance plan-upgrade`: rollback floor, interface-relevant changes and the stepping plan
// between two homeserver versions, and the auth service's upgrade notes. The rules live in
// lib/versions.ts (data in lib/data/); this file parses flags, optionally reads --from from a live
// homeserver, and prints. Citations: sources.ts; the homeserver read: server-version.ts.
import { compareVersions, formatVersion, parseVersion, VersionError, type Version } from '../../lib/versions.ts'
import { durationSeconds, EXIT, EXIT_CODES_HELP, failWith, parseCommandLine, processIo, UsageError, type Io } from '../common/index.ts'
import { masNotes } from './mas.ts'
import { renderMas, renderPlan } from './render.ts'
import { fetchServerVersion, DEFAULT_TIMEOUT_S } from './server-version.ts'
import { citedPlan, DEFAULT_PLAN_TABLE, PLAN_TABLES, type CitedPlan, type PlanTable } from './sources.ts'
import { encounters, renderEncounters, type SnapshotEncounters } from './snapshot.ts'
import { readSnapshot, SnapshotFileError, type Snapshot } from '../snapshot/format.ts'
import { versionOf } from '../common/release-rows.ts'
import { printable } from '../common/escape.ts'

export const USAGE = `usage: admin-conformance plan-upgrade --to <version> (--from <version> | --hs-url <url> | --snapshot <file>) [options]
       admin-conformance plan-upgrade --mas-from <version> --mas-to <version> [options]

Plans a homeserver upgrade: the rollback floor of the target, whether a rollback to the current
version stays possible, every interface-relevant change on the way (oldest first) with what it asks
of the operator, and the intermediate versions worth stepping through. With --mas-from/--mas-to, also
the auth service's changes and upgrade notes. Every fact names its source.

options:
  --from <version>      the homeserver version running now: v1.2.3 or 1.2.3 (release candidates are rejected)
  --hs-url <url>        read the running version from a homeserver instead:
                        GET <url><hs-prefix>/admin/v1/server_version (no authentication)
  --hs-prefix <path>    the homeserver's admin prefix (default /_synapse)
  --to <version>        the homeserver version to upgrade to
  --table <name>        rollback table: complete (default; the interface document's rows, then the newer
                        rows read from Synapse's docs/upgrade.md), interface (the document's rows only,
                        which end at v1.102.0) or reference (Synapse's rows only)
  --snapshot <file>     a snapshot of the deployment (admin-conformance snapshot): says which of the
                        changes on the way this deployment will meet (the operations it serves, the
                        data it holds, the prefixes it answers under); it gives --from and --mas-from
                        when they are not set
  --mas-from <version>  the auth service (MAS) version running now
  --mas-to <version>    the auth service version to upgrade to
  --timeout <seconds>   time limit for --hs-url, for connecting and for the whole answer
                        (default ${DEFAULT_TIMEOUT_S})
  --json                print one JSON object instead of text
  -h, --help            print this help

${EXIT_CODES_HELP} (here: 0 plan printed, 3 the homeserver's version could not be read)`

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  'hs-url': { type: 'string' },
  'hs-prefix': { type: 'string' },
  table: { type: 'string', choices: PLAN_TABLES },
  'mas-from': { type: 'string' },
  'mas-to': { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  snapshot: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

export async function main(argv: string[]): Promise<number> {
  return run(argv, processIo)
}

function version(option: string, text: string): Version {
  try {
    return parseVersion(text)
  } catch (err) {
    throw new UsageError(`${option}: ${(err as Error).message}`)
  }
}

interface Request {
  to?: Version
  from?: Version
  hsUrl?: string
  hsPrefix: string
  table: PlanTable
  timeoutS: number
  mas?: { from: Version; to: Version }
  json: boolean
  snapshot?: { file: string; snap: Snapshot }
}

function parseRequest(argv: string[]): Request | 'help' {
  const { values } = parseCommandLine(argv, OPTIONS)
  const v = { ...values }
  if (v.help) return 'help'
  let snapshot: Request['snapshot']
  if (v.snapshot !== undefined) {
    try {
      snapshot = { file: v.snapshot, snap: readSnapshot(v.snapshot) }
    } catch (e) {
      if (e instanceof SnapshotFileError) throw new UsageError(`--snapshot ${e.message}`)
      throw e
    }
    // the snapshot's releases stand for --from / --mas-from when they are not given
    const hs = snapshot.snap.target.hs?.version
    const mas = snapshot.snap.target.mas?.version
    if (v.from === undefined && v['hs-url'] === undefined && v.to !== undefined) {
      const parsed = versionOf(hs)
      if (!parsed) throw new UsageError('--snapshot: the snapshot does not know the homeserver release; give --from')
      v.from = formatVersion(parsed)
    }
    if (v['mas-to'] !== undefined && v['mas-from'] === undefined) {
      const parsed = versionOf(mas)
      if (!parsed) throw new UsageError('--snapshot: the snapshot does not know the auth service release; give --mas-from')
      v['mas-from'] = formatVersion(parsed)
    }
  }
  const hasMas = v['mas-from'] !== undefined || v['mas-to'] !== undefined
  if (hasMas && (v['mas-from'] === undefined || v['mas-to'] === undefined)) throw new UsageError('--mas-from and --mas-to go together')
  if (v.to === undefined && (!hasMas || v.from !== undefined || v['hs-url'] !== undefined))
    throw new UsageError('--to <version> is required (or --mas-from and --mas-to alone for the auth service)')
  if (v.to !== undefined) {
    if (v.from !== undefined && v['hs-url'] !== undefined) throw new UsageError('give either --from or --hs-url, not both')
    if (v.from === undefined && v['hs-url'] === undefined) throw new UsageError('--from <version> or --hs-url <url> is required')
  }
  if (v['hs-prefix'] !== undefined && v['hs-url'] === undefined) throw new UsageError('--hs-prefix only applies with --hs-url')
  const req: Request = {
    hsPrefix: v['hs-prefix'] ?? '/_synapse',
    table: (v.table as PlanTable | undefined) ?? DEFAULT_PLAN_TABLE,
    timeoutS: durationSeconds('--timeout', v.timeout, { max: 3600 }) ?? DEFAULT_TIMEOUT_S,
    json: v.json === true,
    ...(snapshot ? { snapshot } : {}),
  }
  if (v.to !== undefined) req.to = version('--to', v.to)
  if (v.from !== undefined) req.from = version('--from', v.from)
  if (v['hs-url'] !== undefined) req.hsUrl = v['hs-url']
  if (hasMas) {
    req.mas = { from: version('--mas-from', v['mas-from']!), to: version('--mas-to', v['mas-to']!) }
    if (compareVersions(req.mas.from, req.mas.to) > 0) {
      throw new UsageError(`reversed range: --mas-from ${formatVersion(req.mas.from)} is newer than --mas-to ${formatVersion(req.mas.to)}`)
    }
  }
  return req
}

type FromSource = { kind: 'argument' } | { kind: 'homeserver'; url: string; serverVersion: string }

async function homeserverPlan(req: Request): Promise<{ plan: CitedPlan; fromSource: FromSource } | undefined> {
  if (!req.to) return undefined
  let from = req.from
  let fromSource: FromSource = { kind: 'argument' }
  if (!from) {
    const got = await fetchServerVersion(req.hsUrl!, { hsPrefix: req.hsPrefix, timeoutS: req.timeoutS })
    from = got.version
    fromSource = { kind: 'homeserver', url: got.url, serverVersion: got.serverVersion }
  }
  try {
    return { plan: citedPlan(formatVersion(from), formatVersion(req.to), req.table, req.hsPrefix), fromSource }
  } catch (err) {
    if (err instanceof VersionError) throw new UsageError(err.message)
    throw err
  }
}

export async function run(argv: string[], io: Io): Promise<number> {
  try {
    const req = parseRequest(argv)
    if (req === 'help') {
      io.out(USAGE + '\n')
      return EXIT.pass
    }
    const hs = await homeserverPlan(req)
    const mas = req.mas ? masNotes(req.mas.from, req.mas.to) : undefined
    const met: SnapshotEncounters[] = []
    if (req.snapshot) {
      if (hs && req.to) met.push(encounters(req.snapshot.snap, 'hs', parseVersion(hs.plan.from), req.to))
      if (req.mas) met.push(encounters(req.snapshot.snap, 'mas', req.mas.from, req.mas.to))
    }
    if (req.json) {
      io.out(
        JSON.stringify(
          {
            ...(hs ? { ...hs.plan, fromSource: hs.fromSource } : {}),
            ...(mas ? { mas } : {}),
            ...(req.snapshot ? { snapshot: { file: req.snapshot.file, encounters: met } } : {}),
          },
          null,
          2,
        ) + '\n',
      )
      return EXIT.pass
    }
    const parts: string[] = []
    if (hs) {
      const note =
        hs.fromSource.kind === 'homeserver'
          ? `Running version ${hs.plan.from} read from ${hs.fromSource.url} (server_version ${JSON.stringify(hs.fromSource.serverVersion)})`
          : undefined
      parts.push(renderPlan(hs.plan, note))
    }
    if (mas) parts.push(renderMas(mas))
    for (const e of met) parts.push(renderEncounters(e, req.snapshot!.file, printable))
    io.out(parts.join('\n'))
    return EXIT.pass
  } catch (err) {
    return failWith(io, 'plan-upgrade', err)
  }
}
