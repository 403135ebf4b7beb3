// AssemblyScript (part of audit-scan.wasm, see audit-scan.ts). The client address of a canonical
// line: IPv4 or IPv6 in the text forms node:net accepts (test/scripts/audit-log/wasm/module.test.ts
// checks it against isIP).

import { digit, isDigit } from './bytes'

/**
 * An IPv4 or IPv6 address: exactly [s, e). Addresses of up to 32 bytes are checked on bit masks of
 * their digits, dots and colons (two 16-byte loads); longer ones, and IPv6 with an IPv4 tail, by
 * the byte loops ipv4() and ipv6() below, which define the same language.
 */
@inline export function address(s: usize, e: usize): bool {
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
    // The octets between the dots, unrolled and without branches (see octet).
    const d1 = <u32>ctz(dot)
    const r1 = dot & (dot - 1)
    const d2 = <u32>ctz(r1)
    const d3 = <u32>ctz(r1 & (r1 - 1))
    return octet(s, d1) & octet(s + d1 + 1, d2 - d1 - 1) & octet(s + d2 + 1, d3 - d2 - 1) & octet(s + d3 + 1, n - d3 - 1)
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

/**
 * An octet of len digits at o (its bytes are digits): 1 to 3 of them, no leading zero, at most 255.
 * Without branches: octet lengths vary from address to address, and a mispredicted branch costs
 * more than reading three bytes (the reads past a short octet stay in the line or its slack).
 */
@inline function octet(o: usize, len: u32): bool {
  const first = <u32>load<u8>(o)
  // Three digits compare as their bytes in order: at most '255'.
  const three = (first << 16) | (<u32>load<u8>(o + 1) << 8) | <u32>load<u8>(o + 2)
  return (len - 1 < 3) & ((len < 2) | (first != 0x30)) & ((len != 3) | (three <= 0x323535))
}

/** The bit masks of two 16-byte comparisons, as one 32-bit mask. */
@inline export function masks(a: v128, b: v128): u64 {
  return <u64>(<u32>i8x16.bitmask(a) | (<u32>i8x16.bitmask(b) << 16))
}
@inline export function digit16(v: v128): v128 {
  return i8x16.le_u(i8x16.sub(v, i8x16.splat(0x30)), i8x16.splat(9))
}
/** 0-9, a-f, A-F */
@inline export function hex16(v: v128): v128 {
  const lower = v128.or(v, i8x16.splat(0x20))
  return v128.or(digit16(v), i8x16.le_u(i8x16.sub(lower, i8x16.splat(0x61)), i8x16.splat(5)))
}

/** 25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d, four of them separated by dots: exactly [s, e). */
export function ipv4(s: usize, e: usize): bool {
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

@inline export function isHex(c: u32): bool {
  return c - 48 < 10 || (c | 0x20) - 97 < 6
}

/** An IPv6 address in the text forms of RFC 3986 (no zone id): exactly [s, e). */
export function ipv6(s: usize, e: usize): bool {
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
