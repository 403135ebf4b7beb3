// Pagination of the admin listings, as the service does it:
// - page[first]/page[last] (non-zero; default forward 10; both → 400), page[before]/page[after]
//   cursors (exclusive id bounds, combinable), count=true|false|only;
// - items always in ascending id order; page[last] takes the last N and keeps that order;
// - `next` only when paging forward with more items, `prev` only backward with more items;
// - links rebuilt in a fixed order: filters (the handler's order), count, page[before],
//   page[after], page[first|last]; values unencoded; page[first]=10 written even when not sent;
// - count=only: no data, links.self only (path + filters + count=only);
// - meta.count counts the filtered items, ignoring cursors.
// Pagination and path-ULID rejections are not logged as events (no record_error! on them).
import { INCLUDE_COUNT_VALUES } from '../../../lib/schemas.ts'
import { masHas } from '../../../lib/versions.ts'
import type { AdminEnvelopeIncludeCount } from '../../../lib/types.gen.ts'
import type { Ctx, Reply } from '../../core/context.ts'
import type { Bound, OrderedCollection, Keyed, Query } from '../../store/ordered.ts'
import { groupPairs, parseStruct, rejectionTitles, type FieldKind } from './query.ts'
import { type ResourceObject } from './resource.ts'
import { rejection } from '../../mas-http/errors.ts'

export const DEFAULT_PAGE_SIZE = 10
/** the first title of a pagination parameter's rejection */
export const INVALID_PAGINATION = 'Invalid pagination parameters'

export interface PageParams {
  before?: string
  after?: string
  direction: 'forward' | 'backward'
  /** page size as a number (capped to the largest safe integer: any usize is accepted) */
  size: number
  /** page size as the service prints it */
  sizeText: string
  include: AdminEnvelopeIncludeCount
}

const FIELDS = {
  'page[before]': { kind: 'ulid' },
  'page[after]': { kind: 'ulid' },
  'page[first]': { kind: 'nonzero' },
  'page[last]': { kind: 'nonzero' },
  count: { kind: 'enum', values: INCLUDE_COUNT_VALUES },
} as const satisfies Record<string, FieldKind>

export function parsePagination(ctx: Ctx): { ok: true; page: PageParams } | { ok: false; reply: Reply } {
  let groups = groupPairs(ctx.query)
  // Before v1.4.0 there is no count parameter: the key is unknown, so ignored, and meta.count is always there.
  if (masHas(ctx.options.masVersion, 'count-param') === false && groups.has('count')) {
    groups = new Map(groups) // the grouping is cached per query: not changed in place
    groups.delete('count')
  }
  if (ctx.faults.has('pagination-zero-page-accepted')) {
    // the bug: a zero page size silently means the default
    groups = new Map(
      [...groups].map(([k, v]) => [k, (k === 'page[first]' || k === 'page[last]') && v.length === 1 && /^0+$/.test(v[0]!) ? [''] : v]),
    )
  }
  const parsed = parseStruct(groups, FIELDS)
  if (!parsed.ok) {
    if (ctx.faults.has('pagination-bad-cursor-500') && parsed.message.startsWith('page[')) {
      return { ok: false, reply: { status: 500, body: { errors: [{ title: 'Internal server error' }] } } }
    }
    return { ok: false, reply: rejection(ctx, 400, ...rejectionTitles(INVALID_PAGINATION, parsed.message)) }
  }
  const v = parsed.values as {
    'page[before]'?: string
    'page[after]'?: string
    'page[first]'?: { digits: string; value: number }
    'page[last]'?: { digits: string; value: number }
    count?: AdminEnvelopeIncludeCount
  }
  const first = v['page[first]']
  const last = v['page[last]']
  if (first && last && !ctx.faults.has('pagination-first-and-last-accepted')) {
    return { ok: false, reply: rejection(ctx, 400, 'Cannot specify both `page[first]` and `page[last]` parameters') }
  }
  const chosen = first ?? last
  const page: PageParams = {
    direction: first || !last ? 'forward' : 'backward',
    size: chosen?.value ?? DEFAULT_PAGE_SIZE,
    sizeText: chosen?.digits ?? String(DEFAULT_PAGE_SIZE),
    include: v.count ?? 'true',
  }
  if (v['page[before]'] !== undefined) page.before = v['page[before]']
  if (v['page[after]'] !== undefined) page.after = v['page[after]']
  return { ok: true, page }
}

function tighterLower(a: Bound | undefined, b: Bound | undefined): Bound | undefined {
  if (!a || !b) return a ?? b
  if (a.id !== b.id) return a.id > b.id ? a : b
  return a.inclusive ? b : a
}

