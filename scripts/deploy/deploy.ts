// `deploy(opts)`: a throwaway deployment of PostgreSQL, the auth service and the homeserver in containers
// (host networking, loopback only), bootstrapped through public APIs, tested by the suites, and torn down
// again on success, failure and interruption alike (unless kept on request). The steps are in steps.ts;
// this file strings them together and owns the abort signal, the error and the outcome.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redactor } from '../../lib/redact.ts'
import { DeployError, EXIT, exitCodeFor } from './errors.ts'
import { DEFAULT_IMAGES, DEFAULT_TIMEOUTS, type DeployOptions, type DeployResult, type Timeouts } from './options.ts'
import { Progress } from './progress.ts'
import { summary } from './report.ts'
import { randomAlnum } from './secrets.ts'
import { bootstrap, configure, keepRunning, preflight, startServices, suitesAndLogs, teardown, type DeployRun } from './steps.ts'
import { AREAS } from './suites.ts'

function newRun(opts: DeployOptions, signal: AbortSignal): DeployRun {
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'))
  const redactor = new Redactor()
  const progress = new Progress(write, redactor)
  const runId = `${Date.now().toString(36)}${randomAlnum(4).toLowerCase()}`
  const outDir = opts.outDir ?? join(tmpdir(), `admin-conformance-deploy-${runId}`)
  const result: DeployResult = {
    exitCode: EXIT.pass,
    ok: false,
    runId,
    outDir,
    phases: progress.phases,
    urls: { mas: '', homeserver: '' },
    suites: [],
    logFiles: {},
    kept: false,
    leftovers: [],
    teardown: async () => {},
  }
  return {
    opts,
    write,
    redactor,
    progress,
    runId,
    outDir,
    signal,
    result,
    timeouts: {
      ...DEFAULT_TIMEOUTS,
      ...Object.fromEntries(Object.entries(opts.timeouts ?? {}).filter(([, v]) => v !== undefined)),
    } as Timeouts,
    areas: opts.areas ?? [...AREAS],
    images: {
      mas: opts.masImage ?? DEFAULT_IMAGES.mas,
      homeserver: opts.hsImage ?? DEFAULT_IMAGES.homeserver,
      postgres: opts.pgImage ?? DEFAULT_IMAGES.postgres,
    },
    services: [],
    pendingStarts: new Set(),
  }
}

/** One abort signal for the caller's signal and, in the CLI, SIGINT/SIGTERM; returns the undo. */
function wireAbort(opts: DeployOptions, ac: AbortController, say: (l: string) => void): () => void {
  const onCallerAbort = () => ac.abort(opts.signal?.reason ?? 'aborted by the caller')
  opts.signal?.addEventListener('abort', onCallerAbort, { once: true })
  if (opts.signal?.aborted) onCallerAbort()
  const onSignal = (sig: NodeJS.Signals) => {
    if (!ac.signal.aborted) {
      say(`received ${sig}: stopping and tearing down`)
      ac.abort(`received ${sig}`)
    } else say(`received ${sig} again: teardown is under way and bounded; please wait`)
  }
  if (opts.handleSignals) {
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
  }
  return () => {
    if (opts.handleSignals) {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
    opts.signal?.removeEventListener('abort', onCallerAbort)
  }
}

/** Record a failure on the result: its kind decides the exit code; an abort always counts as interrupted. */
function fail(run: DeployRun, e: unknown): void {
  const { signal, redactor, result } = run
  const err =
    e instanceof DeployError
      ? e
      : new DeployError(signal.aborted ? 'interrupted' : 'start', `unexpected failure: ${(e as Error)?.message ?? String(e)}`)
  const kind = signal.aborted && err.kind !== 'interrupted' ? 'interrupted' : err.kind
  result.error = { kind, message: redactor.apply(err.message), details: err.details.map((d) => redactor.apply(d)) }
  result.exitCode = exitCodeFor(kind)
  result.ok = false
  run.progress.say(`ERROR: ${result.error.message}`)
  for (const d of result.error.details) run.write(redactor.apply(`[deploy]   ${d}`))
}

export async function deploy(opts: DeployOptions = {}): Promise<DeployResult> {
  const ac = new AbortController()
  const run = newRun(opts, ac.signal)
  const { progress, result } = run
  const unwire = wireAbort(opts, ac, (l) => progress.say(l))
  try {
    progress.say(`run ${run.runId}: output in ${run.outDir}`)
    const setup = await progress.phase('preflight', () => preflight(run))
    await progress.phase('configure', async () => configure(run, setup))
    await startServices(run)
    await progress.phase('bootstrap', () => bootstrap(run))
    await suitesAndLogs(run)
    const failed = result.suites.filter((s) => s.exitCode !== undefined && s.exitCode !== 0)
    result.exitCode = failed.length ? EXIT.failed : EXIT.pass
    result.ok = failed.length === 0
  } catch (e) {
    fail(run, e)
  }
  if (opts.keep && result.error?.kind !== 'interrupted' && run.services.length > 0) await keepRunning(run)
  else await teardown(run).catch((e) => progress.say(`teardown: ${(e as Error).message}`))
  summary(result, progress)
  unwire()
  return result
}
