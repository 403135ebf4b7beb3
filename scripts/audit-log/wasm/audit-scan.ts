// AssemblyScript, compiled to audit-scan.wasm (scripts/audit-log/build-wasm.ts); not part of the Node build.
//
// The bulk fast path of `audit-log` over raw bytes: it recognizes canonical `http.server.response`
// lines (the same language as FAST_RE in lib/requestlog.ts, restricted to ASCII), classifies them
// like classifyCode in scripts/audit-log/auditor.ts and counts them per activity, requester and GraphQL operation.
// Every line it does not take (events, blank lines, anything unusual, any byte >= 0x80) is handed
// back to the JavaScript scanner, which stays the reference. test/scripts/audit-log/wasm-scanner.test.ts checks
// that both agree on every corpus line, generated lines and mutations of them.
//
// Why WebAssembly: at millions of lines, the JavaScript path spends most of its time in per-call
// overhead (regex match objects, string slices, charCodeAt on slices); a byte loop here costs
// about a nanosecond per byte. Memory is one bump heap (the stub runtime): tables only grow.

// ---------------------------------------------------------------------------------------------
// Layout shared with scripts/audit-log/wasm-scanner.ts

import {
  A_AUTHORIZE, A_CLIENT_LOGIN, A_CLIENT_LOGOUT, A_INTROSPECT, A_LOGIN, A_LOGIN_FAILED, A_LOGOUT, A_OTHER, A_REGISTRATION,
  A_REVOKE, A_SELF_SERVICE, A_TOKEN, A_UPSTREAM, ACTIVITIES,
  P_ADMIN_API, P_ADMIN_HS, P_AUTHORIZE, P_CLIENT, P_CLIENT_LOGIN, P_CLIENT_LOGOUT, P_FINISH, P_GRAPHQL, P_INTROSPECT, P_LOGIN,
  P_LOGOUT, P_LOGOUT_ALL, P_REGISTER, P_REVOKE, P_TOKEN, P_UPSTREAM,
  S_ADDRESS, S_CLIENT, S_CPU, S_DB, S_ELAPSED, S_FETCHED, S_HOMESERVER, S_HTTP, S_MUTATION, S_NONE, S_OPNAME, S_OPTYPE,
  S_OTHER, S_POLLS, S_QUERIES, S_QUERY, S_REQUESTER, S_RESPONSE, S_SUBSCRIPTION, S_TRACE, S_UNKNOWN, S_UNNAMED, S_USER,
} from './constants.gen'

// Activities (their numbers, in the order of ACTIVITIES in scripts/audit-log/activities.ts) and
// every literal below come from constants.gen.ts, generated from the JavaScript side.

/** Per requester: requests, latest line, then one counter per activity. */
export const REQUESTER_STRIDE: i32 = 2 + ACTIVITIES
/** totals: requests, v1.20 lines, pre-v1.20 lines, then counts by code (activity * 2 + ok). */
export const TOTALS: i32 = 3 + ACTIVITIES * 2

// Slack after the input: the input ends with a '\n' sentinel, and every check fails on '\n', so
// scans need no bounds; fixed-offset and 16-byte reads past it stay inside this slack (what they
// read there never decides anything).
const SLACK: u32 = 128

let input: usize = 0
let inputCap: u32 = 0
let prefix: usize = 0
let prefixLen: i32 = 0
let totals: usize = 0
let declined: usize = 0
let declinedCap: u32 = 0
let declinedCount: u32 = 0
let scanned: u32 = 0

// ---------------------------------------------------------------------------------------------
// Tables: byte strings to dense indexes (open addressing, linear probing), with f64 counters.

class Table {
  slots: usize = 0 // u32 per slot: index + 1, 0 when empty
  hashes: usize = 0 // u32 per slot
  mask: u32 = 0
  count: u32 = 0
  keyOff: usize = 0 // u32 per key: offset in arena
  keyLen: usize = 0 // u32 per key
  keyCap: u32 = 0
  arena: usize = 0
  arenaUsed: u32 = 0
  arenaCap: u32 = 0
  stats: usize = 0 // f64 * stride per key
  stride: i32 = 0

  constructor(stride: i32) {
    this.stride = stride
    this.mask = 1023
    this.slots = zeroed(1024 * 4)
    this.hashes = zeroed(1024 * 4)
    this.keyCap = 256
    this.keyOff = zeroed(256 * 4)
    this.keyLen = zeroed(256 * 4)
    this.stats = zeroed(256 * 8 * <u32>stride)
    this.arenaCap = 16384
    this.arena = zeroed(16384)
  }

