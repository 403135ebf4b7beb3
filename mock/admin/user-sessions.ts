// /api/admin/v1/user-sessions (browser sessions): list (filters user, status, created-before/after,
// last-active-before/after), get, finish (200 with links.self ending /finish; 400 already finished;
// 404 `User session with ID … not found`; get's 404 is `User session ID … not found`).
// The browser-session collection has only a user index: status and last activity are checked item by
// item; the creation filters are id bounds, as in the other listings.
import { masHas } from '../../lib/versions.ts'
import { USER_SESSION_STATUSES } from '../../lib/schemas.ts'
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, masGate, type RouteEntry } from '../core/table.ts'
import { nowMicros, type BrowserSession } from '../store/mas/index.ts'
import { userFilter, createdBounds, datePair, listRequest } from './framework/filters.ts'
import { statusKey, twoStates } from './framework/listing.ts'
import { listResponse } from './framework/pagination.ts'
import type { DateValue, FieldKind } from './framework/query.ts'
import { API, fmtTime, resource } from './framework/resource.ts'
import { finishById, getById } from './framework/session-handlers.ts'

/** filter[status] values, from the schema (active first) */
const STATES = twoStates(USER_SESSION_STATUSES)

const SITE = 'mas_handlers::admin::v1::user_sessions'
const PATH = `${API}/user-sessions`
const NOUN = 'User session'
const t = (us: number | null) => (us === null ? null : fmtTime(us))

export const userSessionResource = (s: BrowserSession) =>
  resource('user-session', 'user-sessions', s.id, {
    created_at: fmtTime(s.createdAt),
    finished_at: t(s.finishedAt),
    user_id: s.userId,
    user_agent: s.userAgent,
    last_active_at: t(s.lastActiveAt),
    last_active_ip: s.lastActiveIp,
  })

const DATE = { kind: 'datetime' } as const
const FIELDS: Record<string, FieldKind> = {
  'filter[user]': { kind: 'ulid' },
  'filter[status]': { kind: 'enum', values: ['active', 'finished'] },
  'filter[created-before]': DATE,
  'filter[created-after]': DATE,
  'filter[last-active-before]': DATE,
  'filter[last-active-after]': DATE,
}
const FIELDS_BEFORE_V1_20: Record<string, FieldKind> = { 'filter[user]': FIELDS['filter[user]']!, 'filter[status]': FIELDS['filter[status]']! }

type Values = { 'filter[user]'?: string; 'filter[status]'?: string } & Partial<Record<`filter[${'created' | 'last-active'}-${'before' | 'after'}]`, DateValue>>

export function listUserSessions(ctx: Ctx): Reply {
  const site = `${SITE}::list:150`
  // the date filters since v1.20.0 (lib/data/mas-features.json): an older release ignores the keys as unknown
  const f = listRequest(ctx, site, masHas(ctx.options.masVersion, 'filter-created-before') === false ? FIELDS_BEFORE_V1_20 : FIELDS)
  if (!f.ok) return f.reply
  const v = f.values as Values
  const pairs: string[] = []
  const tests: ((s: BrowserSession) => boolean)[] = []
  const conditions: { index: 'user'; keys: string[] }[] = []
  const miss = userFilter(ctx, site, v['filter[user]'], pairs, conditions)
  if (miss) return miss
  const status = v['filter[status]']
  if (status !== undefined) {
    pairs.push(`filter[status]=${status}`)
    const wanted = statusKey(ctx, status, STATES)
    // the bug: the status filter is parsed and printed in links, but not applied
    if (!ctx.faults.has('user-sessions-status-ignored')) tests.push((s) => (s.finishedAt === null) === (wanted === 'active'))
  }
  for (const key of ['filter[created-before]', 'filter[created-after]', 'filter[last-active-before]', 'filter[last-active-after]'] as const) {
    const d = v[key]
    if (d) pairs.push(datePair(key, d))
  }
  const lab = v['filter[last-active-before]']
  const laa = v['filter[last-active-after]']
  // strict bounds; a session never active matches neither
  if (lab) tests.push((s) => s.lastActiveAt !== null && s.lastActiveAt < lab.micros)
  const inclusive = ctx.faults.has('user-sessions-last-active-after-inclusive')
  if (laa) tests.push((s) => s.lastActiveAt !== null && (s.lastActiveAt > laa.micros || (inclusive && s.lastActiveAt === laa.micros)))
  const query = {
    in: conditions,
    ...createdBounds(ctx, v['filter[created-before]'], v['filter[created-after]']),
    ...(tests.length ? { where: (s: BrowserSession) => tests.every((x) => x(s)) } : {}),
  }
  return listResponse(ctx, { path: PATH, filterPairs: pairs, page: f.page, collection: ctx.world.mas.userSessions, query, toResource: userSessionResource })
}

export function getUserSession(ctx: Ctx): Reply {
  return getById(ctx, { site: `${SITE}::get:37`, queries: 1, kind: { noun: NOUN }, collection: ctx.world.mas.userSessions, toResource: userSessionResource })
}

export function finishUserSession(ctx: Ctx): Reply {
  return finishById(ctx, { site: `${SITE}::finish:42`, path: PATH, kind: { noun: NOUN, idWord: 'with ID' }, collection: ctx.world.mas.userSessions, toResource: userSessionResource }, (s) => {
    ctx.world.mas.finishBrowserSession(s, nowMicros(ctx.now()))
    ctx.log.queries += 2
  })
}

const TAG = 'user-session'

/** this family's rows of the admin route table */
export const USER_SESSION_ENTRIES: RouteEntry[] = [
  {
    method: 'GET', pattern: '/user-sessions', handler: listUserSessions,
    doc: { operationId: 'listUserSessions', tag: TAG, summary: 'List user (browser) sessions', security: 'mas-admin',
      description: 'All browser sessions, including finished ones, oldest first, unless filter[status] is given.', query: 'admin/user-session#ListQuery',
      responses: {
        '200': { description: 'A page of browser sessions.', ref: 'admin/user-session#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
        '404': adminErr('The user of filter[user] does not exist.'),
      } },
  },
  {
    method: 'GET', pattern: '/user-sessions/:id', handler: getUserSession,
    doc: { operationId: 'getUserSession', tag: TAG, summary: 'Get a user (browser) session', security: 'mas-admin',
      responses: { '200': { description: 'The session.', ref: 'admin/user-session#Single' }, '404': adminErr('The session does not exist.') } },
  },
  {
    method: 'POST', pattern: '/user-sessions/:id/finish', handler: finishUserSession, ...masGate('user-sessions-finish'),
    doc: { operationId: 'finishUserSession', tag: TAG, summary: 'Finish a user (browser) session', security: 'mas-admin',
      description: 'Sets finished_at. No request body.',
      responses: {
        '200': { description: 'The finished session; links.self is the requested path (ending in /finish).', ref: 'admin/user-session#Single' },
        '400': adminErr('The session is already finished.'),
        '404': adminErr('The session does not exist.'),
      } },
  },
]
