// The counters of one audit: what the line scanners (scanners/) report each line into. Also keeps
// the timeline of a selected requester, the admin actions with their details, and the time range.

import { parseLine, type ResponseLine } from '../../lib/requestlog.ts'
import {
  A_ADMIN_FIRST,
  A_SELF_SERVICE,
  ACTIVITIES,
  isAdminActivity,
  NO_REQUESTER,
  UNKNOWN_REQUESTER,
  UNNAMED_OPERATION,
} from './activities.ts'
import { adminTarget } from './admin-actions.ts'
import { classifyCode, DEFAULT_CLIENT_PREFIX, normalizePrefix } from './classify.ts'
import {
  DEFAULT_MAX_ADMIN_ACTIONS,
  DEFAULT_MAX_MALFORMED,
  REQUESTER_STRIDE,
  type AuditState,
  type StateMalformed,
  type StateTime,
} from './finish.ts'
import { OperationTable, RequesterTable } from './key-index.ts'
import { requesterKey, requesterSelector } from './requesters.ts'
import type { AdminActionEntry, AuditOptions, TimelineEntry } from './types.ts'
import type { WasmCounts } from './wasm/module.ts'

export class Tally {
  readonly prefix: string
  /** Set when a --requester timeline is asked for: the requester keys it matches. */
  readonly match: Set<string> | undefined
  readonly timeline: TimelineEntry[] | undefined
  private readonly maxMalformed: number
  private readonly maxAdminActions: number
  private readonly onTimeline: ((e: TimelineEntry) => void) | undefined

  // Line numbers count from the start of the current chunk (see Auditor.beginChunk); requesters
  // remember their latest line as chunkBase + line, which orders lines across chunks.
  lineNo = 0
  chunk = 0
  chunkBase = 0

  requests = 0
  events = 0
  blank = 0
  private malformedCount = 0
  private readonly malformed: StateMalformed[] = []
  private v120 = 0
  private pre120 = 0
  // Indexed by classification code (activity * 2 + ok).
  private readonly counts = new Float64Array(ACTIVITIES.length * 2)
  private readonly operations = new OperationTable()
  private readonly requesters = new RequesterTable()
  private firstTime: StateTime | null = null
  private lastTime: StateTime | null = null
  private readonly adminActions: Array<AdminActionEntry & { chunk: number }> = []
  private adminActionCount = 0

  constructor(opts: AuditOptions) {
    this.prefix = normalizePrefix(opts.clientPrefix ?? DEFAULT_CLIENT_PREFIX)
    this.maxMalformed = opts.maxMalformed ?? DEFAULT_MAX_MALFORMED
    this.maxAdminActions = opts.maxAdminActions ?? DEFAULT_MAX_ADMIN_ACTIONS
    this.match = opts.requester !== undefined ? requesterSelector(opts.requester) : undefined
    this.onTimeline = opts.onTimeline
    if (this.match !== undefined && opts.collectTimeline !== false) this.timeline = []
  }

  addMalformed(line: number, part: string, column: number, message: string): void {
    this.malformedCount++
    if (this.malformed.length < this.maxMalformed) this.malformed.push({ chunk: this.chunk, line, part, column, message })
  }

  /** Line `line` of the current chunk has this timestamp: it may start or end the time range. */
  noteTime(line: number, timestamp: string): void {
    const at = this.chunkBase + line
    if (this.firstTime === null || at < this.firstTime.at) this.firstTime = { at, timestamp: flat(timestamp) }
    if (this.lastTime === null || at > this.lastTime.at) this.lastTime = { at, timestamp: flat(timestamp) }
  }

  /** Counts one request line; text[start, end) is the line (read again only for a timeline or an admin action). */
  response(
    method: string,
    path: string,
    status: number,
    v120: boolean,
    requester: string | undefined,
    operationName: string | undefined,
    lineNo: number,
    text: string,
    start: number,
    end: number,
  ): void {
    this.requests++
    if (v120) this.v120++
    else this.pre120++
    const c = classifyCode(method, path, status, !v120 || requester !== undefined, this.prefix)
    this.counts[c]!++
    const idx = c >> 1
    let operation: string | undefined
    if (idx === A_SELF_SERVICE) {
      operation = operationName ?? UNNAMED_OPERATION
      this.operations.add(operation)
    }
    const t = this.requesters
    const r = t.index(requester ?? (v120 ? NO_REQUESTER : UNKNOWN_REQUESTER))
    t.requests[r]!++
    t.counts[r * ACTIVITIES.length + idx]!++
    t.last[r] = this.chunkBase + lineNo
    if (isAdminActivity(idx)) this.adminAction(idx, c, t.keys[r]!, lineNo, text.slice(start, end))
    if (this.match !== undefined && this.match.has(requesterKey(t.keys[r]!)))
      this.timelineEntry(idx, c, operation, lineNo, text.slice(start, end))
  }

