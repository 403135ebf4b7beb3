// `admin-conformance run`: resolve the target (flags, environment, or the bundled mock), check that every
// selected area has what it needs, preflight the target, run the selected suite files with tap in a child
// process, and report. This file holds the sequence; the pieces live in folders beside it, one concern
// each: options/ (flags, --help, the limits handed to the suites), target/ (the target, the bundled mocks,
// the fault matrix, the introspection client), engine/ (the suite files, their build, tap, the probe),
// workers/ (the long-lived suite processes), results/ (the TAP tree, the results, the verdict), report/
// (the report formats), terminal/ (what a person reads). Other folders import the run through index.ts.
//
// Exit codes (scripts/common/exit.ts): 0 every selected area was checked and passed; 1 a check failed, a suite
// file crashed or timed out, a report could not be written, or nothing was proved (an area without a
// target, a token or a check, unless --allow-partial); 2 usage error; 3 a target does not answer or
// rejects its token; 130 interrupted (the results of the files that finished are still reported).
import { rmSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { redact } from '../../lib/http.ts'
import { knownTokens, targetEnv, type Target } from '../../lib/target.ts'
import pkg from '../../package.json' with { type: 'json' }
import { defaultJobs, resolveTarget, usesBundledMock, type Resolved } from './target/bundled-mock.ts'
import { CheckNames } from './engine/check-names.ts'
import { Collector } from './results/collect.ts'
import { style, useColour } from './terminal/colour.ts'
import { EXIT, UsageError, failWith, prefixed } from '../common/index.ts'
import { MATRIX_AREAS, matrixEnv } from './target/fault-matrix.ts'
import { HELP } from './options/help.ts'
import { grepRegExp, parseOptions, type Options } from './options/options.ts'
import { preflight } from '../common/preflight.ts'
import { registerIntrospectionClient } from './target/introspection.ts'
import { meaninglessPass, readProbe } from './engine/probe-data.ts'
import { finishMatrix, finishRun } from './finish.ts'
import type { RunIO, RunResult, RunState } from './run-types.ts'
import { claimOrder, suiteFiles, waitsOnPurpose } from './engine/suite-files.ts'
import { ROOT } from '../../lib/package-paths.mjs'
import { runTap, startWorkers, suiteEnv, tapProject } from './engine/tap-runner.ts'
import { prepareSuites, type PreparedSuites } from './engine/suite-build.ts'
import type { Killable } from './workers/tap-types.ts'
import type { SuiteWorkers } from './workers/workers.ts'
import { header } from './terminal/header.ts'
import { deadlineStop, runLimits } from './options/limits.ts'
import { runDeadlineS } from './options/options.ts'
import { suiteLine } from './terminal/terminal.ts'
import { select } from './results/verdict.ts'

const PREFIX = prefixed('run', '').trimEnd()

function newRunId(): string {
  return `${new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`
}

function usageExit(io: RunIO, e: UsageError): RunResult {
  return { exitCode: failWith({ out: (s) => void io.stdout.write(s), err: (s) => void io.stderr.write(s) }, 'run', e) }
}

export async function run(argv: string[], io: RunIO): Promise<RunResult> {
  let opts: Options | 'help'
  try {
    opts = parseOptions(argv, io.env)
  } catch (e) {
    if (e instanceof UsageError) return usageExit(io, e)
    throw e
  }
  if (opts === 'help') {
    io.stdout.write(HELP)
    return { exitCode: EXIT.pass }
  }
  // Memory (decision 0004). Against a real target this process holds no mock, only the TAP and the report:
  // its young generation stays at the 1 MiB it started with (bin/admin-conformance.mjs stopped its
  // growth), and undici's HTTP parser, WebAssembly, is compiled by the baseline compiler alone (the
  // optimizing one took about 35 MiB of RSS for a moment). The bundled mocks in this process, where speed
  // counts, keep V8's defaults.
  if (usesBundledMock(opts)) setFlagsFromString('--semi-space-growth-factor=2')
  else setFlagsFromString('--liftoff-only')
  const human = opts.reporter && !opts.output ? io.stderr : io.stdout
  const st: RunState = {
    opts,
    io,
    human,
    st: style(useColour(human, io.env)),
    runId: newRunId(),
    started: Date.now(),
    project: tapProject(),
    interrupted: false,
  }
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(st.project, { recursive: true, force: true })]
  let child: Killable | undefined
  const signals = io.signals ?? process
  const onSignal = () => {
    if (!st.interrupted) human.write(`\n${PREFIX} interrupted; stopping the suites and reporting what finished\n`)
    st.interrupted = true
    child?.kill('SIGTERM')
  }
  signals.on('SIGINT', onSignal)
  signals.on('SIGTERM', onSignal)
  try {
    return await runSteps(
      st,
      (c) => cleanups.unshift(c),
      (c) => (child = c),
    )
  } catch (e) {
    if (e instanceof UsageError) return usageExit(io, e)
    throw e
  } finally {
    signals.off('SIGINT', onSignal)
    signals.off('SIGTERM', onSignal)
    for (const c of cleanups) {
      try {
        await c()
      } catch {
        // clean-up is best effort
      }
    }
  }
}