  /** The index of the bytes [p, p + n), added when new. */
  index(p: usize, n: u32): u32 {
    const h = hashBytes(p, n)
    let i = (h ^ (h >> 15)) & this.mask
    for (;;) {
      const r = load<u32>(this.slots + (<usize>i << 2))
      if (r == 0) break
      if (load<u32>(this.hashes + (<usize>i << 2)) == h) {
        const k = r - 1
        if (load<u32>(this.keyLen + (<usize>k << 2)) == n && equal(this.arena + <usize>load<u32>(this.keyOff + (<usize>k << 2)), p, n)) return k
      }
      i = (i + 1) & this.mask
    }
    return this.add(p, n, h, i)
  }

  private add(p: usize, n: u32, h: u32, slot: u32): u32 {
    const k = this.count
    if (k == this.keyCap) {
      const cap = this.keyCap * 2
      this.keyOff = regrow(this.keyOff, this.keyCap * 4, cap * 4)
      this.keyLen = regrow(this.keyLen, this.keyCap * 4, cap * 4)
      this.stats = regrow(this.stats, this.keyCap * 8 * <u32>this.stride, cap * 8 * <u32>this.stride)
      this.keyCap = cap
    }
    if (this.arenaUsed + n > this.arenaCap) {
      let cap = this.arenaCap * 2
      while (cap < this.arenaUsed + n) cap *= 2
      this.arena = regrow(this.arena, this.arenaUsed, cap)
      this.arenaCap = cap
    }
    memory.copy(this.arena + this.arenaUsed, p, n)
    store<u32>(this.keyOff + (<usize>k << 2), this.arenaUsed)
    store<u32>(this.keyLen + (<usize>k << 2), n)
    this.arenaUsed += n
    store<u32>(this.slots + (<usize>slot << 2), k + 1)
    store<u32>(this.hashes + (<usize>slot << 2), h)
    this.count = k + 1
    if (this.count * 2 > this.mask) this.grow()
    return k
  }

  private grow(): void {
    const cap = (this.mask + 1) * 2
    const mask = cap - 1
    const slots = zeroed(cap * 4)
    const hashes = zeroed(cap * 4)
    for (let s: u32 = 0; s <= this.mask; s++) {
      const r = load<u32>(this.slots + (<usize>s << 2))
      if (r == 0) continue
      const h = load<u32>(this.hashes + (<usize>s << 2))
      let i = (h ^ (h >> 15)) & mask
      while (load<u32>(slots + (<usize>i << 2)) != 0) i = (i + 1) & mask
      store<u32>(slots + (<usize>i << 2), r)
      store<u32>(hashes + (<usize>i << 2), h)
    }
    this.slots = slots
    this.hashes = hashes
    this.mask = mask
  }

  @inline statAt(k: u32, field: i32): usize {
    return this.stats + ((<usize>k * <usize>this.stride + <usize>field) << 3)
  }

  clear(): void {
    memory.fill(this.slots, 0, (<usize>this.mask + 1) << 2)
    memory.fill(this.stats, 0, <usize>this.count * <usize>this.stride * 8)
    this.count = 0
    this.arenaUsed = 0
  }
}

function zeroed(n: u32): usize {
  const p = heap.alloc(<usize>n)
  memory.fill(p, 0, <usize>n)
  return p
}

/** A bigger zeroed block holding the first `used` bytes of `old` (the bump heap keeps the old one). */
function regrow(old: usize, used: u32, n: u32): usize {
  const p = zeroed(n)
  memory.copy(p, old, <usize>used)
  return p
}

