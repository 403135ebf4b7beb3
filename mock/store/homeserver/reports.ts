// The event reports of the homeserver store, kept in (received_ts, id) order: one array of every
// listable report plus three secondary indexes (by room, by reporter, by sender of the reported
// event), each holding the same report objects in the same order. A listing therefore never scans
// reports to find its candidates:
//   - no filter: the main array; `total` is its length, the page is an index range;
//   - event_sender_user_id (exact match): the sender's array;
//   - room_id / user_id (the real server's SQL LIKE '%v%': `%` and `_` in the value are wildcards, as
//     on PostgreSQL: case-sensitive, `\` escapes the next character): the filter value is
//     resolved against the *distinct* room ids / reporter ids (a few thousand at most, memoised until
//     a new key appears), and the union of the matching keys' arrays is the candidate set, so `total`
//     is a sum of array lengths. One matching key (the usual case: a full room id) is a plain array again;
//   - several filters: the smallest candidate set is walked and tested against the others, so the
//     work is bounded by the most selective filter, not by the number of reports.
// Order among reports with the same received_ts: by id (the real server leaves it unspecified).
// Reports whose room the server has no stats for (the real listing inner-joins room_stats_state) are
// kept apart: not listed, not counted, not readable, but deletable, as on the real server.
import type { EventReport, ReportPage, ReportQuery, SubstringMode } from './records.ts'

const byOrder = (a: EventReport, b: EventReport): number => a.receivedTs - b.receivedTs || a.id - b.id

