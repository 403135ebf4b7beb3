// The admin API's listings (area A): the shapes of a page, walks with cursors built by the walker or
// by following links, the family's full set (shared by the checks of a file), and the assertions on
// walks. Area knowledge of the auth service's admin API; the framework (suites/lib) stays generic.
import {
  check,
  mas,
  memo,
  skip,
  expectStatus,
  schemaFailed,
  requireMasFeature,
  MAS_API,
  walkBounds,
  pastBound,
  PAGES_DETAILED,
  type Need,
  type Test,
} from '../../lib/suite.ts'
import type { HttpResponse } from '../../../lib/http.ts'
import { validate } from '../../../lib/schemas.ts'
import type { MasFeature } from '../../../lib/versions.ts'

export interface MasItem {
  type: string
  id: string
  attributes: Record<string, any>
  links: { self: string }
  meta?: { page?: { cursor?: string } }
}

export interface PageBody {
  meta?: { count?: number }
  data?: MasItem[]
  links?: Record<string, string>
}

export interface PageRecord {
  /** the path and query requested */
  request: string
  res: HttpResponse
  body?: PageBody
  /** the page schema ref and its result */
  ref: string
  schema: ReturnType<typeof validate>
}

export interface Walk {
  items: MasItem[]
  pages: PageRecord[]
  /** set when the walk could not go on (bad status, no data, too many pages) */
  stopped?: string
  /** set when the walk stopped at its window (maxItems) while more items follow */
  truncated?: boolean
}

/** every paginated listing of the admin API the suites walk */
export type ListedFamily =
  | 'compat-sessions'
  | 'oauth2-sessions'
  | 'personal-sessions'
  | 'oauth2-clients'
  | 'users'
  | 'user-emails'
  | 'user-sessions'
  | 'user-registration-tokens'
  | 'upstream-oauth-links'
  | 'upstream-oauth-providers'

export interface FamilySpec {
  /** collection path segment, also the check-name prefix */
  family: ListedFamily
  /** resource type of the items */
  type: string
  /** schema file, e.g. admin/compat-session (refs #Page, #Single, #Item) */
  schema: string
  /** what the title of GET /<family>/<unknown id> must name (the kind, and the id where the service puts it) */
  notFoundTitle: (id: string) => (string | RegExp)[]
  /** the version feature that brought the family (checks skip on older targets) */
  feature?: MasFeature
}

/** A named check of a family: `<family>: <name>`, skipped when the target's version predates the family. */
export function familyCheck(spec: FamilySpec, name: string, needs: readonly Need[], fn: (t: Test) => Promise<void> | void): void {
  check(`${spec.family}: ${name}`, needs, async (t) => {
    if (spec.feature) await requireMasFeature(t, spec.feature)
    await fn(t)
  })
}

export type Filters = Record<string, string | readonly string[]>

export function filterPairs(filters: Filters | undefined): [string, string][] {
  const out: [string, string][] = []
  for (const [k, v] of Object.entries(filters ?? {})) {
    if (typeof v === 'string') out.push([k, v])
    else for (const x of v) out.push([k, x])
  }
  return out
}

/** GET one page of a listing (`pathAndQuery` may be a link followed as given). */
export async function fetchPage(spec: FamilySpec, pathAndQuery: string): Promise<PageRecord> {
  const res = await mas('GET', pathAndQuery)
  const body = res.status === 200 && res.json && typeof res.json === 'object' ? (res.json as PageBody) : undefined
  const ref = `${spec.schema}#Page`
  return { request: pathAndQuery, res, body, ref, schema: validate(ref, res.json) }
}

/**
 * What a walk keeps of a page once read: its counts and links, the items it kept (`data`) and its
 * schema result; not its JSON (a hostile page of 72,000 items is tens of MiB of objects).
 */
function slim(page: PageRecord, data: MasItem[] | undefined): PageRecord {
  const body = page.body ? { meta: page.body.meta, links: page.body.links, ...(data ? { data } : {}) } : undefined
  return { ...page, res: { ...page.res, json: undefined }, body }
}

/** Items of a page that look like items (an object with a string id). */
function itemsOf(page: PageRecord): MasItem[] | undefined {
  const data = page.body?.data
  if (!Array.isArray(data)) return undefined
  return data.filter((x): x is MasItem => typeof x === 'object' && x !== null && typeof (x as MasItem).id === 'string')
}

export function listPath(spec: FamilySpec, pairs: [string, string][]): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%5B/gi, '[').replace(/%5D/gi, ']')
  const q = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')
  return `${MAS_API}/${spec.family}${q ? '?' + q : ''}`
}

/**
 * Walk a listing with cursors built by the walker (not the server's links): forward with page[first] and
 * page[after], or backward with page[last] and page[before]. The result is oldest first either way.
 */
