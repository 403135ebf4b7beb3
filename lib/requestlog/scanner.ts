// The reference scanner of the request-log grammar (grammar.ts): parseLine gives the verdict and
// precise errors for any line; scanLine is its bulk form for `audit-log`.
//
// Two stages. scan() validates a whole line and records the offsets of its parts in module state
// without allocating; materializeResponse() then builds the typed record from those offsets. Small
// anchored (sticky) regexes check fixed-shape parts (timestamp, stats, trace id, IPv4) because the
// regex engine's native code beats a charCodeAt loop; they never backtrack over the line. When one
// of them rejects a part, a detailed scanner (scan-parts.ts) says precisely where and why.

import { isIP } from 'node:net'
import { originalIndex, stripAnsi } from './ansi.ts'
import { eventLine } from './event-line.ts'
import { collectExtra, isOperationType, scanRequester } from './fields.ts'
import { FIELD, HTTP_VERSIONS, RE_DATE_TIME, RE_IPV4, RE_STATS, RE_TRACE_ID, RESPONSE_EVENT_NAME } from './grammar.ts'
import { parseRequester } from './requester.ts'
import { decodeQuoted, uaDecoded } from './rust-debug.ts'
import { fail, scanError } from './scan-error.ts'
import { scanStatsSlow, scanTimestampSlow, statsOut } from './scan-parts.ts'
import { levelForStatus } from './status.ts'
import { isDigit, parseUint } from './tokens.ts'
import type { GraphqlOperationType, HttpVersion, Level, LineView, ParsedLine, ParseError, ResponseLine } from './types.ts'

const TS_RE = new RegExp(`${RE_DATE_TIME}(?:\\.\\d{1,9})?Z`, 'y')
const STATS_RE = new RegExp(RE_STATS, 'y')
const HEX32_RE = new RegExp(RE_TRACE_ID, 'y')
const IPV4_RE = new RegExp(RE_IPV4, 'y')

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
let fIp = -1
let fIpEnd = 0
let fGt = -1
let fGtEnd = 0
let fGn = -1
let fGnEnd = 0
let fTr = -1
let fTrEnd = 0
let fExtra = -1
// Set by scanStatusAndReason when the User-Agent is a bare '-' rather than quoted.
let bareHyphen = false

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
  if (s.charCodeAt(p) !== 32) return (fail('level', p, 'expected a space after the timestamp'), K_MALFORMED)
  p++
  if (s.charCodeAt(p) === 32) p++
  levelPos = p
  let len = 4
  switch (s.charCodeAt(p)) {
    case 73:
      level = 'INFO'
      break
    case 87:
      level = 'WARN'
      break
    case 69:
      level = 'ERROR'
      len = 5
      break
    case 68:
      level = 'DEBUG'
      len = 5
      break
    case 84:
      level = 'TRACE'
      len = 5
      break
    default:
      return (fail('level', p, 'expected one of TRACE, DEBUG, INFO, WARN, ERROR'), K_MALFORMED)
  }
  if (!s.startsWith(level, p)) return (fail('level', p, 'expected one of TRACE, DEBUG, INFO, WARN, ERROR'), K_MALFORMED)
  p += len
  if (s.charCodeAt(p) !== 32) {
    return (
      fail(p >= s.length ? 'event-name' : 'level', p, p >= s.length ? 'line ends after the level' : 'expected a space after the level'),
      K_MALFORMED
    )
  }
  p++
  if (p >= s.length || s.charCodeAt(p) === 32) return (fail('event-name', p, 'expected the event name after the level'), K_MALFORMED)
  nameStart = p
  let e = s.indexOf(' ', p)
  if (e === -1) e = s.length
  nameEnd = e
  if (e - p === 20 && s.startsWith(RESPONSE_EVENT_NAME, p)) return scanResponse(s, e) < 0 ? K_MALFORMED : K_RESPONSE
  return K_EVENT
}

/**
 * The rest of an `http.server.response` line, from the space after the event name: each part
 * records its offsets in the scan state and returns the index after it, or -1 (see scan-error.ts).
 */
function scanResponse(s: string, p: number): number {
  p = scanRequestId(s, p)
  if (p >= 0) p = scanRequestLine(s, p)
  if (p >= 0) p = scanStatusAndReason(s, p)
  if (p >= 0) p = scanUserAgent(s, p)
  if (p >= 0) p = scanStats(s, p)
  if (p >= 0) p = scanFields(s, p)
  if (p < 0) return -1
  const expected = levelForStatus(status)
  if (level !== expected) return fail('level', levelPos, `level ${level} does not match status ${status} (expected ${expected})`)
  return 0
}