/** Are the n bytes at a and b the same? (8 at a time) */
function equal(a: usize, b: usize, n: u32): bool {
  let i: usize = 0
  const m = <usize>n
  for (; i + 8 <= m; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false
  for (; i < m; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false
  return true
}

// Keys of 8 bytes or more: the length and two 8-byte words, from the middle (inside the ULID of
// user:<ULID>(<name>) and oauth2-client:<ULID>) and the end (the username), mixed by multiplying;
// shorter ones FNV-1a. Collisions only cost a probe: equal() decides.
function hashBytes(p: usize, n: u32): u32 {
  if (n >= 8) {
    const a = load<u64>(p + (<usize>n >> 1) - 4)
    const b = load<u64>(p + <usize>n - 8)
    let x = (a ^ (<u64>n << 56)) * 0x9e3779b97f4a7c15 + b
    x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9
    return <u32>(x >> 32)
  }
  let h: u32 = 0x811c9dc5 ^ n
  let i: u32 = 0
  for (; i + 4 <= n; i += 4) h = (h ^ load<u32>(p + i)) * 0x01000193
  for (; i < n; i++) h = (h ^ <u32>load<u8>(p + i)) * 0x01000193
  return h ^ (h >> 13)
}

const requesters = new Table(REQUESTER_STRIDE)
const operations = new Table(1)

// ---------------------------------------------------------------------------------------------
// Exports for scripts/audit-log/wasm-scanner.ts

/** Makes room for `n` input bytes (plus slack); the input's address. */
export function reserveInput(n: u32): usize {
  // (input == 0: never allocated yet, even for an empty first block; its sentinel needs a place.)
  if (n > inputCap || input == 0) {
    input = heap.alloc(<usize>n + SLACK)
    inputCap = n
  }
  return input
}

/** Makes room for the client API prefix (written there by the caller, then setPrefix). */
export function reservePrefix(n: u32): usize {
  prefix = heap.alloc(<usize>n + 1)
  return prefix
}

export function setPrefix(n: i32): void {
  prefixLen = n
}

export function totalsAddress(): usize {
  if (totals == 0) totals = zeroed(<u32>TOTALS * 8)
  return totals
}

export function declinedAddress(): usize {
  return declined
}

// The tables by number: 0 requesters, 1 GraphQL operations.
@inline function table(t: i32): Table {
  return t == 0 ? requesters : operations
}
export function keyCount(t: i32): u32 {
  return table(t).count
}
export function keyAddress(t: i32, k: u32): usize {
  const tb = table(t)
  return tb.arena + <usize>load<u32>(tb.keyOff + (<usize>k << 2))
}
export function keyLength(t: i32, k: u32): u32 {
  return load<u32>(table(t).keyLen + (<usize>k << 2))
}
export function statsAddress(t: i32): usize {
  return table(t).stats
}

/** Forgets all counters (after the caller has taken them). */
export function reset(): void {
  memory.fill(totalsAddress(), 0, <usize>TOTALS * 8)
  requesters.clear()
  operations.clear()
}

/**
 * Audits the lines of input[0, n) (separated by '\n', none at the end): counts the canonical ones
 * and lists the others as [start, end, index] triples of u32 at declinedAddress(), for the
 * JavaScript scanner. `base` is the number of the line before the first (requesters remember
 * their latest line as base + index + 1). Returns how many lines were declined.
 */
export function scan(n: u32, base: f64): u32 {
  const t = totalsAddress()
  store<u8>(input + n, 10) // a sentinel: every check fails on '\n'
  declinedCount = 0
  let p: usize = input
  const end: usize = input + n
  let index: u32 = 0
  for (;;) {
    // A canonical line is parsed to its '\n'; any other is declined from where it starts.
    let e = audit(p, t, base + <f64>(index + 1))
    if (e == 0) {
      e = lineEnd(p)
      decline(<u32>(p - input), <u32>(e - input), index)
    }
    index++
    if (e >= end) break
    p = e + 1
  }
  scanned = index
  return declinedCount
}

/** How many lines the last scan() read. */
export function scannedLines(): u32 {
  return scanned
}

function decline(start: u32, stop: u32, index: u32): void {
  if (declinedCount == declinedCap) {
    const cap = declinedCap == 0 ? 1024 : declinedCap * 2
    declined = regrow(declined, declinedCap * 12, cap * 12)
    declinedCap = cap
  }
  const at = declined + <usize>declinedCount * 12
  store<u32>(at, start)
  store<u32>(at, stop, 4)
  store<u32>(at, index, 8)
  declinedCount++
}

/** The '\n' ending the line at p (the sentinel at the latest), 16 bytes at a time. */
function lineEnd(p: usize): usize {
  const nl = i8x16.splat(10)
  let m = i8x16.bitmask(i8x16.eq(v128.load(p), nl))
  while (m == 0) {
    p += 16
    m = i8x16.bitmask(i8x16.eq(v128.load(p), nl))
  }
  return p + <usize>ctz(m)
}

// ---------------------------------------------------------------------------------------------
// The canonical line (see FAST_RE in lib/requestlog.ts for the same grammar as a regex)

@inline function digit(p: usize): u32 {
  return <u32>load<u8>(p) - 48
}
@inline function isDigit(c: u32): bool {
  return c - 48 < 10
}
// Which of the first 28 bytes of a line are digits, and the punctuation at the others.
const TS_DIGITS_0 = i8x16(-1, -1, -1, -1, 0, -1, -1, 0, -1, -1, 0, -1, -1, 0, -1, -1)
const TS_PUNCT_0 = i8x16(0, 0, 0, 0, 0x2d, 0, 0, 0x2d, 0, 0, 0x54, 0, 0, 0x3a, 0, 0)
const TS_DIGITS_1 = i8x16(0, -1, -1, 0, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0)
const TS_PUNCT_1 = i8x16(0x3a, 0, 0, 0x2e, 0, 0, 0, 0, 0, 0, 0x5a, 0x20, 0, 0, 0, 0)

/** Bit i set when byte i of v is in its place: a digit where `digits` says so, else the byte of `punct`. */
@inline function shape16(v: v128, digits: v128, punct: v128): i32 {
  const isDigit = i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(10))
  return i8x16.bitmask(v128.bitselect(isDigit, i8x16.eq(v, punct), digits))
}

/** Is the line at p shaped like 'dddd-dd-ddTdd:dd:dd.ddddddZ ' (28 bytes)? */
@inline function timestampShape(p: usize): bool {
  return shape16(v128.load(p), TS_DIGITS_0, TS_PUNCT_0) == 0xffff && (shape16(v128.load(p, 16), TS_DIGITS_1, TS_PUNCT_1) & 0x0fff) == 0x0fff
}

/** Two digits at p (already checked) as a number. */
@inline function value2(p: usize): u32 {
  return (<u32>load<u8>(p) - 48) * 10 + <u32>load<u8>(p + 1) - 48
}


/** A token byte: printable ASCII but space and '"'. */
@inline function isTok(c: u32): bool {
  return c - 0x21 < 0x5e && c != 0x22
}

// Literals, compared 8 bytes at a time.
const L_RESPONSE = lit(S_RESPONSE)
const L_HTTP = lit(S_HTTP)
const L_POLLS = lit(S_POLLS)
const L_CPU = lit(S_CPU)
const L_DB = lit(S_DB)
const L_ELAPSED = lit(S_ELAPSED)
const L_QUERIES = lit(S_QUERIES)
const L_FETCHED = lit(S_FETCHED)
const L_REQUESTER = lit(S_REQUESTER)
const L_USER = lit(S_USER)
const L_CLIENT = lit(S_CLIENT)
const L_HOMESERVER = lit(S_HOMESERVER)
const L_ADDRESS = lit(S_ADDRESS)
const L_OPTYPE = lit(S_OPTYPE)
const L_QUERY = lit(S_QUERY)
const L_MUTATION = lit(S_MUTATION)
const L_SUBSCRIPTION = lit(S_SUBSCRIPTION)
const L_OPNAME = lit(S_OPNAME)
const L_TRACE = lit(S_TRACE)
const L_OTHER = lit(S_OTHER)
// Paths classified
const L_LOGIN = lit(P_LOGIN)
const L_LOGOUT = lit(P_LOGOUT)
const L_TOKEN = lit(P_TOKEN)
const L_REVOKE_PATH = lit(P_REVOKE)
const L_INTROSPECT = lit(P_INTROSPECT)
const L_AUTHORIZE = lit(P_AUTHORIZE)
const L_GRAPHQL = lit(P_GRAPHQL)
const L_UPSTREAM = lit(P_UPSTREAM)
const L_CLIENT_PATH = lit(P_CLIENT)
const L_CLIENT_LOGIN = lit(P_CLIENT_LOGIN)
const L_CLIENT_LOGOUT = lit(P_CLIENT_LOGOUT)
const L_LOGOUT_ALL = lit(P_LOGOUT_ALL)
const L_REGISTER = lit(P_REGISTER)
const L_FINISH = lit(P_FINISH)
// Admin writes are left to JavaScript (scripts/audit-log/admin-actions.ts says why).
const L_ADMIN_API = lit(P_ADMIN_API)
const L_ADMIN_HS = lit(P_ADMIN_HS)
// The names of lines without requester and of unnamed operations, as the JavaScript side counts them.
const NONE = lit(S_NONE)
const UNKNOWN = lit(S_UNKNOWN)
const UNNAMED = lit(S_UNNAMED)

/**
 * A literal of up to 24 bytes: its length, then three 8-byte words of its bytes and three masks
 * of the bytes that count, so that a comparison is three masked loads without a loop or branch.
 */
function lit(s: string): usize {
  const n = s.length
  const p = heap.alloc(56)
  memory.fill(p, 0, 56)
  store<u32>(p, n)
  for (let i = 0; i < n; i++) {
    store<u8>(p + 8 + <usize>i, <u8>s.charCodeAt(i))
    store<u8>(p + 32 + <usize>i, 0xff)
  }
  return p
}
@inline function litLen(l: usize): u32 {
  return load<u32>(l)
}
/** Do the bytes at p start with literal l? (Reads may go past the line: see SLACK.) */
@inline function at(p: usize, l: usize): bool {
  return (((load<u64>(p) & load<u64>(l, 32)) ^ load<u64>(l, 8)) | ((load<u64>(p, 8) & load<u64>(l, 40)) ^ load<u64>(l, 16)) | ((load<u64>(p, 16) & load<u64>(l, 48)) ^ load<u64>(l, 24))) == 0
}
/** Are the bytes [p, p + n) exactly literal l? */
@inline function same(p: usize, n: u32, l: usize): bool {
  return n == litLen(l) && at(p, l)
}

// Results of the last parse.
let pathStart: usize = 0
let pathLen: u32 = 0
let method: i32 = 0 // 1 GET, 2 POST, 0 other
let status: u32 = 0
let v120: bool = false
let reqStart: usize = 0
let reqLen: u32 = 0 // 0: no requester
let opStart: usize = 0
let opLen: u32 = 0 // 0: no operation name

/** \d{1,15} then the literal l; the position after it, or 0. */
@inline function number(p: usize, l: usize): usize {
  const n = digitRun(p)
  if (n - 1 >= 15 || !at(p + n, l)) return 0
  return p + n + litLen(l)
}

/** How many digits start at p (16 when there are 16 or more). */
@inline function digitRun(p: usize): usize {
  const v = v128.load(p)
  return <usize>ctz(~i8x16.bitmask(i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(10))))
}

