// The by-id handlers the session families share: GET /<collection>/:id, and POST …/:id/finish of
// compat and OAuth 2.0 sessions. What differs per family (call sites, titles, query counts, what
// finishing does besides setting finished_at) comes in the spec.
import type { Ctx, Reply } from '../../core/context.ts'
import type { Micros } from '../../store/mas.ts'
import type { Keyed } from '../../store/ordered.ts'
import { authenticate } from './auth.ts'
import { pathId } from './pagination.ts'
import { routeError, single, titleWithId, type ResourceObject } from './resource.ts'

export interface GetSpec<T extends Keyed> {
  /** the `record_error!` call site, `target:line` */
  site: string
  /** the queries the service makes for it */
  queries: number
  /** the kind in titles: `Compatibility session`, `OAuth 2.0 session`, `Personal session` */
  noun: string
  /** false: the 404 title leaves the id out (personal sessions) */
  idInTitle?: boolean
  collection: { get(id: string): T | undefined }
  toResource(item: T): ResourceObject
}

/** GET by id: 200 with the resource, 404 with the family's title. */
export function getById<T extends Keyed>(ctx: Ctx, spec: GetSpec<T>): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  ctx.log.queries += spec.queries
  const s = spec.collection.get(id.id)
  if (!s) {
    const title = spec.idInTitle === false ? `${spec.noun} not found` : titleWithId(ctx, `${spec.noun} ID ${id.id} not found`, `${spec.noun} not found`)
    return routeError(ctx, spec.site, 404, title)
  }
  ctx.log.fetched += 1
  return single(200, spec.toResource(s))
}

export interface FinishSpec<T extends Keyed> {
  /** the `record_error!` call site, `target:line` */
  site: string
  /** `/api/admin/v1/<collection>` */
  path: string
  /** the kind in titles: `Compatibility session`, `OAuth 2.0 session` */
  noun: string
  collection: { get(id: string): T | undefined }
  toResource(item: T): ResourceObject
}

/**
 * POST …/:id/finish: 200 with the finished session; 404 unknown, 400 already finished. `finish` does
 * what the family does to an active session (the store write, the device sync, their queries).
 */
export function finishById<T extends Keyed & { finishedAt: Micros | null }>(ctx: Ctx, spec: FinishSpec<T>, finish: (item: T) => void): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  const { site, noun } = spec
  ctx.log.queries += 1
  const s = spec.collection.get(id.id)
  if (!s) return routeError(ctx, site, 404, titleWithId(ctx, `${noun} with ID ${id.id} not found`, `${noun} not found`))
  const self = `${spec.path}/${id.id}/finish`
  if (s.finishedAt !== null) {
    if (ctx.faults.has('finish-twice-200')) return single(200, spec.toResource(s), self)
    return routeError(ctx, site, 400, `${noun} with ID ${id.id} is already finished`)
  }
  finish(s)
  ctx.log.fetched += 1
  return single(200, spec.toResource(s), self)
}
