// The pieces of OrderedCollection (./ordered.ts): id-ordered arrays searched by binary search, the
// bucket index (key → id-ordered items) and the range index (items ordered by a numeric value).
import { endianness } from 'node:os'

export interface Keyed {
  readonly id: string
}

export interface BucketIndexSpec<T> {
  /** the bucket key(s) of an item; null/undefined: in no bucket */
  keys(item: T): string | readonly string[] | null | undefined
}

export interface RangeIndexSpec<T> {
  /** the ranged value; null: not in the range index (never matches a range condition) */
  value(item: T): number | null
}

export interface Bound {
  id: string
  inclusive: boolean
}

export interface Query<T, I extends string = string, R extends string = string> {
  /** each entry: the item is in one of these buckets (ANY); entries are AND-ed */
  in?: readonly { index: I; keys: readonly string[] }[]
  /** strict value ranges (gt < value < lt); entries are AND-ed */
  range?: readonly { index: R; gt?: number; lt?: number }[]
  /** lower id bound */
  after?: Bound
  /** upper id bound */
  before?: Bound
  /** any other condition, checked on each scanned item */
  where?: (item: T) => boolean
}

export interface PageResult<T> {
  /** always in ascending id order */
  items: T[]
  /** more items exist beyond the page, in the direction of travel */
  more: boolean
  /** items looked at while scanning (the request log's `fetched`) */
  scanned: number
}

export interface Slice<T> {
  arr: readonly T[]
  lo: number
  hi: number
}

export interface Plan<T> {
  slices: Slice<T>[]
  size: number
  /** the slices may hold the same item twice (union over a multi-valued index) */
  mayRepeat: boolean
  checks: ((item: T) => boolean)[]
}

type Keys = string | readonly string[] | null | undefined

export function keyList(k: Keys): readonly string[] {
  if (k === null || k === undefined) return []
  return typeof k === 'string' ? [k] : k
}