function tighterUpper(a: Bound | undefined, b: Bound | undefined): Bound | undefined {
  if (!a || !b) return a ?? b
  if (a.id !== b.id) return a.id < b.id ? a : b
  return a.inclusive ? b : a
}

export interface ListingSpec<T extends Keyed, I extends string, R extends string> {
  /** `/api/admin/v1/<collection>` */
  path: string
  /** `key=value` pairs of the filters, in the handler's Display order */
  filterPairs: string[]
  page: PageParams
  collection: OrderedCollection<T, I, R>
  /** the filters as a store query (cursors are added here) */
  query: Query<T, I, R>
  toResource(item: T): ResourceObject
  /** toResource depends on the item alone (not on the clock or the caller): whole pages may be kept */
  itemOnly?: boolean
}

function link(
  path: string,
  base: string[],
  before: string | undefined,
  after: string | undefined,
  direction: 'forward' | 'backward',
  size: string,
): string {
  const q = [...base]
  if (before !== undefined) q.push(`page[before]=${before}`)
  if (after !== undefined) q.push(`page[after]=${after}`)
  q.push(direction === 'forward' ? `page[first]=${size}` : `page[last]=${size}`)
  return `${path}?${q.join('&')}`
}

/** meta.count: the filtered items, cursors ignored. */
function countOf<T extends Keyed, I extends string, R extends string>(
  ctx: Ctx,
  collection: OrderedCollection<T, I, R>,
  query: Query<T, I, R>,
): number {
  ctx.log.queries += 1
  ctx.log.fetched += 1
  if (ctx.faults.has('pagination-count-ignores-filters')) return collection.size
  return collection.count(query).count
}

/** a listing's answer as sent, and what its store queries added to the log line */
interface CachedPage {
  /** the body encoded once: sent as is, like a static file, without encoding its text again */
  bytes: Buffer
  queries: number
  fetched: number
}

// Whole pages by collection, for as long as the collection is not written (its generation): clients
// poll the same page again and again. Only for items serialised from themselves alone, without
// faults and per-item tests, keyed by the raw query and the claimed version, from which the rest of
// the answer follows.
const pageCache = new WeakMap<object, { generation: number; pages: Map<string, CachedPage> }>()
const PAGES_PER_COLLECTION = 64
const CACHED_QUERY_MAX = 512
let keepPages = true

/** Turns the kept pages off (or on again): the page-cost benchmark times the whole build of a page. */
export function keepWholePages(on: boolean): void {
  keepPages = on
}

/** Builds the paginated answer of a listing (count, data, links) from a store query. */
export function listResponse<T extends Keyed, I extends string, R extends string>(ctx: Ctx, spec: ListingSpec<T, I, R>): Reply {
  const { collection } = spec
  if (!keepPages || !spec.itemOnly || !ctx.faults.none || spec.query.where !== undefined || ctx.rawQuery.length > CACHED_QUERY_MAX)
    return buildListResponse(ctx, spec)
  let entry = pageCache.get(collection)
  if (entry === undefined || entry.generation !== collection.generation) {
    entry = { generation: collection.generation, pages: new Map() }
    pageCache.set(collection, entry)
  }
  const key = `${ctx.options.masVersion}\n${spec.path}\n${ctx.rawQuery}`
  let page = entry.pages.get(key)
  if (page === undefined) {
    const queries = ctx.log.queries
    const fetched = ctx.log.fetched
    const reply = buildListResponse(ctx, spec)
    if (reply.sized === undefined) return reply
    page = { bytes: Buffer.from(reply.sized.text, 'utf8'), queries: ctx.log.queries - queries, fetched: ctx.log.fetched - fetched }
    if (entry.pages.size >= PAGES_PER_COLLECTION) entry.pages.clear()
    entry.pages.set(key, page)
    return reply
  }
  ctx.log.queries += page.queries
  ctx.log.fetched += page.fetched
  return { status: 200, body: page.bytes, contentType: 'application/json' }
}

