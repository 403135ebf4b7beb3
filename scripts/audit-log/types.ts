// The shapes `audit-log` produces (its --json output follows schemas/requestlog/audit-result.json,
// which test/scripts/audit-log/main.test.ts validates against) and the options it takes.

import type { LogFormat } from '../../lib/requestlog.ts'
import type { ActivityName, Outcome } from './activities.ts'
import type { ClassifyOptions } from './classify.ts'

export interface MalformedEntry {
  /** 1-based line number in the input. */
  line: number
  /** Human-readable: `<part> at column <n>: <message>`. */
  error: string
  part: string
  column: number
}

export interface TimelineEntry {
  line: number
  timestamp: string
  requestId: string
  method: string
  path: string
  status: number
  activity: ActivityName
  outcome: Outcome
  clientAddress?: string
  operation?: string
}

export interface RequesterSummary {
  /** `user:<id>`, `oauth2-client:<id>`, `homeserver`; `(none)` for v1.20 lines without requester, `(unknown)` for pre-v1.20 lines (no fields at all). */
  requester: string
  username?: string
  requests: number
  activities: Partial<Record<ActivityName, number>>
}

export interface AuditResult {
  /** All lines read (a final line without newline counts; the newline at the end of the file does not start one). */
  lines: number
  /** `http.server.response` lines parsed. */
  requests: number
  /** Other well-formed log events (error lines before responses, jobs, startup…). */
  events: number
  blank: number
  malformedCount: number
  /** The first `maxMalformed` malformed lines. */
  malformed: MalformedEntry[]
  malformedTruncated: boolean
  formats: Record<LogFormat, number>
  activities: Record<ActivityName, number>
  outcomes: Record<ActivityName, { ok: number; failed: number }>
  /** GraphQL operation names of account self-service requests; `(unnamed)` when the line has none. */
  operations: Record<string, number>
  /** Keyed by RequesterSummary.requester. */
  requesters: Record<string, RequesterSummary>
  /** The first and the last timestamp of the input (of its well-formed lines, in input order); null when it has none. */
  timeRange: { first: string; last: string } | null
  /** The first `maxAdminActions` admin actions in input order (all are counted in activities). */
  adminActions: AdminActionEntry[]
  adminActionsTruncated: boolean
  /** Only when AuditOptions.requester is set and collectTimeline is not false. */
  timeline?: TimelineEntry[]
}

/** One admin write (admin-actions.ts): who did what to which target, when, and how it ended. */
export interface AdminActionEntry {
  line: number
  timestamp: string
  activity: ActivityName
  method: string
  path: string
  /** The id in the path (session, user, token, link, report); absent for a create or policy data. */
  target?: string
  /** As printed (`user:<id>(<name>)`, `oauth2-client:<id>`, …), `(none)` or `(unknown)`. */
  requester: string
  status: number
  outcome: Outcome
}

export interface AuditOptions extends ClassifyOptions {
  /** Select one requester for the timeline: `user:<id>`, `user:<id>(<name>)`, `oauth2-client:<id>`, `homeserver`, a bare id, `(none)` or `(unknown)`. */
  requester?: string
  /** Called for every timeline entry as it is read (lets a caller print it without keeping it). */
  onTimeline?: (entry: TimelineEntry) => void
  /** Keep the timeline in the result (default true when requester is set). */
  collectTimeline?: boolean
  /** How many malformed lines to keep in the result; all are counted. Default 1000. */
  maxMalformed?: number
  /** How many admin actions to list in the result; all are counted. Default 1000. */
  maxAdminActions?: number
  /** Called about every 64k lines; auditFile adds the file size as total and sums its workers. */
  onProgress?: (p: { lines: number; bytes: number; total?: number }) => void
  /**
   * 'wasm' counts canonical request lines in WebAssembly and reads the rest with the JavaScript
   * scanner; 'js' reads everything in JavaScript (same results, slower). Default: 'wasm' where the
   * module loads, except for a --requester timeline (which needs each line's details).
   */
  engine?: AuditEngine
  /** Largest block of lines handed to the WebAssembly scanner at once (its heap stops at 1 GiB; tests use small ones). */
  wasmBlockBytes?: number
}

export type AuditEngine = 'wasm' | 'js'

export interface AuditFileOptions extends AuditOptions {
  /**
   * Worker threads. Default: one per core (at most 4) for a regular file of 512 MiB or more (32 MiB
   * with the JavaScript engine), none below. A --requester timeline always runs in one thread.
   */
  jobs?: number
  /** Chunk size for the workers (tests use small ones to put many cuts inside lines). */
  chunkBytes?: number
}