/** first position whose id is > bound (exclusive) or >= bound (inclusive) */
export function lowerPos<T extends Keyed>(arr: readonly T[], b: Bound | undefined): number {
  if (!b) return 0
  let lo = 0
  let hi = arr.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const id = arr[mid]!.id
    if (id < b.id || (!b.inclusive && id === b.id)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** first position whose id is >= bound (exclusive) or > bound (inclusive) */
export function upperPos<T extends Keyed>(arr: readonly T[], b: Bound | undefined): number {
  if (!b) return arr.length
  let lo = 0
  let hi = arr.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const id = arr[mid]!.id
    if (id < b.id || (b.inclusive && id === b.id)) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function inBounds(id: string, after: Bound | undefined, before: Bound | undefined): boolean {
  if (after && (id < after.id || (!after.inclusive && id === after.id))) return false
  if (before && (id > before.id || (!before.inclusive && id === before.id))) return false
  return true
}

export function insertSorted<T extends Keyed>(arr: T[], item: T): void {
  const last = arr[arr.length - 1]
  if (last === undefined || last.id < item.id) {
    arr.push(item)
    return
  }
  arr.splice(lowerPos(arr, { id: item.id, inclusive: true }), 0, item)
}

export function removeSorted<T extends Keyed>(arr: T[], item: T): void {
  const i = lowerPos(arr, { id: item.id, inclusive: true })
  if (arr[i] === item) arr.splice(i, 1)
}

/**
 * The working arrays of BucketIndex.load, shared by the indexes of one collection's load: their
 * memory lies outside the JavaScript heap and is given back only when the collector next runs a
 * full collection, so a new pair per index kept tens of megabytes at the peak of a large seeding.
 */
export interface LoadScratch {
  start: Int32Array
  slots: Int32Array
}

export const newLoadScratch = (): LoadScratch => ({ start: new Int32Array(0), slots: new Int32Array(0) })

/**
 * Key → the id-ordered items with that key. A bucket of one item holds the item itself, not an
 * array of one: about half the buckets of a seeded world have one item (a browser session, a
 * device's scope token), and an array costs them 56 bytes each (a million sessions: 860,000 such
 * buckets). Items are records, never arrays, so `Array.isArray` tells the two apart.
 */
export class BucketIndex<T extends Keyed> {
  private readonly buckets = new Map<string, T | T[]>()
  constructor(readonly spec: BucketIndexSpec<T>) {}

  /** the bucket's items in id order (do not mutate), or undefined when it is empty */
  list(key: string): readonly T[] | undefined {
    const b = this.buckets.get(key)
    return b === undefined || Array.isArray(b) ? b : [b]
  }

  size(key: string): number {
    const b = this.buckets.get(key)
    return b === undefined ? 0 : Array.isArray(b) ? b.length : 1
  }

  /** every key that has (or had) a bucket; its size says whether it is empty */
  keys(): IterableIterator<string> {
    return this.buckets.keys()
  }

  /** the newest item of the bucket */
  last(key: string): T | undefined {
    const b = this.buckets.get(key)
    return Array.isArray(b) ? b[b.length - 1] : b
  }

  add(item: T, keys: readonly string[]): void {
    for (const k of keys) {
      const b = this.buckets.get(k)
      if (b === undefined) this.buckets.set(k, item)
      else if (Array.isArray(b)) insertSorted(b, item)
      else this.buckets.set(k, b.id < item.id ? [b, item] : [item, b])
    }
  }

  /**
   * Appends items given in ascending id order, after any already indexed (seeding). One index at a
   * time, each item's keys taken once, and each new bucket made at its final size: buckets grown
   * by push keep spare capacity (a one-item bucket holds 16 slots) and copying them to size doubled
   * the peak while a million sessions were seeded.
   */
  load(items: readonly T[], scratch: LoadScratch = newLoadScratch()): void {
    const keysOf = this.spec.keys
    const n = items.length
    // Each key is looked up once per item, for a slot number; counting and filling go by slot. The
    // slot numbers stand in the bucket map itself until the buckets are made: a second map of every
    // key, and the copies a map leaves behind as it grows, were much of the garbage (and so of
    // the peak) of a million sessions' seeding.
    const buckets = this.buckets as Map<string, T | T[] | number>
    /** the buckets that held items before this load, by slot */
    const olds: (T | T[] | undefined)[] = []
    let counts = new Int32Array(1024)
    /** the first item of each slot: a bucket of one is that item */
    let firsts = new Int32Array(1024)
    let nSlots = 0
    /** the slots of item i are slots[start[i]] to slots[start[i + 1] - 1] */
    if (scratch.start.length < n + 1) scratch.start = new Int32Array(n + 1)
    const start = scratch.start
    if (scratch.slots.length < n) scratch.slots = new Int32Array(n)
    let slots = scratch.slots
    let m = 0
    let i = 0
    const grow = (a: Int32Array) => {
      const grown = new Int32Array(a.length * 2)
      grown.set(a)
      return grown
    }
    const add = (k: string) => {
      const b = buckets.get(k)
      let s: number
      if (typeof b === 'number') s = b
      else {
        s = nSlots++
        if (s === counts.length) {
          counts = grow(counts)
          firsts = grow(firsts)
        }
        firsts[s] = i
        if (b !== undefined) olds[s] = b
        buckets.set(k, s)
      }
      counts[s]!++
      if (m === slots.length) slots = scratch.slots = grow(slots)
      slots[m++] = s
    }
    for (; i < n; i++) {
      start[i] = m
      const k = keysOf(items[i]!)
      if (k === null || k === undefined) continue
      if (typeof k === 'string') add(k)
      else for (let j = 0; j < k.length; j++) add(k[j]!)
    }
    start[n] = m
    // null: a bucket of one, set here once and for all
    const arrays: (T[] | null)[] = new Array(nSlots)
    const at = new Int32Array(nSlots)
    // The map's order is the order in which keys first came, as when buckets were set one by one.
    // forEach, not for-of: an entry pair per bucket was a sixth of the garbage of the index loads.
    buckets.forEach((b, k) => {
      if (typeof b !== 'number') return
      const s = b
      const old = olds[s]
      if (old === undefined && counts[s] === 1) {
        buckets.set(k, items[firsts[s]!]!)
        arrays[s] = null
        return
      }
      const before = old === undefined ? 0 : Array.isArray(old) ? old.length : 1
      const arr: T[] = new Array(counts[s]! + before)
      let j = 0
      if (Array.isArray(old)) for (; j < old.length; j++) arr[j] = old[j]!
      else if (old !== undefined) arr[j++] = old
      at[s] = j
      arrays[s] = arr
      buckets.set(k, arr)
    })
    for (let i = 0; i < n; i++) {
      const item = items[i]!
      for (let j = start[i]!; j < start[i + 1]!; j++) {
        const s = slots[j]!
        const arr = arrays[s]!
        if (arr !== null) arr[at[s]!++] = item
      }
    }
  }

  remove(item: T, keys: readonly string[]): void {
    for (const k of keys) {
      const b = this.buckets.get(k)
      if (b === undefined) continue
      if (!Array.isArray(b)) {
        if (b === item) this.buckets.delete(k)
        continue
      }
      removeSorted(b, item)
      if (b.length === 1) this.buckets.set(k, b[0]!)
      else if (b.length === 0) this.buckets.delete(k)
    }
  }

  has(item: T, keys: readonly string[]): boolean {
    const own = this.spec.keys(item)
    if (own === null || own === undefined) return false
    if (typeof own === 'string') return keys.includes(own)
    for (const k of own) if (keys.includes(k)) return true
    return false
  }
}

/**
 * Items ordered by (value, id). The index keeps its own copy of each entry's value: an update
 * mutates the item before the index hears of it, so the item's current value cannot be used to
 * find (or order against) the entry it had (revoking a personal session sets its expiry to null).
 */
export class RangeIndex<T extends Keyed> {
  /** ordered by (value, id); `values[i]` is the value `sorted[i]` was indexed with */
  sorted: T[] = []
  values: number[] = []
  constructor(readonly spec: RangeIndexSpec<T>) {}

  /** first position whose (value, id) is not below (value, id) */
  private position(value: number, id: string): number {
    let lo = 0
    let hi = this.sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const v = this.values[mid]!
      if (v < value || (v === value && this.sorted[mid]!.id < id)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  add(item: T): void {
    const value = this.spec.value(item)
    if (value === null) return
    const i = this.position(value, item.id)
    this.sorted.splice(i, 0, item)
    this.values.splice(i, 0, value)
  }

  /** `value` is the value the item had when it was indexed */
  remove(item: T, value: number | null): void {
    if (value === null) return
    const i = this.position(value, item.id)
    if (this.sorted[i] !== item) throw new Error(`RangeIndex.remove: ${item.id} is not indexed at ${value}`)
    this.sorted.splice(i, 1)
    this.values.splice(i, 1)
  }

  /**
   * Indexes `items`, given in ascending id order (a collection's items). A comparison sort calling
   * the spec twice per comparison was a sixth of seeding a million sessions; the values are sorted
   * here by a stable radix sort over their bits instead, so that equal values keep the items' id
   * order.
   */
  rebuild(items: readonly T[]): void {
    const value = this.spec.value
    const n = items.length
    const keys = new Float64Array(n)
    const positions = new Uint32Array(n)
    let m = 0
    for (let i = 0; i < n; i++) {
      const v = value(items[i]!)
      if (v === null) continue
      keys[m] = v + 0 // -0 as 0: the two are equal values
      positions[m++] = i
    }
    const order = sortByValue(keys.subarray(0, m), positions.subarray(0, m))
    const sorted: T[] = new Array(m)
    const values: number[] = new Array(m)
    for (let j = 0; j < m; j++) {
      const i = order[j]!
      sorted[j] = items[i]!
      values[j] = value(items[i]!)!
    }
    this.sorted = sorted
    this.values = values
  }

  /** [lo, hi) of the items with gt < value < lt */
  span(gt: number | undefined, lt: number | undefined): [number, number] {
    const values = this.values
    let lo = 0
    let hi = values.length
    if (gt !== undefined) {
      let a = 0
      let b = values.length
      while (a < b) {
        const mid = (a + b) >>> 1
        if (values[mid]! <= gt) a = mid + 1
        else b = mid
      }
      lo = a
    }
    if (lt !== undefined) {
      let a = lo
      let b = values.length
      while (a < b) {
        const mid = (a + b) >>> 1
        if (values[mid]! < lt) a = mid + 1
        else b = mid
      }
      hi = a
    }
    return [lo, Math.max(lo, hi)]
  }
}

/**
 * `order` (positions, ascending) sorted by `keys` (the value of each entry of `order`, same
 * position), ties kept in the given order: a least-significant-digit radix sort, 16 bits at a time,
 * of each value's IEEE 754 bits turned into an unsigned order (sign bit flipped for positives, all
 * bits for negatives). A pass whose digit is the same for every value is skipped.
 */
const LO = endianness() === 'LE' ? 0 : 1
const HI = 1 - LO

function sortByValue(keys: Float64Array, order: Uint32Array): Uint32Array {
  const m = order.length
  const words = new Uint32Array(keys.buffer, keys.byteOffset, m * 2)
  // the low and high 32 bits of value i are words[2i + LO] and words[2i + HI] (LO is 0 on a
  // little-endian host, 1 on a big-endian one such as s390x)
  for (let i = 0; i < m; i++) {
    const hi = words[2 * i + HI]!
    if (hi & 0x80000000) {
      words[2 * i + HI] = ~hi >>> 0
      words[2 * i + LO] = ~words[2 * i + LO]! >>> 0
    } else words[2 * i + HI] = (hi | 0x80000000) >>> 0
  }
  let src = new Uint32Array(m)
  for (let i = 0; i < m; i++) src[i] = i
  let dst = new Uint32Array(m)
  const counts = new Uint32Array(65536)
  for (let pass = 0; pass < 4; pass++) {
    const word = pass >> 1 ? HI : LO
    const shift = (pass & 1) * 16
    counts.fill(0)
    for (let i = 0; i < m; i++) counts[(words[2 * i + word]! >>> shift) & 0xffff]!++
    if (m === 0 || counts[(words[word]! >>> shift) & 0xffff] === m) continue
    let sum = 0
    for (let d = 0; d < 65536; d++) {
      const c = counts[d]!
      counts[d] = sum
      sum += c
    }
    for (let j = 0; j < m; j++) {
      const i = src[j]!
      dst[counts[(words[2 * i + word]! >>> shift) & 0xffff]!++] = i
    }
    const t = src
    src = dst
    dst = t
  }
  for (let j = 0; j < m; j++) dst[j] = order[src[j]!]!
  return dst
}
