// /api/admin/v1/user-sessions (browser sessions): list (filters user, status, created-before/after,
// last-active-before/after), get, finish (200 with links.self ending /finish; 400 already finished;
// 404 `User session with ID … not found`; get's 404 is `User session ID … not found`).
// The browser-session collection has only a user index: status and last activity are checked item by
// item; the creation filters are id bounds, as in the other listings.
import { USER_SESSION_STATUSES } from '../../lib/schemas.ts'
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, masGate, type RouteEntry } from '../core/table.ts'
import { nowMicros, type BrowserSession } from '../store/mas/index.ts'
import { checkUser } from './framework/filters.ts'
import { list, listFilters, statusKey, twoStates } from './framework/listing.ts'
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

// The browser-session collection has only a user index: status and last activity are checked on
// each item; the date filters since v1.20.0 (lib/data/mas-features.json), unknown keys before.
const FILTERS = listFilters<'user'>([
  { key: 'filter[user]', kind: 'ulid', index: 'user', exists: checkUser },
  {
    key: 'filter[status]',
    kind: 'enum',
    values: STATES,
    test: (ctx, status) => {
      // the bug: the status filter is parsed and printed in links, but not applied
      if (ctx.faults.has('user-sessions-status-ignored')) return () => true
      const wanted = statusKey(ctx, status, STATES)
      return (s: BrowserSession) => (s.finishedAt === null) === (wanted === 'active')
    },
  },
  { key: 'filter[created-before]', kind: 'created', bound: 'before', since: 'filter-created-before' },
  { key: 'filter[created-after]', kind: 'created', bound: 'after', since: 'filter-created-before' },
  // strict bounds; a session never active matches neither
  {
    key: 'filter[last-active-before]',
    kind: 'date',
    test: (_ctx, d) => (s: BrowserSession) => s.lastActiveAt !== null && s.lastActiveAt < d.micros,
    since: 'filter-created-before',
  },
  {
    key: 'filter[last-active-after]',
    kind: 'date',
    since: 'filter-created-before',
    test: (ctx, d) => {
      const inclusive = ctx.faults.has('user-sessions-last-active-after-inclusive')
      return (s: BrowserSession) => s.lastActiveAt !== null && (s.lastActiveAt > d.micros || (inclusive && s.lastActiveAt === d.micros))
    },
  },
])

export function listUserSessions(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:150`,
    path: PATH,
    filters: FILTERS,
    collection: ctx.world.mas.userSessions,
    toResource: userSessionResource,
  })
}

export function getUserSession(ctx: Ctx): Reply {
  return getById(ctx, {
    site: `${SITE}::get:37`,
    queries: 1,
    kind: { noun: NOUN },
    collection: ctx.world.mas.userSessions,
    toResource: userSessionResource,
  })
}

export function finishUserSession(ctx: Ctx): Reply {
  return finishById(
    ctx,
    {
      site: `${SITE}::finish:42`,
      path: PATH,
      kind: { noun: NOUN, idWord: 'with ID' },
      collection: ctx.world.mas.userSessions,
      toResource: userSessionResource,
    },
    (s) => {
      ctx.world.mas.finishBrowserSession(s, nowMicros(ctx.now()))
      ctx.log.queries += 2
    },
  )
}

const TAG = 'user-session'

/** this family's rows of the admin route table */
export const USER_SESSION_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/user-sessions',
    handler: listUserSessions,
    doc: {
      operationId: 'listUserSessions',
      tag: TAG,
      summary: 'List user (browser) sessions',
      security: 'mas-admin',
      description: 'All browser sessions, including finished ones, oldest first, unless filter[status] is given.',
      query: 'admin/user-session#ListQuery',
      responses: {
        '200': { description: 'A page of browser sessions.', ref: 'admin/user-session#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
        '404': adminErr('The user of filter[user] does not exist.'),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/user-sessions/:id',
    handler: getUserSession,
    doc: {
      operationId: 'getUserSession',
      tag: TAG,
      summary: 'Get a user (browser) session',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The session.', ref: 'admin/user-session#Single' },
        '404': adminErr('The session does not exist.'),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/user-sessions/:id/finish',
    handler: finishUserSession,
    ...masGate('user-sessions-finish'),
    doc: {
      operationId: 'finishUserSession',
      tag: TAG,
      summary: 'Finish a user (browser) session',
      security: 'mas-admin',
      description: 'Sets finished_at. No request body.',
      responses: {
        '200': {
          description: 'The finished session; links.self is the requested path (ending in /finish).',
          ref: 'admin/user-session#Single',
        },
        '400': adminErr('The session is already finished.'),
        '404': adminErr('The session does not exist.'),
      },
    },
  },
]
