// The by-id handlers the session families share: GET /<collection>/:id, and POST …/:id/finish of
// compat and OAuth 2.0 sessions. What differs per family (call sites, titles, query counts, what
// finishing does besides setting finished_at) comes in the spec.
import type { Ctx, Reply } from '../../core/context.ts'
import type { Micros } from '../../store/mas/index.ts'
import type { Keyed } from '../../store/ordered.ts'
import { byId, type Titled } from './by-id.ts'
import { single, type ResourceObject } from './resource.ts'
import { routeError } from '../../mas-http/errors.ts'

export interface GetSpec<T extends Keyed> {
  /** the `record_error!` call site, `target:line` */
  site: string
  /** the queries the service makes for it */
  queries: number
  /** how the 404 titles the record: `Compatibility session ID …`, `Personal session not found`, … */
  kind: Titled
  collection: { get(id: string): T | undefined }
  toResource(item: T): ResourceObject
}

/** GET by id: 200 with the resource, 404 with the family's title. */
export function getById<T extends Keyed>(ctx: Ctx, spec: GetSpec<T>): Reply {
  const x = byId(ctx, spec.site, { ...spec.kind, get: (_ctx, id) => spec.collection.get(id) }, spec.queries)
  if (!x.ok) return x.reply
  ctx.log.fetched += 1
  return single(200, spec.toResource(x.item))
}

/** The 400 title of finishing a finished session (the OpenAPI document passes `<id>`). */
export const alreadyFinishedTitle = (noun: string, id: string) => `${noun} with ID ${id} is already finished`

export interface FinishSpec<T extends Keyed> {
  /** the `record_error!` call site, `target:line` */
  site: string
  /** `/api/admin/v1/<collection>` */
  path: string
  /** how the 404 titles the record (`… with ID … not found`); its noun also titles the 400 */
  kind: Titled
  collection: { get(id: string): T | undefined }
  toResource(item: T): ResourceObject
}

/**
 * POST …/:id/finish: 200 with the finished session; 404 unknown, 400 already finished. `finish` does
 * what the family does to an active session (the store write, the device sync, their queries).
 */
export function finishById<T extends Keyed & { finishedAt: Micros | null }>(
  ctx: Ctx,
  spec: FinishSpec<T>,
  finish: (item: T) => void,
): Reply {
  const { site, kind } = spec
  const x = byId(ctx, site, { ...kind, get: (_ctx, id) => spec.collection.get(id) })
  if (!x.ok) return x.reply
  const { item: s, id } = x
  const self = `${spec.path}/${id}/finish`
  if (s.finishedAt !== null) {
    if (ctx.faults.has('finish-twice-200')) return single(200, spec.toResource(s), self)
    return routeError(ctx, site, 400, alreadyFinishedTitle(kind.noun, id))
  }
  finish(s)
  ctx.log.fetched += 1
  return single(200, spec.toResource(s), self)
}
