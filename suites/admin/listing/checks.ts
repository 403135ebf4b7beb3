// The pagination, link, count and lookup checks every admin listing shares, by group. Check names are
// what the fault matrix (docs/faults.md) lists: they stay as they are.
import {
  mas,
  skip,
  note,
  shown,
  expectOk,
  expectStatus,
  expectMasError,
  requireMasFeature,
  paramsOf,
  pathOf,
  MAS_API,
  UNKNOWN_ULID,
} from '../../lib/suite.ts'
import {
  familyCheck,
  fullSet,
  allItems,
  walk,
  windowSize,
  walkByNextLinks,
  fetchPage,
  orderProblem,
  assertPages,
  sameIds,
  upTo,
  stable,
  type FamilySpec,
  type MasItem,
  type PageBody,
} from './walk.ts'

/** The pagination, link, count and lookup checks every admin listing shares. */
export function listingChecks(spec: FamilySpec): void {
  shapeChecks(spec)
  walkChecks(spec)
  boundaryChecks(spec)
  paginationErrorChecks(spec)
  itemChecks(spec)
}

/** The default page and the canonical form of links.self. */
function shapeChecks(spec: FamilySpec): void {
  const f = spec.family
  const base = `${MAS_API}/${f}`

  familyCheck(spec, `GET the listing → 200 with a page matching the schema`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}`)
    const body = expectOk<PageBody>(t, res, `GET ${base}`, { schema: `${spec.schema}#Page` })
    if (!body) return
    t.ok(Array.isArray(body.data), 'data is an array', { found: shown(body.data) })
    t.ok(typeof body.meta?.count === 'number', 'meta.count is present by default (count defaults to true)', { found: shown(body.meta) })
    t.ok(
      (body.data ?? []).every((i) => i.type === spec.type),
      `every item has type ${spec.type}`,
      { found: [...new Set((body.data ?? []).map((i) => i.type))] },
    )
    t.ok((body.data?.length ?? 0) <= 10, 'the default page holds at most 10 items', { found: body.data?.length })
  })

  familyCheck(spec, `links.self of the response is the requested listing, in canonical order`, ['mas'], async (t) => {
    // The service rebuilds link queries in a fixed order: filters, count, page[before], page[after],
    // then page[first] or page[last] (page[first]=10 when no size was asked for).
    const items = await allItems(spec, { allowEmpty: true })
    const cursor = items[0]?.id ?? UNKNOWN_ULID
    const cases: [string, string][] = [
      ['', 'page[first]=10'],
      ['page[first]=3', 'page[first]=3'],
      ['page[last]=2', 'page[last]=2'],
      [`page[first]=3&page[after]=${cursor}`, `page[after]=${cursor}&page[first]=3`],
      [`page[last]=2&page[before]=${cursor}`, `page[before]=${cursor}&page[last]=2`],
    ]
    for (const [q, want] of cases) {
      const res = await mas('GET', `/${f}${q ? '?' + q : ''}`)
      const body = expectOk<PageBody>(t, res, `GET ${base}${q ? '?' + q : ''}`)
      const self = body?.links?.self
      if (!t.ok(typeof self === 'string', `GET ${base}?${q}: links.self is present`, { found: shown(body?.links) })) continue
      t.equal(self, `${base}?${want}`, `GET ${base}?${q}: links.self is ${base}?${want}`)
    }
  })
}