/** \d{1,15}\.\dms; the position after it, or 0. */
@inline function millis(p: usize): usize {
  const n = digitRun(p)
  if (n - 1 >= 15) return 0
  p += n
  if (load<u8>(p) != 0x2e || !isDigit(load<u8>(p + 1)) || load<u8>(p + 2) != 0x6d || load<u8>(p + 3) != 0x73) return 0
  return p + 4
}

/** Parses the line at p; its '\n' when it is canonical, else 0. */
function parse(p: usize): usize {
  // 'YYYY-MM-DDTHH:MM:SS.ffffffZ ': digits and punctuation 16 bytes at a time, then the ranges.
  if (!timestampShape(p)) return 0
  if (value2(p + 5) - 1 >= 12 || value2(p + 8) - 1 >= 31 || value2(p + 11) >= 24 || value2(p + 14) >= 60 || value2(p + 17) > 60) return 0
  // then ' INFO' | ' WARN' | 'ERROR'
  const level = load<u8>(p + 29)
  const lv = load<u32>(p + 29)
  if (load<u8>(p + 28) == 0x20) {
    if (lv != 0x4f464e49 /* INFO */ && lv != 0x4e524157 /* WARN */) return 0
  } else if (load<u8>(p + 28) != 0x45 || lv != 0x524f5252 /* RROR */) return 0
  if (!at(p + 33, L_RESPONSE)) return 0
  let q = p + 33 + litLen(L_RESPONSE)
  // [A-Z_]+-\d{1,15} - "
  let s = q
  while (isUpper(load<u8>(q))) q++
  if (q == s || load<u8>(q) != 0x2d) return 0
  q++
  const idLen = digitRun(q)
  q += idLen
  if (idLen - 1 >= 15 || load<u32>(q) != 0x22202d20 /* ' - "' */) return 0
  q += 4
  // method
  s = q
  while (isUpper(load<u8>(q))) q++
  if (q == s || load<u8>(q) != 0x20) return 0
  const mlen = q - s
  method = mlen == 3 && load<u8>(s) == 0x47 && load<u16>(s + 1) == 0x5445 /* GET */ ? 1 : mlen == 4 && load<u32>(s) == 0x54534f50 /* POST */ ? 2 : 0
  q++
  // path: token bytes
  s = q
  q = skipTok(q)
  if (q == s) return 0
  pathStart = s
  pathLen = <u32>(q - s)
  // ' HTTP/' (1.1|2.0|1.0|3.0|0.9|_OTHER) '" '
  if (!at(q, L_HTTP)) return 0
  q += 6
  const a = load<u8>(q)
  if (a == 0x5f) {
    if (!at(q, L_OTHER)) return 0
    q += 6
  } else {
    const b = load<u8>(q + 2)
    if (load<u8>(q + 1) != 0x2e || !((a == 0x31 && (b == 0x31 || b == 0x30)) || ((a == 0x32 || a == 0x33) && b == 0x30) || (a == 0x30 && b == 0x39))) return 0
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
    while (isReason(load<u8>(q))) q++
    if (load<u8>(q) != 0x20) return 0
    q++
    const c = load<u8>(q)
    if (c == 0x22) break
    if (!isReason(c)) return 0
  }
  q++
  // User-Agent without escapes, then '" ['
  q = skipAgent(q)
  if (load<u8>(q) != 0x22 || load<u16>(q + 1) != 0x5b20 /* ' [' */) return 0
  q += 3
  // stats: 'polls: N, cpu: X.Xms, ' then the v1.20 'db: X.Xms, elapsed: X.Xms, queries: N,
  // fetched: N' or the older 'elapsed: X.Xms', then ']'
  if (!at(q, L_POLLS)) return 0
  q = number(q + litLen(L_POLLS), L_CPU)
  if (q == 0) return 0
  q = millis(q)
  if (q == 0) return 0
  if (at(q, L_DB)) {
    v120 = true
    q = millis(q + litLen(L_DB))
    if (q == 0 || !at(q, L_ELAPSED)) return 0
    q = millis(q + litLen(L_ELAPSED))
    if (q == 0 || !at(q, L_QUERIES)) return 0
    q = number(q + litLen(L_QUERIES), L_FETCHED)
    if (q == 0) return 0
    const fetched = digitRun(q)
    if (fetched - 1 >= 15) return 0
    q += fetched
  } else if (at(q, L_ELAPSED)) {
    v120 = false
    q = millis(q + litLen(L_ELAPSED))
    if (q == 0) return 0
  } else return 0
  if (load<u8>(q) != 0x5d) return 0
  return fields(q + 1)
}

