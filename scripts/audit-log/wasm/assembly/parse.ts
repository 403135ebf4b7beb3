// AssemblyScript (part of audit-scan.wasm, see audit-scan.ts). The canonical request line (FAST_RE in
// lib/requestlog/fast-path.ts is the same grammar as a regex): parse() reads one line and leaves the
// parts the audit needs in the state below.
//
// parse() is one function of about 100 lines on purpose: it is the grammar's parts in order over one
// moving position, the hot loop of the module, and splitting it would add calls per line.

import { address } from './address'
import { at, digit, digitRun, is, isReason, litLen, lit, millis, number, notHex16, skipAgent, skipName, skipUpper, skipPrint, skipTok, shape16, TS_DIGITS_0, TS_DIGITS_1, TS_PUNCT_0, TS_PUNCT_1, value2 } from './bytes'
import { S_RESPONSE,
  S_RESPONSE_N, S_RESPONSE_W0, S_RESPONSE_W1, S_RESPONSE_W2, S_HTTP_N, S_HTTP_W0, S_HTTP_W1, S_HTTP_W2, S_OTHER_N, S_OTHER_W0, S_OTHER_W1, S_OTHER_W2, S_POLLS_N, S_POLLS_W0, S_POLLS_W1, S_POLLS_W2, S_CPU_N, S_CPU_W0, S_CPU_W1, S_CPU_W2, S_DB_N, S_DB_W0, S_DB_W1, S_DB_W2, S_ELAPSED_N, S_ELAPSED_W0, S_ELAPSED_W1, S_ELAPSED_W2, S_QUERIES_N, S_QUERIES_W0, S_QUERIES_W1, S_QUERIES_W2, S_FETCHED_N, S_FETCHED_W0, S_FETCHED_W1, S_FETCHED_W2, S_REQUESTER_N, S_REQUESTER_W0, S_REQUESTER_W1, S_REQUESTER_W2, S_USER_N, S_USER_W0, S_USER_W1, S_USER_W2, S_CLIENT_N, S_CLIENT_W0, S_CLIENT_W1, S_CLIENT_W2, S_HOMESERVER_N, S_HOMESERVER_W0, S_HOMESERVER_W1, S_HOMESERVER_W2, S_ADDRESS_N, S_ADDRESS_W0, S_ADDRESS_W1, S_ADDRESS_W2, S_OPTYPE_N, S_OPTYPE_W0, S_OPTYPE_W1, S_OPTYPE_W2, S_QUERY_N, S_QUERY_W0, S_QUERY_W1, S_QUERY_W2, S_MUTATION_N, S_MUTATION_W0, S_MUTATION_W1, S_MUTATION_W2, S_SUBSCRIPTION_N, S_SUBSCRIPTION_W0, S_SUBSCRIPTION_W1, S_SUBSCRIPTION_W2, S_OPNAME_N, S_OPNAME_W0, S_OPNAME_W1, S_OPNAME_W2, S_TRACE_N, S_TRACE_W0, S_TRACE_W1, S_TRACE_W2,
} from './constants.gen'

// Literals are compared as immediates (`is` with the words of constants.gen.ts); only event()'s
// name check takes one from memory: the name alone (S_RESPONSE is it between spaces), for a line
// that ends after it.
const L_RESPONSE_NAME = lit(S_RESPONSE.substring(0, S_RESPONSE.length - 1))

// Results of the last parse.
export let pathStart: usize = 0
export let pathLen: u32 = 0
export let method: i32 = 0 // 1 GET, 2 POST, 0 other
export let status: u32 = 0
export let v120: bool = false
export let reqStart: usize = 0
export let reqLen: u32 = 0 // 0: no requester
export let opStart: usize = 0
export let opLen: u32 = 0 // 0: no operation name