/** Forward, backward and next-link walks, and meta.count against the walk. */
function walkChecks(spec: FamilySpec): void {
  const f = spec.family
  const base = `${MAS_API}/${f}`

  familyCheck(spec, `forward walk with page[first] and page[after] reaches every item once, oldest first`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    note(
      t,
      `${full.count} items by count=only, walked in pages of ${full.pageSize}${full.complete ? '' : ` (the first ${full.walk.items.length}: a window)`}`,
    )
    assertPages(t, full.walk, 'forward walk')
    const problem = orderProblem(full.walk.items)
    t.notOk(problem, 'items are oldest first (ascending ids) with no duplicates', { problem })
    if (full.complete) t.equal(full.walk.items.length, full.count, 'the walk reaches as many items as count=only reports')
    else
      t.ok(
        full.walk.items.length >= windowSize() && full.walk.items.length <= full.count,
        `the window holds ${windowSize()} or more of the ${full.count} items count=only reports`,
        { walked: full.walk.items.length },
      )
  })

  familyCheck(spec, `meta.count equals the number of items walked`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    if (full.walk.stopped) skip(`the forward walk failed: ${full.walk.stopped}`)
    const counts = full.walk.pages.map((p) => p.body?.meta?.count)
    // A window: the count is compared with count=only instead of the number walked.
    const want = full.complete ? full.walk.items.length : full.count
    t.ok(
      counts.every((c) => c === want),
      `meta.count is ${want} on every page`,
      { found: counts },
    )
  })

  familyCheck(spec, `backward walk with page[last] and page[before] yields the forward walk's items`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    const fwd = await allItems(spec, { allowEmpty: true })
    const back = await walk(spec, { direction: 'backward', pageSize: full.pageSize, maxItems: full.complete ? undefined : windowSize() })
    assertPages(t, back, 'backward walk')
    const problem = orderProblem(back.items)
    t.notOk(problem, 'the backward pages put together are oldest first with no duplicates', { problem })
    if (full.complete) {
      sameIds(t, upTo(back.items, fwd.at(-1)?.id), fwd, 'the backward walk yields the same items in the same order')
      return
    }
    // A window of the newest items: a forward walk after its first item yields the rest of it.
    const first = back.items[0]
    if (!first) return
    const forward = await walk(spec, { direction: 'forward', pageSize: full.pageSize, start: first.id, until: back.items.at(-1)!.id })
    assertPages(t, forward, 'forward walk of the newest window')
    sameIds(t, forward.items, back.items.slice(1), 'the backward walk of the newest items equals the forward walk after its first item')
  })

  familyCheck(spec, `next links followed as given reach every item once`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    const fwd = await allItems(spec, { allowEmpty: true })
    const w = await walkByNextLinks(spec, { pageSize: full.pageSize, until: full.end })
    assertPages(t, w, 'next-link walk')
    sameIds(t, upTo(w.items, fwd.at(-1)?.id), fwd, "following next reaches the forward walk's items in order")
    let bad = 0
    w.pages.forEach((p, i) => {
      const next = p.body?.links?.next
      const data = p.body?.data ?? []
      if (next === undefined) return
      const last = data.at(-1)?.id
      const params = paramsOf(next)
      if (pathOf(next) !== base || !params.includes(`page[after]=${last}`) || !params.includes(`page[first]=${full.pageSize}`)) {
        // (the first few pages in detail: a hostile walk has hundreds)
        if (++bad <= 10)
          t.fail(`page ${i + 1}: next carries page[after]=<last item id> and page[first]=${full.pageSize}`, { next, lastItem: last })
      }
      const following = w.pages[i + 1]
      if (following && (following.body?.data?.length ?? 0) === 0) {
        if (++bad <= 10) t.fail(`page ${i + 1}: next leads to an empty page (next must appear only when more items follow)`, { next })
      }
    })
    if (bad > 10) t.fail(`${bad - 10} more problem(s) of next links (the first 10 above)`)
    if (bad === 0) t.pass('every next link names the last item as page[after] with the page size, and leads to more items')
    const prev = w.pages.filter((p) => p.body?.links?.prev !== undefined).map((p) => p.body!.links!.prev)
    t.same(prev, [], 'forward pages carry no prev link (the service emits prev only when paging backward)')
  })
}

