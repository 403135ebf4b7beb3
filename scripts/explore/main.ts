// `admin-conformance explore`: generated requests against a target (or the bundled mock), each answer
// held to the interface's rules, the schemas and the model (the bundled mock claiming the target's
// release); findings shrunk, classified and replayable (--replay).
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { knownTokens, userAgentFor, type Target } from '../../lib/target.ts'
import { redact } from '../../lib/redact.ts'
import pkg from '../../package.json' with { type: 'json' }
import {
  CommandError,
  EXIT,
  EXIT_CODES_HELP,
  UnreachableError,
  UsageError,
  failWith,
  parseCommandLine,
  positiveNumber,
  prefixed,
  processIo,
  type Io,
} from '../common/index.ts'
import { TARGET_FLAGS, TARGET_HELP, hasTarget, targetOptions, type TargetOptions } from '../common/target-options.ts'
import { preflight } from '../common/preflight.ts'
import type { Case, Prefixes } from './cases.ts'
import { clientFor, explore, type ExploreResult, type Side } from './engine.ts'
import { startMockSide, startModel } from './model.ts'
import { exploreSequences, readSequence, runSequence, saveSequence, sequenceText, type Step } from './sequences.ts'
import { CaseFileError, failing, jsonReport, junitReport, readCases, saveCases, terminalReport } from './report.ts'

export const HELP = `usage: admin-conformance explore [target options] [--seed N] [--allow-writes] [--json FILE]
       admin-conformance explore --replay FILE [target options]

Generates requests for every operation of areas A (the auth service's /api/admin/v1) and B (the
homeserver's report admin API, server_version) that the target's release has, from the project's own
schemas and route tables: values each parameter should take (real ids the target lists among them),
edges (0, 1, -1, page sizes, integers beyond 2^32, 2^63 and 2^64, empty, long and unicode strings, SQL
and LIKE wildcards), values it must refuse (wrong types, malformed ids, conflicting page parameters,
foreign cursors), methods a path does not have, and missing, malformed and non-admin credentials. Each
answer must not be a 5xx, must carry the area's error envelope, must match its schema, and must agree in
status, errcode and keys with the model: the bundled mock claiming the target's release, started here.
A difference is a defect of the target, a known deviation or defect of its release
(lib/data/deviations.json), or a gap of the model. Each finding is shrunk (query parameters and body the
finding does not need are dropped) and shown with its request, answer, rule and a curl line.
Read-only unless --allow-writes: a mutating route is then asked only without any credential or body.
Without a target the bundled mock is explored (--mock-fault injects a fault of its catalog).

options:
  --seed N                 the seed of the random combinations (default 1): a seed gives the same requests
  --random N               random combinations per listing, drawn by fast-check (default 4; 0: none)
  --allow-writes           also send mutating requests a conformant server refuses (ids of no item, bodies
                           of the wrong shape) with tokens: only on a throwaway deployment
  --strict                 known deviations and defects of the release fail the command too
  --json FILE              write the whole report as JSON ('-' for standard output)
  --junit FILE             write a JUnit XML report (one test case per operation)
  --html FILE              an HTML report: findings by operation and rule, requests per operation
  --sequences N            with --allow-writes: stateful sequences drawn (default 100; 0: none)
  --save-cases DIR         write one case file per finding into DIR (for --replay)
  --replay FILE            send the cases of a case file (or of every finding of a --json report) again
  --area LIST              admin (area A), reports (area B), or both (default: every area a target is given for)
  --mock-fault NAME        with no target: the bundled mock with this fault (repeatable; mock --list-faults)
  -h, --help               print this help

${TARGET_HELP}

${EXIT_CODES_HELP} (here: 0 no finding to act on, 1 a finding (known ones only with --strict), the
budget or deadline ran out, or nothing was sent; 3 a target does not answer or rejects its token)`

const FLAGS = {
  ...TARGET_FLAGS,
  seed: { type: 'string' },
  random: { type: 'string' },
  'allow-writes': { type: 'boolean' },
  strict: { type: 'boolean' },
  json: { type: 'string' },
  'save-cases': { type: 'string' },
  sequences: { type: 'string' },
  html: { type: 'string' },
  junit: { type: 'string' },
  replay: { type: 'string' },
  'mock-fault': { type: 'string', multiple: true },
  area: { type: 'string', choices: ['admin', 'reports'], list: true },
  help: { type: 'boolean', short: 'h' },
} as const