/** Request id: <tag>-<counter> then ' - '. */
function scanRequestId(s: string, p: number): number {
  const n = s.length
  p++
  if (p >= n) return fail('request-id', p, 'line ends before the request id')
  let sp = s.indexOf(' ', p)
  if (sp === -1) sp = n
  const dash = s.lastIndexOf('-', sp - 1)
  if (dash <= p) return fail('request-id', p, "expected '<METHOD>-<counter>'")
  counter = parseUint(s, dash + 1, sp)
  if (counter < 0) return fail('request-id', dash + 1, "expected a number (at most 2^53-1) after '-' in the request id")
  ridDash = dash
  if (s.charCodeAt(sp + 1) !== 45 || s.charCodeAt(sp + 2) !== 32) return fail('request-id', sp, "expected ' - ' after the request id")
  p = sp + 3

  return p
}

/** "METHOD path HTTP/version" */
function scanRequestLine(s: string, p: number): number {
  let sp: number
  if (s.charCodeAt(p) !== 34) return fail('request-line', p, "expected '\"' opening the request line")
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

  return p
}

/** Status and reason phrase. */
function scanStatusAndReason(s: string, p: number): number {
  status = parseUint(s, p, p + 3)
  if (status < 0 || isDigit(s.charCodeAt(p + 3))) return fail('status', p, 'expected a 3-digit status code')
  if (status < 100 || status > 599) return fail('status', p, 'status code out of range 100..599')
  if (s.charCodeAt(p + 3) !== 32) return fail('status', p + 3, 'expected a space after the status code')
  p += 4
  let ua = s.indexOf(' "', p)
  bareHyphen = false
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

  return p
}

/** The User-Agent: Rust Debug quoted, or a bare hyphen. */
function scanUserAgent(s: string, p: number): number {
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

  return p
}

/** Stats: ' [' then the block (grammar.ts RE_STATS). */
function scanStats(s: string, p: number): number {
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

  return p
}

/** Fields: ' name=value' until the end of the line. */
function scanFields(s: string, p: number): number {
  const n = s.length
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
    if (klen === FIELD.requester.length && s.startsWith(FIELD.requester, p)) {
      if (fReq >= 0) return fail('fields', p, 'duplicate field requester')
      if (scanRequester(s, v, end) < 0) return -1
      fReq = v
      fReqEnd = end
    } else if (klen === FIELD.clientAddress.length && s.startsWith(FIELD.clientAddress, p)) {
      if (fIp >= 0) return fail('fields', p, 'duplicate field client.address')
      IPV4_RE.lastIndex = v
      if (!(IPV4_RE.test(s) && IPV4_RE.lastIndex === end) && isIP(s.slice(v, end)) !== 6) {
        return fail('client.address', v, 'not an IPv4 or IPv6 address')
      }
      fIp = v
      fIpEnd = end
    } else if (klen === FIELD.traceId.length && s.startsWith(FIELD.traceId, p)) {
      if (fTr >= 0) return fail('fields', p, 'duplicate field trace.id')
      HEX32_RE.lastIndex = v
      if (end - v !== 32 || !HEX32_RE.test(s)) return fail('trace.id', v, 'expected 32 lowercase hex digits')
      fTr = v
      fTrEnd = end
    } else if (klen === FIELD.graphqlOperationType.length && s.startsWith(FIELD.graphqlOperationType, p)) {
      if (fGt >= 0) return fail('fields', p, `duplicate field ${FIELD.graphqlOperationType}`)
      if (!isOperationType(s, v, end)) return fail('graphql.operation.type', v, 'expected query, mutation or subscription')
      fGt = v
      fGtEnd = end
    } else if (klen === FIELD.graphqlOperationName.length && s.startsWith(FIELD.graphqlOperationName, p)) {
      if (fGn >= 0) return fail('fields', p, `duplicate field ${FIELD.graphqlOperationName}`)
      fGn = v
      fGnEnd = end
    } else if (fExtra < 0) fExtra = p - 1
    p = end
  }
  if (fExtra >= 0 && collectExtra(s, fExtra) === null) return -1
  return p
}

function malformedError(): ParseError {
  const pos = curAnsi ? originalIndex(curOriginal, scanError.pos) : scanError.pos
  return { part: scanError.part, column: pos + 1, message: scanError.message }
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
      return { kind: 'event', event: eventLine(cur, tsEnd, level, nameStart, nameEnd) }
    case K_BLANK:
      return { kind: 'blank' }
    default:
      return { kind: 'malformed', error: malformedError() }
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
    view.timestamp = s.slice(0, tsEnd)
    return 'response'
  }
  if (k === K_EVENT) {
    view.timestamp = cur.slice(0, tsEnd)
    return 'event'
  }
  view.timestamp = undefined
  if (k === K_BLANK) return 'blank'
  view.error = malformedError()
  return 'malformed'
}
