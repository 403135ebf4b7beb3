// The run's production manners in a suite process (decision 0004): the rate, the shared request budget, the
// response size cap, and the request meter, applied to every HTTP client of the process. The runner hands
// them over in the target (lib/target.ts, `limits`), so they hold whatever process model runs the files.
import { mkdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { Pacer, SharedBudget, type BudgetSpent, type ClientOptions, type DeadlineReached } from '../../lib/http.ts'
import { areaOfPath } from '../../lib/areas.ts'
import { addRequest, writeBudgetStop, writeDeadlineStop, writeMeter, type Meter } from '../../lib/meter.ts'
import type { Target } from '../../lib/target.ts'

let pacer: Pacer | undefined
const meter: Meter = {}
let meterDir: string | undefined

/**
 * The real path of the suite file this process runs (a suite worker points argv[1] at the file it is
 * running), for the per-area counts here and the matrix targets in context.ts.
 */
export function mainFilePath(): string {
  const main = process.argv[1] ?? ''
  try {
    return realpathSync(main)
  } catch {
    return main
  }
}

/** The area of this process's main file ('admin' for suites/admin/...), for the per-area counts. */
function processArea(): string {
  return areaOfPath(mainFilePath()) ?? 'other'
}

/**
 * One exit hook per process for every copy of this module: a suite worker runs several files, each
 * bundle with its own copy of the framework (and its own meter), and one hook per copy would pass
 * node's limit of listeners. The copies meet through a global registry.
 */
const EXIT_HOOK = Symbol.for('admin-conformance.meter-exit')
type MeterWrite = () => void

function exitWrites(): MeterWrite[] {
  const g = globalThis as unknown as Record<symbol, MeterWrite[] | undefined>
  let list = g[EXIT_HOOK]
  if (!list) {
    const writes: MeterWrite[] = []
    list = g[EXIT_HOOK] = writes
    process.on('exit', () => {
      for (const w of writes) w()
    })
  }
  return list
}

function startMeter(dir: string): void {
  if (meterDir) return
  meterDir = dir
  exitWrites().push(() => {
    if (Object.keys(meter).length === 0) return
    try {
      mkdirSync(dir, { recursive: true })
      writeMeter(dir, meter)
    } catch {
      // the run's folder is gone (the runner was interrupted): nothing to report to
    }
  })
}

/** The options of a target's HTTP client that come from the run's limits (one pace per process). */
export function clientLimits(t: Target): Partial<ClientOptions> {
  const lim = t.limits
  if (!lim) return {}
  const out: Partial<ClientOptions> = {}
  if (lim.maxResponseBytes) out.maxResponseBytes = lim.maxResponseBytes
  if (lim.requestsPerSecond) out.pacer = pacer ??= new Pacer(lim.requestsPerSecond)
  if (lim.deadlineAt) out.deadlineAt = lim.deadlineAt
  if (lim.maxRequests && lim.budgetFile) out.budget = new SharedBudget(lim.budgetFile, lim.maxRequests)
  if (lim.meterDir) {
    startMeter(lim.meterDir)
    const area = processArea()
    out.onRequest = (r) => addRequest(meter, area, r.endpoint, r.durationMs)
  }
  return out
}

/** The run's meter folder, made if missing; undefined when the run keeps none or it cannot be made. */
function ownMeterDir(t: Target): string | undefined {
  const dir = t.limits?.meterDir
  if (!dir) return undefined
  try {
    mkdirSync(dir, { recursive: true })
    return dir
  } catch {
    return undefined
  }
}

/** The budget was spent: note (once per run) which check and request it stopped at. */
export function noteBudgetStop(t: Target, check: string, e: BudgetSpent): void {
  const dir = ownMeterDir(t)
  if (!dir) return
  writeBudgetStop(dir, { check, request: e.request, limit: e.limit })
}

/** The deadline passed: note (once per run) the file, check and request it stopped at. */
export function noteDeadlineStop(t: Target, check: string, e: DeadlineReached): void {
  const dir = ownMeterDir(t)
  if (!dir) return
  // the file as the run names it: suites/<folder>/<name>.suite.<ext> (a worker runs the file's build, which
  // may sit in a shared build folder; the runner maps the build back to its source)
  const main = mainFilePath().split(path.sep).join('/')
  const file = /suites\/[^/]+\/[^/]+\.suite\.[cm]?[jt]s$/.exec(main)?.[0] ?? main
  writeDeadlineStop(dir, { file, check, request: e.request })
}

export function deadlineReason(): string {
  return "not run to the end: the run's deadline (--deadline) passed"
}

/** The skip reason of a check that asked for a request past the budget. */
export function budgetReason(e: BudgetSpent): string {
  return `not run to the end: the request budget (--max-requests ${e.limit}) was spent`
}