interface Resolved {
  target: Side
  versions: { mas?: string; hs?: string }
  label: string
  close(): Promise<void>
}

function runIdOf(): string {
  return `explore-${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`
}

/** The live target after its preflight, with the releases it claims. */
async function liveTarget(o: TargetOptions, allowWrites: boolean, userAgent: string, io: Io): Promise<Resolved> {
  const target: Target = { allowWrites, isMock: false, runId: '', userAgent, timeouts: { connectMs: 5_000, requestMs: o.requestTimeoutMs } }
  if (o.masUrl) target.mas = { url: o.masUrl, adminToken: o.masToken, userToken: o.masUserToken }
  if (o.hsUrl)
    target.hs = { url: o.hsUrl, adminToken: o.hsToken, userToken: o.hsUserToken, prefix: o.hsPrefix, clientPrefix: o.clientPrefix }
  const secrets = knownTokens(target)
  const pf = await preflight(target)
  if (!pf.ok) throw new UnreachableError(redact(`preflight failed:\n${pf.problems.map((p) => `  ${p}`).join('\n')}`, secrets))
  for (const w of pf.warnings) io.err(prefixed('explore', `warning: ${redact(w, secrets)}`) + '\n')
  const client = clientFor({
    allowWrites,
    userAgent,
    secrets,
    requestTimeoutMs: o.requestTimeoutMs,
    maxResponseBytes: o.maxResponseBytes,
    ...(o.rate !== undefined ? { rate: o.rate } : {}),
    ...(o.maxRequests !== undefined ? { maxRequests: o.maxRequests } : {}),
    ...(o.deadlineS ? { deadlineS: o.deadlineS } : {}),
  })
  const side: Side = {
    ...(o.masUrl
      ? {
          mas: {
            url: o.masUrl,
            ...(o.masToken ? { adminToken: o.masToken } : {}),
            ...(o.masUserToken ? { userToken: o.masUserToken } : {}),
          },
        }
      : {}),
    ...(o.hsUrl
      ? { hs: { url: o.hsUrl, ...(o.hsToken ? { adminToken: o.hsToken } : {}), ...(o.hsUserToken ? { userToken: o.hsUserToken } : {}) } }
      : {}),
    prefixes: { hsPrefix: o.hsPrefix, clientPrefix: o.clientPrefix },
    client,
  }
  const versions = { ...(pf.masVersion ? { mas: pf.masVersion } : {}), ...(pf.hsVersion ? { hs: pf.hsVersion } : {}) }
  const label = [
    o.masUrl && `auth service ${o.masUrl}${pf.masVersion ? ` (${redact(pf.masVersion, secrets)})` : ''}`,
    o.hsUrl && `homeserver ${o.hsUrl}${pf.hsVersion ? ` (${redact(pf.hsVersion, secrets)})` : ''}`,
  ]
    .filter(Boolean)
    .join(' and ')
  return { target: side, versions, label, close: () => client.close() }
}

/** The bundled mock as the target (claiming its default releases, with the faults asked for). */
async function bundledTarget(o: TargetOptions, faults: string[], userAgent: string): Promise<Resolved> {
  const prefixes: Prefixes = { hsPrefix: o.hsPrefix, clientPrefix: o.clientPrefix }
  let m
  try {
    m = await startMockSide({ versions: {}, prefixes, userAgent, faults })
  } catch (e) {
    if ((e as Error).name === 'UnknownFaultError')
      throw new UsageError(`--mock-fault: ${(e as Error).message.split(';')[0]} (see admin-conformance mock --list-faults)`)
    throw e
  }
  const { mockOptions } = await import('../../mock/core/options.ts')
  const d = mockOptions({ adminToken: '-', userToken: '-', hsAdminToken: '-', hsUserToken: '-', adminClientSecret: '-' }, {})
  return {
    target: m.side,
    versions: { mas: d.masVersion, hs: d.hsVersion },
    label: `the bundled mock${faults.length ? ` with fault ${faults.join(', ')}` : ''} on ${m.url}`,
    close: m.close,
  }
}

