// The by-id steps every admin family shares: the caller and the path id (400 for a bad ULID), then
// the record or the family's 404, and DELETE …/:id (204). The 404 titles follow one pattern with
// the family's noun: `<noun> ID <id> not found` (or `<noun> with ID …`, as some handlers word it),
// and `<noun> not found` where the service leaves the id out (titleWithId: versions and faults).
import type { Ctx, Reply } from '../../core/context.ts'
import type { User } from '../../store/mas/index.ts'
import { authenticate } from './auth.ts'
import { pathId } from '../../mas-http/ulid.ts'
import { routeError, titleWithId } from '../../mas-http/errors.ts'

/** how a family names its records in 404 titles, and finds one */
export interface Kind<T> {
  /** `User`, `User email`, `Upstream OAuth 2.0 Link`, `Registration token`, … */
  noun: string
  /** `ID` (default: `User ID … not found`) or `with ID` (`Registration token with ID … not found`) */
  idWord?: 'ID' | 'with ID'
  /** false: the title never names the id (`Provider not found`) */
  idInTitle?: boolean
  get(ctx: Ctx, id: string): T | undefined
}

/** what a 404 title needs of a Kind */
export type Titled = Pick<Kind<unknown>, 'noun' | 'idWord' | 'idInTitle'>

export type Found<T> = { ok: true; item: T; id: string } | { ok: false; reply: Reply }

export const USER: Kind<User> = { noun: 'User', get: (ctx, id) => ctx.world.mas.getUser(id) }

/** The family's 404 title for `id` (the OpenAPI document passes `<id>`). */
export function notFoundTitle(kind: Titled, id: string): string {
  return kind.idInTitle === false ? `${kind.noun} not found` : `${kind.noun} ${kind.idWord ?? 'ID'} ${id} not found`
}

/** The family's 404 for `id`. */
export function notFound(ctx: Ctx, site: string, kind: Titled, id: string): Reply {
  const without = notFoundTitle({ noun: kind.noun, idInTitle: false }, id)
  return routeError(ctx, site, 404, kind.idInTitle === false ? without : titleWithId(ctx, notFoundTitle(kind, id), without))
}

/** The caller (401/403) and the path's id (400). */
export function pathTarget(ctx: Ctx): { ok: true; id: string } | { ok: false; reply: Reply } {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth
  return pathId(ctx, ctx.params.id)
}

/** The record `id` names (counting the service's `queries` for the lookup), or the family's 404. */
export function found<T>(ctx: Ctx, site: string, kind: Kind<T>, id: string, queries = 1): Found<T> {
  ctx.log.queries += queries
  const item = kind.get(ctx, id)
  return item === undefined ? { ok: false, reply: notFound(ctx, site, kind, id) } : { ok: true, item, id }
}

/** pathTarget, then found. */
export function byId<T>(ctx: Ctx, site: string, kind: Kind<T>, queries = 1): Found<T> {
  const target = pathTarget(ctx)
  return target.ok ? found(ctx, site, kind, target.id, queries) : target
}

/** DELETE …/:id: the record or its 404, then `remove` (the store write), 204 without a body. */
export function deleteById<T>(ctx: Ctx, site: string, kind: Kind<T>, remove: (item: T) => void): Reply {
  const x = byId(ctx, site, kind)
  if (!x.ok) return x.reply
  remove(x.item)
  ctx.log.queries += 2
  return { status: 204 }
}