export interface WalkOptions {
  direction: 'forward' | 'backward'
  pageSize: number
  filters?: Filters
  /** forward only: stop at the first item after this id (the end of a window); later items are left out */
  until?: string
  /** stop once this many items are collected (a window: `truncated` is set when more would follow) */
  maxItems?: number
  /** the cursor to start from (page[after] forward, page[before] backward) */
  start?: string
}

export async function walk(spec: FamilySpec, opts: WalkOptions): Promise<Walk> {
  const out: Walk = { items: [], pages: [] }
  const base = filterPairs(opts.filters)
  const chunks: MasItem[][] = []
  const bounds = walkBounds()
  let cursor: string | undefined = opts.start
  let collected = 0
  let bytes = 0
  for (let i = 0; ; i++) {
    const past = i > 0 ? pastBound(bounds, i, collected, bytes) : undefined
    if (past) {
      out.stopped = past
      break
    }
    const pairs: [string, string][] = [...base]
    if (opts.direction === 'forward') {
      if (cursor) pairs.push(['page[after]', cursor])
      pairs.push(['page[first]', String(opts.pageSize)])
    } else {
      if (cursor) pairs.push(['page[before]', cursor])
      pairs.push(['page[last]', String(opts.pageSize)])
    }
    const page = await fetchPage(spec, listPath(spec, pairs))
    bytes += page.res.bytes
    const all = itemsOf(page)
    const until = opts.direction === 'forward' ? opts.until : undefined
    const valid = (all ?? []).slice(0, bounds.items + 1 - collected)
    const kept = until === undefined ? valid : valid.filter((x) => x.id <= until)
    out.pages.push(slim(page, all && kept))
    if (page.res.status !== 200) {
      out.stopped = `${page.request} answered ${page.res.status}`
      break
    }
    if (!all) {
      out.stopped = `${page.request} has no data array`
      break
    }
    chunks.push(kept)
    collected += kept.length
    if (kept.length < valid.length) break
    if (all.length > valid.length) {
      // more items than a walk reads: a window ends here, anything else is a listing that does not end
      if (opts.maxItems !== undefined && collected >= opts.maxItems) out.truncated = true
      else out.stopped = pastBound(bounds, 0, bounds.items + 1, 0)
      break
    }
    if (valid.length < opts.pageSize || valid.length === 0) break
    if (opts.maxItems !== undefined && collected >= opts.maxItems) {
      out.truncated = true
      break
    }
    const next = opts.direction === 'forward' ? valid[valid.length - 1]!.id : valid[0]!.id
    if (next === cursor) {
      out.stopped = `${page.request} returned the cursor item again; the walk does not advance`
      break
    }
    cursor = next
  }
  if (opts.direction === 'backward') chunks.reverse()
  out.items = chunks.flat()
  return out
}

/** Follow `links.next` exactly as given, from the first page of `page[first]=pageSize`. */
export async function walkByNextLinks(spec: FamilySpec, opts: { pageSize: number; filters?: Filters; until?: string }): Promise<Walk> {
  const out: Walk = { items: [], pages: [] }
  const bounds = walkBounds()
  let path: string | undefined = listPath(spec, [...filterPairs(opts.filters), ['page[first]', String(opts.pageSize)]])
  const seen = new Set<string>()
  let bytes = 0
  while (path) {
    const past = out.pages.length > 0 ? pastBound(bounds, out.pages.length, out.items.length, bytes) : undefined
    if (past || seen.has(path)) {
      out.stopped = past ?? `the next link ${path} was already visited`
      break
    }
    seen.add(path)
    const page = await fetchPage(spec, path)
    bytes += page.res.bytes
    const all = itemsOf(page)
    const until = opts.until
    const data = (all ?? []).slice(0, bounds.items + 1 - out.items.length)
    const kept = until === undefined ? data : data.filter((x) => x.id <= until)
    const next = page.body?.links?.next
    out.pages.push(slim(page, all && data))
    if (page.res.status !== 200 || !all) {
      out.stopped = `${path} answered ${page.res.status}${page.res.status === 200 ? ' without a data array' : ''}`
      break
    }
    out.items.push(...kept)
    if (until !== undefined && data.some((x) => x.id > until)) break
    path = typeof next === 'string' ? next : undefined
  }
  return out
}

/** Ids of a walk, with the first problem of ordering (not strictly ascending, duplicates). */
export function orderProblem(items: MasItem[]): string | undefined {
  const seen = new Set<string>()
  for (let i = 0; i < items.length; i++) {
    const id = items[i]!.id
    if (seen.has(id)) return `item ${id} appears twice (position ${i})`
    seen.add(id)
    if (i > 0 && !(items[i - 1]!.id < id))
      return `item ${id} at position ${i} is not after ${items[i - 1]!.id} (listings are oldest first, by id)`
  }
  return undefined
}

/** Page size for a full walk of `count` items: several pages, a bounded number of requests. */
export function pageSizeFor(count: number): number {
  if (count <= 3) return 1
  return Math.min(100, Math.max(2, Math.ceil(count / 6)))
}

