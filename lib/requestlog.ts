// The request-log grammar of the authentication service, in one place: the mock formats its
// `http.server.response` lines with formatResponseLine and everything that reads logs (suites,
// `audit-log`) parses them with parseLine, so the writer and the reader cannot drift apart.
//
// Line layout (see shared/reference/mas-admin-api.md §4):
//   <timestamp> <level padded to 5> <event name | target:line> [<tag>-<n> - ]<message>[ <field>=<value>…][ trace.id=<hex>]
// and for requests the message is
//   "<METHOD> <path> HTTP/<version>" <status> <reason> "<user agent, Rust Debug quoted>" [<stats>]
//
// Parsing is a hand-written scanner (indexOf/charCodeAt and small anchored regexes for fixed-shape
// parts) that gives the verdict and precise errors; `audit-log` adds a bulk fast path for canonical
// request lines (CanonicalMatcher, at the end of this file) that is tested to agree with the scanner.

import { isIP } from 'node:net'
import type { ResponseLineLogFormat, ResponseLineRequestId, ResponseLineRequester, ResponseLineStats } from './types.gen.ts'

// The record types come from schemas/requestlog/response-line.json (lib/types.gen.ts).

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

export const RESPONSE_EVENT_NAME = 'http.server.response'

// ---------------------------------------------------------------------------------------------
// Small shared helpers

// The phrases of the `http` crate's StatusCode Display (note 203 has no hyphen there);
// unknown codes print `<unknown status code>`.
const REASONS: Record<number, string> = {
  100: 'Continue', 101: 'Switching Protocols', 102: 'Processing',
  200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non Authoritative Information', 204: 'No Content',
  205: 'Reset Content', 206: 'Partial Content', 207: 'Multi-Status', 208: 'Already Reported', 226: 'IM Used',
  300: 'Multiple Choices', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified',
  305: 'Use Proxy', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 407: 'Proxy Authentication Required', 408: 'Request Timeout',
  409: 'Conflict', 410: 'Gone', 411: 'Length Required', 412: 'Precondition Failed', 413: 'Payload Too Large',
  414: 'URI Too Long', 415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 417: 'Expectation Failed',
  418: "I'm a teapot", 421: 'Misdirected Request', 422: 'Unprocessable Entity', 423: 'Locked',
  424: 'Failed Dependency', 426: 'Upgrade Required', 428: 'Precondition Required', 429: 'Too Many Requests',
  431: 'Request Header Fields Too Large', 451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable',
  504: 'Gateway Timeout', 505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates',
  507: 'Insufficient Storage', 508: 'Loop Detected', 510: 'Not Extended', 511: 'Network Authentication Required',
}
export const UNKNOWN_REASON = '<unknown status code>'

export function reasonPhrase(status: number): string {
  return REASONS[status] ?? UNKNOWN_REASON
}

/** INFO for 1xx–3xx, WARN for 4xx, ERROR for 5xx (the only statuses the service logs). */
export function levelForStatus(status: number): 'INFO' | 'WARN' | 'ERROR' {
  if (status >= 500) return 'ERROR'
  if (status >= 400) return 'WARN'
  return 'INFO'
}

/**
 * UTC RFC 3339 with 6 fractional digits and `Z`, as the service prints it.
 * `micros` (0–999) adds the microseconds below the Date's millisecond.
 */
export function formatTimestamp(date: Date, micros = 0): string {
  const t = date.getTime()
  if (!Number.isFinite(t)) throw new RangeError('formatTimestamp: invalid Date')
  if (!Number.isInteger(micros) || micros < 0 || micros > 999) {
    throw new RangeError(`formatTimestamp: micros must be an integer 0..999, got ${micros}`)
  }
  // toISOString gives milliseconds; append the 3 sub-millisecond digits.
  const iso = date.toISOString()
  return iso.slice(0, 23) + String(micros).padStart(3, '0') + 'Z'
}

export function formatRequester(r: Requester): string {
  switch (r.kind) {
    case 'user':
      return r.username === undefined ? `user:${r.id}` : `user:${r.id}(${r.username})`
    case 'oauth2-client':
      return `oauth2-client:${r.id}`
    case 'homeserver':
      return 'homeserver'
  }
}

/** Parses a requester value as printed; throws a RangeError naming the problem for anything else. */
export function parseRequester(s: string): Requester {
  const r = requesterOrError(s)
  if (typeof r === 'string') throw new RangeError(`bad requester ${JSON.stringify(s)}: ${r}`)
  return r
}

function requesterOrError(s: string): Requester | string {
  if (s === 'homeserver') return { kind: 'homeserver' }
  if (s.startsWith('user:')) {
    const open = s.indexOf('(', 5)
    if (open === -1) {
      if (s.length === 5) return 'empty user id'
      if (s.indexOf(')', 5) !== -1) return "unbalanced ')' in user requester"
      return { kind: 'user', id: s.slice(5) }
    }
    if (open === 5) return 'empty user id'
    if (s.charCodeAt(s.length - 1) !== 41 /* ) */) return "user requester with '(' must end with ')'"
    const username = s.slice(open + 1, s.length - 1)
    if (username.length === 0) return 'empty username in user requester'
    return { kind: 'user', id: s.slice(5, open), username }
  }
  if (s.startsWith('oauth2-client:')) {
    if (s.length === 14) return 'empty client id'
    return { kind: 'oauth2-client', id: s.slice(14) }
  }
  return "expected 'user:<id>', 'user:<id>(<username>)', 'oauth2-client:<id>' or 'homeserver'"
}

// ---------------------------------------------------------------------------------------------
// Rust `{:?}` quoting of a &str (what the service uses for the User-Agent)

// Characters Rust's Debug escapes as \u{..}: controls, format characters, separators other than
// the plain space, unassigned and private-use code points. Real User-Agent values are visible ASCII
// (the header type requires it), so this only matters for hand-made records.
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]|[\p{Zs}](?<! )/u
const GRAPHEME_EXTEND = /^\p{M}/u

