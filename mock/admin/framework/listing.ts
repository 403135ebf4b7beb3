// Every admin listing from a table: each family declares its filters in the service's order and
// `list` does the rest — auth, pagination, filter parsing, the link pairs, the lookups (404) and scope
// check (400), and the store query (bucket conditions, bounds, ranges, and per-item checks where no
// index covers a filter). The one declared order serves the link pairs, the lookups (the first
// failing one answers) and the store conditions alike.
import type { Ctx, Reply } from '../../core/context.ts'
import type { FaultName } from '../../faults/registry.ts'
import { masHas, type MasFeature } from '../../../lib/versions.ts'
import type { Keyed, OrderedCollection, Query } from '../../store/ordered.ts'
import { authenticate } from './auth.ts'
import {
  checkScopes,
  createdBounds,
  datePair,
  DATE_FIELD,
  INVALID_FILTER,
  parseFilters,
  repeatedScalar,
  scopeConditions,
  ULID_FIELD,
  valueRange,
} from './filters.ts'
import { INVALID_PAGINATION, listResponse, parsePagination } from './pagination.ts'
import { rejectionTitles, type DateValue, type FieldKind } from './query.ts'
import type { ResourceObject } from './resource.ts'

/** The OpenAPI description of a listing of `noun` that keeps its `ended` ones. */
export const listingDescription = (noun: string, ended: string) =>
  `All ${noun}, including ${ended} ones, oldest first, unless filter[status] is given. Use page[last] for the last N.`

/** The titles of a listing's 400, in words for the OpenAPI document. */
export const INVALID_LISTING = `'${INVALID_PAGINATION}' or '${INVALID_FILTER}', then '${rejectionTitles('', '<message>')[1]}' and the message again`

/** a lookup of a referenced id: the 404 reply (with the handler's title) when it is unknown */
export type Lookup = (ctx: Ctx, site: string, id: string) => Reply | undefined

/** Versions of the auth service that have a filter: rows of lib/data/mas-features.json. */
interface Gate {
  /** the feature that brought it */
  since?: MasFeature
  /** the feature that replaced it */
  until?: MasFeature
}

/** One `filter[…]` parameter: `key` is the query field (and the link pair's key). */
export type ListFilter<I extends string, R extends string> = Gate &
  /** one ULID: the items in bucket `index` under it, once `exists` (if given) found it (under the fault `dropFault` the condition is left out) */
  (
    | { key: string; kind: 'ulid'; index: I; exists?: Lookup; dropFault?: FaultName }
    /**
     * a repeatable ULID, any of them; every value is looked up before the condition (the bucket `index`,
     * or `test` on each item); under the fault `firstOnlyFault` only the first value is used
     */
    | {
        key: string
        kind: 'ulid[]'
        index?: I
        test?: (ctx: Ctx, ids: readonly string[]) => (item: never) => boolean
        exists?: Lookup
        firstOnlyFault?: FaultName
      }
    /** one of `values`: the bucket `index` under it as given, or `test` on each item */
    | { key: string; kind: 'enum'; index?: I; test?: (ctx: Ctx, value: string) => (item: never) => boolean; values: readonly string[] }
    /** the two states of a session, the bucket key as given (swapped by the `filter-status-inverted` fault) */
    | { key: string; kind: 'status'; index: I; values: readonly [string, string] }
    /**
     * one text, a scalar of the service: given twice it is "unsupported value" (checked before any lookup),
     * empty it is absent; the items in bucket `index` under `keyOf(text)`, and those `test` passes
     */
    | {
        key: string
        kind: 'text'
        index?: I
        keyOf?: (text: string) => string
        test?: (ctx: Ctx, text: string) => ((item: never) => boolean) | undefined
      }
    /** scope tokens, repeatable, the items holding every one (400 on a bad token) */
    | { key: string; kind: 'scope'; index: I }
    /** true / false, the bucket key as text (the other one under the fault `invertFault`) */
    | { key: string; kind: 'bool'; index: I; invertFault?: FaultName }
    /** true / false, each item checked: `holds(ctx)` answers whether an item has the property (no index covers it) */
    | { key: string; kind: 'holds'; holds: (ctx: Ctx) => (item: never) => boolean }
    /** a creation date: an id bound, strictly before or after */
    | { key: string; kind: 'created'; bound: 'before' | 'after' }
    /** a date checked by `test` on each item (no range index covers it) */
    | { key: string; kind: 'date'; test: (ctx: Ctx, date: DateValue) => (item: never) => boolean }
    /** a date on the range index `range`, strictly before or after */
    | { key: string; kind: 'range'; range: R; bound: 'before' | 'after' }
  )