function buildListResponse<T extends Keyed, I extends string, R extends string>(ctx: Ctx, spec: ListingSpec<T, I, R>): Reply {
  const { path, page, collection, query } = spec
  const f = ctx.faults
  const base = [...spec.filterPairs]
  if (page.include !== 'true') base.push(`count=${page.include}`)

  if (page.include === 'only' && !f.has('count-only-includes-data')) {
    return { status: 200, body: { meta: { count: countOf(ctx, collection, query) }, links: { self: `${path}?${base.join('&')}` } } }
  }

  // page[after] is exclusive; the off-by-one fault makes it inclusive.
  const after: Bound | undefined = page.after === undefined ? undefined : { id: page.after, inclusive: f.has('pagination-off-by-one') }
  const before: Bound | undefined = page.before === undefined ? undefined : { id: page.before, inclusive: false }
  const paged: Query<T, I, R> = { ...query, after: tighterLower(query.after, after), before: tighterUpper(query.before, before) }
  ctx.log.queries += 1
  const result = collection.page(paged, page.direction, page.size)
  ctx.log.fetched += result.items.length
  let items = result.items
  if (page.direction === 'backward' && f.has('pagination-last-wrong-order')) items = [...items].reverse()

  // The items are serialised one by one (and cached): the answer is assembled as text.
  const cacheable = !f.has('item-cursor-missing') && !f.has('personal-access-token-in-get')
  // One join builds the whole body flat, in one copy (it is measured and sent as is).
  // The body's UTF-8 length is summed from the items' own (kept with their cached JSON), so that
  // the whole page is not scanned again for its content-length.
  const parts: string[] = new Array(items.length * 2 + 2)
  let bytes = items.length > 0 ? items.length - 1 : 0
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    parts[i * 2 + 1] = i === 0 ? '' : ','
    if (cacheable) {
      const slot = itemJson(collection, item, spec.toResource)
      parts[i * 2 + 2] = cacheJson[slot]!
      bytes += cacheBytes[slot]!
    } else {
      const json = JSON.stringify(withCursor(spec.toResource(item), item.id, f.has('item-cursor-missing')))
      parts[i * 2 + 2] = json
      bytes += Buffer.byteLength(json)
    }
  }

  let self = link(path, base, page.before, page.after, page.direction, page.sizeText)
  if (f.has('links-self-wrong-order')) {
    // the bug: the query string rebuilt back to front
    self = `${path}?${self
      .slice(path.length + 1)
      .split('&')
      .reverse()
      .join('&')}`
  }
  const links: Record<string, string> = {
    self,
    first: link(path, base, undefined, undefined, 'forward', page.sizeText),
    last: link(path, base, undefined, undefined, 'backward', page.sizeText),
  }
  const firstItem = result.items[0]
  const lastItem = result.items[result.items.length - 1]
  if (page.direction === 'forward' && result.more && lastItem && !f.has('pagination-drop-next-link')) {
    links.next = link(path, base, undefined, lastItem.id, page.direction, page.sizeText)
  }
  const prevOnForward = f.has('pagination-prev-on-forward') && page.direction === 'forward' && page.after !== undefined
  if (((page.direction === 'backward' && result.more) || prevOnForward) && firstItem) {
    links.prev = link(path, base, firstItem.id, undefined, page.direction, page.sizeText)
  }

  parts[0] = page.include === 'false' ? '{"data":[' : `{"meta":{"count":${countOf(ctx, collection, query)}},"data":[`
  parts[parts.length - 1] = `],"links":${JSON.stringify(links)}}`
  bytes += Buffer.byteLength(parts[0]) + Buffer.byteLength(parts[parts.length - 1]!)
  const text = parts.join('')
  return { status: 200, body: text, contentType: 'application/json', sized: { text, bytes } }
}

function withCursor(r: ResourceObject, id: string, skip: boolean): ResourceObject {
  if (!skip) r.meta = { page: { cursor: id } }
  return r
}

// A direct-mapped cache of listed items' JSON, keyed by the item object and its update count:
// listings serve the same items again and again, and serialising them is most of a page's cost.
const CACHE_SLOTS = 4096
const cacheItems: (object | undefined)[] = new Array(CACHE_SLOTS)
const cacheVersions = new Float64Array(CACHE_SLOTS)
const cacheJson: string[] = new Array(CACHE_SLOTS)
const cacheBytes = new Float64Array(CACHE_SLOTS)

/** the cache slot holding the item's JSON (and its UTF-8 length), filled when it held another */
function itemJson<T extends Keyed, I extends string, R extends string>(
  collection: OrderedCollection<T, I, R>,
  item: T,
  toResource: (item: T) => ResourceObject,
): number {
  const id = item.id
  const n = id.length
  const slot =
    ((id.charCodeAt(n - 1) * 961 + id.charCodeAt(n - 2) * 31 + id.charCodeAt(n - 3)) * 31 + id.charCodeAt(n - 4)) & (CACHE_SLOTS - 1)
  const version = collection.version(item)
  if (cacheItems[slot] === item && cacheVersions[slot] === version) return slot
  const json = JSON.stringify(withCursor(toResource(item), id, false))
  cacheItems[slot] = item
  cacheVersions[slot] = version
  cacheJson[slot] = json
  cacheBytes[slot] = Buffer.byteLength(json)
  return slot
}
