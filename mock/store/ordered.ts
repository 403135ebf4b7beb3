// A collection kept in ascending id order (ULIDs sort by creation time) with secondary indexes, so
// that a page is a binary search plus a short scan whatever the filters:
//
// - bucket indexes map a key (a user id, a status, a scope token...) to the id-ordered list of the
//   items with that key; the size of a bucket is its count, so a single-filter count is O(log n);
// - range indexes keep the items ordered by a numeric value (last activity, token expiry), for
//   "strictly before/after" filters on values that do not follow the id order;
// - id bounds (cursors, and creation-time filters turned into ULID bounds) narrow every list by
//   binary search.
//
// A query picks the smallest candidate list (the union of its buckets, or a value range, or the
// whole collection) and checks every other condition on each item while scanning. Counting with one
// condition is O(k log n); with several conditions it scans the smallest candidate list.
// Writes keep every list sorted (binary search + splice: O(log n) search, O(n) memmove at worst).
import {
  BucketIndex,
  RangeIndex,
  inBounds,
  insertSorted,
  keyList,
  lowerPos,
  newLoadScratch,
  upperPos,
  type BucketIndexSpec,
  type Keyed,
  type PageResult,
  type Plan,
  type Query,
  type RangeIndexSpec,
  type Slice,
} from './ordered-indexes.ts'

export type { Bound, BucketIndexSpec, Keyed, PageResult, Query, RangeIndexSpec } from './ordered-indexes.ts'

export class OrderedCollection<T extends Keyed, I extends string = string, R extends string = string> {
  private items: T[] = []
  /** bumped by update(): lets readers cache what they derive from an item */
  private readonly versions = new WeakMap<T, number>()
  private readonly indexes = new Map<I, BucketIndex<T>>()
  private readonly ranges = new Map<R, RangeIndex<T>>()
  private writes = 0

  constructor(specs: { indexes?: Record<I, BucketIndexSpec<T>>; ranges?: Record<R, RangeIndexSpec<T>> } = {}) {
    for (const [name, spec] of Object.entries(specs.indexes ?? {}) as [I, BucketIndexSpec<T>][])
      this.indexes.set(name, new BucketIndex(spec))
    for (const [name, spec] of Object.entries(specs.ranges ?? {}) as [R, RangeIndexSpec<T>][]) this.ranges.set(name, new RangeIndex(spec))
  }

  /** bumped by every load, insert and update: lets readers cache what they derive from the whole collection */
  get generation(): number {
    return this.writes
  }

  get size(): number {
    return this.items.length
  }

  /** Loads items given in strictly ascending id order (seeding): O(n) plus one sort per range index. */
  load(items: T[]): void {
    for (let i = 1; i < items.length; i++) {
      if (!(items[i - 1]!.id < items[i]!.id)) throw new Error(`OrderedCollection.load: ids not strictly ascending at ${i}`)
    }
    if (this.items.length > 0 && items.length > 0 && !(this.items[this.items.length - 1]!.id < items[0]!.id)) {
      throw new Error('OrderedCollection.load: items must come after the existing ones')
    }
    this.writes++
    this.items = this.items.length === 0 ? items.slice() : this.items.concat(items)
    const scratch = newLoadScratch()
    for (const ix of this.indexes.values()) ix.load(items, scratch)
    for (const r of this.ranges.values()) r.rebuild(this.items)
  }

  get(id: string): T | undefined {
    const i = lowerPos(this.items, { id, inclusive: true })
    const item = this.items[i]
    return item !== undefined && item.id === id ? item : undefined
  }

  /** the newest item (highest id) */
  last(): T | undefined {
    return this.items[this.items.length - 1]
  }

  first(): T | undefined {
    return this.items[0]
  }

  insert(item: T): void {
    if (this.get(item.id)) throw new Error(`OrderedCollection.insert: duplicate id ${item.id}`)
    this.writes++
    insertSorted(this.items, item)
    for (const ix of this.indexes.values()) ix.add(item, keyList(ix.spec.keys(item)))
    for (const r of this.ranges.values()) r.add(item)
  }