async function runSteps(st: RunState, keep: (c: () => Promise<void>) => void, onChild: (c: Killable) => void): Promise<RunResult> {
  const { opts, io } = st
  const jobs = opts.jobs ?? defaultJobs(opts)
  // The suites are built (or found built) and their workers started while the mock starts and the
  // preflight waits on the target: the workers learn the target when their files are handed over.
  const preparing = prepareSuites(st.project, io.env, io.stderr)
  const starting = preparing.then((p) =>
    startWorkers(p, {
      project: st.project,
      jobs,
      timeoutS: opts.timeoutS,
      ...(opts.grep !== undefined ? { grep: opts.grep } : {}),
      matrix: opts.faultMatrix,
      bundled: usesBundledMock(opts),
      env: suiteEnv(io.env, st.project, {}, opts.strict),
      stderr: io.stderr,
    }),
  )
  starting.catch(() => undefined)
  // (the clean-up waits for the build, which writes into the scratch folder that a later clean-up removes)
  keep(async () => (await starting.catch(() => undefined))?.close())
  let resolved
  try {
    resolved = await resolveTarget(opts, st.project, st.runId, pkg.version, keep, jobs)
  } catch (e) {
    if (e instanceof UsageError) throw e
    const msg = (e as Error).message
    io.stderr.write(`${PREFIX} the bundled mock did not start: ${msg}\n`)
    return { exitCode: /unknown fault/.test(msg) ? EXIT.usage : EXIT.failed }
  }
  const { target, mocks, workerTargets } = resolved
  const secrets = knownTokens(target)
  const sel = select(opts.areas ?? (opts.faultMatrix ? MATRIX_AREAS : undefined), target, opts.allowPartial)
  const files = sel.areas.flatMap((a) => suiteFiles(ROOT, a))
  const warnings: string[] = []
  for (const a of sel.areas) if (suiteFiles(ROOT, a).length === 0) sel.missing.push(`area ${a} has no check: no suite files in its folder`)
  if (sel.missing.length && !opts.allowPartial) return notAPass(st, sel.missing, secrets)
  warnings.push(...sel.missing.map((m) => `accepted (--allow-partial): ${m}`))
  if (files.length === 0) return notAPass(st, ['nothing to run: no selected area has a target and suite files'], secrets)
  const names = new CheckNames(ROOT)
  if (opts.grep && nothingMatches(opts.grep, names.of(files))) {
    io.stderr.write(
      `${PREFIX} no check matched --grep ${opts.grep} (none of the ${names.of(files)!.length} checks of ${sel.areas.join(', ')})\n`,
    )
    return { exitCode: EXIT.usage }
  }
  const pf = await preflight(target)
  st.human.write(redact(header(st, target, sel.areas, mocks, pf), secrets) + '\n')
  if (!pf.ok) {
    io.stderr.write(redact(`preflight failed:\n${pf.problems.map((p) => `  ${p}`).join('\n')}\n`, secrets))
    return { exitCode: EXIT.unreachable }
  }
  // every worker's target: the version suites assert that each worker sees what the preflight printed
  for (const t of new Set([target, ...workerTargets])) t.versions = { mas: pf.masVersion, hs: pf.hsVersion }
  const introspection = opts.faultMatrix ? {} : await registerIntrospectionClient(target, sel.areas)
  if (introspection.warning) warnings.push(introspection.warning)
  // the client's secret joins the secrets every output is redacted of
  if (target.mas?.introspection) secrets.push(target.mas.introspection.clientSecret)
  // every worker's target (each may have its own bundled mock) gets the same limits
  const limits = runLimits(opts, st.project, Math.min(jobs, files.length), st.started)
  for (const t of new Set([target, ...workerTargets])) t.limits = limits
  const seconds = runDeadlineS(opts)
  if (seconds !== undefined) st.deadline = { seconds, at: st.started + seconds * 1000, passed: false }
  const prepared = await preparing
  const { collector, tap } = await runSuites(st, { target, mocks, workerTargets }, files, secrets, onChild, jobs, prepared, await starting)
  const deadline = st.deadline
  if (deadline) {
    const stop = deadlineStop(st.project)
    if (stop) deadline.stop = { ...stop, file: prepared.sourceOf(stop.file) }
    deadline.passed ||= stop !== undefined
  }
  collector.finish(
    files,
    st.interrupted,
    String(tap.signal ?? tap.exitCode),
    deadline?.passed ? `--deadline ${deadline.seconds} s` : undefined,
  )
  if (deadline?.passed && !deadline.stop) {
    // no request was refused (the suites were busy elsewhere): where the runner stopped them
    const s = collector.suites.find((x) => x.notRun && /deadline/.test(x.notRun) && /during check/.test(x.notRun))
    if (s) deadline.stop = { file: s.file, check: /during check "(.*)"/.exec(s.notRun!)![1] }
  }
  for (const [f, n] of collector.names) if (!collector.suites.find((s) => s.file === f)?.error) names.remember(f, n)
  if (!st.interrupted) names.save()
  if (!st.interrupted && !opts.faultMatrix) warnings.push(...meaninglessPass(readProbe(path.join(st.project, 'tmp', 'probe'))))
  const ctx = {
    st,
    target,
    areas: sel.areas,
    files,
    secrets,
    raw: tap.raw,
    pf,
    warnings,
    leftovers: introspection.leftover ? [introspection.leftover] : [],
  }
  return opts.faultMatrix ? finishMatrix(ctx, collector, mocks) : finishRun(ctx, collector)
}