export function rustDebugQuote(s: string): string {
  // Fast path: printable ASCII without quote or backslash is printed as is.
  let plain = true
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      plain = false
      break
    }
  }
  if (plain) return '"' + s + '"'
  let out = '"'
  let i = 0
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    switch (cp) {
      case 0x22: out += '\\"'; break
      case 0x5c: out += '\\\\'; break
      case 0x0a: out += '\\n'; break
      case 0x0d: out += '\\r'; break
      case 0x09: out += '\\t'; break
      case 0x00: out += '\\0'; break
      default:
        if ((cp >= 0x20 && cp < 0x7f) || (!NON_PRINTABLE.test(ch) && !(i === 0 && GRAPHEME_EXTEND.test(ch)))) {
          out += ch
        } else {
          out += `\\u{${cp.toString(16)}}`
        }
    }
    i++
  }
  return out + '"'
}

// ---------------------------------------------------------------------------------------------
// Formatting

const LEVEL_PAD: Record<Level, string> = { TRACE: 'TRACE', DEBUG: 'DEBUG', INFO: ' INFO', WARN: ' WARN', ERROR: 'ERROR' }
const LEVEL_COLOUR: Record<Level, string> = { TRACE: '35', DEBUG: '34', INFO: '32', WARN: '33', ERROR: '31' }
const RESET = '\x1b[0m'

function fmtHead(timestamp: string, level: Level, name: string, context: string | undefined, ansi: boolean): string {
  const lvl = ansi ? `\x1b[${LEVEL_COLOUR[level]}m${LEVEL_PAD[level]}${RESET}` : LEVEL_PAD[level]
  const nm = ansi ? `\x1b[2m${name}${RESET}` : name
  let out = `${timestamp} ${lvl} ${nm} `
  if (context !== undefined) out += ansi ? `\x1b[1m${context}${RESET} - ` : `${context} - `
  return out
}

function fmtField(name: string, value: string, ansi: boolean): string {
  return ansi ? ` \x1b[3m${name}${RESET}\x1b[2m=${RESET}${value}` : ` ${name}=${value}`
}

function fmtTraceId(id: string, ansi: boolean): string {
  return ansi ? ` \x1b[3mtrace.id${RESET}=${id}` : ` trace.id=${id}`
}

function fmtMs(ms: number, what: string): string {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`formatResponseLine: stats.${what} must be a finite number >= 0`)
  return ms.toFixed(1) + 'ms'
}

function fmtCount(n: number, what: string): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`formatResponseLine: stats.${what} must be an integer >= 0`)
  return String(n)
}

function checkToken(value: string, what: string): void {
  if (value.length === 0 || /[\s"]/.test(value)) {
    throw new RangeError(`formatResponseLine: ${what} must be non-empty without spaces or quotes, got ${JSON.stringify(value)}`)
  }
}

function timestampString(ts: string | Date): string {
  return typeof ts === 'string' ? ts : formatTimestamp(ts)
}

/** What the formatter takes: a ResponseLine without `format`; level and reason default from the status. */
export type ResponseLineInput = Omit<ResponseLine, 'format' | 'timestamp' | 'level' | 'reason'> & {
  timestamp: string | Date
  level?: Level
  reason?: string
}

/**
 * Formats one `http.server.response` line (without the trailing newline).
 * The pre-v1.20 form has the short stats and no structured fields (requester, client.address,
 * graphql.*, extra fields are left out); `trace.id` is printed in both forms because the
 * formatter appended it before v1.20 already. The query string, if the path has one, is cut off
 * as the service does. Throws RangeError on values the real service could not print.
 */
export function formatResponseLine(rec: ResponseLineInput, opts: { format: LogFormat; ansi?: boolean }): string {
  const ansi = opts.ansi === true
  const { status } = rec
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RangeError(`formatResponseLine: status must be an integer 100..599, got ${status}`)
  }
  const level = levelForStatus(status)
  if (rec.level !== undefined && rec.level !== level) {
    throw new RangeError(`formatResponseLine: level ${rec.level} does not match status ${status} (the service logs ${level})`)
  }
  const reason = rec.reason ?? reasonPhrase(status)
  if (reason.length === 0 || /["\n\r]/.test(reason)) throw new RangeError('formatResponseLine: bad reason phrase')
  checkToken(rec.method, 'method')
  checkToken(rec.requestId.method, 'requestId.method')
  if (!Number.isSafeInteger(rec.requestId.counter) || rec.requestId.counter < 0) {
    throw new RangeError('formatResponseLine: requestId.counter must be an integer >= 0')
  }
  const q = rec.path.indexOf('?')
  const path = q === -1 ? rec.path : rec.path.slice(0, q)
  // The http crate lets a few odd characters such as '"' through in paths, but never a space.
  if (path.length === 0 || /\s/.test(path)) throw new RangeError(`formatResponseLine: path must be non-empty without spaces, got ${JSON.stringify(path)}`)
  if (!HTTP_VERSIONS.has(rec.httpVersion)) throw new RangeError(`formatResponseLine: unknown httpVersion ${String(rec.httpVersion)}`)

  const s = rec.stats
  let stats = `polls: ${fmtCount(s.polls, 'polls')}, cpu: ${fmtMs(s.cpuMs, 'cpuMs')}, `
  if (opts.format === 'v1.20') {
    if (s.dbMs === undefined || s.queries === undefined || s.fetched === undefined) {
      throw new RangeError('formatResponseLine: the v1.20 format needs stats.dbMs, stats.queries and stats.fetched')
    }
    stats += `db: ${fmtMs(s.dbMs, 'dbMs')}, elapsed: ${fmtMs(s.elapsedMs, 'elapsedMs')}, queries: ${fmtCount(s.queries, 'queries')}, fetched: ${fmtCount(s.fetched, 'fetched')}`
  } else if (opts.format === 'pre-v1.20') {
    stats += `elapsed: ${fmtMs(s.elapsedMs, 'elapsedMs')}`
  } else {
    throw new RangeError(`formatResponseLine: unknown format ${String(opts.format)}`)
  }

  const ua = rec.userAgent === null ? '"-"' : rustDebugQuote(rec.userAgent)
  let out =
    fmtHead(timestampString(rec.timestamp), level, RESPONSE_EVENT_NAME, `${rec.requestId.method}-${rec.requestId.counter}`, ansi) +
    `"${rec.method} ${path} HTTP/${rec.httpVersion}" ${status} ${reason} ${ua} [${stats}]`

  if (opts.format === 'v1.20') {
    if (rec.requester !== undefined) {
      const r = formatRequester(rec.requester)
      checkToken(r, 'requester')
      const back = requesterOrError(r)
      if (typeof back === 'string') throw new RangeError(`formatResponseLine: requester ${r}: ${back}`)
      out += fmtField('requester', r, ansi)
    }
    if (rec.clientAddress !== undefined) {
      if (isIP(rec.clientAddress) === 0) throw new RangeError(`formatResponseLine: clientAddress ${rec.clientAddress} is not an IP address`)
      out += fmtField('client.address', rec.clientAddress, ansi)
    }
    if (rec.graphqlOperationType !== undefined) out += fmtField('graphql.operation.type', rec.graphqlOperationType, ansi)
    if (rec.graphqlOperationName !== undefined) {
      checkToken(rec.graphqlOperationName, 'graphqlOperationName')
      out += fmtField('graphql.operation.name', rec.graphqlOperationName, ansi)
    }
    if (rec.extraFields !== undefined) {
      for (const [k, v] of Object.entries(rec.extraFields)) {
        checkToken(k, 'extra field name')
        checkToken(v, `extra field ${k}`)
        if (k.includes('=') || KNOWN_FIELDS.has(k)) throw new RangeError(`formatResponseLine: bad extra field name ${k}`)
        out += fmtField(k, v, ansi)
      }
    }
  }
  if (rec.traceId !== undefined) {
    if (!isTraceId(rec.traceId)) throw new RangeError('formatResponseLine: traceId must be 32 lowercase hex digits')
    out += fmtTraceId(rec.traceId, ansi)
  }
  return out
}

/**
 * Formats any other event line: the WARN/ERROR line logged before an error response (target is
 * then `module::path:line`), or a background job's line. Without requestId the context part is left
 * out, as for events outside any request.
 */
export function formatEventLine(opts: {
  timestamp: string | Date
  level: Level
  target: string
  requestId?: string
  message: string
  ansi?: boolean
}): string {
  const ansi = opts.ansi === true
  if (opts.target.length === 0 || /\s/.test(opts.target)) throw new RangeError('formatEventLine: target must be non-empty without spaces')
  if (opts.target === RESPONSE_EVENT_NAME) throw new RangeError('formatEventLine: use formatResponseLine for http.server.response')
  if (opts.requestId !== undefined && !isContextToken(opts.requestId, 0, opts.requestId.length)) {
    throw new RangeError(`formatEventLine: requestId must look like <tag>-<number>, got ${JSON.stringify(opts.requestId)}`)
  }
  if (/[\n\r]/.test(opts.message)) throw new RangeError('formatEventLine: the message must be a single line')
  return fmtHead(timestampString(opts.timestamp), opts.level, opts.target, opts.requestId, ansi) + opts.message
}

// ---------------------------------------------------------------------------------------------
// Parsing
//
// Two stages. scan() validates a whole line and records the offsets of its parts in module
// state without allocating; materialize() then builds the typed record from those offsets.
// scanLine() and CanonicalMatcher skip most of the materializing for bulk work. Small anchored (sticky)
// regexes check fixed-shape parts (timestamp, stats, trace id, IPv4) because the regex engine's
// native code beats a charCodeAt loop; they never backtrack over the line. When one of them
// rejects a part, a detailed scanner runs to say precisely where and why.

const KNOWN_FIELDS = new Set(['requester', 'client.address', 'graphql.operation.type', 'graphql.operation.name', 'trace.id'])
const HTTP_VERSIONS = new Set(['0.9', '1.0', '1.1', '2.0', '3.0', '_OTHER'])

const TS_RE = /\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d{1,9})?Z/y
const STATS_RE =
  /polls: \d{1,15}, cpu: \d{1,15}\.\dms, (?:db: \d{1,15}\.\dms, elapsed: \d{1,15}\.\dms, queries: \d{1,15}, fetched: \d{1,15}|elapsed: \d{1,15}\.\dms)\]/y
