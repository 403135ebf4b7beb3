// /api/admin/v1/compat-sessions: list (filters user, user-session, status, created-*, last-active-*),
// get, finish. Finishing schedules a device-sync job for the session's user. The family's route rows,
// serialiser and error titles are here; the titles are built once (notFoundTitle, alreadyFinishedTitle)
// for the answers and the OpenAPI document alike.
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, masGate, type RouteEntry } from '../core/table.ts'
import { nowMicros, type CompatSession } from '../store/mas/index.ts'
import { checkUser, checkUserSession, USER_SESSION } from './framework/filters.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { COMPAT_SESSION_STATUSES } from '../../lib/schemas.ts'
import { INVALID_LISTING, list, listFilters, listingDescription, sessionStateFilters } from './framework/listing.ts'
import { API, fmtTime, fmtTimeOrNull, resource } from './framework/resource.ts'
import { notFoundTitle, USER, type Titled } from './framework/by-id.ts'
import { alreadyFinishedTitle, finishById, getById } from './framework/session-handlers.ts'

const TYPE = 'compat-session'
const PATH = `${API}/compat-sessions`
const SITE = 'mas_handlers::admin::v1::compat_sessions'
/** the get handler's 404 (`Compatibility session ID … not found`) */
const SESSION: Titled = { noun: 'Compatibility session' }
/** the finish handler's 404 (`Compatibility session with ID … not found`) */
const FINISHED_SESSION: Titled = { noun: 'Compatibility session', idWord: 'with ID' }

const FILTERS = listFilters<'user' | 'userSession' | 'status', 'lastActive'>([
  { key: 'filter[user]', kind: 'ulid', index: 'user', exists: checkUser },
  { key: 'filter[user-session]', kind: 'ulid', index: 'userSession', exists: checkUserSession },
  ...sessionStateFilters(COMPAT_SESSION_STATUSES),
])

export function compatAttributes(s: CompatSession): Record<string, unknown> {
  return {
    user_id: s.userId,
    device_id: s.deviceId,
    user_session_id: s.userSessionId,
    redirect_uri: s.redirectUri,
    created_at: fmtTime(s.createdAt),
    user_agent: s.userAgent,
    last_active_at: fmtTimeOrNull(s.lastActiveAt),
    last_active_ip: s.lastActiveIp,
    finished_at: fmtTimeOrNull(s.finishedAt),
    human_name: s.humanName,
  }
}

export const compatResource = (s: CompatSession) => resource(TYPE, 'compat-sessions', s.id, compatAttributes(s))

export function listCompatSessions(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:168`,
    path: PATH,
    filters: FILTERS,
    collection: ctx.world.mas.compat,
    toResource: compatResource,
    itemOnly: true,
  })
}

export function getCompatSession(ctx: Ctx): Reply {
  return getById(ctx, { site: `${SITE}::get:37`, queries: 2, kind: SESSION, collection: ctx.world.mas.compat, toResource: compatResource })
}

export function finishCompatSession(ctx: Ctx): Reply {
  return finishById(
    ctx,
    { site: `${SITE}::finish:42`, path: PATH, kind: FINISHED_SESSION, collection: ctx.world.mas.compat, toResource: compatResource },
    (s) => {
      const now = nowMicros(ctx.now())
      scheduleDeviceSync(ctx, s.userId, `${TYPE} ${s.id}/finish`, `${SITE}::finish:103`)
      ctx.world.mas.finishCompatSession(s, now)
      ctx.log.queries += 3
    },
  )
}

const TAG = 'compat-session'

/** this family's rows of the admin route table */
export const COMPAT_SESSION_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/compat-sessions',
    handler: listCompatSessions,
    doc: {
      operationId: 'listCompatSessions',
      tag: TAG,
      summary: 'List compatibility sessions',
      security: 'mas-admin',
      description: listingDescription('sessions', 'finished'),
      query: 'admin/compat-session#ListQuery',
      responses: {
        '200': { description: 'A page of compatibility sessions.', ref: 'admin/compat-session#Page' },
        '400': adminErr(`Invalid pagination or filter parameters: ${INVALID_LISTING}.`),
        '404': adminErr(
          `The user of filter[user] ('${notFoundTitle(USER, '<id>')}') or the browser session of filter[user-session] ('${notFoundTitle(USER_SESSION, '<id>')}') does not exist.`,
        ),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/compat-sessions/:id',
    handler: getCompatSession,
    doc: {
      operationId: 'getCompatSession',
      tag: TAG,
      summary: 'Get a compatibility session',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The session.', ref: 'admin/compat-session#Single' },
        '404': adminErr(`The session does not exist: '${notFoundTitle(SESSION, '<id>')}'.`),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/compat-sessions/:id/finish',
    handler: finishCompatSession,
    ...masGate('session-finish'),
    doc: {
      operationId: 'finishCompatSession',
      tag: TAG,
      summary: 'Finish a compatibility session',
      security: 'mas-admin',
      description: "Sets finished_at and schedules a job that syncs the user's devices with the homeserver. No request body.",
      responses: {
        '200': {
          description: 'The finished session; links.self is the requested path (ending in /finish).',
          ref: 'admin/compat-session#Single',
        },
        '400': adminErr(`The session is already finished: '${alreadyFinishedTitle(FINISHED_SESSION.noun, '<id>')}'.`),
        '404': adminErr(`The session does not exist: '${notFoundTitle(FINISHED_SESSION, '<id>')}'.`),
      },
    },
  },
]
