// Filter parameters of the admin listings: parsing (400 "Invalid filter parameters" + the query
// rejection's chain), lookups of the referenced user / client / browser session (404 with the
// handler's titles), scope tokens (400 `Invalid scope "…" in filter parameters`), and the date
// filters:
// - created-before/after are bounds on the ULID (its time part is the creation time, at
//   millisecond precision): `id < min_ulid_at(t)` and `id > max_ulid_at(t)`, as the service does;
// - last-active-* and expires_* are strict bounds on the value; null never matches.
// Filter errors are route errors: the service logs them as a WARN line first.
import type { Ctx, Reply } from '../../core/context.ts'
import type { Bound } from '../../store/ordered.ts'
import { isScopeToken, rustDebug } from '../../store/mas/index.ts'
import {
  formatDateFilter,
  groupPairs,
  maxUlidAt,
  minUlidAt,
  parseStruct,
  rejectionTitles,
  type DateValue,
  type FieldKind,
} from './query.ts'
import { routeError } from '../../mas-http/errors.ts'
import { notFound, USER, type Titled } from './by-id.ts'

/** the first title of a filter parameter's rejection */
export const INVALID_FILTER = 'Invalid filter parameters'
/** how filter lookups title a missing client and browser session */
export const CLIENT: Titled = { noun: 'Client' }
export const USER_SESSION: Titled = { noun: 'User session' }

export const ULID_FIELD = { kind: 'ulid' } as const
export const DATE_FIELD = { kind: 'datetime' } as const

export function parseFilters<K extends string>(
  ctx: Ctx,
  site: string,
  fields: Record<K, FieldKind>,
): { ok: true; values: Partial<Record<K, unknown>> } | { ok: false; reply: Reply } {
  const parsed = parseStruct(groupPairs(ctx.query), fields)
  if (!parsed.ok) return { ok: false, reply: routeError(ctx, site, 400, ...rejectionTitles(INVALID_FILTER, parsed.message)) }
  return { ok: true, values: parsed.values }
}

/** 404 `User ID … not found` unless the user exists (the `filter-unknown-user-empty` fault lets it through). */
export function checkUser(ctx: Ctx, site: string, id: string): Reply | undefined {
  ctx.log.queries += 1
  if (ctx.world.mas.getUser(id) || ctx.faults.has('filter-unknown-user-empty')) return undefined
  return notFound(ctx, site, USER, id)
}

/** A scalar filter of the service given more than once: serde_html_form's "unsupported value". */
export function repeatedScalar(ctx: Ctx, site: string, key: string): Reply {
  return routeError(ctx, site, 400, ...rejectionTitles(INVALID_FILTER, `${key}: unsupported value`))
}

export function checkClient(ctx: Ctx, site: string, id: string): Reply | undefined {
  ctx.log.queries += 1
  if (ctx.world.mas.getClient(id)) return undefined
  return notFound(ctx, site, CLIENT, id)
}

export function checkUserSession(ctx: Ctx, site: string, id: string): Reply | undefined {
  ctx.log.queries += 1
  if (ctx.world.mas.userSessions.get(id)) return undefined
  return notFound(ctx, site, USER_SESSION, id)
}

/** Each value must be a scope token; the first bad one is named in the 400. */
export function checkScopes(ctx: Ctx, site: string, scopes: readonly string[]): Reply | undefined {
  const bad = scopes.find((s) => !isScopeToken(s))
  if (bad === undefined) return undefined
  return routeError(ctx, site, 400, `Invalid scope ${rustDebug(bad)} in filter parameters`)
}

/** The ULID bounds of filter[created-before] / filter[created-after]. */
export function createdBounds(ctx: Ctx, before: DateValue | undefined, after: DateValue | undefined): { before?: Bound; after?: Bound } {
  const out: { before?: Bound; after?: Bound } = {}
  if (before) out.before = { id: minUlidAt(Math.floor(before.micros / 1000)), inclusive: false }
  if (after) {
    const ms = Math.floor(after.micros / 1000)
    // strictly after the millisecond; the fault lets the boundary millisecond in
    out.after = ctx.faults.has('filter-created-after-inclusive')
      ? { id: minUlidAt(ms), inclusive: true }
      : { id: maxUlidAt(ms), inclusive: false }
  }
  return out
}

/** `key=value` for a link, dates re-printed in whole seconds. */
export function datePair(key: string, v: DateValue): string {
  return `${key}=${formatDateFilter(v)}`
}

/** Strict value range of two optional dates (micros). */
export function valueRange<R extends string>(
  index: R,
  after: DateValue | undefined,
  before: DateValue | undefined,
): { index: R; gt?: number; lt?: number } | undefined {
  if (!after && !before) return undefined
  const r: { index: R; gt?: number; lt?: number } = { index }
  if (after) r.gt = after.micros
  if (before) r.lt = before.micros
  return r
}

/** `filter[scope]` as store conditions: contains-all, one condition per token (any of them, under a fault). */
export function scopeConditions<I extends string>(ctx: Ctx, index: I, scopes: readonly string[]): { index: I; keys: string[] }[] {
  const unique = [...new Set(scopes)]
  if (unique.length === 0) return []
  if (ctx.faults.has('filter-scope-any')) return [{ index, keys: unique }]
  return unique.map((s) => ({ index, keys: [s] }))
}