/** The optional fields in their order, then the line's end: its '\n', or 0. */
function fields(q: usize): usize {
  reqLen = 0
  opLen = 0
  if (load<u8>(q) == 10) return q
  if (at(q, L_REQUESTER)) {
    q += litLen(L_REQUESTER)
    const s = q
    if (at(q, L_USER)) {
      q += litLen(L_USER)
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
    } else if (at(q, L_CLIENT)) {
      q += litLen(L_CLIENT)
      const id = q
      q = skipTok(q)
      if (q == id) return 0
    } else if (at(q, L_HOMESERVER)) {
      q += litLen(L_HOMESERVER)
    } else return 0
    reqStart = s
    reqLen = <u32>(q - s)
    if (load<u8>(q) == 10) return q
  }
  if (at(q, L_ADDRESS)) {
    q += litLen(L_ADDRESS)
    const s = q
    q = skipTok(q)
    if (!address(s, q)) return 0
    if (load<u8>(q) == 10) return q
  }
  if (at(q, L_OPTYPE)) {
    q += litLen(L_OPTYPE)
    if (at(q, L_QUERY)) q += litLen(L_QUERY)
    else if (at(q, L_MUTATION)) q += litLen(L_MUTATION)
    else if (at(q, L_SUBSCRIPTION)) q += litLen(L_SUBSCRIPTION)
    else return 0
    if (load<u8>(q) == 10) return q
  }
  if (at(q, L_OPNAME)) {
    q += litLen(L_OPNAME)
    const s = q
    q = skipTok(q)
    if (q == s) return 0
    opStart = s
    opLen = <u32>(q - s)
    if (load<u8>(q) == 10) return q
  }
  if (at(q, L_TRACE)) {
    q += litLen(L_TRACE)
    if (notHex16(q) != 0 || notHex16(q + 16) != 0) return 0
    q += 32
  }
  // Anything else (another field, a field out of order, a CR) leaves the line to the scanner.
  return load<u8>(q) == 10 ? q : 0
}

