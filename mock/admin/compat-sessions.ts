// /api/admin/v1/compat-sessions: list (filters user, user-session, status, created-*, last-active-*),
// get, finish. Finishing schedules a device-sync job for the session's user.
import type { Ctx, Reply } from '../http.ts'
import { nowMicros, type CompatSession } from '../store/mas.ts'
import type { Query } from '../store/ordered.ts'
import { authenticate } from './auth.ts'
import { checkUser, checkUserSession, createdBounds, datePair, DATE_FIELD, parseFilters, statusKey, ULID_FIELD, valueRange } from './filters.ts'
import { listResponse, parsePagination, pathId } from './pagination.ts'
import type { DateValue } from './query.ts'
import { API, compatAttributes, resource, routeError, single, titleWithId } from './resource.ts'
import { scheduleDeviceSync } from './jobs.ts'

const TYPE = 'compat-session'
const PATH = `${API}/compat-sessions`
const SITE = 'mas_handlers::admin::v1::compat_sessions'

const FILTERS = {
  'filter[user]': ULID_FIELD,
  'filter[user-session]': ULID_FIELD,
  'filter[status]': { kind: 'enum', values: ['active', 'finished'] },
  'filter[created-before]': DATE_FIELD,
  'filter[created-after]': DATE_FIELD,
  'filter[last-active-before]': DATE_FIELD,
  'filter[last-active-after]': DATE_FIELD,
} as const

export const compatResource = (s: CompatSession) => resource(TYPE, 'compat-sessions', s.id, compatAttributes(s))

export function listCompatSessions(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const p = parsePagination(ctx)
  if (!p.ok) return p.reply
  const site = `${SITE}::list:168`
  const f = parseFilters(ctx, site, FILTERS)
  if (!f.ok) return f.reply
  const v = f.values as {
    'filter[user]'?: string
    'filter[user-session]'?: string
    'filter[status]'?: 'active' | 'finished'
    'filter[created-before]'?: DateValue
    'filter[created-after]'?: DateValue
    'filter[last-active-before]'?: DateValue
    'filter[last-active-after]'?: DateValue
  }
  const pairs: string[] = []
  const conditions: { index: 'user' | 'userSession' | 'status'; keys: string[] }[] = []
  const user = v['filter[user]']
  if (user !== undefined) {
    pairs.push(`filter[user]=${user}`)
    const miss = checkUser(ctx, site, user)
    if (miss) return miss
    conditions.push({ index: 'user', keys: [user] })
  }
  const userSession = v['filter[user-session]']
  if (userSession !== undefined) {
    pairs.push(`filter[user-session]=${userSession}`)
    const miss = checkUserSession(ctx, site, userSession)
    if (miss) return miss
    conditions.push({ index: 'userSession', keys: [userSession] })
  }
  const status = v['filter[status]']
  if (status !== undefined) {
    pairs.push(`filter[status]=${status}`)
    conditions.push({ index: 'status', keys: [statusKey(ctx, status, ['active', 'finished'])] })
  }
  const cb = v['filter[created-before]']
  const ca = v['filter[created-after]']
  const lb = v['filter[last-active-before]']
  const la = v['filter[last-active-after]']
  if (cb) pairs.push(datePair('filter[created-before]', cb))
  if (ca) pairs.push(datePair('filter[created-after]', ca))
  if (lb) pairs.push(datePair('filter[last-active-before]', lb))
  if (la) pairs.push(datePair('filter[last-active-after]', la))
  const q: Query<CompatSession, 'user' | 'userSession' | 'status', 'lastActive'> = { in: conditions, ...createdBounds(ctx, cb, ca) }
  const range = valueRange('lastActive' as const, la, lb)
  if (range) q.range = [range]
  return listResponse(ctx, { path: PATH, filterPairs: pairs, page: p.page, collection: ctx.world.mas.compat, query: q, toResource: compatResource })
}

export function getCompatSession(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  ctx.log.queries += 2
  const s = ctx.world.mas.compat.get(id.id)
  if (!s) return routeError(ctx, `${SITE}::get:37`, 404, titleWithId(ctx, `Compatibility session ID ${id.id} not found`, 'Compatibility session not found'))
  ctx.log.fetched += 1
  return single(200, compatResource(s))
}

export function finishCompatSession(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  const site = `${SITE}::finish:42`
  const store = ctx.world.mas
  ctx.log.queries += 1
  const s = store.compat.get(id.id)
  if (!s) return routeError(ctx, site, 404, titleWithId(ctx, `Compatibility session with ID ${id.id} not found`, 'Compatibility session not found'))
  const self = `${PATH}/${id.id}/finish`
  if (s.finishedAt !== null) {
    if (ctx.faults.has('finish-twice-200')) return single(200, compatResource(s), self)
    return routeError(ctx, site, 400, `Compatibility session with ID ${id.id} is already finished`)
  }
  const now = nowMicros(ctx.now())
  scheduleDeviceSync(ctx, s.userId, `${TYPE} ${s.id}/finish`, `${SITE}::finish:103`)
  store.finishCompatSession(s, now)
  ctx.log.queries += 3
  ctx.log.fetched += 1
  return single(200, compatResource(s), self)
}
