// The raw counters of one Auditor (AuditState: what a worker thread sends back), and their merge
// into the result.

import { ACTIVITIES, type ActivityName } from './activities.ts'
import { requesterKey } from './requesters.ts'
import type { AdminActionEntry, AuditResult, MalformedEntry, RequesterSummary } from './types.ts'

export const DEFAULT_MAX_MALFORMED = 1000
export const DEFAULT_MAX_ADMIN_ACTIONS = 1000

/** Requesters remember their latest line as chunk * CHUNK_LINE_SPAN + line (exact in a double). */
export const CHUNK_LINE_SPAN = 2 ** 32

/** Numbers per requester in AuditState.requesterStats: requests, latest line, then one per activity. */
export const REQUESTER_STRIDE = 2 + ACTIVITIES.length

export interface StateMalformed {
  chunk: number
  /** 1-based, within the chunk */
  line: number
  part: string
  column: number
  message: string
}

/** The raw counters of an Auditor; the states of the threads that shared a file merge in finishAudit. */
export interface AuditState {
  /** Lines per chunk, as [chunk, lines] (a single pass is chunk 0). */
  chunkLines: Array<[number, number]>
  requests: number
  events: number
  blank: number
  malformedCount: number
  /** The first malformed lines of this state, in its order. */
  malformed: StateMalformed[]
  v120: number
  pre120: number
  /** By classification code (activity * 2 + ok). */
  counts: Float64Array
  operationKeys: string[]
  operationCounts: Float64Array
  requesterKeys: string[]
  /**
   * REQUESTER_STRIDE per requester: its requests, its latest line (chunk * CHUNK_LINE_SPAN + line),
   * then one counter per activity. The module's layout, so that its rows are copied in one go.
   */
  requesterStats: Float64Array
  /** The first and the last timestamped line of this state, by chunk * CHUNK_LINE_SPAN + line. */
  firstTime: StateTime | null
  lastTime: StateTime | null
  /** The first admin actions of this state, in its order (line numbers within their chunk). */
  adminActions: Array<AdminActionEntry & { chunk: number }>
  adminActionCount: number
  /**
   * Lines left to the thread that merges (see deferTextChars): [chunk, chunkBase, line before it,
   * text]. Read with replayDeferred before finishAudit.
   */
  deferred?: Array<[chunk: number, chunkBase: number, lineNo: number, text: string]>
}

export interface StateTime {
  at: number
  timestamp: string
}

/** Merges the states of one input (one per thread; chunks in any split) and builds the result. */
export function finishAudit(
  states: AuditState[],
  maxMalformed = DEFAULT_MAX_MALFORMED,
  maxAdminActions = DEFAULT_MAX_ADMIN_ACTIONS,
): AuditResult {
  // Line numbers: each chunk starts after the lines of the chunks before it.
  const chunkLines = states.flatMap((st) => st.chunkLines).sort((a, b) => a[0] - b[0])
  const offset = new Map<number, number>()
  let lines = 0
  for (const [chunk, n] of chunkLines) {
    offset.set(chunk, lines)
    lines += n
  }
  const malformed = states
    .flatMap((st) => st.malformed)
    .sort((a, b) => a.chunk - b.chunk || a.line - b.line)
    .slice(0, maxMalformed)
    .map((m): MalformedEntry => ({
      line: offset.get(m.chunk)! + m.line,
      error: `${m.part} at column ${m.column}: ${m.message}`,
      part: m.part,
      column: m.column,
    }))
  const adminActions = states
    .flatMap((st) => st.adminActions)
    .sort((a, b) => a.chunk - b.chunk || a.line - b.line)
    .slice(0, maxAdminActions)
    .map(({ chunk, ...e }): AdminActionEntry => ({ ...e, line: offset.get(chunk)! + e.line }))
  const sum = (f: (st: AuditState) => number) => states.reduce((acc, st) => acc + f(st), 0)
  const malformedCount = sum((st) => st.malformedCount)
  return {
    lines,
    requests: sum((st) => st.requests),
    events: sum((st) => st.events),
    blank: sum((st) => st.blank),
    malformedCount,
    malformed,
    malformedTruncated: malformedCount > malformed.length,
    formats: { 'v1.20': sum((st) => st.v120), 'pre-v1.20': sum((st) => st.pre120) },
    ...activityCounts(states),
    operations: operationCounts(states),
    requesters: requesterSummaries(states),
    timeRange: timeRange(states),
    adminActions,
    adminActionsTruncated: sum((st) => st.adminActionCount) > adminActions.length,
  }
}