/** links.first and links.last, count=false and count=only. */
function boundaryChecks(spec: FamilySpec): void {
  const f = spec.family

  familyCheck(spec, `first and last links reach the first and last pages`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    const fwd = await allItems(spec)
    const n = full.pageSize
    const res = await mas('GET', `/${f}`, { query: { 'page[after]': fwd[Math.min(fwd.length - 1, n)]!.id, 'page[first]': n } })
    const body = expectOk<PageBody>(t, res, 'a page in the middle')
    if (!body) return
    const { first, last } = body.links ?? {}
    if (t.ok(typeof first === 'string', 'links.first is present', { links: body.links })) {
      t.same(paramsOf(first!), [`page[first]=${n}`], 'links.first is page[first]=<size> without a cursor', { first })
      const r = await fetchPage(spec, first!)
      if (expectStatus(t, r.res, 200, 'following links.first'))
        sameIds(t, r.body?.data ?? [], fwd.slice(0, n), 'links.first leads to the first items')
    }
    if (t.ok(typeof last === 'string', 'links.last is present', { links: body.links })) {
      t.same(paramsOf(last!), [`page[last]=${n}`], 'links.last is page[last]=<size> without a cursor', { last })
      const r = await fetchPage(spec, last!)
      if (!expectStatus(t, r.res, 200, 'following links.last')) return
      if (full.complete)
        sameIds(t, upTo(r.body?.data ?? [], fwd.at(-1)?.id), fwd.slice(-n), 'links.last leads to the last items, oldest first')
      else {
        // A window: the last page is compared with a backward walk's last page built by the walker.
        const tail = await walk(spec, { direction: 'backward', pageSize: n, maxItems: n })
        sameIds(t, r.body?.data ?? [], tail.items, 'links.last leads to the last items, oldest first')
      }
    }
  })

  familyCheck(spec, `count=false leaves meta out and keeps data and links`, ['mas'], async (t) => {
    await requireMasFeature(t, 'count-param')
    const full = await fullSet(spec)
    const fwd = await allItems(spec, { allowEmpty: true })
    const n = full.pageSize
    const res = await mas('GET', `/${f}`, { query: { count: 'false', 'page[first]': n } })
    const body = expectOk<PageBody>(t, res, 'count=false', { schema: `${spec.schema}#Page` })
    if (!body) return
    t.notOk('meta' in body, 'no meta key', { meta: shown(body.meta) })
    sameIds(t, body.data ?? [], fwd.slice(0, n), 'data holds the first page')
    t.ok(
      body.links && ['self', 'first', 'last'].every((k) => typeof body.links![k] === 'string'),
      'links self, first and last are present',
      { links: body.links },
    )
    t.ok(paramsOf(body.links?.self ?? '').includes('count=false'), 'links.self keeps count=false', { self: body.links?.self })
  })

  familyCheck(spec, `count=only returns meta.count and links.self only`, ['mas'], async (t) => {
    await requireMasFeature(t, 'count-param')
    const fwd = await allItems(spec, { allowEmpty: true })
    const res = await mas('GET', `/${f}`, { query: { count: 'only' } })
    const body = expectOk<PageBody>(t, res, 'count=only', { schema: `${spec.schema}#Page` })
    if (!body) return
    t.notOk('data' in body, 'no data key', { data: shown(body.data) })
    const full = await fullSet(spec)
    if (full.complete) t.equal(body.meta?.count, fwd.length, 'meta.count is the number of items walked')
    else
      t.ok(
        typeof body.meta?.count === 'number' && body.meta.count >= fwd.length,
        `meta.count is at least the ${fwd.length} items of the window`,
        { count: body.meta?.count },
      )
    t.same(Object.keys(body.links ?? {}), ['self'], 'links has only self', { links: body.links })
    t.same(paramsOf(body.links?.self ?? ''), ['count=only'], 'links.self is the listing with count=only', { self: body.links?.self })
  })
}

