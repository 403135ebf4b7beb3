// The request-log grammar of the authentication service, in one place: the mock formats its
// `http.server.response` lines with formatResponseLine and everything that reads logs (suites,
// `audit-log`) parses them with parseLine, so the writer and the reader cannot drift apart.
//
// This is the facade; one concept per file in lib/requestlog/:
//   grammar.ts     the facts (event name, fields, stats labels, regex sources), written once
//   types.ts       the record types (wire shapes from schemas/requestlog/response-line.json)
//   format.ts      the formatter (what the mock writes)
//   scanner.ts     the reference scanner: parseLine (records, precise errors) and scanLine (bulk)
//   fast-path.ts   CanonicalMatcher: one regex for canonical request lines, tested against the scanner
//   status.ts, timestamp.ts, requester.ts, rust-debug.ts, ansi.ts, fields.ts, event-line.ts,
//   scan-parts.ts, scan-error.ts, tokens.ts: the parts
// The WebAssembly scanner of `audit-log` (scripts/audit-log/wasm/) takes its literals from grammar.ts
// at build time and is tested against scanLine.

export type {
  EventLine,
  GraphqlOperationType,
  HttpVersion,
  Level,
  LineView,
  LogFormat,
  ParsedLine,
  ParseError,
  ParsePart,
  RequestId,
  Requester,
  ResponseLine,
  Stats,
} from './requestlog/types.ts'
export { newLineView } from './requestlog/types.ts'
export { CANONICAL_TIMESTAMP_LENGTH, RESPONSE_EVENT_NAME } from './requestlog/grammar.ts'
export { levelForStatus, reasonPhrase, UNKNOWN_REASON } from './requestlog/status.ts'
export { formatTimestamp } from './requestlog/timestamp.ts'
export { formatRequester, parseRequester } from './requestlog/requester.ts'
export { rustDebugQuote } from './requestlog/rust-debug.ts'
export { stripAnsi } from './requestlog/ansi.ts'
export { formatEventLine, formatResponseLine, type ResponseLineInput } from './requestlog/format.ts'
export { parseLine, scanLine } from './requestlog/scanner.ts'
export {
  CanonicalMatcher,
  fastIsV120,
  fastMethod,
  fastOperationName,
  fastPath,
  fastRequester,
  fastStatus,
  viewOfMatch,
} from './requestlog/fast-path.ts'
