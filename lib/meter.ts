// The request meter of a run: each suite process counts the requests it sent per area and times them per
// endpoint (`METHOD /path/{id}`, ids templated by lib/http.ts), and leaves one JSON file in the run's
// meter folder when it ends; the runner sums the files into the summary's "requests" part. When the
// request budget is spent, the first process to be refused leaves `budget-stop.json`, naming the check
// and the request it stopped at. Shared by suites/lib (writer) and scripts/run (reader).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'

/** Samples kept per endpoint for the median: enough for a stable p50, bounded whatever the run's size. */
const MAX_SAMPLES = 2000

export interface EndpointMeter {
  count: number
  maxMs: number
  /** durations in ms, at most MAX_SAMPLES (the first ones, then every k-th) */
  samples: number[]
}

export interface AreaMeter {
  requests: number
  endpoints: Record<string, EndpointMeter>
}

/** area name → its meter */
export type Meter = Record<string, AreaMeter>

export interface BudgetStop {
  /** the check that asked for the first request over the budget */
  check: string
  /** `METHOD URL` (redacted) of that request */
  request: string
  limit: number
}

export const BUDGET_STOP_FILE = 'budget-stop.json'

export function addRequest(m: Meter, area: string, endpoint: string, ms: number): void {
  const a = (m[area] ??= { requests: 0, endpoints: {} })
  a.requests++
  const e = (a.endpoints[endpoint] ??= { count: 0, maxMs: 0, samples: [] })
  e.count++
  e.maxMs = Math.max(e.maxMs, ms)
  // Past the cap, keep every k-th duration so the sample spans the whole run.
  const k = Math.ceil(e.count / MAX_SAMPLES)
  if (e.samples.length < MAX_SAMPLES && e.count % k === 0) e.samples.push(Math.round(ms * 10) / 10)
}

function merge(into: Meter, from: Meter): void {
  for (const [area, a] of Object.entries(from)) {
    const t = (into[area] ??= { requests: 0, endpoints: {} })
    t.requests += a.requests
    for (const [name, e] of Object.entries(a.endpoints)) {
      const te = (t.endpoints[name] ??= { count: 0, maxMs: 0, samples: [] })
      te.count += e.count
      te.maxMs = Math.max(te.maxMs, e.maxMs)
      te.samples.push(...e.samples.slice(0, Math.max(0, MAX_SAMPLES * 4 - te.samples.length)))
    }
  }
}

export function writeMeter(dir: string, m: Meter): void {
  // a suite worker runs several files, each with its own copy of the framework and its own meter: the
  // random part keeps two copies writing at exit in the same millisecond from overwriting each other
  writeFileSync(path.join(dir, `meter-${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}.json`), JSON.stringify(m))
}

/** Every suite process's meter, summed; half-written files (a killed process) are skipped. */
export function readMeters(dir: string): Meter {
  const out: Meter = {}
  let names: string[] = []
  try {
    names = readdirSync(dir).filter((n) => n.startsWith('meter-') && n.endsWith('.json'))
  } catch {
    return out
  }
  for (const n of names) {
    try {
      merge(out, JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as Meter)
    } catch {
      // skip it
    }
  }
  return out
}

/** Where the run's deadline stopped a suite process: the file, the check, the request refused or cut. */
export interface DeadlineStop {
  file: string
  check: string
  request: string
}

export const DEADLINE_STOP_FILE = 'deadline-stop.json'

export function writeDeadlineStop(dir: string, stop: DeadlineStop): void {
  try {
    writeFileSync(path.join(dir, DEADLINE_STOP_FILE), JSON.stringify(stop), { flag: 'wx' })
  } catch {
    // already noted (the first stop is where the run stopped)
  }
}

export function readDeadlineStop(dir: string): DeadlineStop | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, DEADLINE_STOP_FILE), 'utf8')) as DeadlineStop
  } catch {
    return undefined
  }
}

export function writeBudgetStop(dir: string, stop: BudgetStop): void {
  try {
    // 'wx': the first process to be refused wins; the others find the file there
    writeFileSync(path.join(dir, BUDGET_STOP_FILE), JSON.stringify(stop), { flag: 'wx' })
  } catch {
    // already noted
  }
}

export function readBudgetStop(dir: string): BudgetStop | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, BUDGET_STOP_FILE), 'utf8')) as BudgetStop
  } catch {
    return undefined
  }
}

export interface EndpointSummary {
  endpoint: string
  count: number
  p50Ms: number
  maxMs: number
}

/** What the summary shows: requests in all and per area, and the slowest endpoints by median. */
export interface RequestSummary {
  total: number
  byArea: Record<string, number>
  slowest: EndpointSummary[]
  /** set when --max-requests was spent */
  budget?: BudgetStop
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]!
}

export function summarise(m: Meter, slowest = 5): RequestSummary {
  const byArea: Record<string, number> = {}
  const endpoints = new Map<string, EndpointSummary & { samples: number[] }>()
  for (const [area, a] of Object.entries(m)) {
    byArea[area] = a.requests
    for (const [name, e] of Object.entries(a.endpoints)) {
      const t = endpoints.get(name) ?? { endpoint: name, count: 0, p50Ms: 0, maxMs: 0, samples: [] }
      t.count += e.count
      t.maxMs = Math.max(t.maxMs, e.maxMs)
      t.samples.push(...e.samples)
      endpoints.set(name, t)
    }
  }
  const list = [...endpoints.values()].map(({ samples, ...e }) => ({ ...e, p50Ms: median(samples), maxMs: Math.round(e.maxMs * 10) / 10 }))
  list.sort((a, b) => b.p50Ms - a.p50Ms || b.maxMs - a.maxMs)
  return { total: Object.values(byArea).reduce((a, b) => a + b, 0), byArea, slowest: list.slice(0, slowest) }
}
