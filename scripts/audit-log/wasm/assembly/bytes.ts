// AssemblyScript (part of audit-scan.wasm, see audit-scan.ts). Byte-level tests of the canonical
// line: literals compared 8 bytes at a time, character classes 16 bytes at a time (SIMD). Reads may
// go past the line into the input's slack (see SLACK in audit-scan.ts); what they read there never
// decides anything.

/** The '\n' ending the line at p (the sentinel at the latest), 16 bytes at a time. */
export function lineEnd(p: usize): usize {
  const nl = i8x16.splat(10)
  let m = i8x16.bitmask(i8x16.eq(v128.load(p), nl))
  while (m == 0) {
    p += 16
    m = i8x16.bitmask(i8x16.eq(v128.load(p), nl))
  }
  return p + <usize>ctz(m)
}

/** Bit i set when byte i of the 16 at p is not printable ASCII (0x20..0x7e). */
@inline export function notPrint16(p: usize): i32 {
  const v = v128.load(p)
  const ok = v128.and(i8x16.gt_s(v, i8x16.splat(0x1f)), i8x16.lt_s(v, i8x16.splat(0x7f)))
  return i8x16.bitmask(ok) ^ 0xffff
}

/** The first byte at or after q that is not printable ASCII (the sentinel stops it). */
export function skipPrint(q: usize): usize {
  let m = notPrint16(q)
  while (m == 0) {
    q += 16
    m = notPrint16(q)
  }
  return q + <usize>ctz(m)
}

@inline export function digit(p: usize): u32 {
  return <u32>load<u8>(p) - 48
}
@inline export function isDigit(c: u32): bool {
  return c - 48 < 10
}
// Which of the first 28 bytes of a line are digits, and the punctuation at the others.
export const TS_DIGITS_0 = i8x16(-1, -1, -1, -1, 0, -1, -1, 0, -1, -1, 0, -1, -1, 0, -1, -1)
export const TS_PUNCT_0 = i8x16(0, 0, 0, 0, 0x2d, 0, 0, 0x2d, 0, 0, 0x54, 0, 0, 0x3a, 0, 0)
export const TS_DIGITS_1 = i8x16(0, -1, -1, 0, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0)
export const TS_PUNCT_1 = i8x16(0x3a, 0, 0, 0x2e, 0, 0, 0, 0, 0, 0, 0x5a, 0x20, 0, 0, 0, 0)

/** Bit i set when byte i of v is in its place: a digit where `digits` says so, else the byte of `punct`. */
@inline export function shape16(v: v128, digits: v128, punct: v128): i32 {
  const isDigit = i8x16.le_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(9))
  return i8x16.bitmask(v128.bitselect(isDigit, i8x16.eq(v, punct), digits))
}

/** Two digits at p (already checked) as a number. */
@inline export function value2(p: usize): u32 {
  return (<u32>load<u8>(p) - 48) * 10 + <u32>load<u8>(p + 1) - 48
}


/** A token byte: printable ASCII but space and '"'. */
@inline export function isTok(c: u32): bool {
  return c - 0x21 < 0x5e && c != 0x22
}


/**
 * A literal of up to 24 bytes: its length, then three 8-byte words of its bytes and three masks
 * of the bytes that count, so that a comparison is three masked loads without a loop or branch.
 */
export function lit(s: string): usize {
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
@inline export function litLen(l: usize): u32 {
  return load<u32>(l)
}
/** Do the bytes at p start with literal l? (Reads may go past the line: see SLACK.) */
@inline export function at(p: usize, l: usize): bool {
  return (((load<u64>(p) & load<u64>(l, 32)) ^ load<u64>(l, 8)) | ((load<u64>(p, 8) & load<u64>(l, 40)) ^ load<u64>(l, 16)) | ((load<u64>(p, 16) & load<u64>(l, 48)) ^ load<u64>(l, 24))) == 0
}
/**
 * Do the bytes at p start with the n-byte literal whose little-endian words are w0, w1, w2 (the
 * `_N` and `_W` constants of constants.gen.ts)? Inlined with constant arguments, it is one to three
 * loads compared with immediates: no load of the literal (see `at`, which takes it from memory).
 */
@inline export function is(p: usize, n: i32, w0: u64, w1: u64, w2: u64): bool {
  if (n <= 8) return (load<u64>(p) & wordMask(n)) == w0
  if (n <= 16) return ((load<u64>(p) ^ w0) | ((load<u64>(p, 8) & wordMask(n - 8)) ^ w1)) == 0
  return ((load<u64>(p) ^ w0) | (load<u64>(p, 8) ^ w1) | ((load<u64>(p, 16) & wordMask(n - 16)) ^ w2)) == 0
}
/** The first n bytes (n <= 8) of a little-endian word. */
@inline function wordMask(n: i32): u64 {
  return n >= 8 ? <u64>-1 : (<u64>1 << (<u64>n << 3)) - 1
}

/** Are the bytes [p, p + n) exactly literal l? */
@inline export function same(p: usize, n: u32, l: usize): bool {
  return n == litLen(l) && at(p, l)
}

/** \d{1,15} then the literal of `is` (ln bytes, words w0..w2); the position after it, or 0. */
@inline export function number(p: usize, ln: i32, w0: u64, w1: u64, w2: u64): usize {
  const n = digitRun(p)
  if (n - 1 >= 15 || !is(p + n, ln, w0, w1, w2)) return 0
  return p + n + <usize>ln
}

/** How many digits start at p (16 when there are 16 or more). */
@inline export function digitRun(p: usize): usize {
  const v = v128.load(p)
  return <usize>ctz(~i8x16.bitmask(i8x16.le_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(9))))
}

