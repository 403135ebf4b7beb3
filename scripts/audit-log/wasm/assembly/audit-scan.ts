// AssemblyScript, compiled to audit-scan.wasm (scripts/audit-log/wasm/build.ts); not part of the Node build.
//
// The bulk fast path of `audit-log` over raw bytes: it recognizes canonical `http.server.response`
// lines (the same language as FAST_RE in lib/requestlog.ts, restricted to ASCII), classifies them
// like classifyCode in scripts/audit-log/index.ts and counts them per activity, requester and GraphQL operation.
// It also counts the other events of canonical shape (timestamp, level, a name, printable ASCII).
// Every line it does not take (blank lines, anything unusual, any byte >= 0x80) is handed
// back to the JavaScript scanner, which stays the reference. test/scripts/audit-log/wasm/module.test.ts checks
// that both agree on every corpus line, generated lines and mutations of them.
//
// Why WebAssembly: at millions of lines, the JavaScript path spends most of its time in per-call
// overhead (regex match objects, string slices, charCodeAt on slices); a byte loop here costs
// about a nanosecond per byte. Memory is one bump heap (the stub runtime): tables only grow.

// ---------------------------------------------------------------------------------------------
// Layout shared with scripts/audit-log/wasm/module.ts

import { lineEnd, lit, litLen } from './bytes'
import { adminWrite, allocPrefix, classify, setPrefixLength } from './classify'
import { A_SELF_SERVICE, ACTIVITIES, S_NONE, S_UNKNOWN, S_UNNAMED } from './constants.gen'
import { event, opLen, opStart, parse, reqLen, reqStart, v120 } from './parse'
import { probes, regrow, setHashSeed, Table, zeroed } from './table'

// Activities (their numbers, in the order of ACTIVITIES in scripts/audit-log/activities.ts) and
// every literal come from constants.gen.ts, generated from the JavaScript side. The parts:
// parse.ts (the canonical line), classify.ts, bytes.ts, address.ts, table.ts.

/** Per requester: requests, latest line, then one counter per activity. */
export const REQUESTER_STRIDE: i32 = 2 + ACTIVITIES
/** totals: requests, v1.20 lines, pre-v1.20 lines, counts by code (activity * 2 + ok), then other events. */
export const TOTALS: i32 = 3 + ACTIVITIES * 2 + 1
const EVENTS_AT: usize = (3 + <usize>ACTIVITIES * 2) << 3

// Slack after the input: the input ends with a '\n' sentinel, and every check fails on '\n', so
// scans need no bounds; fixed-offset and 16-byte reads past it stay inside this slack (what they
// read there never decides anything).
const SLACK: u32 = 128

let input: usize = 0
let inputCap: u32 = 0
let totals: usize = 0
let declined: usize = 0
let declinedCap: u32 = 0
let declinedCount: u32 = 0
let scanned: u32 = 0


const requesters = new Table(REQUESTER_STRIDE)
const operations = new Table(1)

// ---------------------------------------------------------------------------------------------
// Exports for scripts/audit-log/wasm/module.ts

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
  return allocPrefix(n)
}

export function setPrefix(n: i32): void {
  setPrefixLength(n)
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

/** Seeds the tables' hash (before the first scan: the tables are keyed by it). */
export function setSeed(s: u32): void {
  setHashSeed(s)
}

/** Slots the tables looked at so far. */
export function tableProbes(): f64 {
  return probes
}

/** Forgets all counters (after the caller has taken them). */
export function reset(): void {
  memory.fill(totalsAddress(), 0, <usize>TOTALS * 8)
  requesters.clear()
  operations.clear()
}

/**
 * Audits the lines of input[from, from + n) (separated by '\n', none at the end): counts the
 * canonical ones and lists the others as [start, end, index] triples of u32 (relative to `from`) at
 * declinedAddress(), for the JavaScript scanner. `base` is the number of the line before the first
 * (requesters remember their latest line as base + index + 1). Returns how many lines were declined.
 * The caller may have read its input straight into the input area (then from > 0 is possible).
 */
export function scan(from: u32, n: u32, base: f64): u32 {
  const t = totalsAddress()
  const start: usize = input + from
  const end: usize = start + n
  // A sentinel: every check fails on '\n'. The byte there is the caller's (a line's '\n', or
  // slack), put back afterwards.
  const saved = load<u8>(end)
  store<u8>(end, 10)
  declinedCount = 0
  let p: usize = start
  let index: u32 = 0
  for (;;) {
    // A canonical line is parsed to its '\n'; any other is declined from where it starts.
    let e = audit(p, t, base + <f64>(index + 1))
    if (e == 0) {
      e = event(p)
      if (e != 0) store<f64>(t + EVENTS_AT, load<f64>(t + EVENTS_AT) + 1)
      else {
        e = lineEnd(p)
        decline(<u32>(p - start), <u32>(e - start), index)
      }
    }
    index++
    if (e >= end) break
    p = e + 1
  }
  store<u8>(end, saved)
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


// The names of lines without requester and of unnamed operations, as the JavaScript side counts them.
const NONE = lit(S_NONE)
const UNKNOWN = lit(S_UNKNOWN)
const UNNAMED = lit(S_UNNAMED)



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
