// What a run found: the result of each check and suite file, and the report the reporters render.
import type { Area } from '../../../lib/areas.ts'
import type { Leftover } from '../../../lib/target.ts'
import type { RequestSummary } from '../../../lib/meter.ts'

/** A failed (or deviating) assertion: its message and the diagnostics the suite attached. */
export interface Assertion {
  name: string
  diag?: Record<string, unknown>
}

export type Outcome = 'pass' | 'fail' | 'skip' | 'deviation'

export interface CheckResult {
  name: string
  outcome: Outcome
  /** false only when the check failed (kept for readers of the JSON report) */
  ok: boolean
  /** the skip reason (also a TODO check's reason), when skipped */
  skip?: string
  durationMs?: number
  /** failed assertions: the message and its diagnostics */
  failures: Assertion[]
  /** assertions marked as a deviation of the target (TAP TODO 'deviation: ...') that did not hold */
  deviations: (Assertion & { reason: string })[]
}

export interface SuiteResult {
  file: string
  area: Area | 'other'
  ok: boolean
  durationMs: number
  pass: number
  fail: number
  skip: number
  deviation: number
  checks: CheckResult[]
  /** data the file's write checks left on the target */
  leftovers: Leftover[]
  /** why the file failed as a whole (crash, timeout) */
  error?: string
  /** the run was interrupted before this file finished: neither passed nor failed */
  notRun?: string
}

export interface Counts {
  checks: number
  pass: number
  fail: number
  skip: number
  deviation: number
}

/** What every report of a run starts with (the run's and the fault matrix's). */
export interface ReportHeader {
  tool: string
  version: string
  runId: string
  startedAt: string
  durationMs: number
  exitCode: number
  ok: boolean
  interrupted: boolean
}

export interface RunReport extends ReportHeader {
  strict: boolean
  target: {
    mock: boolean
    writes: boolean
    mas?: { url: string; version?: string }
    hs?: { url: string; prefix: string; clientPrefix: string; version?: string }
  }
  areas: string[]
  grep?: string
  counts: Counts
  /** why the run is not a pass though no check failed (nothing proved); empty when it proved something */
  problems: string[]
  /** a pass that may mean little (every request answered 401...) and accepted partial runs */
  warnings: string[]
  /** skip reasons with how many checks each skipped, most first */
  skipReasons: { reason: string; count: number }[]
  leftovers: (Leftover & { file: string })[]
  /** requests the suites sent, per area, and the slowest endpoints (templated paths); the budget's stop */
  requests?: RequestSummary
  suites: SuiteResult[]
}

export function countChecks(checks: readonly CheckResult[]): Counts {
  const n = (o: CheckResult['outcome']) => checks.filter((c) => c.outcome === o).length
  return { checks: checks.length, pass: n('pass'), fail: n('fail'), skip: n('skip'), deviation: n('deviation') }
}

/** Skip reasons grouped, with counts, most frequent first. */
export function groupSkips(checks: readonly CheckResult[]): { reason: string; count: number }[] {
  const m = new Map<string, number>()
  for (const c of checks) if (c.outcome === 'skip') m.set(c.skip ?? 'skipped', (m.get(c.skip ?? 'skipped') ?? 0) + 1)
  return [...m].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason))
}
