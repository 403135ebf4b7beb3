// The facts of the request-log grammar, written once: the formatter (format.ts), the reference
// scanner (scanner.ts, scan-parts.ts), the bulk regex (fast-path.ts) and the WebAssembly scanner
// (scripts/audit-log/wasm/, whose literals scripts/audit-log/wasm/build.ts generates from these)
// all take them from here.
//
// Line layout (see shared/reference/mas-admin-api.md §4):
//   <timestamp> <level padded to 5> <event name | target:line> [<tag>-<n> - ]<message>[ <field>=<value>…][ trace.id=<hex>]
// and for requests the message is
//   "<METHOD> <path> HTTP/<version>" <status> <reason> "<user agent, Rust Debug quoted>" [<stats>]

import type { Level } from './types.ts'

export const RESPONSE_EVENT_NAME = 'http.server.response'

export const LEVELS: readonly Level[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']

/** The HTTP versions the `http` crate prints after `HTTP/`. */
export const HTTP_VERSION_NAMES = ['0.9', '1.0', '1.1', '2.0', '3.0', '_OTHER'] as const
export const HTTP_VERSIONS: ReadonlySet<string> = new Set(HTTP_VERSION_NAMES)

/** The structured fields of a v1.20 response line, in the order the service prints them. */
export const FIELD = {
  requester: 'requester',
  clientAddress: 'client.address',
  graphqlOperationType: 'graphql.operation.type',
  graphqlOperationName: 'graphql.operation.name',
  traceId: 'trace.id',
} as const
export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.values(FIELD))
export const GRAPHQL_OPERATION_TYPES = ['query', 'mutation', 'subscription'] as const

/** Requester forms: `user:<id>[(<username>)]`, `oauth2-client:<id>`, `homeserver`. */
export const REQUESTER_USER = 'user:'
export const REQUESTER_CLIENT = 'oauth2-client:'
export const REQUESTER_HOMESERVER = 'homeserver'

/** The labels of the stats block `[polls: N, cpu: X.Xms, db: …]`; db, queries and fetched exist from v1.20 on. */
export const STATS_LABELS = {
  polls: 'polls: ',
  cpu: ', cpu: ',
  db: ', db: ',
  elapsed: ', elapsed: ',
  queries: ', queries: ',
  fetched: ', fetched: ',
} as const

// Regular-expression sources of the fixed-shape parts (the scanner's sticky regexes and the bulk
// regex are built from these).
/** Date and time to the second, UTC RFC 3339 (fraction and `Z` follow). */
export const RE_DATE_TIME = String.raw`\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)`
/** The canonical timestamp has 6 fractional digits (27 characters): it puts the level at a fixed offset. */
export const CANONICAL_TIMESTAMP_LENGTH = 27
/** Counts: at most 15 digits, so every value is exact in a double. */
export const RE_COUNT = String.raw`\d{1,15}`
/** Durations: milliseconds with one decimal. */
export const RE_MS = String.raw`\d{1,15}\.\dms`
export const RE_IPV4 = String.raw`(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`
export const RE_TRACE_ID = '[0-9a-f]{32}'
/** The stats block after '[' up to and including ']', both forms. */
export const RE_STATS =
  `${esc(STATS_LABELS.polls)}${RE_COUNT}${esc(STATS_LABELS.cpu)}${RE_MS}` +
  `(?:${esc(STATS_LABELS.db)}${RE_MS}${esc(STATS_LABELS.elapsed)}${RE_MS}${esc(STATS_LABELS.queries)}${RE_COUNT}${esc(STATS_LABELS.fetched)}${RE_COUNT}` +
  `|${esc(STATS_LABELS.elapsed)}${RE_MS})\\]`

/** Longest digit run read as a number (counters, request ids). */
export const MAX_DIGITS = 16

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