/** A filter table, with what it parses precomputed. */
export interface ListFilters<I extends string, R extends string> {
  filters: readonly ListFilter<I, R>[]
  fields: Record<string, FieldKind>
  created?: { before?: string; after?: string }
  ranges: { range: R; before?: string; after?: string }[]
}

/** how the query field of a filter parses */
function fieldOf(f: ListFilter<string, string>): FieldKind {
  switch (f.kind) {
    case 'ulid':
      return ULID_FIELD
    case 'ulid[]':
      return { kind: 'ulid[]' }
    case 'enum':
    case 'status':
      return { kind: 'enum', values: f.values }
    case 'scope':
    case 'text':
      return { kind: 'string[]' }
    case 'bool':
    case 'holds':
      return { kind: 'bool' }
    case 'created':
    case 'range':
    case 'date':
      return DATE_FIELD
  }
}

/** Builds a listing's filter table, in the order the service prints the filters in links. */
export function listFilters<I extends string, R extends string = never>(filters: readonly ListFilter<I, R>[]): ListFilters<I, R> {
  const fields: Record<string, FieldKind> = {}
  let created: { before?: string; after?: string } | undefined
  const ranges: { range: R; before?: string; after?: string }[] = []
  for (const f of filters) {
    fields[f.key] = fieldOf(f)
    if (f.kind === 'created') (created ??= {})[f.bound] = f.key
    if (f.kind === 'range') {
      let r = ranges.find((x) => x.range === f.range)
      if (!r) ranges.push((r = { range: f.range }))
      r[f.bound] = f.key
    }
  }
  return { filters, fields, created, ranges }
}

/** The two states of a session's filter[status] (active first), from the schema's enum: a third state fails at load. */
export function twoStates(values: readonly string[]): readonly [string, string] {
  if (values.length !== 2) throw new Error(`filter[status] expects two states, the schema gives ${values.join(', ')}`)
  return [values[0]!, values[1]!]
}

/** The status key to look up, swapped by the `filter-status-inverted` fault. */
export function statusKey(ctx: Ctx, value: string, pair: readonly [string, string]): string {
  if (!ctx.faults.has('filter-status-inverted')) return value
  return value === pair[0] ? pair[1] : pair[0]
}

/** The trailing filters of compat and OAuth 2.0 sessions: status (its schema's enum), then the creation and last-activity dates. */
export const sessionStateFilters = (statuses: readonly string[]): readonly ListFilter<'status', 'lastActive'>[] => [
  { key: 'filter[status]', kind: 'status', index: 'status', values: twoStates(statuses) },
  { key: 'filter[created-before]', kind: 'created', bound: 'before', since: 'filter-created-before' },
  { key: 'filter[created-after]', kind: 'created', bound: 'after', since: 'filter-created-after' },
  { key: 'filter[last-active-before]', kind: 'range', range: 'lastActive', bound: 'before', since: 'filter-last-active-before' },
  { key: 'filter[last-active-after]', kind: 'range', range: 'lastActive', bound: 'after', since: 'filter-last-active-after' },
]

const atVersion = new WeakMap<ListFilters<string, string>, Map<string, ListFilters<string, string>>>()

/**
 * The filters the claimed version has: one it lacks is an unknown query key, which the service ignores.
 * An unparsable version counts as the newest.
 */
export function filtersAt<I extends string, R extends string>(table: ListFilters<I, R>, version: string): ListFilters<I, R> {
  let byVersion = atVersion.get(table)
  if (!byVersion) atVersion.set(table, (byVersion = new Map()))
  let found = byVersion.get(version)
  if (!found) {
    const has = (f: MasFeature) => masHas(version, f) !== false
    const kept = table.filters.filter((f) => (f.since === undefined || has(f.since)) && (f.until === undefined || !has(f.until)))
    found = listFilters(kept) as ListFilters<string, string>
    byVersion.set(version, found)
  }
  return found as ListFilters<I, R>
}

export interface Listing<T extends Keyed, I extends string, R extends string> {
  /** the `record_error!` call site of the handler, `target:line` */
  site: string
  /** `/api/admin/v1/<collection>` */
  path: string
  filters: ListFilters<I, R>
  collection: OrderedCollection<T, I, R>
  toResource(item: T): ResourceObject
  /** toResource depends on the item alone (not on the clock or the caller): whole pages may be kept */
  itemOnly?: boolean
  /** conditions every page has (the live records of a collection that keeps deleted ones) */
  base?: readonly { index: I; keys: readonly string[] }[]
}