// The first 16 bytes ('YYYY-MM-DDTHH:MM') of the last timestamp whose first 16 bytes passed: the
// lines of a log share their minute, and a line of the same minute needs only its seconds and
// fraction checked. (0xff bytes: no timestamp matches before the first.)
let lastMinute: v128 = i8x16(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)

/** 'YYYY-MM-DDTHH:MM:SS.ffffffZ ' at p: digits and punctuation 16 bytes at a time, then the ranges. */
@inline function timestamp(p: usize): bool {
  const v0 = v128.load(p)
  if (i8x16.bitmask(i8x16.eq(v0, lastMinute)) != 0xffff) {
    if (shape16(v0, TS_DIGITS_0, TS_PUNCT_0) != 0xffff || value2(p + 5) - 1 >= 12 || value2(p + 8) - 1 >= 31 || value2(p + 11) >= 24 || value2(p + 14) >= 60) return false
    lastMinute = v0
  }
  return (shape16(v128.load(p, 16), TS_DIGITS_1, TS_PUNCT_1) & 0x0fff) == 0x0fff && value2(p + 17) <= 60
}

/**
 * The '\n' ending the line at p when it is an event other than a response, as the JavaScript
 * scanner reads one (scanLine's 'event'): the canonical timestamp, the level padded to 5, a name,
 * then printable ASCII only (a tab, CR, escape or byte >= 0x80 is left to the scanner); else 0. A
 * line named http.server.response is never one: it is a response parse() declined.
 */
export function event(p: usize): usize {
  if (!timestamp(p)) return 0
  const lv = load<u32>(p + 29)
  if (load<u8>(p + 28) == 0x20) {
    if (lv != 0x4f464e49 /* INFO */ && lv != 0x4e524157 /* WARN */) return 0
  } else {
    const l5 = load<u64>(p + 28) & 0xffffffffff
    if (l5 != 0x524f525245 /* ERROR */ && l5 != 0x4755424544 /* DEBUG */ && l5 != 0x4543415254 /* TRACE */) return 0
  }
  if (load<u8>(p + 33) != 0x20) return 0
  const c = load<u8>(p + 34)
  if (c == 0x20 || c == 10) return 0
  const after = p + 33 + litLen(L_RESPONSE_NAME)
  if (at(p + 33, L_RESPONSE_NAME) && (load<u8>(after) == 0x20 || load<u8>(after) == 10)) return 0
  const q = skipPrint(p + 34)
  return load<u8>(q) == 10 ? q : 0
}

/** 'a.b" ' as a little-endian word (an HTTP version and what follows it). */
@inline function version(a: u64, b: u64): u64 {
  return a | (<u64>0x2e << 8) | (b << 16) | (<u64>0x2022 << 24)
}

