// The shapes `audit-log` produces are the generated types of its --json output
// (schemas/requestlog/audit-result.json, in lib/types.gen.ts; test/scripts/audit-log/main.test.ts
// validates the output against the schema), and the options it takes.

import type {
  AuditResult as AuditResultJson,
  AuditResultAdminAction,
  AuditResultMalformed,
  AuditResultOutcome,
  AuditResultRequesterSummary,
  AuditResultTimelineEntry,
} from '../../lib/types.gen.ts'
import type { ActivityName } from './activities.ts'
import type { ClassifyOptions } from './classify.ts'

export type MalformedEntry = AuditResultMalformed
export type TimelineEntry = AuditResultTimelineEntry
/** One admin write (admin-actions.ts): who did what to which target, when, and how it ended. */
export type AdminActionEntry = AuditResultAdminAction

// The generator drops `propertyNames` (scripts/dev/gen-types.ts), so maps keyed by activity come out keyed by any
// string; these two keep the schema's keys, which the engine always fills (every activity is present).
export type RequesterSummary = Omit<AuditResultRequesterSummary, 'activities'> & { activities: Partial<Record<ActivityName, number>> }
export type AuditResult = Omit<AuditResultJson, 'outcomes' | 'requesters'> & {
  outcomes: Record<ActivityName, AuditResultOutcome>
  /** Keyed by RequesterSummary.requester. */
  requesters: Record<string, RequesterSummary>
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
  /**
   * A worker thread's: up to this many characters of the lines the module declines are kept, not
   * read, and handed back in the state (AuditState.deferred) for the thread that merges to read.
   */
  deferTextChars?: number
}

export type AuditEngine = 'wasm' | 'js'

export interface AuditFileOptions extends AuditOptions {
  /**
   * Threads: this one and jobs - 1 worker threads. Default: one per core (at most 4) for a regular
   * file of 128 MiB or more (32 MiB with the JavaScript engine), one below. A --requester timeline
   * always runs in one thread.
   */
  jobs?: number
  /** Largest chunk for the threads, the last ones smaller (chunkStarts; tests use small ones to put many cuts inside lines). */
  chunkBytes?: number
}
