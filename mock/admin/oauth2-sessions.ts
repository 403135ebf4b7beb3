// /api/admin/v1/oauth2-sessions: list (filters user, client (repeatable, any of), client-kind,
// user-session, scope (contains all), status, created-*, last-active-*), get, finish. Finishing
// schedules a device-sync job only when the session has a user (client-credentials ones have none).
import type { Ctx, Reply } from '../core/context.ts'
import { nowMicros, type OAuth2Session } from '../store/mas/index.ts'
import { checkClient, checkUser, checkUserSession } from './framework/filters.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { OAUTH2_CLIENT_KINDS, OAUTH2_SESSION_STATUSES } from '../../lib/schemas.ts'
import { list, listFilters, sessionStateFilters } from './framework/listing.ts'
import { API, oauth2Attributes, resource } from './framework/resource.ts'
import { finishById, getById } from './framework/session-handlers.ts'

const TYPE = 'oauth2-session'
const PATH = `${API}/oauth2-sessions`
const NOUN = 'OAuth 2.0 session'
const SITE = 'mas_handlers::admin::v1::oauth2_sessions'

// lookups in the handler's order: user, clients, browser session, then the scope
const FILTERS = listFilters<'user' | 'client' | 'clientKind' | 'userSession' | 'scope' | 'status', 'lastActive'>([
  { key: 'filter[user]', kind: 'ulid', index: 'user', exists: checkUser },
  // Repeatable (any of them) since v1.20.0; before, one client (a second value is a duplicate-field error).
  { key: 'filter[client]', kind: 'ulid[]', index: 'client', exists: checkClient, firstOnlyFault: 'filter-client-only-first', since: 'client-filter-repeatable' },
  { key: 'filter[client]', kind: 'ulid', index: 'client', exists: checkClient, until: 'client-filter-repeatable' },
  { key: 'filter[client-kind]', kind: 'enum', index: 'clientKind', values: OAUTH2_CLIENT_KINDS },
  { key: 'filter[user-session]', kind: 'ulid', index: 'userSession', exists: checkUserSession },
  { key: 'filter[scope]', kind: 'scope', index: 'scope' },
  ...sessionStateFilters(OAUTH2_SESSION_STATUSES),
])

export const oauth2Resource = (s: OAuth2Session) => resource(TYPE, 'oauth2-sessions', s.id, oauth2Attributes(s))

export function listOAuth2Sessions(ctx: Ctx): Reply {
  return list(ctx, { site: `${SITE}::list:225`, path: PATH, filters: FILTERS, collection: ctx.world.mas.oauth2, toResource: oauth2Resource })
}

export function getOAuth2Session(ctx: Ctx): Reply {
  return getById(ctx, { site: `${SITE}::get:38`, queries: 1, noun: NOUN, collection: ctx.world.mas.oauth2, toResource: oauth2Resource })
}

export function finishOAuth2Session(ctx: Ctx): Reply {
  return finishById(ctx, { site: `${SITE}::finish:42`, path: PATH, noun: NOUN, collection: ctx.world.mas.oauth2, toResource: oauth2Resource }, (s) => {
    // client-credentials sessions have no user, hence no devices to sync
    if (s.userId !== null) scheduleDeviceSync(ctx, s.userId, `${TYPE} ${s.id}/finish`, `${SITE}::finish:104`)
    ctx.world.mas.finishOAuth2Session(s, nowMicros(ctx.now()))
    ctx.log.queries += 2
  })
}