@inline function isUpper(c: u32): bool {
  return c - 65 < 26 || c == 0x5f
}
/** [!#-~] */
@inline function isReason(c: u32): bool {
  return c - 0x21 < 0x5e && c != 0x22
}

/** The first byte at or after q that is not a token byte (16 at a time; the sentinel stops it). */
function skipTok(q: usize): usize {
  let m = notTok16(q)
  while (m == 0) {
    q += 16
    m = notTok16(q)
  }
  return q + <usize>ctz(m)
}
/** The first byte at or after q that is not a user id or name byte. */
function skipName(q: usize): usize {
  let m = notName16(q)
  while (m == 0) {
    q += 16
    m = notName16(q)
  }
  return q + <usize>ctz(m)
}
@inline function notName16(q: usize): i32 {
  const v = v128.load(q)
  return notTok16(q) | i8x16.bitmask(v128.or(i8x16.eq(v, i8x16.splat(0x28)), i8x16.eq(v, i8x16.splat(0x29))))
}
/** The first byte at or after q that is not a User-Agent byte. */
function skipAgent(q: usize): usize {
  let m = notAgent16(q)
  while (m == 0) {
    q += 16
    m = notAgent16(q)
  }
  return q + <usize>ctz(m)
}
/** Bit i set when byte i of the 16 at p is not [0-9a-f]. */
@inline function notHex16(p: usize): i32 {
  const v = v128.load(p)
  const dec = i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(10))
  const low = i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x61)), i8x16.splat(6))
  return i8x16.bitmask(v128.not(v128.or(dec, low)))
}

/** Bit i set when byte i of the 16 at p is not a token byte. */
@inline function notTok16(p: usize): i32 {
  const v = v128.load(p)
  // In range 0x21..0x7e as signed bytes: > 0x20 and < 0x7f (bytes >= 0x80 are negative).
  const ok = v128.and(i8x16.gt_s(v, i8x16.splat(0x20)), i8x16.lt_s(v, i8x16.splat(0x7f)))
  return i8x16.bitmask(v128.or(v128.not(ok), i8x16.eq(v, i8x16.splat(0x22))))
}
/** Bit i set when byte i of the 16 at p is not a User-Agent byte. */
@inline function notAgent16(p: usize): i32 {
  const v = v128.load(p)
  const ok = v128.and(i8x16.gt_s(v, i8x16.splat(0x1f)), i8x16.lt_s(v, i8x16.splat(0x7f)))
  return i8x16.bitmask(v128.or(v128.or(v128.not(ok), i8x16.eq(v, i8x16.splat(0x22))), i8x16.eq(v, i8x16.splat(0x5c))))
}

/**
 * An IPv4 or IPv6 address: exactly [s, e). Addresses of up to 32 bytes are checked on bit masks of
 * their digits, dots and colons (two 16-byte loads); longer ones, and IPv6 with an IPv4 tail, by
 * the byte loops ipv4() and ipv6() below, which define the same language.
 */