  /** Applies `mutate` to an item and moves it between buckets and ranges as its keys change. */
  update(item: T, mutate: (item: T) => void): void {
    const beforeKeys = [...this.indexes.values()].map((ix) => keyList(ix.spec.keys(item)).slice())
    const beforeValues = [...this.ranges.values()].map((r) => r.spec.value(item))
    mutate(item)
    this.writes++
    this.versions.set(item, (this.versions.get(item) ?? 0) + 1)
    let n = 0
    for (const ix of this.indexes.values()) {
      const was = beforeKeys[n++]!
      const now = keyList(ix.spec.keys(item))
      const gone = was.filter((k) => !now.includes(k))
      const added = now.filter((k) => !was.includes(k))
      if (gone.length) ix.remove(item, gone)
      if (added.length) ix.add(item, added)
    }
    n = 0
    for (const r of this.ranges.values()) {
      const was = beforeValues[n++]!
      if (r.spec.value(item) !== was) {
        r.remove(item, was)
        r.add(item)
      }
    }
  }

  /** how many times update() changed the item (0 when never) */
  version(item: T): number {
    return this.versions.get(item) ?? 0
  }

  /** number of items in one bucket: O(1) */
  bucketSize(index: I, key: string): number {
    return this.indexes.get(index)?.size(key) ?? 0
  }

  /** every key of an index that has (or had) a bucket: O(buckets) */
  bucketKeys(index: I): Iterable<string> {
    return this.indexes.get(index)?.keys() ?? []
  }

  /** the newest item of a bucket */
  bucketLast(index: I, key: string): T | undefined {
    return this.indexes.get(index)?.last(key)
  }

  /** all items (ascending ids); do not mutate */
  all(): readonly T[] {
    return this.items
  }

  /**
   * Picks the cheapest list to scan. A bucket union costs its size. A value range costs its size
   * for counting (its value order is fine there), but for a page it must first be put in id order,
   * so it is weighed by m·log m and chosen only when much smaller than the other lists.
   */
  private plan(q: Query<T, I, R>, purpose: 'page' | 'count'): Plan<T> {
    const { after, before } = q
    const candidates: { make: () => Plan<T>; cost: number }[] = []
    const conditions: { check: (item: T) => boolean; candidate: number }[] = []

    for (const c of q.in ?? []) {
      const ix = this.indexes.get(c.index)
      if (!ix) throw new Error(`unknown index ${c.index}`)
      const keys = [...new Set(c.keys)]
      const slices: Slice<T>[] = []
      let size = 0
      for (const k of keys) {
        const arr = ix.list(k)
        if (!arr) continue
        const lo = lowerPos(arr, after)
        const hi = Math.max(lo, upperPos(arr, before))
        if (hi > lo) slices.push({ arr, lo, hi })
        size += hi - lo
      }
      const multi = keys.length > 1
      const idx = candidates.length
      candidates.push({ cost: size, make: () => ({ slices, size, mayRepeat: multi, checks: [] }) })
      conditions.push({ check: (item) => ix.has(item, keys), candidate: idx })
    }

    for (const c of q.range ?? []) {
      const r = this.ranges.get(c.index)
      if (!r) throw new Error(`unknown range ${c.index}`)
      const [lo, hi] = r.span(c.gt, c.lt)
      const m = hi - lo
      const bounded = after !== undefined || before !== undefined
      const idx = candidates.length
      candidates.push(
        purpose === 'count'
          ? {
              cost: m,
              make: () => ({
                slices: [{ arr: r.sorted, lo, hi }],
                size: m,
                mayRepeat: false,
                checks: bounded ? [(i: T) => inBounds(i.id, after, before)] : [],
              }),
            }
          : {
              cost: m * (1 + Math.log2(m + 1)),
              make: () => {
                const picked = r.sorted.slice(lo, hi).filter((i) => inBounds(i.id, after, before))
                picked.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
                return { slices: [{ arr: picked, lo: 0, hi: picked.length }], size: picked.length, mayRepeat: false, checks: [] }
              },
            },
      )
      const { gt, lt } = c
      conditions.push({
        check: (item) => {
          const v = r.spec.value(item)
          return v !== null && (gt === undefined || v > gt) && (lt === undefined || v < lt)
        },
        candidate: idx,
      })
    }

    const lo = lowerPos(this.items, after)
    const hi = Math.max(lo, upperPos(this.items, before))
    let best = -1
    let bestCost = hi - lo
    for (let i = 0; i < candidates.length; i++) {
      const cost = candidates[i]!.cost
      if (cost < bestCost || (best === -1 && cost === bestCost)) {
        best = i
        bestCost = cost
      }
    }
    const plan: Plan<T> =
      best === -1 ? { slices: [{ arr: this.items, lo, hi }], size: hi - lo, mayRepeat: false, checks: [] } : candidates[best]!.make()
    for (const c of conditions) if (c.candidate !== best) plan.checks.push(c.check)
    if (q.where) plan.checks.push(q.where)
    return plan
  }

