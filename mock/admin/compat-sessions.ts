// /api/admin/v1/compat-sessions: list (filters user, user-session, status, created-*, last-active-*),
// get, finish. Finishing schedules a device-sync job for the session's user.
import type { Ctx, Reply } from '../core/context.ts'
import { nowMicros, type CompatSession } from '../store/mas/index.ts'
import { checkUser, checkUserSession } from './framework/filters.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { COMPAT_SESSION_STATUSES } from '../../lib/schemas.ts'
import { list, listFilters, sessionStateFilters } from './framework/listing.ts'
import { API, compatAttributes, resource } from './framework/resource.ts'
import { finishById, getById } from './framework/session-handlers.ts'

const TYPE = 'compat-session'
const PATH = `${API}/compat-sessions`
const NOUN = 'Compatibility session'
const SITE = 'mas_handlers::admin::v1::compat_sessions'

const FILTERS = listFilters<'user' | 'userSession' | 'status', 'lastActive'>([
  { key: 'filter[user]', kind: 'ulid', index: 'user', exists: checkUser },
  { key: 'filter[user-session]', kind: 'ulid', index: 'userSession', exists: checkUserSession },
  ...sessionStateFilters(COMPAT_SESSION_STATUSES),
])

export const compatResource = (s: CompatSession) => resource(TYPE, 'compat-sessions', s.id, compatAttributes(s))

export function listCompatSessions(ctx: Ctx): Reply {
  return list(ctx, { site: `${SITE}::list:168`, path: PATH, filters: FILTERS, collection: ctx.world.mas.compat, toResource: compatResource })
}

export function getCompatSession(ctx: Ctx): Reply {
  return getById(ctx, { site: `${SITE}::get:37`, queries: 2, noun: NOUN, collection: ctx.world.mas.compat, toResource: compatResource })
}

export function finishCompatSession(ctx: Ctx): Reply {
  return finishById(ctx, { site: `${SITE}::finish:42`, path: PATH, noun: NOUN, collection: ctx.world.mas.compat, toResource: compatResource }, (s) => {
    const now = nowMicros(ctx.now())
    scheduleDeviceSync(ctx, s.userId, `${TYPE} ${s.id}/finish`, `${SITE}::finish:103`)
    ctx.world.mas.finishCompatSession(s, now)
    ctx.log.queries += 3
  })
}
