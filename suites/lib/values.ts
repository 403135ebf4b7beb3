// Small value helpers the suites share: the most common value, RFC 3339 timestamps at full precision,
// a cutoff between timestamps, and the query parameters of a link.

/** The most frequent value (ties: first seen); undefined when there is none. */
export function mostCommon<T>(values: Iterable<T | null | undefined>): T | undefined {
  const counts = new Map<T, number>()
  let best: T | undefined
  let bestN = 0
  for (const v of values) {
    if (v === null || v === undefined) continue
    const n = (counts.get(v) ?? 0) + 1
    counts.set(v, n)
    if (n > bestN) {
      best = v
      bestN = n
    }
  }
  return best
}

/** An RFC 3339 UTC timestamp as nanoseconds since the epoch (full precision, unlike Date). */
export function tsNs(s: unknown): bigint | undefined {
  if (typeof s !== 'string') return undefined
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(s)
  if (!m) return undefined
  const ms = Date.parse(`${m[1]}${m[3]}`)
  if (Number.isNaN(ms)) return undefined
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0')
}

/** Whole-second UTC form `YYYY-MM-DDTHH:MM:SSZ` of a nanosecond timestamp (truncated). */
export function isoSeconds(ns: bigint): string {
  const ms = Number(ns / 1_000_000_000n) * 1000
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/**
 * A whole-second cutoff near the median of the given timestamps that no timestamp equals exactly, so
 * strict before/after semantics are not blurred by a tie. Undefined when there are no timestamps.
 */
export function cutoffNear(values: (string | null | undefined)[]): string | undefined {
  const ns = values
    .map(tsNs)
    .filter((v): v is bigint => v !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  if (ns.length === 0) return undefined
  const mid = ns[Math.floor(ns.length / 2)]!
  let c = (mid / 1_000_000_000n) * 1_000_000_000n
  // No item in the cutoff's millisecond: the auth service compares created_at through the id's
  // millisecond (a ULID), other timestamps to the microsecond; a cutoff no item shares a millisecond
  // with means the same under both (at 10,000 sessions one item sat 390 µs after a whole second).
  const ms = new Set(ns.map((v) => v / 1_000_000n))
  while (ms.has(c / 1_000_000n)) c += 1_000_000_000n
  return isoSeconds(c)
}

/** Query parameters of a link or path as sorted `key=value` strings (decoded), for order-free comparison. */
export function paramsOf(link: string): string[] {
  const q = link.indexOf('?')
  if (q === -1) return []
  return [...new URLSearchParams(link.slice(q + 1))].map(([k, v]) => `${k}=${v}`).sort()
}

export function pathOf(link: string): string {
  const q = link.indexOf('?')
  return q === -1 ? link : link.slice(0, q)
}

/**
 * How many items of a listing (admin listings, event reports) the checks read at most (decision 0004: a check's cost does not grow with the
 * target). A smaller listing is read whole; a larger one is read as a window of its oldest items, and
 * the checks compare windows (a filtered window with the same window filtered client-side, a backward
 * walk of the newest items with a forward walk of them) and counts with count=only of the same filters.
 */
export function windowSize(): number {
  const n = Number(process.env.AC_WINDOW)
  return Number.isInteger(n) && n >= 10 ? n : DEFAULT_WINDOW
}

/**
 * What one walk of a listing reads at most, whatever the target answers (a next link new on every page,
 * a total of 10^12, pages of 72,000 items): pages, items and body bytes. A correct target needs far less:
 * a walk reads at most the window (or a filtered part of it), in at most a few hundred pages (page size
 * 1 on a small listing). Past a bound the walk stops and says so; it keeps only what the checks need
 * (the items within the bound, each page's counts and links), not each page's text.
 */
export interface WalkBounds {
  pages: number
  items: number
  bytes: number
}

export function walkBounds(): WalkBounds {
  const w = windowSize()
  return { pages: Math.max(400, 2 * w), items: 4 * w, bytes: 16 * 1024 * 1024 }
}

/** Why a walk stops at a bound (undefined: within them), after `pages` pages, `items` items and `bytes` bytes. */
export function pastBound(b: WalkBounds, pages: number, items: number, bytes: number): string | undefined {
  if (items > b.items)
    return `the walk read more than ${b.items} items (4 × the window, AC_WINDOW): a listing this walk should find within the window does not end`
  if (bytes > b.bytes) return `the walk read more than ${b.bytes / 1024 / 1024} MiB of pages: stopped there`
  if (pages >= b.pages) return `the walk did not end after ${b.pages} pages`
  return undefined
}

/** Detailed failures a walk's page assertions give at most (the rest are counted). */
export const PAGES_DETAILED = 3

/**
 * 300: a walk of the window takes about as many pages as a full walk of a smaller listing (pageSizeFor
 * aims at six pages), and the session families of a deployment with 1,000 sessions are already read as
 * windows, so a run sends about as many requests at 1,000 sessions as at 1,000,000 (bench/sizes.ts).
 */
const DEFAULT_WINDOW = 300