/** \d{1,15}\.\dms; the position after it, or 0. */
@inline export function millis(p: usize): usize {
  const n = digitRun(p)
  if (n - 1 >= 15) return 0
  p += n
  // '.', a digit, 'm', 's' in one word
  const x = load<u32>(p)
  if ((x & 0xffff00ff) != 0x736d002e || ((x >> 8) & 0xff) - 48 >= 10) return 0
  return p + 4
}


/** The first byte at or after q that is not [A-Z_] (16 at a time; the sentinel stops it). */
@inline export function skipUpper(q: usize): usize {
  let m = notUpper16(q)
  while (m == 0) {
    q += 16
    m = notUpper16(q)
  }
  return q + <usize>ctz(m)
}
/** Bit i set when byte i of the 16 at p is not [A-Z_]. */
@inline export function notUpper16(p: usize): i32 {
  const v = v128.load(p)
  const up = v128.or(i8x16.le_u(i8x16.sub(v, i8x16.splat(0x41)), i8x16.splat(25)), i8x16.eq(v, i8x16.splat(0x5f)))
  return i8x16.bitmask(up) ^ 0xffff
}

/** [!#-~] */
@inline export function isReason(c: u32): bool {
  return c - 0x21 < 0x5e && c != 0x22
}

/** The first byte at or after q that is not a token byte (16 at a time; the sentinel stops it). */
export function skipTok(q: usize): usize {
  let m = notTok16(q)
  while (m == 0) {
    q += 16
    m = notTok16(q)
  }
  return q + <usize>ctz(m)
}
/** The first byte at or after q that is not a user id or name byte. */
export function skipName(q: usize): usize {
  let m = notName16(q)
  while (m == 0) {
    q += 16
    m = notName16(q)
  }
  return q + <usize>ctz(m)
}
@inline export function notName16(q: usize): i32 {
  const v = v128.load(q)
  return notTok16(q) | i8x16.bitmask(v128.or(i8x16.eq(v, i8x16.splat(0x28)), i8x16.eq(v, i8x16.splat(0x29))))
}
/** The first byte at or after q that is not a User-Agent byte. */
export function skipAgent(q: usize): usize {
  let m = notAgent16(q)
  while (m == 0) {
    q += 16
    m = notAgent16(q)
  }
  return q + <usize>ctz(m)
}
/** Bit i set when byte i of the 16 at p is not [0-9a-f]. */
@inline export function notHex16(p: usize): i32 {
  const v = v128.load(p)
  const dec = i8x16.le_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(9))
  const low = i8x16.le_u(i8x16.sub(v, i8x16.splat(0x61)), i8x16.splat(5))
  return i8x16.bitmask(v128.or(dec, low)) ^ 0xffff
}

/** Bit i set when byte i of the 16 at p is not a token byte. */
@inline export function notTok16(p: usize): i32 {
  const v = v128.load(p)
  // In range 0x21..0x7e as signed bytes: > 0x20 and < 0x7f (bytes >= 0x80 are negative).
  const ok = v128.and(i8x16.gt_s(v, i8x16.splat(0x20)), i8x16.lt_s(v, i8x16.splat(0x7f)))
  return i8x16.bitmask(v128.andnot(ok, i8x16.eq(v, i8x16.splat(0x22)))) ^ 0xffff
}
/** Bit i set when byte i of the 16 at p is not a User-Agent byte. */
@inline export function notAgent16(p: usize): i32 {
  const v = v128.load(p)
  const ok = v128.and(i8x16.gt_s(v, i8x16.splat(0x1f)), i8x16.lt_s(v, i8x16.splat(0x7f)))
  return i8x16.bitmask(v128.andnot(ok, v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))))) ^ 0xffff
}