/** Index of the first element not ordered before `r` (lower bound). */
function lowerBound(list: EventReport[], r: EventReport): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (byOrder(list[mid]!, r) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

function insertOrdered(list: EventReport[], r: EventReport): void {
  // New reports are stamped "now", so they nearly always go at the end.
  const last = list[list.length - 1]
  if (last === undefined || byOrder(last, r) < 0) list.push(r)
  else list.splice(lowerBound(list, r), 0, r)
}

function removeOrdered(list: EventReport[], r: EventReport): void {
  const i = lowerBound(list, r)
  if (list[i] === r) list.splice(i, 1)
}

/** A candidate set: the union of disjoint ordered arrays, with a membership test for the same set. */
interface Candidates {
  arrays: EventReport[][]
  size: number
  test: (r: EventReport) => boolean
}

/** Above this many arrays a k-way merge costs more than filtering the main array. */
const MAX_MERGE = 16

class KeyIndex {
  readonly lists = new Map<string, EventReport[]>()
  private memo = new Map<string, string[]>()
  private memoKeys = 0

  add(key: string, r: EventReport): void {
    let list = this.lists.get(key)
    if (!list) this.lists.set(key, (list = []))
    insertOrdered(list, r)
  }

  remove(key: string, r: EventReport): void {
    const list = this.lists.get(key)
    if (list) removeOrdered(list, r)
  }

  /** Keys containing `value` (substring) or equal to it (exact). Memoised until a key is added. */
  match(value: string, mode: SubstringMode): string[] {
    if (mode === 'exact') return this.lists.has(value) ? [value] : []
    if (this.memoKeys !== this.lists.size || this.memo.size > 4096) {
      this.memo.clear()
      this.memoKeys = this.lists.size
    }
    let keys = this.memo.get(value)
    if (!keys) {
      keys = []
      const matches = likeContains(value)
      for (const k of this.lists.keys()) if (matches(k)) keys.push(k)
      this.memo.set(value, keys)
    }
    return keys
  }

  candidates(value: string, mode: SubstringMode, keyOf: (r: EventReport) => string | null): Candidates {
    const keys = this.match(value, mode)
    const arrays: EventReport[][] = []
    let size = 0
    for (const k of keys) {
      const list = this.lists.get(k)!
      if (list.length) {
        arrays.push(list)
        size += list.length
      }
    }
    const set = new Set(keys)
    return {
      arrays,
      size,
      test:
        keys.length === 1
          ? (r) => keyOf(r) === keys[0]
          : (r) => {
              const k = keyOf(r)
              return k !== null && set.has(k)
            },
    }
  }
}

export class ReportIndex {
  /** every listable report, in (received_ts, id) order */
  private readonly all: EventReport[] = []
  private readonly byId = new Map<number, EventReport>()
  private readonly byRoom = new KeyIndex()
  private readonly byReporter = new KeyIndex()
  private readonly bySender = new KeyIndex()
  /** reports whose room the server has no stats for */
  private readonly unlisted = new Map<number, EventReport>()

  add(r: EventReport, listable: boolean): void {
    if (!listable) {
      this.unlisted.set(r.id, r)
      return
    }
    this.byId.set(r.id, r)
    insertOrdered(this.all, r)
    this.byRoom.add(r.roomId, r)
    this.byReporter.add(r.userId, r)
    if (r.sender !== null) this.bySender.add(r.sender, r)
  }

  /** Moves a room's reports out of the listing (its stats row is gone). */
  unlistRoom(roomId: string): void {
    for (const r of [...(this.byRoom.lists.get(roomId) ?? [])]) {
      this.unindex(r)
      this.unlisted.set(r.id, r)
    }
  }

  private unindex(r: EventReport): void {
    this.byId.delete(r.id)
    removeOrdered(this.all, r)
    this.byRoom.remove(r.roomId, r)
    this.byReporter.remove(r.userId, r)
    if (r.sender !== null) this.bySender.remove(r.sender, r)
  }

  /** a listable report */
  get(id: number): EventReport | undefined {
    return this.byId.get(id)
  }

  /** whether a row exists, listable or not */
  has(id: number): boolean {
    return this.byId.has(id) || this.unlisted.has(id)
  }

  delete(id: number): boolean {
    if (this.unlisted.delete(id)) return true
    const r = this.byId.get(id)
    if (!r) return false
    this.unindex(r)
    return true
  }

  get size(): number {
    return this.all.length
  }

  list(q: ReportQuery): ReportPage {
    const sets: Candidates[] = []
    if (q.userId) sets.push(this.byReporter.candidates(q.userId, q.userMode ?? 'substring', (r) => r.userId))
    if (q.roomId) sets.push(this.byRoom.candidates(q.roomId, q.roomMode ?? 'substring', (r) => r.roomId))
    if (q.eventSenderUserId) sets.push(this.bySender.candidates(q.eventSenderUserId, 'exact', (r) => r.sender))

    if (sets.length === 0) return { reports: page([this.all], q), total: this.all.length, scanned: 0 }
    let smallest = sets[0]!
    for (const s of sets) if (s.size < smallest.size) smallest = s
    if (sets.length === 1) {
      if (smallest.arrays.length <= MAX_MERGE) return { reports: page(smallest.arrays, q), total: smallest.size, scanned: 0 }
      // Too many keys to merge: filter the main array for the page, but `total` still needs no scan.
      const { reports, scanned } = filtered([this.all], q, smallest.test, true)
      return { reports, total: smallest.size, scanned }
    }
    const others = sets.filter((s) => s !== smallest)
    const test = (r: EventReport) => others.every((s) => s.test(r))
    const source = smallest.arrays.length <= MAX_MERGE ? smallest.arrays : [this.all]
    const pred = source === smallest.arrays ? test : (r: EventReport) => smallest.test(r) && test(r)
    const { reports, total, scanned } = filtered(source, q, pred, false)
    return { reports, total, scanned }
  }
}

/** The page [from, from+limit) of the ordered union of `arrays`, in the query's direction. */
function page(arrays: EventReport[][], q: ReportQuery): EventReport[] {
  const out: EventReport[] = []
  if (q.limit <= 0) return out
  if (arrays.length === 1) {
    const list = arrays[0]!
    const n = list.length
    if (q.from >= n) return out
    const count = Math.min(q.limit, n - q.from)
    if (q.dir === 'f') for (let i = q.from; i < q.from + count; i++) out.push(list[i]!)
    else for (let i = n - 1 - q.from; i > n - 1 - q.from - count; i--) out.push(list[i]!)
    return out
  }
  let index = 0
  walk(arrays, q.dir, (r) => {
    if (index++ >= q.from) out.push(r)
    return out.length < q.limit
  })
  return out
}

/** Walks `arrays` in order testing `pred`; collects the page and counts matches (all of them unless `stopAtPage`). */
function filtered(
  arrays: EventReport[][],
  q: ReportQuery,
  pred: (r: EventReport) => boolean,
  stopAtPage: boolean,
): { reports: EventReport[]; total: number; scanned: number } {
  const out: EventReport[] = []
  let total = 0
  let scanned = 0
  const end = q.from + Math.max(q.limit, 0)
  walk(arrays, q.dir, (r) => {
    scanned++
    if (!pred(r)) return true
    if (total >= q.from && total < end) out.push(r)
    total++
    return !(stopAtPage && total >= end)
  })
  return { reports: out, total, scanned }
}

/** Visits the ordered union of disjoint ordered arrays (k-way merge) until `visit` returns false. */
function walk(arrays: EventReport[][], dir: 'b' | 'f', visit: (r: EventReport) => boolean): void {
  if (arrays.length === 1) {
    const list = arrays[0]!
    if (dir === 'f') {
      for (let i = 0; i < list.length; i++) if (!visit(list[i]!)) return
    } else {
      for (let i = list.length - 1; i >= 0; i--) if (!visit(list[i]!)) return
    }
    return
  }
  const pos = arrays.map((a) => (dir === 'f' ? 0 : a.length - 1))
  for (;;) {
    let best = -1
    let bestR: EventReport | undefined
    for (let k = 0; k < arrays.length; k++) {
      const r = arrays[k]![pos[k]!]
      if (r === undefined) continue
      if (bestR === undefined || (dir === 'f' ? byOrder(r, bestR) < 0 : byOrder(r, bestR) > 0)) {
        best = k
        bestR = r
      }
    }
    if (bestR === undefined) return
    pos[best] = pos[best]! + (dir === 'f' ? 1 : -1)
    if (!visit(bestR)) return
  }
}

/**
 * `text LIKE '%' || value || '%'` as PostgreSQL evaluates it: `%` any run of characters, `_` any one,
 * `\` takes the next character literally; case-sensitive. The real server does not escape the value.
 */
export function likeContains(value: string): (text: string) => boolean {
  if (!/[%_\\]/.test(value)) return (text) => text.includes(value)
  let re = ''
  let end = '' // a value ending in one `\` escapes the closing `%`: the text must end with a literal `%`
  const chars = [...value]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === '\\') {
      if (i + 1 < chars.length) re += escapeRe(chars[++i]!)
      else end = '%$'
    } else if (c === '%') re += '[\\s\\S]*'
    else if (c === '_') re += '[\\s\\S]'
    else re += escapeRe(c)
  }
  const compiled = new RegExp(re + end, 'u')
  return (text) => compiled.test(text)
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