function address(s: usize, e: usize): bool {
  const n = <u32>(e - s)
  if (n == 0) return false
  if (n > 32) return ipv4(s, e) || ipv6(s, e)
  const v0 = v128.load(s)
  const v1 = v128.load(s, 16)
  const t: u64 = (<u64>1 << n) - 1
  const dig = (masks(digit16(v0), digit16(v1))) & t
  const dot = masks(i8x16.eq(v0, i8x16.splat(0x2e)), i8x16.eq(v1, i8x16.splat(0x2e))) & t
  const colon = masks(i8x16.eq(v0, i8x16.splat(0x3a)), i8x16.eq(v1, i8x16.splat(0x3a))) & t
  if (colon == 0) {
    // IPv4: digits and three dots; octets of 1 to 3 digits, no leading zero, at most 255.
    if ((dig | dot) != t || popcnt(dot) != 3) return false
    let rest = dot | (<u64>1 << n)
    let from: u32 = 0
    for (let i = 0; i < 4; i++) {
      const to = <u32>ctz(rest)
      const len = to - from
      if (len - 1 >= 3) return false
      const o = s + <usize>from
      if (len > 1 && load<u8>(o) == 0x30) return false
      if (len == 3 && (<u32>load<u8>(o) - 48) * 100 + (<u32>load<u8>(o + 1) - 48) * 10 + <u32>load<u8>(o + 2) - 48 > 255) return false
      from = to + 1
      rest &= rest - 1
    }
    return true
  }
  if (dot != 0) return ipv6(s, e)
  // IPv6: hex groups of 1 to 4 between colons; one '::' at most, which stands for one group or more.
  const hex = masks(hex16(v0), hex16(v1)) & t
  if ((hex | colon) != t) return false
  const pairs = colon & (colon >> 1)
  if (popcnt(pairs) > 1) return false
  const compressed = pairs != 0
  // Empty groups are allowed only around the '::': between its colons, and before or after it
  // when it starts or ends the address.
  let allowedEmpty: u32 = 0
  if (compressed) {
    const k = <u32>ctz(pairs)
    allowedEmpty = 1 + (k == 0 ? 1 : 0) + (k + 2 == n ? 1 : 0)
  }
  let rest = colon | (<u64>1 << n)
  let from: u32 = 0
  let groups: u32 = 0
  let empty: u32 = 0
  while (from <= n) {
    const to = <u32>ctz(rest)
    const len = to - from
    if (len == 0) empty++
    else if (len > 4) return false
    else groups++
    from = to + 1
    rest &= rest - 1
  }
  if (empty != allowedEmpty) return false
  return compressed ? groups <= 7 : groups == 8
}

/** The bit masks of two 16-byte comparisons, as one 32-bit mask. */
@inline function masks(a: v128, b: v128): u64 {
  return <u64>(<u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16))
}
@inline function digit16(v: v128): v128 {
  return i8x16.lt_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(10))
}
/** 0-9, a-f, A-F */
@inline function hex16(v: v128): v128 {
  const lower = v128.or(v, i8x16.splat(0x20))
  return v128.or(digit16(v), i8x16.lt_u(i8x16.sub(lower, i8x16.splat(0x61)), i8x16.splat(6)))
}

/** 25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d, four of them separated by dots: exactly [s, e). */
function ipv4(s: usize, e: usize): bool {
  let q = s
  for (let i = 0; i < 4; i++) {
    if (i > 0) {
      if (q >= e || load<u8>(q) != 0x2e) return false
      q++
    }
    const o = q
    let v: u32 = 0
    while (q < e && isDigit(load<u8>(q)) && q - o < 3) {
      v = v * 10 + digit(q)
      q++
    }
    const n = q - o
    if (n == 0 || v > 255 || (n > 1 && load<u8>(o) == 0x30)) return false
  }
  return q == e
}

@inline function isHex(c: u32): bool {
  return c - 48 < 10 || (c | 0x20) - 97 < 6
}

/** An IPv6 address in the text forms of RFC 3986 (no zone id): exactly [s, e). */
function ipv6(s: usize, e: usize): bool {
  let q = s
  let groups = 0
  let compressed = false
  if (q + 1 < e && load<u8>(q) == 0x3a && load<u8>(q + 1) == 0x3a) {
    compressed = true
    q += 2
    if (q == e) return true
  } else if (q < e && load<u8>(q) == 0x3a) return false
  for (;;) {
    // one group: up to 4 hex digits, or an IPv4 tail
    const g = q
    while (q < e && isHex(load<u8>(q)) && q - g < 4) q++
    if (q < e && load<u8>(q) == 0x2e) {
      // an IPv4 tail: it counts as two groups and ends the address
      if (!ipv4(g, e)) return false
      groups += 2
      break
    }
    if (q == g) return false
    groups++
    if (q == e) break
    if (load<u8>(q) != 0x3a) return false
    q++
    if (q < e && load<u8>(q) == 0x3a) {
      if (compressed) return false
      compressed = true
      q++
      if (q == e) break
    } else if (q == e) return false
  }
  return compressed ? groups <= 7 : groups == 8
}