  /** One page: `limit` items from the start (forward) or the end (backward) of the matching set. */
  page(q: Query<T, I, R>, direction: 'forward' | 'backward', limit: number): PageResult<T> {
    const plan = this.plan(q, 'page')
    const out: T[] = []
    let scanned = 0
    let more = false
    const { slices, checks } = plan
    const nChecks = checks.length
    if (slices.length === 1) {
      const { arr, lo, hi } = slices[0]!
      if (direction === 'forward') {
        for (let i = lo; i < hi; i++) {
          const item = arr[i]!
          scanned++
          if (nChecks !== 0 && !passes(checks, item)) continue
          if (out.length === limit) {
            more = true
            break
          }
          out.push(item)
        }
      } else {
        for (let i = hi - 1; i >= lo; i--) {
          const item = arr[i]!
          scanned++
          if (nChecks !== 0 && !passes(checks, item)) continue
          if (out.length === limit) {
            more = true
            break
          }
          out.push(item)
        }
        out.reverse()
      }
      return { items: out, more, scanned }
    }
    // k-way merge over the buckets of a union (k is small: the listed values of one filter).
    const pos = slices.map((s) => (direction === 'forward' ? s.lo : s.hi - 1))
    let lastId: string | undefined
    for (;;) {
      let pick = -1
      for (let s = 0; s < slices.length; s++) {
        const p = pos[s]!
        const sl = slices[s]!
        if (direction === 'forward' ? p >= sl.hi : p < sl.lo) continue
        if (pick === -1) {
          pick = s
          continue
        }
        const a = sl.arr[p]!.id
        const b = slices[pick]!.arr[pos[pick]!]!.id
        if (direction === 'forward' ? a < b : a > b) pick = s
      }
      if (pick === -1) break
      const item = slices[pick]!.arr[pos[pick]!]!
      pos[pick] = pos[pick]! + (direction === 'forward' ? 1 : -1)
      if (plan.mayRepeat && item.id === lastId) continue
      lastId = item.id
      scanned++
      if (nChecks !== 0 && !passes(checks, item)) continue
      if (out.length === limit) {
        more = true
        break
      }
      out.push(item)
    }
    if (direction === 'backward') out.reverse()
    return { items: out, more, scanned }
  }

  /** Number of matching items: O(k log n) with one condition, a scan of the smallest list otherwise. */
  count(q: Query<T, I, R>): { count: number; scanned: number } {
    const plan = this.plan(q, 'count')
    if (plan.checks.length === 0 && !plan.mayRepeat) return { count: plan.size, scanned: 0 }
    if (plan.mayRepeat) {
      // a union over a multi-valued index may list an item twice: count in id order, once each
      const all = this.page(q, 'forward', Number.MAX_SAFE_INTEGER)
      return { count: all.items.length, scanned: all.scanned }
    }
    let count = 0
    let scanned = 0
    const { checks } = plan
    for (const { arr, lo, hi } of plan.slices) {
      outer: for (let i = lo; i < hi; i++) {
        scanned++
        const item = arr[i]!
        for (const c of checks) if (!c(item)) continue outer
        count++
      }
    }
    return { count, scanned }
  }
}

function passes<T>(checks: ((item: T) => boolean)[], item: T): boolean {
  for (let i = 0; i < checks.length; i++) if (!checks[i]!(item)) return false
  return true
}