function nothingMatches(grep: string, names: string[] | undefined): boolean {
  if (!names) return false
  const re = grepRegExp(grep)
  return !names.some((n) => re.test(n))
}

function notAPass(st: RunState, missing: string[], secrets: string[]): RunResult {
  const lines = missing.map((m) => `${PREFIX} not a pass: ${m}`)
  lines.push(`${PREFIX} nothing was run; give what is missing, or pass --allow-partial to run the rest and accept the skips`)
  st.io.stderr.write(redact(lines.join('\n'), secrets) + '\n')
  return { exitCode: EXIT.failed }
}

/** How long after the deadline the runner stops suite files still under way. */
const DEADLINE_GRACE_MS = 5000
const stopTimers: NodeJS.Timeout[] = []

async function runSuites(
  st: RunState,
  r: Resolved,
  files: string[],
  secrets: string[],
  onChild: (c: Killable) => void,
  jobs: number,
  prepared: PreparedSuites,
  workers: SuiteWorkers | undefined,
) {
  const { opts } = st
  const { target, mocks } = r
  st.human.write(`\nrunning ${files.length} suite file(s), ${jobs} at a time\n`)
  const envOf = (t: Target) =>
    suiteEnv(st.io.env, st.project, { ...targetEnv(t), ...(opts.faultMatrix ? matrixEnv(mocks, target) : {}) }, opts.strict)
  const env = envOf(target)
  const envs = r.workerTargets.map(envOf)
  const collector = new Collector(opts.faultMatrix, opts.strict)
  const width = Math.max(...files.map((f) => f.length))
  const waits = files.map((f) => waitsOnPurpose(ROOT, f))
  const tap = await runTap(
    prepared,
    {
      project: st.project,
      files: files.map(prepared.built),
      env,
      envs,
      jobs,
      orderOf: (slot) => claimOrder(waits, slot, Math.min(jobs, files.length)),
      timeoutS: opts.timeoutS,
      grep: opts.grep,
      matrix: opts.faultMatrix,
      secrets,
      onFile: (n) => {
        n.name = prepared.sourceOf(n.name)
        const s = collector.file(n)
        if (opts.grep && s.checks.length === 0 && !s.error) return
        if (st.interrupted && !s.checks.length) return
        st.human.write(redact(suiteLine(s, width, st.st), secrets))
      },
      onChild: (c) => {
        onChild(c)
        if (st.interrupted) c.kill('SIGTERM')
        // Past the deadline the suites' requests fail at once and their files end quickly; a file busy
        // without requests is stopped by the runner a little later.
        const d = st.deadline
        if (d && c.deadline) {
          const timer = setTimeout(
            () => {
              d.passed = true
              c.deadline!(`--deadline ${d.seconds} s`)
            },
            Math.max(0, d.at - Date.now()) + DEADLINE_GRACE_MS,
          )
          timer.unref()
          stopTimers.push(timer)
        }
      },
      stderr: st.io.stderr,
    },
    workers,
  )
  for (const t of stopTimers.splice(0)) clearTimeout(t)
  // The TAP report names the suite files, not their builds.
  if (prepared.mode === 'bundle') tap.raw = tap.raw.replace(/\bsuites\/[\w./-]+?\.suite\.mjs\b/g, (m) => prepared.sourceOf(m))
  return { collector, tap }
}

export async function main(argv: string[]): Promise<number> {
  const { exitCode } = await run(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env })
  return exitCode
}
