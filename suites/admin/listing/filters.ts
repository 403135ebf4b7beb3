// Filter checks of the admin listings: a filtered listing against the full set filtered client-side,
// date filters, unknown and invalid filter values, and the links of a filtered listing.
import {
  mas,
  skip,
  note,
  shown,
  expectOk,
  expectMasError,
  requireMasFeature,
  tsNs,
  cutoffNear,
  paramsOf,
  UNKNOWN_ULID,
  type Need,
} from '../../lib/suite.ts'
import type { MasFeature } from '../../../lib/versions.ts'
import {
  familyCheck,
  allItems,
  fullSet,
  countOnly,
  walk,
  pageSizeFor,
  assertPages,
  sameIds,
  filterPairs,
  type FamilySpec,
  type Filters,
  type MasItem,
  type PageBody,
  type Walk,
} from './walk.ts'
import type { Test } from '../../lib/suite.ts'

/**
 * meta.count of every page of a filtered walk: the number expected when the whole listing was read,
 * else (a window) the same on every page and equal to count=only with the same filters.
 */
export async function assertCounts(
  t: Test,
  spec: FamilySpec,
  w: Walk,
  filters: Filters,
  expected: number | undefined,
  prefix: string,
): Promise<void> {
  const counts = w.pages.map((p) => p.body?.meta?.count)
  if (expected !== undefined) {
    t.ok(
      counts.every((n) => n === expected),
      `${prefix}meta.count of the filtered listing is ${expected}`,
      { found: counts },
    )
    return
  }
  const only = await countOnly(spec, filters)
  t.ok(
    only !== undefined && counts.every((n) => n === only),
    `${prefix}meta.count of the filtered listing equals count=only with the same filters (${only})`,
    { found: counts },
  )
}

/**
 * A filter check: the filtered listing (walked with cursors, counted) equals the full set filtered
 * client-side. `build` picks the filter value from the full set, or returns a skip reason.
 */
export function filterCheck(
  spec: FamilySpec,
  name: string,
  build: (items: MasItem[]) => { filters: Filters; expect: (item: MasItem) => boolean; describe?: string } | string,
  opts: { feature?: MasFeature; needs?: Need[] } = {},
): void {
  familyCheck(spec, `${name}`, opts.needs ?? ['mas'], async (t) => {
    if (opts.feature) await requireMasFeature(t, opts.feature)
    const items = await allItems(spec)
    const c = build(items)
    if (typeof c === 'string') skip(c)
    const wanted = items.filter(c.expect)
    note(t, `filter ${shown(c.filters)}${c.describe ? ` (${c.describe})` : ''}: ${wanted.length} of ${items.length} items expected`)
    const full = await fullSet(spec)
    const w = await walk(spec, { direction: 'forward', pageSize: pageSizeFor(wanted.length), filters: c.filters, until: full.end })
    assertPages(t, w, 'filtered walk')
    sameIds(t, w.items, wanted, `the filtered listing equals the ${full.complete ? 'full set' : 'window'} filtered client-side`)
    await assertCounts(t, spec, w, c.filters, full.complete ? wanted.length : undefined, '')
  })
}

/**
 * A date filter (`filter[<key>]`, strictly before or after a cutoff on `attr`); items whose `attr` is
 * null never match. The cutoff is a whole second near the median that no item equals.
 */
export function dateFilterCheck(spec: FamilySpec, key: string, attr: string, dir: 'before' | 'after', feature?: MasFeature): void {
  familyCheck(spec, `${key} matches the full set filtered client-side, strictly ${dir} the given time`, ['mas'], async (t) => {
    if (feature) await requireMasFeature(t, feature)
    const items = await allItems(spec)
    const stamped = items.filter((i) => tsNs(i.attributes[attr]) !== undefined)
    if (stamped.length === 0) skip(`no item of ${spec.family} has ${attr} set`)
    // Two cutoffs: a whole second between items, and exactly the timestamp of an item (which a strict
    // comparison leaves out).
    const median = stamped[Math.floor(stamped.length / 2)]!.attributes[attr] as string
    for (const cutoff of [cutoffNear(stamped.map((i) => i.attributes[attr] as string))!, median]) {
      // created_at is compared through the id, a ULID of the creation's millisecond (the service's
      // storage: id > the greatest ULID of the cutoff's millisecond); other dates to the microsecond
      const unit = attr === 'created_at' ? 1_000_000n : 1n
      const c = tsNs(cutoff)! / unit
      const wanted = items.filter((i) => {
        const ns = tsNs(i.attributes[attr])
        if (ns === undefined) return false
        const v = ns / unit
        return dir === 'before' ? v < c : v > c
      })
      const full = await fullSet(spec)
      const w = await walk(spec, {
        direction: 'forward',
        pageSize: pageSizeFor(wanted.length),
        filters: { [key]: cutoff },
        until: full.end,
      })
      assertPages(t, w, `${key}=${cutoff}`)
      sameIds(t, w.items, wanted, `${key}=${cutoff}: the filtered listing equals the items with ${attr} strictly ${dir} it`)
      await assertCounts(t, spec, w, { [key]: cutoff }, full.complete ? wanted.length : undefined, `${key}=${cutoff}: `)
    }
  })
}

/** `filter[x]=<unknown id>` → 404 whose title names the kind and the id. */
export function unknownFilterCheck(spec: FamilySpec, key: string, kind: string): void {
  familyCheck(spec, `${key} with an unknown id → 404 naming it`, ['mas'], async (t) => {
    const res = await mas('GET', `/${spec.family}`, { query: { [key]: UNKNOWN_ULID } })
    expectMasError(t, res, 404, `${key}=${UNKNOWN_ULID}`, [kind, UNKNOWN_ULID])
  })
}

/** An invalid filter value → 400 with the error envelope (and title patterns, if given). */
export function badFilterCheck(
  spec: FamilySpec,
  name: string,
  query: Record<string, string>,
  title: (string | RegExp)[] = [],
  feature?: MasFeature,
): void {
  familyCheck(spec, `${name} → 400`, ['mas'], async (t) => {
    // a filter a release lacks is an unknown key there, ignored: the check needs the release that has it
    if (feature) await requireMasFeature(t, feature)
    const res = await mas('GET', `/${spec.family}`, { query })
    expectMasError(
      t,
      res,
      400,
      Object.entries(query)
        .map(([k, v]) => `${k}=${v}`)
        .join('&'),
      title,
    )
  })
}

/** The links of a filtered listing (self, first, last, next) keep the filter. */
export function filterLinksCheck(spec: FamilySpec, build: (items: MasItem[]) => Filters | string): void {
  familyCheck(spec, `links of a filtered listing keep the filter`, ['mas'], async (t) => {
    const items = await allItems(spec)
    const filters = build(items)
    if (typeof filters === 'string') skip(filters)
    const res = await mas('GET', `/${spec.family}`, { query: [...filterPairs(filters), ['page[first]', '1']] })
    const body = expectOk<PageBody>(t, res, `filtered listing ${shown(filters)}`)
    if (!body) return
    const want = filterPairs(filters).map(([k, v]) => `${k}=${v}`)
    for (const [name, link] of Object.entries(body.links ?? {})) {
      const params = paramsOf(link)
      t.ok(
        want.every((w) => params.includes(w)),
        `links.${name} carries ${want.join('&')}`,
        { link },
      )
    }
  })
}
