// Strings to dense indexes with flat counters beside them: the requester and operation tables of
// the JavaScript side (the WebAssembly module has its own, drained into these).

import { ACTIVITIES } from './activities.ts'

/**
 * Strings to dense indexes: an open-addressing table with its own hash over the whole key, seeded
 * per process (a hash over a few characters let a log of requesters that share them pile every key
 * into one probe chain: quadratic), compared with ===. The counters live in flat typed arrays
 * indexed by it, so that a line touches a few cache lines rather than objects.
 */
export class KeyIndex {
  private slots = new Int32Array(1024).fill(-1)
  private hashes = new Int32Array(1024)
  private mask = 1023
  readonly keys: string[] = []
  /** slots looked at by every lookup so far (a test's measure of collisions, not of time) */
  probes = 0

  /** The index of `key`, added when new. */
  index(key: string): number {
    const h = hashOf(key)
    const slots = this.slots
    const mask = this.mask
    let i = (h ^ (h >>> 15)) & mask
    for (;;) {
      this.probes++
      const r = slots[i]!
      if (r === -1) break
      if (this.hashes[i] === h && this.keys[r] === key) return r
      i = (i + 1) & mask
    }
    const r = this.keys.length
    // A flat copy: the key may be a slice of a whole block of text, which it would keep alive.
    this.keys.push((' ' + key).slice(1))
    slots[i] = r
    this.hashes[i] = h
    if (this.keys.length * 2 > mask) this.grow()
    return r
  }

  private grow(): void {
    const cap = this.slots.length * 2
    const slots = new Int32Array(cap).fill(-1)
    const hashes = new Int32Array(cap)
    const mask = cap - 1
    for (let r = 0; r < this.keys.length; r++) {
      const h = hashOf(this.keys[r]!)
      let i = (h ^ (h >>> 15)) & mask
      while (slots[i] !== -1) i = (i + 1) & mask
      slots[i] = r
      hashes[i] = h
    }
    this.slots = slots
    this.hashes = hashes
    this.mask = mask
  }
}

// Seeded per process, so that no log can be written to collide on purpose.
const SEED = (Math.random() * 0x100000000) | 0

// The whole key, two characters per step (Murmur3's mixing). Keys are short (a requester, an
// operation name), so this costs little beside the line's other work.
export function hashOf(key: string): number {
  const n = key.length
  let h = SEED ^ n
  let i = 0
  for (; i + 1 < n; i += 2) {
    let k = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16)
    k = Math.imul(k, 0xcc9e2d51)
    k = (k << 15) | (k >>> 17)
    h ^= Math.imul(k, 0x1b873593)
    h = (h << 13) | (h >>> 19)
    h = (Math.imul(h, 5) + 0xe6546b64) | 0
  }
  if (i < n) h ^= Math.imul(key.charCodeAt(i), 0xcc9e2d51)
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

/** Flat growable counters indexed like a KeyIndex. */
export function grown(a: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(size)
  b.set(a)
  return b
}

/** Per-requester counters, keyed by the requester as printed. */
export class RequesterTable extends KeyIndex {
  /** requests per requester */
  requests = new Float64Array(256)
  /** line number of the latest request per requester */
  last = new Float64Array(256)
  /** counts per requester and activity: [requester * ACTIVITIES.length + activity] */
  counts = new Float64Array(256 * ACTIVITIES.length)

  override index(key: string): number {
    const r = super.index(key)
    if (r >= this.requests.length) {
      const n = this.requests.length * 2
      this.requests = grown(this.requests, n)
      this.last = grown(this.last, n)
      this.counts = grown(this.counts, n * ACTIVITIES.length)
    }
    return r
  }
}

/** Requests per GraphQL operation name. */
export class OperationTable extends KeyIndex {
  counts = new Float64Array(64)

  add(name: string, n = 1): void {
    const r = this.index(name)
    if (r >= this.counts.length) this.counts = grown(this.counts, this.counts.length * 2)
    this.counts[r]! += n
  }
}