function activityCounts(states: AuditState[]): Pick<AuditResult, 'activities' | 'outcomes'> {
  const counts = new Float64Array(ACTIVITIES.length * 2)
  for (const st of states) for (let i = 0; i < counts.length; i++) counts[i]! += st.counts[i]!
  const activities = {} as Record<ActivityName, number>
  const outcomes = {} as Record<ActivityName, { ok: number; failed: number }>
  ACTIVITIES.forEach((a, i) => {
    const ok = counts[i * 2 + 1]!
    const failed = counts[i * 2]!
    activities[a] = ok + failed
    outcomes[a] = { ok, failed }
  })
  return { activities, outcomes }
}

function operationCounts(states: AuditState[]): Record<string, number> {
  const opCounts = new Map<string, number>()
  for (const st of states) st.operationKeys.forEach((k, i) => opCounts.set(k, (opCounts.get(k) ?? 0) + st.operationCounts[i]!))
  const operations: Record<string, number> = {}
  for (const [k, v] of [...opCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) operations[k] = v
  return operations
}

/** Folds user:<id>(<name>) into user:<id>, keeping the username of the latest request. */
function requesterSummaries(states: AuditState[]): Record<string, RequesterSummary> {
  // One flat array of counters for all folded keys, indexed by a map: this runs once per audit,
  // cold, where an object and an array per requester cost tens of milliseconds for thousands of
  // them (docs/benchmarks.md, 2026-11-27 (s13)).
  const A = ACTIVITIES.length
  const S = REQUESTER_STRIDE
  let total = 0
  for (const st of states) total += st.requesterKeys.length
  const index = new Map<string, number>()
  const keys: string[] = []
  const usernames: Array<string | undefined> = []
  const requests = new Float64Array(total)
  const counts = new Float64Array(total * A)
  const nameLast = new Float64Array(total).fill(-1)
  for (const st of states) {
    const printedKeys = st.requesterKeys
    const stats = st.requesterStats
    for (let r = 0; r < printedKeys.length; r++) {
      const printed = printedKeys[r]!
      const key = requesterKey(printed)
      let f = index.get(key)
      if (f === undefined) {
        f = keys.length
        index.set(key, f)
        keys.push(key)
        usernames.push(undefined)
      }
      requests[f]! += stats[r * S]!
      addRow(counts, f * A, stats, r * S + 2, A)
      const last = stats[r * S + 1]!
      if (key.length !== printed.length && last > nameLast[f]!) {
        usernames[f] = printed.slice(key.length + 1, -1)
        nameLast[f] = last
      }
    }
  }
  const order = Array.from({ length: keys.length }, (_, i) => i)
  order.sort((a, b) => requests[b]! - requests[a]! || (keys[a]! < keys[b]! ? -1 : 1))
  const requesters: Record<string, RequesterSummary> = {}
  for (const f of order) {
    const perActivity: Partial<Record<ActivityName, number>> = {}
    const at = f * A
    for (let i = 0; i < A; i++) if (counts[at + i]! > 0) perActivity[ACTIVITIES[i]!] = counts[at + i]!
    const s: RequesterSummary = { requester: keys[f]!, requests: requests[f]!, activities: perActivity }
    const username = usernames[f]
    if (username !== undefined) s.username = username
    requesters[keys[f]!] = s
  }
  return requesters
}

/**
 * dst[to..to+n) += src[from..from+n). A function of its own: the optimizing compiler takes it after
 * a few hundred calls, where the same loop inlined above stayed in the interpreter for the single
 * call of requesterSummaries (about 7 µs per requester, cold).
 */
function addRow(dst: Float64Array, to: number, src: Float64Array, from: number, n: number): void {
  for (let i = 0; i < n; i++) dst[to + i]! += src[from + i]!
}

function timeRange(states: AuditState[]): AuditResult['timeRange'] {
  let first: StateTime | null = null
  let last: StateTime | null = null
  for (const st of states) {
    if (st.firstTime !== null && (first === null || st.firstTime.at < first.at)) first = st.firstTime
    if (st.lastTime !== null && (last === null || st.lastTime.at > last.at)) last = st.lastTime
  }
  return first === null || last === null ? null : { first: first.timestamp, last: last.timestamp }
}