/** Invalid pagination parameters → 400. */
function paginationErrorChecks(spec: FamilySpec): void {
  const f = spec.family

  familyCheck(spec, `page[first] and page[last] together → 400`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}`, { query: { 'page[first]': 2, 'page[last]': 2 } })
    expectMasError(t, res, 400, 'page[first]=2&page[last]=2', ['page[first]', 'page[last]'])
  })

  familyCheck(spec, `page[first]=0 and page[last]=0 → 400`, ['mas'], async (t) => {
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[first]': 0 } }), 400, 'page[first]=0', ['pagination'])
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[last]': 0 } }), 400, 'page[last]=0', ['pagination'])
  })

  familyCheck(spec, `a malformed cursor in page[after] or page[before] → 400`, ['mas'], async (t) => {
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[after]': 'not-a-cursor' } }), 400, 'page[after]=not-a-cursor', [
      'pagination',
    ])
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[before]': 'ZZZ' } }), 400, 'page[before]=ZZZ', ['pagination'])
  })

  familyCheck(spec, `an unknown count value → 400`, ['mas'], async (t) => {
    await requireMasFeature(t, 'count-param')
    expectMasError(t, await mas('GET', `/${f}`, { query: { count: 'maybe' } }), 400, 'count=maybe', ['pagination'])
  })
}

/** Each item: its cursor, its links and type, and GET by id (known, unknown, malformed). */
function itemChecks(spec: FamilySpec): void {
  const f = spec.family
  const base = `${MAS_API}/${f}`

  familyCheck(spec, `every item's meta.page.cursor equals its id`, ['mas'], async (t) => {
    await requireMasFeature(t, 'item-cursor')
    const fwd = await allItems(spec)
    const bad = fwd.filter((i) => i.meta?.page?.cursor !== i.id)
    t.equal(bad.length, 0, `meta.page.cursor equals the id on all ${fwd.length} items`, {
      firstBad: bad.slice(0, 3).map((i) => ({ id: i.id, meta: i.meta })),
    })
  })

  familyCheck(spec, `links.self of every item is its resource path`, ['mas'], async (t) => {
    const fwd = await allItems(spec)
    const bad = fwd.filter((i) => i.links?.self !== `${base}/${i.id}`)
    t.equal(bad.length, 0, `links.self is ${base}/<id> on all ${fwd.length} items`, {
      firstBad: bad.slice(0, 3).map((i) => ({ id: i.id, links: i.links })),
    })
    const wrongType = fwd.filter((i) => i.type !== spec.type)
    t.equal(wrongType.length, 0, `type is ${spec.type} on all items`, {
      firstBad: wrongType.slice(0, 3).map((i) => ({ id: i.id, type: i.type })),
    })
  })

  familyCheck(spec, `GET by id returns the listed item`, ['mas'], async (t) => {
    const fwd = await allItems(spec)
    const picks = [...new Set([0, Math.floor(fwd.length / 2), fwd.length - 1])].map((i) => fwd[i]!)
    for (const item of picks) {
      const res = await mas('GET', `/${f}/${item.id}`)
      const body = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `GET ${base}/${item.id}`, {
        schema: `${spec.schema}#Single`,
      })
      if (!body) continue
      t.equal(body.links?.self, `${base}/${item.id}`, `links.self is the requested path`)
      t.notOk(body.data && 'meta' in body.data, 'a single resource carries no meta')
      t.same(stable(body.data), stable(item), 'the single resource equals the listed item (activity fields aside)')
    }
  })

  familyCheck(spec, `GET an unknown id → 404 naming the resource`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}/${UNKNOWN_ULID}`)
    expectMasError(t, res, 404, `GET ${base}/${UNKNOWN_ULID}`, spec.notFoundTitle(UNKNOWN_ULID))
  })

  familyCheck(spec, `GET a malformed id → 400`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}/not-a-ulid`)
    expectMasError(t, res, 400, `GET ${base}/not-a-ulid`, ['ULID'])
  })
}
