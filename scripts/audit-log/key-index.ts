// Strings to dense indexes with flat counters beside them: the requester and operation tables of
// the JavaScript side (the WebAssembly module has its own, drained into these).

import { ACTIVITIES } from './activities.ts'

/**
 * Strings to dense indexes: an open-addressing table with its own cheap hash over a few characters
 * (each line brings a fresh slice of a big block of text, whose full hash a Map would compute on
 * every lookup), compared with ===. The counters live in flat typed arrays indexed by it, so that
 * a line touches a few cache lines rather than objects.
 */
export class KeyIndex {
  private slots = new Int32Array(1024).fill(-1)
  private hashes = new Int32Array(1024)
  private mask = 1023
  readonly keys: string[] = []

  /** The index of `key`, added when new. */
  index(key: string): number {
    const h = hashOf(key)
    const slots = this.slots
    const mask = this.mask
    let i = (h ^ (h >>> 15)) & mask
    for (;;) {
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

// The length and four characters: two from the middle (inside the ULID of `user:<ULID>(<name>)`
// and `oauth2-client:<ULID>`) and two from the end (the username). Collisions only cost a probe;
// === decides. Each charCodeAt on a slice costs several nanoseconds, so no more of them.
function hashOf(key: string): number {
  const n = key.length
  if (n < 4) return n === 0 ? 0 : (n * 31 + key.charCodeAt(0)) | 0
  const m = n >> 1
  return ((((n * 31 + key.charCodeAt(m)) * 31 + key.charCodeAt(m - 2)) * 31 + key.charCodeAt(n - 2)) * 31 + key.charCodeAt(n - 3)) | 0
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
