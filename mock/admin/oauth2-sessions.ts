// /api/admin/v1/oauth2-sessions: list (filters user, client (repeatable, any of), client-kind,
// user-session, scope (contains all), status, created-*, last-active-*), get, finish. Finishing
// schedules a device-sync job only when the session has a user (client-credentials ones have none).
import type { Ctx, Reply } from '../http.ts'
import { nowMicros, type OAuth2Session } from '../store/mas.ts'
import type { Query } from '../store/ordered.ts'
import { authenticate } from './auth.ts'
import {
  checkClient,
  checkScopes,
  checkUser,
  checkUserSession,
  createdBounds,
  datePair,
  DATE_FIELD,
  parseFilters,
  scopeConditions,
  statusKey,
  ULID_FIELD,
  valueRange,
} from './filters.ts'
import { scheduleDeviceSync } from './jobs.ts'
import { listResponse, parsePagination, pathId } from './pagination.ts'
import type { DateValue } from './query.ts'
import { API, oauth2Attributes, resource, routeError, single, titleWithId } from './resource.ts'

const TYPE = 'oauth2-session'
const PATH = `${API}/oauth2-sessions`
const SITE = 'mas_handlers::admin::v1::oauth2_sessions'

type Index = 'user' | 'client' | 'clientKind' | 'userSession' | 'scope' | 'status'

const FILTERS = {
  'filter[user]': ULID_FIELD,
  'filter[client]': { kind: 'ulid[]' },
  'filter[client-kind]': { kind: 'enum', values: ['dynamic', 'static'] },
  'filter[user-session]': ULID_FIELD,
  'filter[scope]': { kind: 'string[]' },
  'filter[status]': { kind: 'enum', values: ['active', 'finished'] },
  'filter[created-before]': DATE_FIELD,
  'filter[created-after]': DATE_FIELD,
  'filter[last-active-before]': DATE_FIELD,
  'filter[last-active-after]': DATE_FIELD,
} as const

export const oauth2Resource = (s: OAuth2Session) => resource(TYPE, 'oauth2-sessions', s.id, oauth2Attributes(s))

export function listOAuth2Sessions(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const p = parsePagination(ctx)
  if (!p.ok) return p.reply
  const site = `${SITE}::list:225`
  const f = parseFilters(ctx, site, FILTERS)
  if (!f.ok) return f.reply
  const v = f.values as {
    'filter[user]'?: string
    'filter[client]'?: string[]
    'filter[client-kind]'?: 'dynamic' | 'static'
    'filter[user-session]'?: string
    'filter[scope]'?: string[]
    'filter[status]'?: 'active' | 'finished'
    'filter[created-before]'?: DateValue
    'filter[created-after]'?: DateValue
    'filter[last-active-before]'?: DateValue
    'filter[last-active-after]'?: DateValue
  }
  const pairs: string[] = []
  const conditions: { index: Index; keys: string[] }[] = []
  const user = v['filter[user]']
  const clients = v['filter[client]'] ?? []
  const kind = v['filter[client-kind]']
  const userSession = v['filter[user-session]']
  const scopes = v['filter[scope]'] ?? []
  const status = v['filter[status]']
  const cb = v['filter[created-before]']
  const ca = v['filter[created-after]']
  const lb = v['filter[last-active-before]']
  const la = v['filter[last-active-after]']
  if (user !== undefined) pairs.push(`filter[user]=${user}`)
  for (const c of clients) pairs.push(`filter[client]=${c}`)
  if (kind !== undefined) pairs.push(`filter[client-kind]=${kind}`)
  if (userSession !== undefined) pairs.push(`filter[user-session]=${userSession}`)
  for (const s of scopes) pairs.push(`filter[scope]=${s}`)
  if (status !== undefined) pairs.push(`filter[status]=${status}`)
  if (cb) pairs.push(datePair('filter[created-before]', cb))
  if (ca) pairs.push(datePair('filter[created-after]', ca))
  if (lb) pairs.push(datePair('filter[last-active-before]', lb))
  if (la) pairs.push(datePair('filter[last-active-after]', la))

  // lookups in the handler's order: user, clients, browser session, then the scope
  if (user !== undefined) {
    const miss = checkUser(ctx, site, user)
    if (miss) return miss
    conditions.push({ index: 'user', keys: [user] })
  }
  for (const c of clients) {
    const miss = checkClient(ctx, site, c)
    if (miss) return miss
  }
  if (clients.length) conditions.push({ index: 'client', keys: ctx.faults.has('filter-client-only-first') ? clients.slice(0, 1) : clients })
  if (kind !== undefined) conditions.push({ index: 'clientKind', keys: [kind] })
  if (userSession !== undefined) {
    const miss = checkUserSession(ctx, site, userSession)
    if (miss) return miss
    conditions.push({ index: 'userSession', keys: [userSession] })
  }
  const badScope = checkScopes(ctx, site, scopes)
  if (badScope) return badScope
  conditions.push(...scopeConditions(ctx, 'scope' as const, scopes))
  if (status !== undefined) conditions.push({ index: 'status', keys: [statusKey(ctx, status, ['active', 'finished'])] })

  const q: Query<OAuth2Session, Index, 'lastActive'> = { in: conditions, ...createdBounds(ctx, cb, ca) }
  const range = valueRange('lastActive' as const, la, lb)
  if (range) q.range = [range]
  return listResponse(ctx, { path: PATH, filterPairs: pairs, page: p.page, collection: ctx.world.mas.oauth2, query: q, toResource: oauth2Resource })
}

export function getOAuth2Session(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  ctx.log.queries += 1
  const s = ctx.world.mas.oauth2.get(id.id)
  if (!s) return routeError(ctx, `${SITE}::get:38`, 404, titleWithId(ctx, `OAuth 2.0 session ID ${id.id} not found`, 'OAuth 2.0 session not found'))
  ctx.log.fetched += 1
  return single(200, oauth2Resource(s))
}

export function finishOAuth2Session(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  const site = `${SITE}::finish:42`
  const store = ctx.world.mas
  ctx.log.queries += 1
  const s = store.oauth2.get(id.id)
  if (!s) return routeError(ctx, site, 404, titleWithId(ctx, `OAuth 2.0 session with ID ${id.id} not found`, 'OAuth 2.0 session not found'))
  const self = `${PATH}/${id.id}/finish`
  if (s.finishedAt !== null) {
    if (ctx.faults.has('finish-twice-200')) return single(200, oauth2Resource(s), self)
    return routeError(ctx, site, 400, `OAuth 2.0 session with ID ${id.id} is already finished`)
  }
  if (s.userId !== null) scheduleDeviceSync(ctx, s.userId, `${TYPE} ${s.id}/finish`, `${SITE}::finish:104`)
  store.finishOAuth2Session(s, nowMicros(ctx.now()))
  ctx.log.queries += 2
  ctx.log.fetched += 1
  return single(200, oauth2Resource(s), self)
}
