// /api/admin/v1/oauth2-sessions: list (filters user, client (repeatable, any of), client-kind,
// user-session, scope (contains all), status, created-*, last-active-*), get, finish. Finishing
// schedules a device-sync job only when the session has a user (client-credentials ones have none).
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, masGate, type RouteEntry } from '../core/table.ts'
import { nowMicros, type OAuth2Session } from '../store/mas/index.ts'
import { checkClient, checkUser, checkUserSession, CLIENT, USER_SESSION } from './framework/filters.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { OAUTH2_CLIENT_KINDS, OAUTH2_SESSION_STATUSES } from '../../lib/schemas.ts'
import { INVALID_LISTING, list, listFilters, listingDescription, sessionStateFilters } from './framework/listing.ts'
import { API, fmtTime, fmtTimeOrNull, resource } from './framework/resource.ts'
import { notFoundTitle, USER, type Titled } from './framework/by-id.ts'
import { alreadyFinishedTitle, finishById, getById } from './framework/session-handlers.ts'

const TYPE = 'oauth2-session'
const PATH = `${API}/oauth2-sessions`
/** the get handler's 404 (`OAuth 2.0 session ID … not found`) and the finish handler's (`… with ID …`) */
const SESSION: Titled = { noun: 'OAuth 2.0 session' }
const FINISHED_SESSION: Titled = { noun: 'OAuth 2.0 session', idWord: 'with ID' }
const SITE = 'mas_handlers::admin::v1::oauth2_sessions'

// lookups in the handler's order: user, clients, browser session, then the scope
const FILTERS = listFilters<'user' | 'client' | 'clientKind' | 'userSession' | 'scope' | 'status', 'lastActive'>([
  { key: 'filter[user]', kind: 'ulid', index: 'user', exists: checkUser },
  // Repeatable (any of them) since v1.20.0; before, one client (a second value is a duplicate-field error).
  {
    key: 'filter[client]',
    kind: 'ulid[]',
    index: 'client',
    exists: checkClient,
    firstOnlyFault: 'filter-client-only-first',
    since: 'client-filter-repeatable',
  },
  { key: 'filter[client]', kind: 'ulid', index: 'client', exists: checkClient, until: 'client-filter-repeatable' },
  { key: 'filter[client-kind]', kind: 'enum', index: 'clientKind', values: OAUTH2_CLIENT_KINDS },
  { key: 'filter[user-session]', kind: 'ulid', index: 'userSession', exists: checkUserSession },
  { key: 'filter[scope]', kind: 'scope', index: 'scope' },
  ...sessionStateFilters(OAUTH2_SESSION_STATUSES),
])

export function oauth2Attributes(s: OAuth2Session): Record<string, unknown> {
  return {
    created_at: fmtTime(s.createdAt),
    finished_at: fmtTimeOrNull(s.finishedAt),
    user_id: s.userId,
    user_session_id: s.userSessionId,
    client_id: s.clientId,
    scope: s.scope,
    user_agent: s.userAgent,
    last_active_at: fmtTimeOrNull(s.lastActiveAt),
    last_active_ip: s.lastActiveIp,
    human_name: s.humanName,
  }
}

export const oauth2Resource = (s: OAuth2Session) => resource(TYPE, 'oauth2-sessions', s.id, oauth2Attributes(s))

export function listOAuth2Sessions(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:225`,
    path: PATH,
    filters: FILTERS,
    collection: ctx.world.mas.oauth2,
    toResource: oauth2Resource,
    itemOnly: true,
  })
}

export function getOAuth2Session(ctx: Ctx): Reply {
  return getById(ctx, { site: `${SITE}::get:38`, queries: 1, kind: SESSION, collection: ctx.world.mas.oauth2, toResource: oauth2Resource })
}

export function finishOAuth2Session(ctx: Ctx): Reply {
  return finishById(
    ctx,
    { site: `${SITE}::finish:42`, path: PATH, kind: FINISHED_SESSION, collection: ctx.world.mas.oauth2, toResource: oauth2Resource },
    (s) => {
      // client-credentials sessions have no user, hence no devices to sync
      if (s.userId !== null) scheduleDeviceSync(ctx, s.userId, `${TYPE} ${s.id}/finish`, `${SITE}::finish:104`)
      ctx.world.mas.finishOAuth2Session(s, nowMicros(ctx.now()))
      ctx.log.queries += 2
    },
  )
}

const TAG = 'oauth2-session'

/** this family's rows of the admin route table */
export const OAUTH2_SESSION_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/oauth2-sessions',
    handler: listOAuth2Sessions,
    doc: {
      operationId: 'listOAuth2Sessions',
      tag: TAG,
      summary: 'List OAuth 2.0 sessions',
      security: 'mas-admin',
      description: listingDescription('sessions', 'finished'),
      query: 'admin/oauth2-session#ListQuery',
      responses: {
        '200': { description: 'A page of OAuth 2.0 sessions.', ref: 'admin/oauth2-session#Page' },
        '400': adminErr(`Invalid pagination or filter parameters (${INVALID_LISTING}), or an invalid scope in filter[scope].`),
        '404': adminErr(
          `The user ('${notFoundTitle(USER, '<id>')}'), client ('${notFoundTitle(CLIENT, '<id>')}') or browser session ('${notFoundTitle(USER_SESSION, '<id>')}') named in a filter does not exist.`,
        ),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/oauth2-sessions/:id',
    handler: getOAuth2Session,
    doc: {
      operationId: 'getOAuth2Session',
      tag: TAG,
      summary: 'Get an OAuth 2.0 session',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The session.', ref: 'admin/oauth2-session#Single' },
        '404': adminErr(`The session does not exist: '${notFoundTitle(SESSION, '<id>')}'.`),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/oauth2-sessions/:id/finish',
    handler: finishOAuth2Session,
    ...masGate('session-finish'),
    doc: {
      operationId: 'finishOAuth2Session',
      tag: TAG,
      summary: 'Finish an OAuth 2.0 session',
      security: 'mas-admin',
      description: "Sets finished_at; when the session has a user, schedules a job that syncs that user's devices. No request body.",
      responses: {
        '200': {
          description: 'The finished session; links.self is the requested path (ending in /finish).',
          ref: 'admin/oauth2-session#Single',
        },
        '400': adminErr(`The session is already finished: '${alreadyFinishedTitle(FINISHED_SESSION.noun, '<id>')}'.`),
        '404': adminErr(`The session does not exist: '${notFoundTitle(FINISHED_SESSION, '<id>')}'.`),
      },
    },
  },
]