const HEX32_RE = /[0-9a-f]{32}/y
const IPV4_RE = /(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)/y
const MAX_DIGITS = 16

// Error state: scanners return -1 and leave the details here (no exceptions on the hot path).
let errPart: ParsePart = 'line'
let errPos = 0
let errMsg = ''
function fail(part: ParsePart, pos: number, msg: string): -1 {
  errPart = part
  errPos = pos
  errMsg = msg
  return -1
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

function isTraceId(s: string): boolean {
  if (s.length !== 32) return false
  HEX32_RE.lastIndex = 0
  return HEX32_RE.test(s)
}

/** `<tag>-<digits>` where the tag is non-empty and has no spaces. */
function isContextToken(s: string, from: number, to: number): boolean {
  const dash = s.lastIndexOf('-', to - 1)
  if (dash <= from || dash >= to - 1) return false
  for (let i = dash + 1; i < to; i++) if (!isDigit(s.charCodeAt(i))) return false
  for (let i = from; i < dash; i++) {
    const c = s.charCodeAt(i)
    if (c <= 32 || c === 34) return false
  }
  return true
}

// Digits at [p, to) as a safe integer, or -1.
function parseUint(s: string, p: number, to: number): number {
  if (p >= to || to - p > MAX_DIGITS) return -1
  let v = 0
  for (let i = p; i < to; i++) {
    const d = s.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v <= Number.MAX_SAFE_INTEGER ? v : -1
}

function num2(s: string, p: number): number {
  return (s.charCodeAt(p) - 48) * 10 + (s.charCodeAt(p + 1) - 48)
}

const TS_TEMPLATE = 'dddd-dd-ddTdd:dd:dd'
const TS_NAMES = ['year', 'year', 'year', 'year', '', 'month', 'month', '', 'day', 'day', '', 'hour', 'hour', '', 'minute', 'minute', '', 'second', 'second']

/** Detailed timestamp scanner (same grammar as TS_RE); returns the index after the `Z`. */
function scanTimestampSlow(s: string): number {
  const n = s.length
  for (let i = 0; i < 19; i++) {
    if (i >= n) return fail('timestamp', i, 'line ends inside the timestamp')
    const c = s.charCodeAt(i)
    const t = TS_TEMPLATE.charCodeAt(i)
    if (t === 100 /* d */) {
      if (!isDigit(c)) return fail('timestamp', i, `expected a digit of the ${TS_NAMES[i]}`)
    } else if (c !== t) {
      return fail('timestamp', i, `expected '${TS_TEMPLATE[i]}'`)
    }
  }
  const month = num2(s, 5)
  if (month < 1 || month > 12) return fail('timestamp', 5, 'month out of range')
  const day = num2(s, 8)
  if (day < 1 || day > 31) return fail('timestamp', 8, 'day out of range')
  if (num2(s, 11) > 23) return fail('timestamp', 11, 'hour out of range')
  if (num2(s, 14) > 59) return fail('timestamp', 14, 'minute out of range')
  if (num2(s, 17) > 60) return fail('timestamp', 17, 'second out of range')
  let p = 19
  if (s.charCodeAt(p) === 46 /* . */) {
    p++
    const start = p
    while (p < n && isDigit(s.charCodeAt(p))) p++
    if (p === start) return fail('timestamp', p, 'expected fractional seconds after "."')
    if (p - start > 9) return fail('timestamp', start + 9, 'more than 9 fractional digits')
  }
  if (s.charCodeAt(p) !== 90 /* Z */) return fail('timestamp', p, "expected 'Z' (UTC) at the end of the timestamp")
  return p + 1
}

// --- stats (detailed scanner: used for error messages and to read the numbers) ---------------

let numOut = 0
/** Scans `<label><digits>` at p, value into numOut; returns the index after it. */
function scanCount(s: string, p: number, label: string): number {
  if (!s.startsWith(label, p)) return fail('stats', p, `expected '${label}'`)
  p += label.length
  const start = p
  const n = s.length
  while (p < n && isDigit(s.charCodeAt(p))) p++
  const v = parseUint(s, start, p)
  if (v < 0) return fail('stats', start, p === start ? `expected an integer after '${label}'` : 'number too long')
  numOut = v
  return p
}
/** Scans `<label><digits>.<digit>ms` at p, value into numOut. */
function scanMs(s: string, p: number, label: string): number {
  if (!s.startsWith(label, p)) return fail('stats', p, `expected '${label}'`)
  p += label.length
  const start = p
  const n = s.length
  while (p < n && isDigit(s.charCodeAt(p))) p++
  const whole = parseUint(s, start, p)
  if (whole < 0) return fail('stats', start, p === start ? `expected a duration after '${label}'` : 'number too long')
  if (s.charCodeAt(p) !== 46 || !isDigit(s.charCodeAt(p + 1))) {
    return fail('stats', p, 'expected one decimal in the duration (e.g. 4.7ms)')
  }
  const tenth = s.charCodeAt(p + 1) - 48
  p += 2
  if (s.charCodeAt(p) !== 109 || s.charCodeAt(p + 1) !== 115) {
    return fail('stats', p, isDigit(s.charCodeAt(p)) ? 'expected exactly one decimal in the duration' : "expected the unit 'ms'")
  }
  // Exact division of integers gives the same double as parsing the decimal text.
  numOut = (whole * 10 + tenth) / 10
  return p + 2
}

let statsOut: Stats = { polls: 0, cpuMs: 0, elapsedMs: 0 }
/** Scans the stats block from just after '['; returns the index after ']'. */
function scanStatsSlow(s: string, p: number): number {
  p = scanCount(s, p, 'polls: ')
  if (p < 0) return p
  const polls = numOut
  p = scanMs(s, p, ', cpu: ')
  if (p < 0) return p
  const cpuMs = numOut
  if (s.startsWith(', db: ', p)) {
    p = scanMs(s, p, ', db: ')
    if (p < 0) return p
    const dbMs = numOut
    p = scanMs(s, p, ', elapsed: ')
    if (p < 0) return p
    const elapsedMs = numOut
    p = scanCount(s, p, ', queries: ')
    if (p < 0) return p
    const queries = numOut
    p = scanCount(s, p, ', fetched: ')
    if (p < 0) return p
    statsOut = { polls, cpuMs, dbMs, elapsedMs, queries, fetched: numOut }
  } else {
    if (!s.startsWith(', elapsed: ', p)) return fail('stats', p, "expected ', db: ' (v1.20) or ', elapsed: ' (before v1.20)")
    p = scanMs(s, p, ', elapsed: ')
    if (p < 0) return p
    statsOut = { polls, cpuMs, elapsedMs: numOut }
  }
  if (s.charCodeAt(p) !== 93 /* ] */) return fail('stats', p, "expected ']' closing the stats")
  return p + 1
}

// --- User-Agent ------------------------------------------------------------------------------

let uaDecoded: string = ''
/** Decodes the Rust Debug string whose content starts at p (after the quote) and that has an escape at b. */
function decodeQuoted(s: string, p: number, b: number): number {
  let out = s.slice(p, b)
  const n = s.length
  let i = b
  while (i < n) {
    const c = s.charCodeAt(i)
    if (c === 34) {
      uaDecoded = out
      return i + 1
    }
    if (c !== 92) {
      out += s[i]
      i++
      continue
    }
    const e = s.charCodeAt(i + 1)
    switch (e) {
      case 34: out += '"'; i += 2; break
      case 92: out += '\\'; i += 2; break
      case 39: out += "'"; i += 2; break
      case 110: out += '\n'; i += 2; break
      case 114: out += '\r'; i += 2; break
      case 116: out += '\t'; i += 2; break
      case 48: out += '\0'; i += 2; break
      case 117: {
        // \u{1-6 hex digits}
        if (s.charCodeAt(i + 2) !== 123) return fail('user-agent', i, "expected '{' after \\u")
        const close = s.indexOf('}', i + 3)
        if (close === -1 || close === i + 3 || close - (i + 3) > 6) return fail('user-agent', i, 'bad \\u{...} escape')
        let cp = 0
        for (let k = i + 3; k < close; k++) {
          const h = s.charCodeAt(k) | 0x20
          const d = h >= 48 && h <= 57 ? h - 48 : h >= 97 && h <= 102 ? h - 87 : -1
          if (d < 0) return fail('user-agent', k, 'bad hex digit in \\u{...} escape')
          cp = cp * 16 + d
        }
        if (cp > 0x10ffff) return fail('user-agent', i, 'code point out of range in \\u{...} escape')
        out += String.fromCodePoint(cp)
        i = close + 1
        break
      }
      default:
        return fail('user-agent', i, i + 1 >= n ? 'line ends inside the User-Agent' : `unknown escape '\\${s[i + 1]}'`)
    }
  }
  return fail('user-agent', p - 1, 'unterminated quoted User-Agent')
}

// --- ANSI --------------------------------------------------------------------------------------

/** Removes ANSI escape sequences (CSI `ESC [ … final` and two-byte `ESC x`). */
export function stripAnsi(s: string): string {
  let i = s.indexOf('\x1b')
  if (i === -1) return s
  let out = ''
  let from = 0
  const n = s.length
  while (i !== -1) {
    out += s.slice(from, i)
    from = skipEscape(s, i, n)
    i = s.indexOf('\x1b', from)
  }
  return out + s.slice(from)
}

function skipEscape(s: string, i: number, n: number): number {
  let j = i + 1
  if (j < n && s.charCodeAt(j) === 91 /* [ */) {
    j++
    while (j < n) {
      const c = s.charCodeAt(j)
      j++
      if (c >= 0x40 && c <= 0x7e) break
    }
    return j
  }
  return Math.min(j + 1, n)
}

/** Maps an index in stripAnsi(s) back to the index in s. */
function originalIndex(s: string, stripped: number): number {
  let kept = 0
  let i = 0
  const n = s.length
  while (i < n) {
    if (s.charCodeAt(i) === 27) {
      i = skipEscape(s, i, n)
      continue
    }
    if (kept === stripped) return i
    kept++
    i++
  }
  return n + (stripped - kept)
}

// --- the scanner -------------------------------------------------------------------------------

const K_MALFORMED = 0
const K_BLANK = 1
const K_EVENT = 2
const K_RESPONSE = 3

// Scan state: the current (stripped) line and the offsets of its parts.
let cur = ''
let curOriginal = ''
let curAnsi = false
let tsEnd = 0
let level: Level = 'INFO'
let levelPos = 0
let nameStart = 0
let nameEnd = 0
let ridDash = 0
let ridEnd = 0
let counter = 0
let mStart = 0
let mEnd = 0
let pStart = 0
let pEnd = 0
let vStart = 0
let vEnd = 0
let status = 0
let rStart = 0
let rEnd = 0
let uaStart = 0 // -1: bare hyphen
let uaEnd = 0
let uaEscaped = false
let stStart = 0
let v120 = false
let fReq = -1
let fReqEnd = 0
let fReqParen = -1
let fIp = -1
let fIpEnd = 0
let fGt = -1
let fGtEnd = 0
let fGn = -1
let fGnEnd = 0
let fTr = -1
let fTrEnd = 0
let fExtra = -1

function scan(input: string): number {
  let line = input
  let n = line.length
  // Tolerate the line terminator (LF or CRLF) so callers may pass raw lines.
  if (n > 0 && line.charCodeAt(n - 1) === 10) n--
  if (n > 0 && line.charCodeAt(n - 1) === 13) n--
  if (n !== line.length) line = line.slice(0, n)
  curOriginal = line
  curAnsi = line.indexOf('\x1b') !== -1
  const s = curAnsi ? stripAnsi(line) : line
  cur = s
  if (s.length === 0) return K_BLANK
  const c0 = s.charCodeAt(0)
  if ((c0 === 32 || c0 === 9) && s.trim().length === 0) return K_BLANK

  // Timestamp.
  TS_RE.lastIndex = 0
  let p: number
  if (TS_RE.test(s)) p = TS_RE.lastIndex
  else {
    p = scanTimestampSlow(s)
    if (p < 0) return K_MALFORMED
  }
  tsEnd = p

  // Level: padded to 5 characters, so one or two spaces before it.
  if (s.charCodeAt(p) !== 32) return fail('level', p, 'expected a space after the timestamp'), K_MALFORMED
  p++
  if (s.charCodeAt(p) === 32) p++
  levelPos = p
  let len = 4
  switch (s.charCodeAt(p)) {
    case 73: level = 'INFO'; break
    case 87: level = 'WARN'; break
    case 69: level = 'ERROR'; len = 5; break
    case 68: level = 'DEBUG'; len = 5; break
    case 84: level = 'TRACE'; len = 5; break
    default: return fail('level', p, 'expected one of TRACE, DEBUG, INFO, WARN, ERROR'), K_MALFORMED
  }
  if (!s.startsWith(level, p)) return fail('level', p, 'expected one of TRACE, DEBUG, INFO, WARN, ERROR'), K_MALFORMED
  p += len
  if (s.charCodeAt(p) !== 32) {
    return fail(p >= s.length ? 'event-name' : 'level', p, p >= s.length ? 'line ends after the level' : 'expected a space after the level'), K_MALFORMED
  }
  p++
  if (p >= s.length || s.charCodeAt(p) === 32) return fail('event-name', p, 'expected the event name after the level'), K_MALFORMED
  nameStart = p
  let e = s.indexOf(' ', p)
  if (e === -1) e = s.length
  nameEnd = e
  if (e - p === 20 && s.startsWith(RESPONSE_EVENT_NAME, p)) return scanResponse(s, e) < 0 ? K_MALFORMED : K_RESPONSE
  return K_EVENT
}

function scanResponse(s: string, p: number): number {
  const n = s.length
  // Request id: <tag>-<counter> then ' - '.
  p++
  if (p >= n) return fail('request-id', p, 'line ends before the request id')
  let sp = s.indexOf(' ', p)
  if (sp === -1) sp = n
  const dash = s.lastIndexOf('-', sp - 1)
  if (dash <= p) return fail('request-id', p, "expected '<METHOD>-<counter>'")
  counter = parseUint(s, dash + 1, sp)
  if (counter < 0) return fail('request-id', dash + 1, "expected a number (at most 2^53-1) after '-' in the request id")
  ridDash = dash
  ridEnd = sp
  if (s.charCodeAt(sp + 1) !== 45 || s.charCodeAt(sp + 2) !== 32) return fail('request-id', sp, "expected ' - ' after the request id")
  p = sp + 3

  // "METHOD path HTTP/version"
  if (s.charCodeAt(p) !== 34) return fail('request-line', p, 'expected \'"\' opening the request line')
  p++
  sp = s.indexOf(' ', p)
  if (sp === -1 || sp === p) return fail('method', p, 'expected the method followed by a space')
  for (let i = p; i < sp; i++) {
    const c = s.charCodeAt(i)
    if (c === 34 || c < 33) return fail('method', i, 'unexpected character in the method')
  }
  mStart = p
  mEnd = sp
  p = sp + 1
  sp = s.indexOf(' ', p)
  if (sp === -1 || sp === p) return fail('path', p, 'expected the path followed by a space')
  pStart = p
  pEnd = sp
  p = sp + 1
  if (!s.startsWith('HTTP/', p)) return fail('http-version', p, "expected 'HTTP/'")
  p += 5
  const q = s.indexOf('"', p)
  if (q === -1) return fail('request-line', p, 'unterminated request line')
  if (!HTTP_VERSIONS.has(s.slice(p, q))) return fail('http-version', p, `unknown HTTP version '${s.slice(p, q)}'`)
  vStart = p
  vEnd = q
  if (s.charCodeAt(q + 1) !== 32) return fail('request-line', q + 1, 'expected a space after the request line')
  p = q + 2

  // Status and reason phrase.
  status = parseUint(s, p, p + 3)
  if (status < 0 || isDigit(s.charCodeAt(p + 3))) return fail('status', p, 'expected a 3-digit status code')
  if (status < 100 || status > 599) return fail('status', p, 'status code out of range 100..599')
  if (s.charCodeAt(p + 3) !== 32) return fail('status', p + 3, 'expected a space after the status code')
  p += 4
  let ua = s.indexOf(' "', p)
  let bareHyphen = false
  if (ua === -1) {
    // The interface also allows a bare '-' for a missing User-Agent.
    ua = s.indexOf(' - [', p)
    if (ua === -1) return fail('reason', p, 'expected the reason phrase followed by the quoted User-Agent')
    bareHyphen = true
  }
  if (ua === p) return fail('reason', p, 'empty reason phrase')
  rStart = p
  rEnd = ua
  p = ua + 1

  // User-Agent.
  if (bareHyphen) {
    uaStart = -1
    p++
  } else {
    const close = s.indexOf('"', p + 1)
    const b = s.indexOf('\\', p + 1)
    uaStart = p + 1
    if (b === -1 || (close !== -1 && b > close)) {
      if (close === -1) return fail('user-agent', p, 'unterminated quoted User-Agent')
      uaEscaped = false
      uaEnd = close
      p = close + 1
    } else {
      uaEscaped = true
      p = decodeQuoted(s, p + 1, b)
      if (p < 0) return -1
      uaEnd = p - 1
    }
  }

  // Stats.
  if (s.charCodeAt(p) !== 32 || s.charCodeAt(p + 1) !== 91) return fail('stats', p, "expected ' [' opening the stats")
  p += 2
  stStart = p
  STATS_RE.lastIndex = p
  if (STATS_RE.test(s)) {
    p = STATS_RE.lastIndex
    v120 = s.charCodeAt(p - 2) !== 115 /* s of "ms]" */
  } else {
    p = scanStatsSlow(s, p)
    if (p < 0) return -1
    // Only reached if the regex and the scanner disagree; trust the scanner.
    v120 = statsOut.dbMs !== undefined
  }

  // Fields: ' name=value' until the end of the line.
  fReq = fIp = fGt = fGn = fTr = fExtra = -1
  while (p < n) {
    if (s.charCodeAt(p) !== 32) return fail('fields', p, 'expected a space before the next field')
    p++
    const eq = s.indexOf('=', p)
    let end = s.indexOf(' ', p)
    if (end === -1) end = n
    if (eq === -1 || eq > end || eq === p) return fail('fields', p, "expected 'name=value'")
    const v = eq + 1
    if (v === end) return fail('fields', v, 'empty field value')
    const klen = eq - p
    if (klen === 9 && s.startsWith('requester', p)) {
      if (fReq >= 0) return fail('fields', p, 'duplicate field requester')
      if (scanRequester(s, v, end) < 0) return -1
      fReq = v
      fReqEnd = end
    } else if (klen === 14 && s.startsWith('client.address', p)) {
      if (fIp >= 0) return fail('fields', p, 'duplicate field client.address')
      IPV4_RE.lastIndex = v
      if (!(IPV4_RE.test(s) && IPV4_RE.lastIndex === end) && isIP(s.slice(v, end)) !== 6) {
        return fail('client.address', v, 'not an IPv4 or IPv6 address')
      }
      fIp = v
      fIpEnd = end
    } else if (klen === 8 && s.startsWith('trace.id', p)) {
      if (fTr >= 0) return fail('fields', p, 'duplicate field trace.id')
      HEX32_RE.lastIndex = v
      if (end - v !== 32 || !HEX32_RE.test(s)) return fail('trace.id', v, 'expected 32 lowercase hex digits')
      fTr = v
      fTrEnd = end
    } else if (klen === 22 && s.startsWith('graphql.operation.', p)) {
      if (s.startsWith('type', p + 18)) {
        if (fGt >= 0) return fail('fields', p, 'duplicate field graphql.operation.type')
        const l = end - v
        if (
          !(l === 5 && s.startsWith('query', v)) &&
          !(l === 8 && s.startsWith('mutation', v)) &&
          !(l === 12 && s.startsWith('subscription', v))
        ) {
          return fail('graphql.operation.type', v, 'expected query, mutation or subscription')
        }
        fGt = v
        fGtEnd = end
      } else if (s.startsWith('name', p + 18)) {
        if (fGn >= 0) return fail('fields', p, 'duplicate field graphql.operation.name')
        fGn = v
        fGnEnd = end
      } else if (fExtra < 0) fExtra = p - 1
    } else if (fExtra < 0) fExtra = p - 1
    p = end
  }
  if (fExtra >= 0 && collectExtra(s, fExtra) === null) return -1

  const expected = status >= 500 ? 'ERROR' : status >= 400 ? 'WARN' : 'INFO'
  if (level !== expected) return fail('level', levelPos, `level ${level} does not match status ${status} (expected ${expected})`)
  return 0
}

/** Validates a requester value at [v, end); records the '(' position. */
function scanRequester(s: string, v: number, end: number): number {
  fReqParen = -1
  if (s.startsWith('user:', v)) {
    const id = v + 5
    if (id === end || s.charCodeAt(id) === 40) return fail('requester', id, 'empty user id')
    const open = s.indexOf('(', id)
    if (open === -1 || open >= end) {
      const close = s.indexOf(')', id)
      if (close !== -1 && close < end) return fail('requester', close, "unbalanced ')' in user requester")
      return 0
    }
    if (s.charCodeAt(end - 1) !== 41) return fail('requester', end - 1, "user requester with '(' must end with ')'")
    if (end - 1 === open + 1) return fail('requester', open + 1, 'empty username in user requester')
    fReqParen = open
    return 0
  }
  if (s.startsWith('oauth2-client:', v)) {
    if (end === v + 14) return fail('requester', end, 'empty client id')
    return 0
  }
  if (end - v === 10 && s.startsWith('homeserver', v)) return 0
  return fail('requester', v, "expected 'user:<id>', 'user:<id>(<username>)', 'oauth2-client:<id>' or 'homeserver'")
}

/** Collects fields this grammar does not know, from the space before the first of them. */
function collectExtra(s: string, p: number): Record<string, string> | null {
  const out: Record<string, string> = {}
  const n = s.length
  while (p < n) {
    p++
    const eq = s.indexOf('=', p)
    let end = s.indexOf(' ', p)
    if (end === -1) end = n
    const key = s.slice(p, eq)
    if (!KNOWN_FIELDS.has(key)) {
      if (Object.hasOwn(out, key)) return fail('fields', p, `duplicate field ${key}`), null
      out[key] = s.slice(eq + 1, end)
    }
    p = end
  }
  return out
}

function malformedError(): ParseError {
  const pos = curAnsi ? originalIndex(curOriginal, errPos) : errPos
  return { part: errPart, column: pos + 1, message: errMsg }
}

function materializeResponse(s: string): ResponseLine {
  let userAgent: string | null
  if (uaStart < 0) userAgent = null
  else if (uaEscaped) userAgent = uaDecoded
  else userAgent = uaEnd - uaStart === 1 && s.charCodeAt(uaStart) === 45 ? null : s.slice(uaStart, uaEnd)
  scanStatsSlow(s, stStart)
  const rec: ResponseLine = {
    timestamp: s.slice(0, tsEnd),
    level: level as ResponseLine['level'],
    requestId: { method: s.slice(nameEnd + 1, ridDash), counter },
    method: s.slice(mStart, mEnd),
    path: s.slice(pStart, pEnd),
    httpVersion: s.slice(vStart, vEnd) as HttpVersion,
    status,
    reason: s.slice(rStart, rEnd),
    userAgent,
    stats: statsOut,
    format: v120 ? 'v1.20' : 'pre-v1.20',
  }
  if (fReq >= 0) rec.requester = parseRequester(s.slice(fReq, fReqEnd))
  if (fIp >= 0) rec.clientAddress = s.slice(fIp, fIpEnd)
  if (fGt >= 0) rec.graphqlOperationType = s.slice(fGt, fGtEnd) as GraphqlOperationType
  if (fGn >= 0) rec.graphqlOperationName = s.slice(fGn, fGnEnd)
  if (fTr >= 0) rec.traceId = s.slice(fTr, fTrEnd)
  if (fExtra >= 0) rec.extraFields = collectExtra(s, fExtra)!
  return rec
}

function materializeEvent(s: string): EventLine {
  const name = s.slice(nameStart, nameEnd)
  const ev: EventLine = { timestamp: s.slice(0, tsEnd), level, name, message: '' }
  const colon = name.lastIndexOf(':')
  if (colon > 0 && colon < name.length - 1 && name.charCodeAt(colon - 1) !== 58 && parseUint(name, colon + 1, name.length) >= 0) {
    ev.target = name.slice(0, colon)
    ev.sourceLine = parseUint(name, colon + 1, name.length)
  } else if (name.includes('::')) {
    ev.target = name
  }
  let p = nameEnd + 1
  if (p >= s.length) return ev
  // The context is there when the next token is <tag>-<n> followed by ' - ' (or ' -' at the end).
  let sp = s.indexOf(' ', p)
  if (sp === -1) sp = s.length
  if (isContextToken(s, p, sp) && s.charCodeAt(sp + 1) === 45 && (sp + 2 === s.length || s.charCodeAt(sp + 2) === 32)) {
    const dash = s.lastIndexOf('-', sp - 1)
    ev.requestId = { method: s.slice(p, dash), counter: parseUint(s, dash + 1, sp) }
    p = Math.min(sp + 3, s.length)
  }
  ev.message = s.slice(p)
  return ev
}

/**
 * Parses one log line (with or without its trailing newline / CR). ANSI colours are stripped;
 * error columns refer to the original line. Whitespace-only lines are `blank`. Lines whose event
 * name is `http.server.response` must follow the full grammar, or they are `malformed`; other
 * events only need a valid timestamp, level and name.
 */
export function parseLine(input: string): ParsedLine {
  switch (scan(input)) {
    case K_RESPONSE:
      return { kind: 'response', line: materializeResponse(cur) }
    case K_EVENT:
      return { kind: 'event', event: materializeEvent(cur) }
    case K_BLANK:
      return { kind: 'blank' }
    default:
      return { kind: 'malformed', error: malformedError() }
  }
}

/** What scanLine fills in: the few parts `audit-log` needs, without building a whole record. */
export interface LineView {
  method: string
  path: string
  status: number
  format: LogFormat
  /** The requester as printed (`user:<id>(<name>)`, `user:<id>`, `oauth2-client:<id>`, `homeserver`). */
  requester: string | undefined
  graphqlOperationName: string | undefined
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
    error: undefined,
  }
}

/**
 * The fast path of parseLine for bulk processing: same grammar and verdict, but it fills `view`
 * with the parts needed for classification instead of allocating a record.
 */
export function scanLine(input: string, view: LineView): ParsedLine['kind'] {
  const k = scan(input)
  if (k === K_RESPONSE) {
    const s = cur
    view.method = s.slice(mStart, mEnd)
    view.path = s.slice(pStart, pEnd)
    view.status = status
    view.format = v120 ? 'v1.20' : 'pre-v1.20'
    view.requester = fReq >= 0 ? s.slice(fReq, fReqEnd) : undefined
    view.graphqlOperationName = fGn >= 0 ? s.slice(fGn, fGnEnd) : undefined
    return 'response'
  }
  if (k === K_EVENT) return 'event'
  if (k === K_BLANK) return 'blank'
  view.error = malformedError()
  return 'malformed'
}

// ---------------------------------------------------------------------------------------------
// Bulk fast path
//
// For `audit-log` over millions of lines, per-call overhead dominates: every indexOf, slice or
// regex call costs about as much as scanning a hundred characters natively. So canonical request
// lines (the form the service writes: fields in its order, IPv4 or IPv6 address, no escapes in the
// User-Agent, no colours) are matched by ONE anchored regex that also captures the parts the audit
// needs; anything else falls back to the hand-written scanner above, which stays the reference and
// gives the precise errors. The regex is linear: every repeated class excludes the delimiter that
// follows it, so the engine never re-tries a position more than a character back. It accepts a
// strict subset of what scan() accepts, with the same values (test/lib/requestlog/fastpath.test.ts
// checks that on every corpus line, generated lines and mutations of them).

// Only the canonical timestamp with 6 fractional digits: it puts the level at a fixed offset.
const FAST_TS = String.raw`\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)\.\d{6}Z`
const FAST_N = String.raw`\d{1,15}`
const FAST_MS = String.raw`\d{1,15}\.\dms`
const FAST_IP4 = String.raw`(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`
// IPv6 text forms (RFC 3986 IPv6address: RFC 4291 with '::' compression and an IPv4 tail), so that
// the fast path needs no isIP call; zone ids (%eth0) are left to the scanner.
const FAST_H16 = '[0-9a-fA-F]{1,4}'
const FAST_LS32 = `(?:${FAST_H16}:${FAST_H16}|${FAST_IP4})`
// An optional run of up to max + 1 groups before '::'.
const fastH16s = (max: number) => `(?:(?:${FAST_H16}:){0,${max}}${FAST_H16})?`
const FAST_IP6 =
  '(?:' +
  [
    `(?:${FAST_H16}:){6}${FAST_LS32}`,
    `::(?:${FAST_H16}:){5}${FAST_LS32}`,
    `${fastH16s(0)}::(?:${FAST_H16}:){4}${FAST_LS32}`,
    `${fastH16s(1)}::(?:${FAST_H16}:){3}${FAST_LS32}`,
    `${fastH16s(2)}::(?:${FAST_H16}:){2}${FAST_LS32}`,
    `${fastH16s(3)}::${FAST_H16}:${FAST_LS32}`,
    `${fastH16s(4)}::${FAST_LS32}`,
    `${fastH16s(5)}::${FAST_H16}`,
    `${fastH16s(6)}::`,
  ].join('|') +
  ')'
// Characters a token may hold here: no control characters (ESC starts a colour, CR/LF end lines),
// no space, no quote.
const TOK = String.raw`[^\x00-\x20"\x7f]`
const FAST_RE = new RegExp(
  FAST_TS +
    String.raw` (?: INFO| WARN|ERROR) http\.server\.response [A-Z_]+-${FAST_N} - "` +
    // 1: set (empty) for GET, 2: for POST, 3: any other method; 4: path; 5-7: status digits.
    // Empty and one-character captures allocate nothing, which matters at millions of lines.
    String.raw`(?:GET()|POST()|([A-Z_]+)) (${TOK}+) HTTP\/(?:1\.1|2\.0|1\.0|3\.0|0\.9|_OTHER)" ([1-5])(\d)(\d) ` +
    // reason words, then a User-Agent without escapes
    String.raw`(?:[!#-~]+ )+"[ !#-\[\]-~]*" \[` +
    // 8: "d" when the stats are the v1.20 form
    String.raw`polls: ${FAST_N}, cpu: ${FAST_MS}, (?:(d)b: ${FAST_MS}, elapsed: ${FAST_MS}, queries: ${FAST_N}, fetched: ${FAST_N}|elapsed: ${FAST_MS})\]` +
    // 9: the requester
    String.raw`(?: requester=(user:[^\x00-\x20"\x7f()]+(?:\([^\x00-\x20"\x7f()]+\))?|oauth2-client:${TOK}+|homeserver))?` +
    String.raw`(?: client\.address=(?:${FAST_IP4}|${FAST_IP6}))?` +
    String.raw`(?: graphql\.operation\.type=(?:query|mutation|subscription))?` +
    // 10: operation name
    String.raw`(?: graphql\.operation\.name=(${TOK}+))?` +
    String.raw`(?: trace\.id=[0-9a-f]{32})?$`,
  'ym',
)

/** Capture groups of a canonical match (CanonicalMatcher). */
export const FAST_GET = 1
export const FAST_POST = 2
/** Any other method. */
export const FAST_METHOD = 3
export const FAST_PATH = 4
/** The three status digits are groups 5, 6 and 7. */
export const FAST_STATUS = 5
/** Set ("d") when the stats are the v1.20 form. */
export const FAST_V120 = 8
export const FAST_REQUESTER = 9
export const FAST_OPERATION = 10

/**
 * The fast path for bulk reading: matches the canonical request line at a position of a block of
 * lines. The caller reads the parts from the match by the FAST_* groups, without a view object in
 * between (each stored string costs a write barrier, at millions of lines).
 */
export class CanonicalMatcher {
  /** Where the line of the last successful match ends (its '\n' or the end of the text). */
  end = 0

  /** The match of the line starting at `pos`, or null when the line needs the scanner. */
  match(text: string, pos: number): RegExpExecArray | null {
    FAST_RE.lastIndex = pos
    const m = FAST_RE.exec(text)
    if (m === null) return null
    // '$' in multiline mode also matches before CR, U+2028 and U+2029: only a real line end counts.
    const end = FAST_RE.lastIndex
    if (end !== text.length && text.charCodeAt(end) !== 10) return null
    // The level the status calls for. 'YYYY-MM-DDTHH:MM:SS.ffffffZ' is 27 characters: I(NFO) or
    // W(ARN) at 29, R (of ERROR) at 29.
    const lvl = text.charCodeAt(pos + 29)
    const d = m[FAST_STATUS]!.charCodeAt(0)
    if (d >= 52 /* 4 */ ? (d === 52 ? lvl !== 87 : lvl !== 82) : lvl !== 73) return null
    this.end = end
    return m
  }
}

/** The status of a canonical match. */
export function fastStatus(m: RegExpExecArray): number {
  return (m[FAST_STATUS]!.charCodeAt(0) - 48) * 100 + (m[FAST_STATUS + 1]!.charCodeAt(0) - 48) * 10 + (m[FAST_STATUS + 2]!.charCodeAt(0) - 48)
}

/** The method of a canonical match. */
export function fastMethod(m: RegExpExecArray): string {
  return m[FAST_GET] !== undefined ? 'GET' : m[FAST_POST] !== undefined ? 'POST' : m[FAST_METHOD]!
}

/** What scanLine would fill in for a canonical match (for tests and diagnostics). */
export function viewOfMatch(m: RegExpExecArray): LineView {
  return {
    method: fastMethod(m),
    path: m[FAST_PATH]!,
    status: fastStatus(m),
    format: m[FAST_V120] === undefined ? 'pre-v1.20' : 'v1.20',
    requester: m[FAST_REQUESTER],
    graphqlOperationName: m[FAST_OPERATION],
    error: undefined,
  }
}
