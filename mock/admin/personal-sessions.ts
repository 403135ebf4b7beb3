// /api/admin/v1/personal-sessions: list (filters owner_user, owner_client, actor_user, scope,
// status, expires_before, expires_after, expires), create, get, revoke, regenerate.
// - create: 404 "User not found", 410 "User is not active" (deactivated actor), 400 "Invalid
//   scope"; the owner is the caller (its client, its user, or the actor of its personal token);
//   201 with `access_token`, the only answers that carry it besides regenerate;
// - revoke: 404, 409 already revoked; 200 with revoked_at set and expires_at null;
// - regenerate: 404 "Session not found", 422 "Session not valid" (revoked), 403 "Session does not
//   belong to you" (owner differs from the caller's), then the old token stops working.
import type { Ctx, Reply } from '../core/context.ts'
import { deviceOfScope, nowMicros, parseScope, type PersonalSession } from '../store/mas/index.ts'
import { authenticate, ownerOf } from './framework/auth.ts'
import { readJsonBody } from '../mas-http/body.ts'
import { checkClient, checkUser } from './framework/filters.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { PERSONAL_SESSION_STATUSES } from '../../lib/schemas.ts'
import { list, listFilters, twoStates } from './framework/listing.ts'
import { pathId } from './framework/pagination.ts'
import { byId, found } from './framework/by-id.ts'
import { API, fmtTime, personalAttributes, resource, single } from './framework/resource.ts'
import { routeError } from '../mas-http/errors.ts'
import { getById } from './framework/session-handlers.ts'

const TYPE = 'personal-session'
const PATH = `${API}/personal-sessions`
const SITE = 'mas_handlers::admin::v1::personal_sessions'

const FILTERS = listFilters<'ownerUser' | 'ownerClient' | 'actor' | 'scope' | 'status' | 'expires', 'expiresAt'>([
  { key: 'filter[owner_user]', kind: 'ulid', index: 'ownerUser', exists: checkUser },
  { key: 'filter[owner_client]', kind: 'ulid', index: 'ownerClient', exists: checkClient },
  { key: 'filter[actor_user]', kind: 'ulid', index: 'actor', exists: checkUser },
  { key: 'filter[scope]', kind: 'scope', index: 'scope' },
  { key: 'filter[status]', kind: 'status', index: 'status', values: twoStates(PERSONAL_SESSION_STATUSES) },
  { key: 'filter[expires_before]', kind: 'range', range: 'expiresAt', bound: 'before' },
  { key: 'filter[expires_after]', kind: 'range', range: 'expiresAt', bound: 'after' },
  { key: 'filter[expires]', kind: 'bool', index: 'expires' },
])

export function personalResource(ctx: Ctx, s: PersonalSession, accessToken?: string) {
  // The token value exists only in the answers to create and regenerate; the fault leaks a key into every answer.
  const token = accessToken ?? (ctx.faults.has('personal-access-token-in-get') ? null : undefined)
  return resource(TYPE, 'personal-sessions', s.id, personalAttributes(s, token))
}

export function listPersonalSessions(ctx: Ctx): Reply {
  return list(ctx, { site: `${SITE}::list:163`, path: PATH, filters: FILTERS, collection: ctx.world.mas.personal, toResource: (s) => personalResource(ctx, s) })
}

const CREATE = {
  name: 'CreatePersonalSessionRequest',
  fields: [
    ['actor_user_id', 'ulid'],
    ['human_name', 'string'],
    ['scope', 'string'],
    ['expires_in', 'u32?'],
  ],
} as const

export function createPersonalSession(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const body = readJsonBody(ctx, CREATE)
  if (!body.ok) return body.reply
  const site = `${SITE}::add:53`
  const b = body.value as { actor_user_id: string; human_name: string; scope: string; expires_in: number | null }
  const store = ctx.world.mas
  ctx.log.queries += 1
  const actor = store.getUser(b.actor_user_id)
  if (!actor) return routeError(ctx, site, 404, 'User not found')
  if (actor.deactivatedAt !== null) return routeError(ctx, site, 410, 'User is not active')
  const scope = parseScope(b.scope)
  if (!scope) return routeError(ctx, site, 400, 'Invalid scope')
  const { session, token } = store.createPersonalSession(
    { ...ownerOf(auth.caller), actorUserId: actor.id, humanName: b.human_name, scope: scope.join(' '), expiresIn: b.expires_in },
    nowMicros(ctx.now()),
  )
  ctx.log.queries += 3
  return single(201, personalResource(ctx, session, token.value))
}

export function getPersonalSession(ctx: Ctx): Reply {
  return getById(ctx, {
    site: `${SITE}::get:37`,
    queries: 2,
    noun: 'Personal session',
    idInTitle: false, // the service's title leaves the id out
    collection: ctx.world.mas.personal,
    toResource: (s) => personalResource(ctx, s),
  })
}

export function revokePersonalSession(ctx: Ctx): Reply {
  const site = `${SITE}::revoke:43`
  const store = ctx.world.mas
  const session = byId(ctx, site, { noun: 'Personal session', idWord: 'with ID', get: (_ctx, id) => store.personal.get(id) })
  if (!session.ok) return session.reply
  const s = session.item
  if (s.revokedAt !== null) {
    if (ctx.faults.has('revoke-twice-200')) return single(200, personalResource(ctx, s))
    return routeError(ctx, site, 409, `Personal session with ID ${s.id} is already revoked`)
  }
  const now = nowMicros(ctx.now())
  // A device-bound session's device goes away: the devices of the actor are synced.
  if (deviceOfScope(s.scope) !== null) scheduleDeviceSync(ctx, s.actorUserId, `${TYPE} ${s.id}/revoke`)
  const previousExpiry = s.tokenExpiresAt
  store.revokePersonalSession(s, now)
  ctx.log.queries += 2
  const r = personalResource(ctx, s)
  // the bug: the answer still shows the revoked token's expiry
  if (ctx.faults.has('personal-revoke-keeps-expires') && previousExpiry !== null) r.attributes.expires_at = fmtTime(previousExpiry)
  return single(200, r)
}

const REGENERATE = { name: 'RegeneratePersonalSessionRequest', fields: [['expires_in', 'u32?']] } as const

export function regeneratePersonalSession(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  const body = readJsonBody(ctx, REGENERATE)
  if (!body.ok) return body.reply
  const site = `${SITE}::regenerate:52`
  const store = ctx.world.mas
  const session = found(ctx, site, { noun: 'Session', idInTitle: false, get: (_ctx, sid) => store.personal.get(sid) }, id.id)
  if (!session.ok) return session.reply
  const s = session.item
  if (s.revokedAt !== null) return routeError(ctx, site, 422, 'Session not valid')
  const owner = ownerOf(auth.caller)
  if (owner.ownerUserId !== s.ownerUserId || owner.ownerClientId !== s.ownerClientId) return routeError(ctx, site, 403, 'Session does not belong to you')
  if (!s.hasActiveToken) return routeError(ctx, site, 422, 'Session not valid')
  const expiresIn = (body.value as { expires_in: number | null }).expires_in
  const token = store.regeneratePersonalSession(s, expiresIn, nowMicros(ctx.now()), ctx.faults.has('regenerate-keeps-old-token'))
  ctx.log.queries += 3
  return single(201, personalResource(ctx, s, token.value))
}