import { windowSize } from '../../lib/values.ts'
export { windowSize }

export interface FullSet {
  /** meta.count of count=only */
  count: number
  pageSize: number
  /** the forward walk of the window (the whole listing when `complete`) */
  walk: Walk
  /** true when the window holds the whole listing */
  complete: boolean
  /** the last id of the window when it is not the whole listing: filtered walks stop there */
  end?: string
}

/** The family's full set (or its first window): `count=only` for the size, then a forward walk. Shared by the checks of a file. */
export function fullSet(spec: FamilySpec): Promise<FullSet> {
  return memo(`full:${spec.family}`, async () => {
    const res = await mas('GET', `/${spec.family}`, { query: { count: 'only' } })
    const c = (res.json as PageBody | undefined)?.meta?.count
    // If count=only is broken, fall back to a walk of pages of 10 (the default size).
    const count = res.status === 200 && typeof c === 'number' && c >= 0 ? c : 60
    const pageSize = pageSizeFor(Math.min(count, windowSize()))
    const w = await walk(spec, { direction: 'forward', pageSize, maxItems: windowSize() })
    const complete = !w.truncated
    return { count, pageSize, walk: w, complete, end: complete ? undefined : w.items.at(-1)?.id }
  })
}

/** meta.count of `count=only` with the given filters (the count a window cannot give). */
export async function countOnly(spec: FamilySpec, filters: Filters): Promise<number | undefined> {
  const res = await mas('GET', listPath(spec, [...filterPairs(filters), ['count', 'only']]))
  const c = (res.json as PageBody | undefined)?.meta?.count
  return res.status === 200 && typeof c === 'number' ? c : undefined
}

/** The full set's items; skips the check when the walk failed (another check reports that) or it is empty. */
export async function allItems(spec: FamilySpec, opts: { allowEmpty?: boolean } = {}): Promise<MasItem[]> {
  const f = await fullSet(spec)
  if (f.walk.stopped) skip(`the full forward walk of ${spec.family} failed (${f.walk.stopped}); see the walk check`)
  if (!opts.allowEmpty && f.walk.items.length === 0) skip(`the target lists no ${spec.family}`)
  return f.walk.items
}

/** Assert every page of a walk: status 200, content type, and the page schema (with exact schema paths). */
export function assertPages(t: Test, w: Walk, what: string): boolean {
  let ok = true
  let invalid = 0
  for (const p of w.pages) {
    if (p.res.status !== 200) {
      ok = expectStatus(t, p.res, 200, `${what}: ${p.request}`) && ok
      continue
    }
    if (!p.schema.valid) {
      ok = false
      // the first pages in detail (from the result the walk kept); the rest counted
      if (invalid++ < PAGES_DETAILED) schemaFailed(t, p.ref, p.schema, `${what}: ${p.request}`)
    }
  }
  if (invalid > PAGES_DETAILED)
    t.fail(`${what}: ${invalid - PAGES_DETAILED} more page(s) do not match the page schema`, { schema: w.pages[0]?.ref })
  if (ok) t.pass(`${what}: ${w.pages.length} page(s), each 200 and matching the page schema`)
  if (w.stopped) {
    t.fail(`${what}: the walk stopped: ${w.stopped}`)
    ok = false
  }
  return ok
}

/** Compare two id sequences; reports the first missing and extra ids. */
export function sameIds(t: Test, found: MasItem[] | string[], wanted: MasItem[] | string[], what: string): boolean {
  const f = found.map((x) => (typeof x === 'string' ? x : x.id))
  const w = wanted.map((x) => (typeof x === 'string' ? x : x.id))
  const same = f.length === w.length && f.every((id, i) => id === w[i])
  if (same) return t.pass(`${what} (${w.length} items)`)
  const fs = new Set(f)
  const ws = new Set(w)
  return t.fail(what, {
    foundCount: f.length,
    wantedCount: w.length,
    missing: w.filter((id) => !fs.has(id)).slice(0, 10),
    extra: f.filter((id) => !ws.has(id)).slice(0, 10),
    orderDiffersAt: same ? undefined : f.findIndex((id, i) => id !== w[i]),
  })
}

/**
 * A filter check: the filtered listing (walked with cursors, counted) equals the full set filtered
 * client-side. `build` picks the filter value from the full set, or returns a skip reason.

/** Items above the last id of the reference walk are new since it (a live target); comparisons leave them out. */
export function upTo(items: MasItem[], cap: string | undefined): MasItem[] {
  return cap === undefined ? items : items.filter((i) => i.id <= cap)
}

/** Attributes that a live target may change between two reads of the same resource. */
const VOLATILE = new Set(['last_active_at', 'last_active_ip'])
export function stable(item: MasItem): unknown {
  const attributes = Object.fromEntries(Object.entries(item.attributes ?? {}).filter(([k]) => !VOLATILE.has(k)))
  return { type: item.type, id: item.id, attributes, links: item.links }
}