/** Parses the line at p; its '\n' when it is canonical, else 0. */
export function parse(p: usize): usize {
  if (!timestamp(p)) return 0
  // then ' INFO' | ' WARN' | 'ERROR'
  const level = load<u8>(p + 29)
  const lv = load<u32>(p + 29)
  if (load<u8>(p + 28) == 0x20) {
    if (lv != 0x4f464e49 /* INFO */ && lv != 0x4e524157 /* WARN */) return 0
  } else if (load<u8>(p + 28) != 0x45 || lv != 0x524f5252 /* RROR */) return 0
  if (!is(p + 33, S_RESPONSE_N, S_RESPONSE_W0, S_RESPONSE_W1, S_RESPONSE_W2)) return 0
  let q = p + 33 + S_RESPONSE_N
  // [A-Z_]+-\d{1,15} - "
  let s = q
  q = skipUpper(q)
  if (q == s || load<u8>(q) != 0x2d) return 0
  q++
  const idLen = digitRun(q)
  q += idLen
  if (idLen - 1 >= 15 || load<u32>(q) != 0x22202d20 /* ' - "' */) return 0
  q += 4
  // method
  s = q
  q = skipUpper(q)
  if (q == s || load<u8>(q) != 0x20) return 0
  const mlen = q - s
  // (without branches: GET and POST alternate)
  const mw = load<u32>(s)
  method = <i32>((mlen == 3) & ((mw & 0xffffff) == 0x544547)) /* GET */ | (<i32>((mlen == 4) & (mw == 0x54534f50)) /* POST */ << 1)
  q++
  // path: token bytes
  s = q
  q = skipTok(q)
  if (q == s) return 0
  pathStart = s
  pathLen = <u32>(q - s)
  // ' HTTP/' (1.1|2.0|1.0|3.0|0.9|_OTHER) '" '
  if (!is(q, S_HTTP_N, S_HTTP_W0, S_HTTP_W1, S_HTTP_W2)) return 0
  q += 6
  const a = load<u8>(q)
  if (a == 0x5f) {
    if (!is(q, S_OTHER_N, S_OTHER_W0, S_OTHER_W1, S_OTHER_W2)) return 0
    q += 6
  } else {
    // 1.1, 1.0, 2.0, 3.0 or 0.9 and the '" ' after it: one word against five, without branches
    // (the version changes from line to line, and mispredicted branches cost more than compares).
    const v = load<u64>(q) & 0xffffffffff
    if (!((v == version(0x31, 0x31)) | (v == version(0x31, 0x30)) | (v == version(0x32, 0x30)) | (v == version(0x33, 0x30)) | (v == version(0x30, 0x39)))) return 0
    q += 3
  }
  if (load<u16>(q) != 0x2022 /* '" ' */) return 0
  q += 2
  // status [1-5]\d\d then ' '
  const s0 = digit(q)
  const s1 = digit(q + 1)
  const s2 = digit(q + 2)
  if (s0 - 1 >= 5 || s1 >= 10 || s2 >= 10 || load<u8>(q + 3) != 0x20) return 0
  status = s0 * 100 + s1 * 10 + s2
  // The level the status calls for.
  if (s0 >= 4 ? (s0 == 4 ? level != 0x57 : level != 0x52) : level != 0x49) return 0
  q += 4
  // reason words: ([!#-~]+ )+ then '"'
  if (!isReason(load<u8>(q))) return 0
  for (;;) {
    // (a reason byte is a token byte: [!#-~])
    q = skipTok(q)
    if (load<u8>(q) != 0x20) return 0
    q++
    const c = load<u8>(q)
    if (c == 0x22) break
    if (!isReason(c)) return 0
  }
  q++
  // User-Agent, its quotes and backslashes escaped as the service writes them (\" and \\; the
  // audit does not read the agent, and any other escape is left to the scanner), then '" ['
  q = skipAgent(q)
  while (load<u8>(q) == 0x5c) {
    const e = load<u8>(q + 1)
    if (e != 0x22 && e != 0x5c) return 0
    q = skipAgent(q + 2)
  }
  if (load<u8>(q) != 0x22 || load<u16>(q + 1) != 0x5b20 /* ' [' */) return 0
  q += 3
  // stats: 'polls: N, cpu: X.Xms, ' then the v1.20 'db: X.Xms, elapsed: X.Xms, queries: N,
  // fetched: N' or the older 'elapsed: X.Xms', then ']'
  if (!is(q, S_POLLS_N, S_POLLS_W0, S_POLLS_W1, S_POLLS_W2)) return 0
  q = number(q + S_POLLS_N, S_CPU_N, S_CPU_W0, S_CPU_W1, S_CPU_W2)
  if (q == 0) return 0
  q = millis(q)
  if (q == 0) return 0
  if (is(q, S_DB_N, S_DB_W0, S_DB_W1, S_DB_W2)) {
    v120 = true
    q = millis(q + S_DB_N)
    if (q == 0 || !is(q, S_ELAPSED_N, S_ELAPSED_W0, S_ELAPSED_W1, S_ELAPSED_W2)) return 0
    q = millis(q + S_ELAPSED_N)
    if (q == 0 || !is(q, S_QUERIES_N, S_QUERIES_W0, S_QUERIES_W1, S_QUERIES_W2)) return 0
    q = number(q + S_QUERIES_N, S_FETCHED_N, S_FETCHED_W0, S_FETCHED_W1, S_FETCHED_W2)
    if (q == 0) return 0
    const fetched = digitRun(q)
    if (fetched - 1 >= 15) return 0
    q += fetched
  } else if (is(q, S_ELAPSED_N, S_ELAPSED_W0, S_ELAPSED_W1, S_ELAPSED_W2)) {
    v120 = false
    q = millis(q + S_ELAPSED_N)
    if (q == 0) return 0
  } else return 0
  if (load<u8>(q) != 0x5d) return 0
  return fields(q + 1)
}