export async function run(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const cleanups: (() => Promise<void>)[] = []
  try {
    const { values } = parseCommandLine(argv, FLAGS)
    if (values.help) {
      io.out(HELP + '\n')
      return EXIT.pass
    }
    const o = targetOptions(values, env)
    const seed = positiveNumber('--seed', values.seed, { integer: true, allowZero: true, max: 2 ** 31 - 1 }) ?? 1
    const random = positiveNumber('--random', values.random, { integer: true, allowZero: true, max: 1000 }) ?? 4
    const faults = values['mock-fault'] ?? []
    if (faults.length && hasTarget(o)) throw new UsageError('--mock-fault is for the bundled mock: give it without --mas-url/--hs-url')
    let cases: Case[] | undefined
    let replaySteps: Step[] | undefined
    if (values.replay !== undefined) {
      try {
        replaySteps = readSequence(values.replay)
      } catch (e) {
        throw new UsageError(`--replay ${(e as Error).message}`)
      }
    }
    if (values.replay !== undefined && !replaySteps) {
      try {
        cases = readCases(values.replay)
      } catch (e) {
        if (e instanceof CaseFileError) throw new UsageError(`--replay ${e.message}`)
        throw e
      }
    }
    const allowWrites = values['allow-writes'] === true
    const userAgent = userAgentFor(pkg.version, runIdOf())
    const started = performance.now()
    const areas = values.area === undefined ? ['admin', 'reports'] : values.area.split(',').map((a) => a.trim())
    if (!areas.includes('admin') && o.masUrl && !o.hsUrl) throw new UsageError('--area reports needs --hs-url (area B is the homeserver)')
    if (!areas.includes('reports') && o.hsUrl && !o.masUrl)
      throw new UsageError('--area admin needs --mas-url (area A is the auth service)')
    const t = hasTarget(o) ? await liveTarget(o, allowWrites, userAgent, io) : await bundledTarget(o, faults, userAgent)
    cleanups.push(t.close)
    if (!areas.includes('admin')) delete t.target.mas
    if (!areas.includes('reports')) delete t.target.hs
    const model = await startModel(t.versions, t.target.prefixes, userAgent)
    cleanups.push(model.close)
    io.err(
      prefixed(
        'explore',
        `${cases ? `replaying ${cases.length} case(s) of ${path.basename(values.replay!)}` : `seed ${seed}`} against ${t.label}; the model claims ${[t.versions.mas && `auth service ${t.versions.mas}`, t.versions.hs && `homeserver ${t.versions.hs}`].filter(Boolean).join(', ') || 'its default releases'}${allowWrites ? '; writes allowed' : '; read-only'}`,
      ) + '\n',
    )
    // a sequence file: its steps again on fresh users, on the target and the model
    if (replaySteps) {
      if (!allowWrites) throw new UsageError('--replay of a sequence sends writes: give --allow-writes')
      const f = await runSequence(
        { target: t.target, model: model.model, strict: model.strict },
        replaySteps,
        `replay-${Date.now().toString(36)}`,
      )
      io.out(
        f
          ? `the sequence differs from the model again:\n${sequenceText(f)}\n`
          : `the sequence (${replaySteps.length} steps) agrees with the model\n`,
      )
      return f ? EXIT.failed : EXIT.pass
    }
    const tty = (process.stderr as { isTTY?: boolean }).isTTY === true && io.err === processIo.err
    let shown = -1
    const result: ExploreResult = await explore(t.target, model.model, model.strict, {
      seed,
      random,
      allowWrites,
      versions: t.versions,
      ...(cases ? { cases } : {}),
      onProgress: (done, total, found) => {
        const step = Math.floor((done / total) * 4)
        if (tty) io.err(`\r${prefixed('explore', `${done}/${total} cases, ${found} finding(s)`)}${done === total ? '\n' : ''}`)
        else if (step !== shown && done !== total) {
          shown = step
          io.err(prefixed('explore', `${done}/${total} cases, ${found} finding(s)`) + '\n')
        }
      },
    })
    io.out(terminalReport(result, { seed, strict: values.strict === true }))
    // stateful sequences: only with writes allowed, not when replaying single cases
    let sequenceFound = false
    let sequenceShown: string | undefined
    if (allowWrites && !cases && (t.target.mas || t.target.hs)) {
      const runs = values.sequences === undefined ? 100 : Number(values.sequences)
      if (!Number.isInteger(runs) || runs < 0) throw new UsageError('--sequences takes a whole number of sequences')
      const s = await exploreSequences(
        { target: t.target, model: model.model, strict: model.strict },
        { seed, runs, tag: `explore-${seed}-${Date.now().toString(36)}`, apis: { mas: !!t.target.mas, hs: !!t.target.hs } },
      )
      io.out(
        s.finding
          ? `sequences: ${s.runs} run; the shortest that differs from the model:\n${sequenceText(s.finding)}\n`
          : `sequences: ${s.runs} run, none differs from the model\n`,
      )
      io.err(
        prefixed(
          'explore',
          `sequence steps run: ${
            Object.entries(s.ran)
              .map(([op, n]) => `${op} ${n}`)
              .join(', ') || 'none'
          }`,
        ) + '\n',
      )
      for (const why of s.skipped) io.err(prefixed('explore', `sequence steps skipped: ${why}`) + '\n')
      sequenceFound = s.finding !== undefined
      if (s.finding) sequenceShown = sequenceText(s.finding)
      if (s.finding && values['save-cases'] !== undefined) {
        const file = saveSequence(path.resolve(values['save-cases']), s.finding, { tool: pkg.version, seed, versions: t.versions })
        io.err(prefixed('explore', `the sequence in ${file} (--replay it with --allow-writes)`) + '\n')
      }
    }
    if (values.html !== undefined) {
      const { exploreHtml } = await import('./html.ts')
      const label = [o.masUrl, o.hsUrl].filter(Boolean).join(', ') || t.label
      try {
        writeFileSync(path.resolve(values.html), exploreHtml(result, { seed, target: label }, sequenceShown))
      } catch (e) {
        throw new CommandError(
          `--html ${values.html} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          EXIT.failed,
        )
      }
    }
    const meta = {
      tool: pkg.version,
      seed,
      random,
      allowWrites,
      versions: t.versions,
      target: { ...(o.masUrl ? { mas: o.masUrl } : {}), ...(o.hsUrl ? { hs: o.hsUrl } : {}) },
    }
    if (values.json !== undefined) {
      const text = jsonReport(result, meta)
      if (values.json === '-') io.out(text)
      else {
        try {
          writeFileSync(path.resolve(values.json), text)
        } catch (e) {
          throw new CommandError(
            `--json ${values.json} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
            EXIT.failed,
          )
        }
      }
    }
    if (values.junit !== undefined) {
      const { xml } = await import('../run/report/junit.ts')
      try {
        writeFileSync(path.resolve(values.junit), junitReport(result, values.strict === true, xml))
      } catch (e) {
        throw new CommandError(
          `--junit ${values.junit} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          EXIT.failed,
        )
      }
    }
    if (values['save-cases'] !== undefined && result.findings.length > 0) {
      const files = saveCases(path.resolve(values['save-cases']), result.findings, meta)
      io.err(prefixed('explore', `${files.length} case file(s) in ${path.resolve(values['save-cases'])}`) + '\n')
    }
    io.err(prefixed('explore', `done in ${((performance.now() - started) / 1000).toFixed(1)} s`) + '\n')
    // a run that sent nothing proved nothing: never exit 0
    if (result.sent === 0) {
      io.err(prefixed('explore', 'nothing was sent (no token for any case, or every case needs writes): nothing proved') + '\n')
      return EXIT.failed
    }
    if (result.incomplete) return EXIT.failed
    return failing(result.findings, values.strict === true).length > 0 || sequenceFound ? EXIT.failed : EXIT.pass
  } catch (e) {
    return failWith(io, 'explore', e)
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => {})
  }
}

export async function main(argv: string[]): Promise<number> {
  return run(argv, processIo)
}
