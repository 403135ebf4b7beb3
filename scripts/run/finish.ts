// The end of a run: the verdict, the summary on the terminal, and the report in the chosen format.
import { redact } from '../../lib/http.ts'
import { visible, visibleDeep } from '../../lib/escape.ts'
import type { Area } from '../../lib/areas.ts'
import type { Leftover, Target } from '../../lib/target.ts'
import pkg from '../../package.json' with { type: 'json' }
import type { MockHandle } from './target/mock-handle.ts'
import type { Collector } from './results/collect.ts'
import { EXIT, prefixed } from '../common/index.ts'

const PREFIX = prefixed('run', '').trimEnd()
import { cleanResult, matrixFaults, matrixLines, type MatrixReport } from './target/fault-matrix.ts'
import type { RunResult, RunState } from './run-types.ts'
import type { Preflight } from '../common/preflight.ts'
import { renderMatrix, renderRun, writeReport } from './report/write.ts'
import { countChecks, groupSkips, type RunReport } from './results/results.ts'
import { seconds, summaryLines } from './terminal/terminal.ts'
import { nothingProved } from './results/verdict.ts'
import { budgetProblem, deadlineProblem, requestSummary } from './options/limits.ts'

export interface FinishContext {
  st: RunState
  target: Target
  areas: Area[]
  files: string[]
  secrets: string[]
  raw: string
  pf: Preflight
  warnings: string[]
  /** data the runner itself left behind (the run's introspection client) */
  leftovers?: (Leftover & { file: string })[]
}

function exitFor(interrupted: boolean, failed: boolean, problems: boolean): number {
  return interrupted ? EXIT.interrupted : failed ? EXIT.failed : problems ? EXIT.failed : EXIT.pass
}

/** Writes the report when one was asked for; a write error fails the run (exit 1 unless already worse). */
async function emit(ctx: FinishContext, text: () => Promise<string>, exitCode: number): Promise<number> {
  const { opts, io, human } = ctx.st
  if (!opts.reporter) return exitCode
  let err: string | undefined
  try {
    err = await writeReport(await text(), ctx.secrets, opts.output, io.stdout)
  } catch (e) {
    err = `the ${opts.reporter} report could not be made: ${(e as Error).message}`
  }
  if (err) {
    io.stderr.write(`${PREFIX} ${err}\n`)
    return exitCode === EXIT.pass ? EXIT.failed : exitCode
  }
  if (opts.output) human.write(`report (${opts.reporter}) written to ${opts.output}\n`)
  return exitCode
}

export async function finishRun(ctx: FinishContext, col: Collector): Promise<RunResult> {
  const { st, target, pf } = ctx
  const { opts } = st
  const suites = col.suites
  const checks = suites.flatMap((s) => s.checks)
  const counts = countChecks(checks)
  const failed = counts.fail > 0 || suites.some((s) => s.error)
  const proved = st.interrupted ? [] : nothingProved(ctx.areas, suites, opts.grep)
  // the endpoints are the suites' request paths, ids of the target's in them: redacted and escaped here
  const summary = requestSummary(st.project)
  const requests = summary && {
    ...summary,
    slowest: summary.slowest.map((e) => ({ ...e, endpoint: visible(redact(e.endpoint, ctx.secrets)) })),
  }
  const spent = budgetProblem(requests)
  // A spent budget is never a pass, even with --allow-partial: the checks after it proved nothing.
  const late = st.deadline?.passed ? deadlineProblem(st.deadline.seconds, st.deadline.stop) : undefined
  // Past the deadline, neither --allow-partial nor anything else makes the run a pass.
  const problems = [
    ...(opts.allowPartial && counts.pass + counts.deviation > 0 ? [] : proved),
    ...(spent ? [spent] : []),
    ...(late ? [late] : []),
  ]
  // (a warning can quote the target: the introspection client's registration error)
  const warnings = [...ctx.warnings, ...(problems.length ? [] : proved.map((p) => `accepted (--allow-partial): ${p}`))].map((w) =>
    visible(w),
  )
  // (a file that crashed or timed out is a failure, never "no check matched")
  const grepMissed = !!opts.grep && counts.checks === 0 && !st.interrupted && !suites.some((s) => s.error)
  let exitCode: number = grepMissed ? EXIT.usage : exitFor(st.interrupted, failed, problems.length > 0)
  const report: RunReport = {
    tool: 'admin-conformance',
    version: pkg.version,
    runId: st.runId,
    startedAt: new Date(st.started).toISOString(),
    durationMs: Date.now() - st.started,
    exitCode,
    ok: exitCode === EXIT.pass,
    interrupted: st.interrupted,
    strict: opts.strict,
    target: {
      mock: target.isMock,
      writes: target.allowWrites,
      ...(target.mas ? { mas: { url: target.mas.url, version: pf.masVersion } } : {}),
      ...(target.hs
        ? { hs: { url: target.hs.url, prefix: target.hs.prefix, clientPrefix: target.hs.clientPrefix, version: pf.hsVersion } }
        : {}),
    },
    areas: ctx.areas,
    ...(opts.grep ? { grep: opts.grep } : {}),
    counts,
    problems,
    warnings,
    skipReasons: groupSkips(checks),
    leftovers: [...visibleDeep(ctx.leftovers ?? []), ...suites.flatMap((s) => s.leftovers.map((l) => ({ ...l, file: s.file })))],
    requests,
    suites,
  }
  st.human.write(redact(summaryLines(report, st.st).join('\n'), ctx.secrets) + '\n')
  exitCode = await emit(ctx, () => renderRun(opts.reporter!, report, ctx.raw), exitCode)
  if (exitCode !== report.exitCode) Object.assign(report, { exitCode, ok: false })
  return { exitCode, report }
}

export async function finishMatrix(ctx: FinishContext, col: Collector, mocks: MockHandle[]): Promise<RunResult> {
  const { st } = ctx
  const crashed = col.suites.filter((s) => s.error)
  const clean = cleanResult(col.perTarget, crashed.length)
  const faults = matrixFaults(mocks, col.perTarget)
  const ok = !st.interrupted && clean.ok && faults.every((f) => f.caught)
  let exitCode: number = st.interrupted ? EXIT.interrupted : ok ? EXIT.pass : EXIT.failed
  const matrix: MatrixReport = {
    kind: 'fault-matrix',
    tool: 'admin-conformance',
    version: pkg.version,
    runId: st.runId,
    startedAt: new Date(st.started).toISOString(),
    durationMs: Date.now() - st.started,
    exitCode,
    ok,
    interrupted: st.interrupted,
    areas: ctx.areas,
    clean,
    faults,
    suites: col.suites.map((s) => ({ file: s.file, ok: s.ok, durationMs: s.durationMs, ...(s.error ? { error: s.error } : {}) })),
  }
  st.human.write(redact(matrixLines(matrix, crashed, seconds).join('\n'), ctx.secrets) + '\n')
  if (st.interrupted) st.human.write('interrupted: the matrix is incomplete\n')
  exitCode = await emit(ctx, () => renderMatrix(st.opts.reporter!, matrix, ctx.raw), exitCode)
  if (exitCode !== matrix.exitCode) Object.assign(matrix, { exitCode, ok: false })
  return { exitCode, matrix }
}