/** GET of a listing: auth, pagination, filters (in table order), then the page. */
export function list<T extends Keyed, I extends string, R extends string>(ctx: Ctx, spec: Listing<T, I, R>): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const p = parsePagination(ctx)
  if (!p.ok) return p.reply
  const { site } = spec
  const table = filtersAt(spec.filters, ctx.options.masVersion)
  const f = parseFilters(ctx, site, table.fields)
  if (!f.ok) return f.reply
  const v = f.values as Record<string, unknown>
  for (const filter of table.filters) {
    if (filter.kind === 'text' && ((v[filter.key] as string[] | undefined) ?? []).length > 1) return repeatedScalar(ctx, site, filter.key)
  }
  const pairs: string[] = []
  const conditions: { index: I; keys: readonly string[] }[] = [...(spec.base ?? [])]
  const tests: ((item: T) => boolean)[] = []
  for (const filter of table.filters) {
    const key = filter.key
    const value = v[key]
    switch (filter.kind) {
      case 'ulid': {
        if (value === undefined) break
        const id = value as string
        pairs.push(`${key}=${id}`)
        const miss = filter.exists?.(ctx, site, id)
        if (miss) return miss
        if (filter.dropFault === undefined || !ctx.faults.has(filter.dropFault)) conditions.push({ index: filter.index, keys: [id] })
        break
      }
      case 'ulid[]': {
        const ids = (value as string[] | undefined) ?? []
        for (const id of ids) pairs.push(`${key}=${id}`)
        if (filter.exists) {
          for (const id of ids) {
            const miss = filter.exists(ctx, site, id)
            if (miss) return miss
          }
        }
        if (ids.length === 0) break
        const used = filter.firstOnlyFault && ctx.faults.has(filter.firstOnlyFault) ? ids.slice(0, 1) : ids
        if (filter.index !== undefined) conditions.push({ index: filter.index, keys: used })
        if (filter.test) tests.push(filter.test(ctx, used) as (item: T) => boolean)
        break
      }
      case 'enum':
        if (value === undefined) break
        pairs.push(`${key}=${value as string}`)
        if (filter.index !== undefined) conditions.push({ index: filter.index, keys: [value as string] })
        if (filter.test) tests.push(filter.test(ctx, value as string) as (item: T) => boolean)
        break
      case 'status':
        if (value === undefined) break
        pairs.push(`${key}=${value as string}`)
        conditions.push({ index: filter.index, keys: [statusKey(ctx, value as string, filter.values)] })
        break
      case 'text': {
        const text = (value as string[] | undefined)?.[0]
        if (text === undefined || text === '') break
        pairs.push(`${key}=${text}`)
        if (filter.index !== undefined) conditions.push({ index: filter.index, keys: [filter.keyOf ? filter.keyOf(text) : text] })
        const test = filter.test?.(ctx, text) as ((item: T) => boolean) | undefined
        if (test) tests.push(test)
        break
      }
      case 'scope': {
        const scopes = (value as string[] | undefined) ?? []
        for (const s of scopes) pairs.push(`${key}=${s}`)
        const bad = checkScopes(ctx, site, scopes)
        if (bad) return bad
        conditions.push(...scopeConditions(ctx, filter.index, scopes))
        break
      }
      case 'bool': {
        if (value === undefined) break
        pairs.push(`${key}=${value as boolean}`)
        const inverted = filter.invertFault !== undefined && ctx.faults.has(filter.invertFault)
        conditions.push({ index: filter.index, keys: [String(inverted ? !value : value)] })
        break
      }
      case 'holds': {
        if (value === undefined) break
        pairs.push(`${key}=${value as boolean}`)
        // the family's check is typed by its own items; the listing hands it exactly those
        const has = filter.holds(ctx) as (item: T) => boolean
        tests.push((item) => has(item) === value)
        break
      }
      case 'created':
      case 'range':
        if (value) pairs.push(datePair(key, value as DateValue))
        break
      case 'date':
        if (!value) break
        pairs.push(datePair(key, value as DateValue))
        tests.push(filter.test(ctx, value as DateValue) as (item: T) => boolean)
        break
    }
  }
  const date = (key: string | undefined) => (key === undefined ? undefined : (v[key] as DateValue | undefined))
  const q: Query<T, I, R> = table.created
    ? { in: conditions, ...createdBounds(ctx, date(table.created.before), date(table.created.after)) }
    : { in: conditions }
  const ranges: NonNullable<Query<T, I, R>['range']>[number][] = []
  for (const r of table.ranges) {
    const range = valueRange(r.range, date(r.after), date(r.before))
    if (range) ranges.push(range)
  }
  if (ranges.length) q.range = ranges
  if (tests.length) q.where = (item) => tests.every((test) => test(item))
  return listResponse(ctx, {
    path: spec.path,
    filterPairs: pairs,
    page: p.page,
    collection: spec.collection,
    query: q,
    toResource: spec.toResource,
    itemOnly: spec.itemOnly === true,
  })
}
