// AssemblyScript (part of audit-scan.wasm, see audit-scan.ts). Byte strings to dense indexes with
// f64 counters beside them, on the bump heap.

// ---------------------------------------------------------------------------------------------
// Tables: byte strings to dense indexes (open addressing, linear probing), with f64 counters.

/** Slots looked at by every lookup so far (a test's measure of collisions, not of time). */
export let probes: f64 = 0

export class Table {
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
      probes++
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

export function zeroed(n: u32): usize {
  const p = heap.alloc(<usize>n)
  memory.fill(p, 0, <usize>n)
  return p
}

/** A bigger zeroed block holding the first `used` bytes of `old` (the bump heap keeps the old one). */
export function regrow(old: usize, used: u32, n: u32): usize {
  const p = zeroed(n)
  memory.copy(p, old, <usize>used)
  return p
}

/** Are the n bytes at a and b the same? (16 at a time, the last step overlapping the one before) */
export function equal(a: usize, b: usize, n: u32): bool {
  const m = <usize>n
  if (m >= 16) {
    for (let i: usize = 0; i + 16 < m; i += 16) if (v128.any_true(v128.xor(v128.load(a + i), v128.load(b + i)))) return false
    return !v128.any_true(v128.xor(v128.load(a + m - 16), v128.load(b + m - 16)))
  }
  if (m >= 8) return load<u64>(a) == load<u64>(b) && load<u64>(a + m - 8) == load<u64>(b + m - 8)
  if (m >= 4) return load<u32>(a) == load<u32>(b) && load<u32>(a + m - 4) == load<u32>(b + m - 4)
  for (let i: usize = 0; i < m; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false
  return true
}

// Set from JavaScript with a random number when the module starts (setSeed in audit-scan.ts), so
// that no log can be written to collide on purpose.
let seed: u64 = 0x243f6a8885a308d3

export function setHashSeed(s: u32): void {
  seed = ((<u64>s << 32) | <u64>s) ^ 0x243f6a8885a308d3
}

// The whole key, 8 bytes per step (the last step overlapping the one before), mixed by
// multiplying: a hash over a few words let requesters sharing those words pile into one probe
// chain (quadratic). Shorter keys FNV-1a. Collisions only cost a probe: equal() decides.
export function hashBytes(p: usize, n: u32): u32 {
  if (n >= 8) {
    let x = seed ^ (<u64>n * 0x9e3779b97f4a7c15)
    const m = <usize>n
    let i: usize = 0
    // Two words per turn: the same value as one per turn, with half the loop's overhead.
    for (; i + 16 < m; i += 16) {
      x = (x ^ load<u64>(p + i)) * 0xbf58476d1ce4e5b9
      x = (x ^ load<u64>(p + i + 8)) * 0xbf58476d1ce4e5b9
    }
    for (; i + 8 < m; i += 8) x = (x ^ load<u64>(p + i)) * 0xbf58476d1ce4e5b9
    x = (x ^ load<u64>(p + m - 8)) * 0x94d049bb133111eb
    x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9
    return <u32>(x >> 32)
  }
  let h: u32 = (<u32>seed ^ 0x811c9dc5) ^ n
  let i: u32 = 0
  for (; i + 4 <= n; i += 4) h = (h ^ load<u32>(p + i)) * 0x01000193
  for (; i < n; i++) h = (h ^ <u32>load<u8>(p + i)) * 0x01000193
  return h ^ (h >> 13)
}