  private adminAction(idx: number, c: number, requester: string, lineNo: number, text: string): void {
    this.adminActionCount++
    if (this.adminActions.length >= this.maxAdminActions) return
    const l = (parseLine(text) as { line: ResponseLine }).line
    const e: AdminActionEntry & { chunk: number } = {
      chunk: this.chunk,
      line: lineNo,
      timestamp: l.timestamp,
      activity: ACTIVITIES[idx]!,
      method: l.method,
      path: l.path,
      requester,
      status: l.status,
      outcome: (c & 1) === 1 ? 'ok' : 'failed',
    }
    const target = adminTarget(idx - A_ADMIN_FIRST, l.path)
    if (target !== undefined) e.target = target
    this.adminActions.push(e)
  }

  private timelineEntry(idx: number, c: number, operation: string | undefined, lineNo: number, text: string): void {
    const l = (parseLine(text) as { line: ResponseLine }).line
    const e: TimelineEntry = {
      line: lineNo,
      timestamp: l.timestamp,
      requestId: `${l.requestId.method}-${l.requestId.counter}`,
      method: l.method,
      path: l.path,
      status: l.status,
      activity: ACTIVITIES[idx]!,
      outcome: (c & 1) === 1 ? 'ok' : 'failed',
    }
    if (l.clientAddress !== undefined) e.clientAddress = l.clientAddress
    if (operation !== undefined) e.operation = operation
    this.timeline?.push(e)
    this.onTimeline?.(e)
  }

  /**
   * Adds what the WebAssembly side counted. Its requesters and operations are kept as drained, not
   * looked up in this tally's tables: state() lists them beside this tally's own, and finishAudit
   * folds equal keys (looking up thousands of requesters here cost more than the module's count).
   */
  addWasmCounts(w: WasmCounts): void {
    this.requests += w.totals[0]!
    this.v120 += w.totals[1]!
    this.pre120 += w.totals[2]!
    for (let i = 0; i < this.counts.length; i++) this.counts[i]! += w.totals[3 + i]!
    this.events += w.totals[3 + this.counts.length]!
    if (w.requesterKeys.length > 0 || w.operationKeys.length > 0) this.wasmCounts.push(w)
  }
  private readonly wasmCounts: WasmCounts[] = []

  /** The raw counters so far. */
  state(chunkLines: Array<[number, number]>): AuditState {
    const t = this.requesters
    const ops = this.operations
    const A = ACTIVITIES.length
    const S = REQUESTER_STRIDE
    // This tally's requesters, then those of each drain of the module (a key may be in several).
    // The module's rows have this layout already: each drain is one copy (a loop per requester
    // ran cold, once per thread, at the end of the audit, when nothing else can run).
    const own = t.keys.length
    let n = own
    let m = ops.keys.length
    for (const w of this.wasmCounts) {
      n += w.requesterKeys.length
      m += w.operationKeys.length
    }
    const requesterStats = new Float64Array(n * S)
    for (let r = 0; r < own; r++) {
      requesterStats[r * S] = t.requests[r]!
      requesterStats[r * S + 1] = t.last[r]!
      requesterStats.set(t.counts.subarray(r * A, r * A + A), r * S + 2)
    }
    const operationCounts = new Float64Array(m)
    operationCounts.set(ops.counts.subarray(0, ops.keys.length))
    let r = own
    let o = ops.keys.length
    for (const w of this.wasmCounts) {
      if (w.stride !== S) throw new Error(`the module's requester rows hold ${w.stride} numbers, the auditor's ${S}`)
      requesterStats.set(w.requesterStats, r * S)
      r += w.requesterKeys.length
      operationCounts.set(w.operationCounts, o)
      o += w.operationKeys.length
    }
    const requesterKeys = t.keys.concat(...this.wasmCounts.map((w) => w.requesterKeys))
    const operationKeys = ops.keys.concat(...this.wasmCounts.map((w) => w.operationKeys))
    return {
      chunkLines,
      requests: this.requests,
      events: this.events,
      blank: this.blank,
      malformedCount: this.malformedCount,
      malformed: this.malformed.slice(),
      v120: this.v120,
      pre120: this.pre120,
      counts: this.counts.slice(),
      operationKeys,
      operationCounts,
      requesterKeys,
      requesterStats,
      firstTime: this.firstTime,
      lastTime: this.lastTime,
      adminActions: this.adminActions.slice(),
      adminActionCount: this.adminActionCount,
    }
  }
}

/** A flat copy: the string may be a slice of a whole block of text, which it would keep alive. */
function flat(s: string): string {
  return (' ' + s).slice(1)
}
