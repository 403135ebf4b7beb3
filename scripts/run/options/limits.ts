// The run's production manners on the runner's side (decision 0004): what the suite processes are told
// (target.limits: the rate split between the processes, the shared budget file, the response cap, the
// meter folder) and what the summary says afterwards (requests per area, the slowest endpoints, where
// the budget was spent).
import { mkdirSync } from 'node:fs'
import path from 'node:path'
import type { RunLimits } from '../../../lib/target.ts'
import { readBudgetStop, readDeadlineStop, readMeters, summarise, type DeadlineStop, type RequestSummary } from '../../../lib/meter.ts'
import { runDeadlineS, type Options } from './options.ts'

export function meterDir(project: string): string {
  return path.join(project, 'tmp', 'meter')
}

/**
 * The limits of every suite process. The rate is split evenly between the processes that run at once
 * (the suite workers: --jobs, or fewer when there are fewer files), so the run as a whole never goes
 * above --rate.
 */
export function runLimits(opts: Options, project: string, processes: number, started: number): RunLimits {
  const dir = meterDir(project)
  mkdirSync(dir, { recursive: true })
  const out: RunLimits = { meterDir: dir, maxResponseBytes: opts.maxResponseBytes }
  const deadline = runDeadlineS(opts)
  if (deadline !== undefined) out.deadlineAt = started + deadline * 1000
  if (opts.rate !== undefined) out.requestsPerSecond = opts.rate / Math.max(1, processes)
  if (opts.maxRequests !== undefined) {
    out.maxRequests = opts.maxRequests
    out.budgetFile = path.join(dir, 'budget')
  }
  return out
}

/** What the suite processes sent, summed from their meters. */
export function requestSummary(project: string): RequestSummary {
  const dir = meterDir(project)
  const s = summarise(readMeters(dir))
  const stop = readBudgetStop(dir)
  if (stop) s.budget = stop
  return s
}

/** Where the run's deadline stopped the suites (the first request it refused or cut), if it did. */
export function deadlineStop(project: string): DeadlineStop | undefined {
  return readDeadlineStop(meterDir(project))
}

/** The verdict's line when the deadline passed: where it stopped, and that nothing after it was proved. */
export function deadlineProblem(seconds: number, at: { file?: string; check?: string; request?: string } | undefined): string {
  const where = at ? [at.file, at.check && `check "${at.check}"`, at.request].filter(Boolean).join(', ') : ''
  return `the run's deadline (--deadline ${seconds} s) passed${where ? ` at ${where}` : ''}: the checks from there on were not run to the end (the results so far are reported)`
}

/** The verdict's line when the budget was spent: nothing after that point was proved. */
export function budgetProblem(s: RequestSummary): string | undefined {
  const b = s.budget
  if (!b) return undefined
  return `the request budget (--max-requests ${b.limit}) was spent at check "${b.check}" (${b.request} was not sent): the checks from there on were not run to the end`
}