/** The optional fields in their order, then the line's end: its '\n', or 0. */
@inline export function fields(q: usize): usize {
  reqLen = 0
  opLen = 0
  if (load<u8>(q) == 10) return q
  if (is(q, S_REQUESTER_N, S_REQUESTER_W0, S_REQUESTER_W1, S_REQUESTER_W2)) {
    q += S_REQUESTER_N
    const s = q
    if (is(q, S_USER_N, S_USER_W0, S_USER_W1, S_USER_W2)) {
      q += S_USER_N
      const id = q
      q = skipName(q)
      if (q == id) return 0
      if (load<u8>(q) == 0x28) {
        q++
        const name = q
        q = skipName(q)
        if (q == name || load<u8>(q) != 0x29) return 0
        q++
      }
    } else if (is(q, S_CLIENT_N, S_CLIENT_W0, S_CLIENT_W1, S_CLIENT_W2)) {
      q += S_CLIENT_N
      const id = q
      q = skipTok(q)
      if (q == id) return 0
    } else if (is(q, S_HOMESERVER_N, S_HOMESERVER_W0, S_HOMESERVER_W1, S_HOMESERVER_W2)) {
      q += S_HOMESERVER_N
    } else return 0
    reqStart = s
    reqLen = <u32>(q - s)
    if (load<u8>(q) == 10) return q
  }
  if (is(q, S_ADDRESS_N, S_ADDRESS_W0, S_ADDRESS_W1, S_ADDRESS_W2)) {
    q += S_ADDRESS_N
    const s = q
    q = skipTok(q)
    if (!address(s, q)) return 0
    if (load<u8>(q) == 10) return q
  }
  if (is(q, S_OPTYPE_N, S_OPTYPE_W0, S_OPTYPE_W1, S_OPTYPE_W2)) {
    q += S_OPTYPE_N
    if (is(q, S_QUERY_N, S_QUERY_W0, S_QUERY_W1, S_QUERY_W2)) q += S_QUERY_N
    else if (is(q, S_MUTATION_N, S_MUTATION_W0, S_MUTATION_W1, S_MUTATION_W2)) q += S_MUTATION_N
    else if (is(q, S_SUBSCRIPTION_N, S_SUBSCRIPTION_W0, S_SUBSCRIPTION_W1, S_SUBSCRIPTION_W2)) q += S_SUBSCRIPTION_N
    else return 0
    if (load<u8>(q) == 10) return q
  }
  if (is(q, S_OPNAME_N, S_OPNAME_W0, S_OPNAME_W1, S_OPNAME_W2)) {
    q += S_OPNAME_N
    const s = q
    q = skipTok(q)
    if (q == s) return 0
    opStart = s
    opLen = <u32>(q - s)
    if (load<u8>(q) == 10) return q
  }
  if (is(q, S_TRACE_N, S_TRACE_W0, S_TRACE_W1, S_TRACE_W2)) {
    q += S_TRACE_N
    if (notHex16(q) != 0 || notHex16(q + 16) != 0) return 0
    q += 32
  }
  // Anything else (another field, a field out of order, a CR) leaves the line to the scanner.
  return load<u8>(q) == 10 ? q : 0
}
