// The record types of the request-log grammar. The wire shapes come from
// schemas/requestlog/response-line.json (lib/types.gen.ts); the rest are the parser's own.

import type { ResponseLineLogFormat, ResponseLineRequestId, ResponseLineRequester, ResponseLineStats } from '../types.gen.ts'

/** v1.20: stats with db, queries and fetched, and the structured fields; pre-v1.20: polls, cpu, elapsed only. */
export type LogFormat = ResponseLineLogFormat
export type Level = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'
export type GraphqlOperationType = 'query' | 'mutation' | 'subscription'
export type HttpVersion = '0.9' | '1.0' | '1.1' | '2.0' | '3.0' | '_OTHER'

/** user:<id>(<username>) | user:<id> | oauth2-client:<id> | homeserver, as a discriminated union. */
export type Requester = ResponseLineRequester

/** The log context of a line: `<tag>-<counter>`; for HTTP requests the tag is the method (or `_OTHER`). */
export type RequestId = ResponseLineRequestId

/** Durations are milliseconds with one decimal as printed; db/queries/fetched exist from v1.20 on. */
export type Stats = ResponseLineStats

// The same shape as ResponseLine in lib/types.gen.ts (the tests validate parsed records against the
// schema); written out because the generated file may lag behind a schema edit until
// `npm run gen:types`, and Omit<> of an index-signature type would lose the keys.
export interface ResponseLine {
  /** As printed: UTC RFC 3339, normally with 6 fractional digits and `Z`. */
  timestamp: string
  /** Always the one levelForStatus gives: the parser rejects a line whose level does not match. */
  level: 'INFO' | 'WARN' | 'ERROR'
  requestId: RequestId
  method: string
  /** Path only: the service never logs the query string. */
  path: string
  httpVersion: HttpVersion
  status: number
  reason: string
  /** null when the header was absent (printed as `"-"`). */
  userAgent: string | null
  stats: Stats
  requester?: Requester
  clientAddress?: string
  graphqlOperationType?: GraphqlOperationType
  graphqlOperationName?: string
  traceId?: string
  /** Fields this grammar does not know (a newer release may add some), kept verbatim. */
  extraFields?: Record<string, string>
  /** Decided by the stats block: with `db`/`queries`/`fetched` it is v1.20. */
  format: LogFormat
}

/** Any other event: the WARN/ERROR line logged before an error response, background jobs, startup. */
export interface EventLine {
  timestamp: string
  level: Level
  /** The event name as printed: an explicit name, or `target:line` for unnamed events. */
  name: string
  /** Set when the name is a tracing target (contains `::` or ends in `:<line>`). */
  target?: string
  sourceLine?: number
  /** Absent for events logged outside any log context. */
  requestId?: RequestId
  /** Everything after the context, fields included, verbatim. */
  message: string
}

export type ParsePart =
  | 'line'
  | 'timestamp'
  | 'level'
  | 'event-name'
  | 'request-id'
  | 'request-line'
  | 'method'
  | 'path'
  | 'http-version'
  | 'status'
  | 'reason'
  | 'user-agent'
  | 'stats'
  | 'fields'
  | 'requester'
  | 'client.address'
  | 'graphql.operation.type'
  | 'graphql.operation.name'
  | 'trace.id'

/** `column` is 1-based and counts characters of the ORIGINAL line, ANSI escapes included. */
export interface ParseError {
  part: ParsePart
  column: number
  message: string
}

export type ParsedLine =
  | { kind: 'response'; line: ResponseLine }
  | { kind: 'event'; event: EventLine }
  | { kind: 'blank' }
  | { kind: 'malformed'; error: ParseError }

/** What scanLine fills in: the few parts `audit-log` needs, without building a whole record. */
export interface LineView {
  method: string
  path: string
  status: number
  format: LogFormat
  /** The requester as printed (`user:<id>(<name>)`, `user:<id>`, `oauth2-client:<id>`, `homeserver`). */
  requester: string | undefined
  graphqlOperationName: string | undefined
  /** The timestamp as printed (responses and other events); undefined for blank and malformed lines. */
  timestamp: string | undefined
  error: ParseError | undefined
}

export function newLineView(): LineView {
  return {
    method: '',
    path: '',
    status: 0,
    format: 'v1.20',
    requester: undefined,
    graphqlOperationName: undefined,
    timestamp: undefined,
    error: undefined,
  }
}
