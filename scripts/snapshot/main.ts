// `admin-conformance snapshot`: read a deployment (read-only) and write one JSON file of its observable
// behaviour: for every operation of the route tables a fixed set of requests (listings' two ends with each
// filter, single resources, bad input, unrouted requests, the auth answers, discovery), each answer's
// status, headers that matter and normalised body. `diff` compares two of them.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { knownTokens, userAgentFor, DEFAULT_TIMEOUTS, type Target } from '../../lib/target.ts'
import { redact } from '../../lib/redact.ts'
import pkg from '../../package.json' with { type: 'json' }
import { EXIT, EXIT_CODES_HELP, UsageError, failWith, parseCommandLine, processIo, prefixed, type Io } from '../common/index.ts'
import { TARGET_FLAGS, TARGET_HELP, hasTarget, targetOptions, type TargetOptions } from '../common/target-options.ts'
import { preflight } from '../common/preflight.ts'
import { measureNoise } from './aspects.ts'
import { SnapshotIncomplete, takeSnapshot } from './engine.ts'
import { readSnapshot, SnapshotFileError, type Snapshot } from './format.ts'

export const HELP = `usage: admin-conformance snapshot --output FILE [target options] [--noise-from EARLIER.json]

Reads a deployment, read-only, and writes one JSON file of its observable behaviour: for every operation
of the route tables (areas A and B, every release's routes), a fixed set of requests: each listing's first
and last page, with each filter, bad input for each parameter, single resources (a real one, a missing
one, a malformed id), the answers without a token and with a non-admin token, unrouted requests, the
legacy admin prefixes, discovery and version documents. Each answer is kept as its status, the headers
that matter and its body's shape and values, with ids, timestamps, tokens, cursors and moving counts
replaced by placeholders (the file's normalisation section says how). The number of requests does not
depend on the deployment's size. Mutating routes are asked without any credential and without a body
(nothing a server can act on): the answer only says whether the release routes them.

options:
  --output FILE            where to write the snapshot (required; '-' for standard output)
  --noise-from FILE        an earlier snapshot of the same deployment: what differs between it and this
                           one is recorded as noise, which diff then ignores
  -h, --help               print this help

${TARGET_HELP}

${EXIT_CODES_HELP} (here: 0 written, 1 incomplete (request budget spent) or not written, 3 a target
does not answer or rejects its token)`

const FLAGS = {
  ...TARGET_FLAGS,
  output: { type: 'string' },
  'noise-from': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

/** The target of a snapshot or a diff against a live deployment, from the shared target options. */
export function targetOf(o: TargetOptions, command: string): Target {
  const runId = `${command}-${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`
  const target: Target = {
    allowWrites: false,
    isMock: false,
    runId,
    userAgent: userAgentFor(pkg.version, runId),
    timeouts: { connectMs: DEFAULT_TIMEOUTS.connectMs, requestMs: o.requestTimeoutMs },
  }
  if (o.masUrl) target.mas = { url: o.masUrl, adminToken: o.masToken, userToken: o.masUserToken }
  if (o.hsUrl)
    target.hs = { url: o.hsUrl, adminToken: o.hsToken, userToken: o.hsUserToken, prefix: o.hsPrefix, clientPrefix: o.clientPrefix }
  return target
}

/** Preflight, then the snapshot of a live target; CommandErrors for exit 3 and 1. */
export async function snapshotLive(o: TargetOptions, command: string, io: Io): Promise<Snapshot> {
  const target = targetOf(o, command)
  const secrets = knownTokens(target)
  const pf = await preflight(target)
  if (!pf.ok) {
    const { UnreachableError } = await import('../common/index.ts')
    throw new UnreachableError(redact(`preflight failed:\n${pf.problems.map((p) => `  ${p}`).join('\n')}`, secrets))
  }
  for (const w of pf.warnings) io.err(prefixed(command, `warning: ${redact(w, secrets)}`) + '\n')
  target.versions = { mas: pf.masVersion, hs: pf.hsVersion }
  try {
    return await takeSnapshot(target, o, pkg.version)
  } catch (e) {
    if (e instanceof SnapshotIncomplete) {
      const { CommandError } = await import('../common/index.ts')
      throw new CommandError(e.message, EXIT.failed)
    }
    throw e
  }
}

export async function run(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { values } = parseCommandLine(argv, FLAGS)
    if (values.help) {
      io.out(HELP + '\n')
      return EXIT.pass
    }
    const o = targetOptions(values, env)
    if (!hasTarget(o)) throw new UsageError('no target: give --mas-url and/or --hs-url (or MAS_URL / HS_URL)')
    if (values.output === undefined || values.output === '') throw new UsageError('--output FILE is required (- for standard output)')
    const output = values.output === '-' ? '-' : path.resolve(values.output)
    let earlier: Snapshot | undefined
    if (values['noise-from'] !== undefined) {
      try {
        earlier = readSnapshot(values['noise-from'])
      } catch (e) {
        if (e instanceof SnapshotFileError) throw new UsageError(`--noise-from ${e.message}`)
        throw e
      }
    }
    const started = performance.now()
    const snap = await snapshotLive(o, 'snapshot', io)
    if (earlier) snap.noise = { from: path.basename(values['noise-from']!), aspects: measureNoise(earlier, snap) }
    const text = JSON.stringify(snap, null, 1) + '\n'
    if (output === '-') io.out(text)
    else {
      try {
        writeFileSync(output, text)
      } catch (e) {
        const { CommandError } = await import('../common/index.ts')
        throw new CommandError(`${output} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, EXIT.failed)
      }
    }
    const probes = Object.values(snap.probes)
    const skipped = probes.filter((p) => p.status === undefined).length
    const noise = snap.noise ? `; ${Object.keys(snap.noise.aspects).length} probe(s) vary by themselves against ${snap.noise.from}` : ''
    io.err(
      prefixed(
        'snapshot',
        `${probes.length} probes, ${snap.requests} requests, ${skipped} not answered or skipped, in ${((performance.now() - started) / 1000).toFixed(2)} s${noise}${output === '-' ? '' : `; written to ${output}`}`,
      ) + '\n',
    )
    return EXIT.pass
  } catch (e) {
    return failWith(io, 'snapshot', e)
  }
}

export async function main(argv: string[]): Promise<number> {
  return run(argv, processIo)
}