// ---------------------------------------------------------------------------------------------
// Classification (classifyCode in scripts/audit-log/auditor.ts)

@inline function code(activity: i32, ok: bool): i32 {
  return activity * 2 + (ok ? 1 : 0)
}

function pathIs(l: usize): bool {
  return same(pathStart, pathLen, l)
}

/** Is the path `<prefix>/client/<one segment><tail>`? (The caller checked `<prefix>/client/`.) */
function clientPath(tail: usize): bool {
  const from = <u32>prefixLen + litLen(L_CLIENT_PATH)
  const tl = litLen(tail)
  if (pathLen < tl) return false
  const to = pathLen - tl
  if (to <= from || !at(pathStart + to, tail)) return false
  let i = from
  while (i < pathLen && load<u8>(pathStart + i) != 0x2f) i++
  return i == to
}

function classify(hasRequester: bool): i32 {
  if (method == 2) {
    switch (pathLen) {
      case 6:
        if (pathIs(L_LOGIN)) return status == 200 ? code(A_LOGIN_FAILED, false) : code(A_LOGIN, status == 303 && hasRequester)
        break
      case 7:
        if (pathIs(L_LOGOUT)) return code(A_LOGOUT, status == 303)
        break
      case 13:
        if (pathIs(L_TOKEN)) return code(A_TOKEN, status == 200)
        break
      case 14:
        if (pathIs(L_REVOKE_PATH)) return code(A_REVOKE, status == 200)
        break
      case 18:
        if (pathIs(L_INTROSPECT)) return code(A_INTROSPECT, status == 200)
        break
      case 10:
        if (pathIs(L_AUTHORIZE)) return code(A_AUTHORIZE, status == 303)
        break
      case 8:
        if (pathIs(L_GRAPHQL)) return code(A_SELF_SERVICE, status == 200)
        break
    }
    if (pathLen > 15 && at(pathStart, L_UPSTREAM)) return code(A_UPSTREAM, status == 303 && hasRequester)
    const pl = <u32>prefixLen
    if (pathLen > pl + 8 && memory.compare(pathStart, prefix, pl) == 0 && at(pathStart + pl, L_CLIENT_PATH)) {
      if (clientPath(L_CLIENT_LOGIN)) return code(A_CLIENT_LOGIN, status == 200 && hasRequester)
      if (clientPath(L_CLIENT_LOGOUT) || clientPath(L_LOGOUT_ALL)) return code(A_CLIENT_LOGOUT, status == 200)
    }
  } else if (method == 1) {
    if (pathIs(L_AUTHORIZE)) return code(A_AUTHORIZE, status == 303)
    if (pathLen > 23 && at(pathStart, L_REGISTER) && at(pathStart + pathLen - litLen(L_FINISH), L_FINISH)) return code(A_REGISTRATION, status == 303)
  }
  return code(A_OTHER, status < 400)
}

/** A method other than GET on a path under an admin prefix (isAdminWrite in scripts/audit-log/admin-actions.ts). */
function adminWrite(): bool {
  if (method == 1) return false
  return (pathLen >= litLen(L_ADMIN_API) && at(pathStart, L_ADMIN_API)) || (pathLen >= litLen(L_ADMIN_HS) && at(pathStart, L_ADMIN_HS))
}

/** Counts the line at p when it is canonical (and not an admin write): its '\n' then, else 0. */
function audit(p: usize, t: usize, lineNo: f64): usize {
  const e = parse(p)
  if (e == 0 || adminWrite()) return 0
  const c = classify(!v120 || reqLen != 0)
  const activity = c >> 1
  // totals: requests, v1.20, pre-v1.20, counts
  store<f64>(t, load<f64>(t) + 1)
  const fmt = t + (v120 ? 8 : 16)
  store<f64>(fmt, load<f64>(fmt) + 1)
  const ct = t + 24 + (<usize>c << 3)
  store<f64>(ct, load<f64>(ct) + 1)
  if (activity == A_SELF_SERVICE) {
    const k = opLen != 0 ? operations.index(opStart, opLen) : operations.index(UNNAMED + 8, litLen(UNNAMED))
    const at0 = operations.statAt(k, 0)
    store<f64>(at0, load<f64>(at0) + 1)
  }
  const r = reqLen != 0 ? requesters.index(reqStart, reqLen) : v120 ? requesters.index(NONE + 8, litLen(NONE)) : requesters.index(UNKNOWN + 8, litLen(UNKNOWN))
  const rq = requesters.statAt(r, 0)
  store<f64>(rq, load<f64>(rq) + 1)
  store<f64>(requesters.statAt(r, 1), lineNo)
  const ra = requesters.statAt(r, 2 + activity)
  store<f64>(ra, load<f64>(ra) + 1)
  return e
}
