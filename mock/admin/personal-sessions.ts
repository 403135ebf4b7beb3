// /api/admin/v1/personal-sessions: list (filters owner_user, owner_client, actor_user, scope,
// status, expires_before, expires_after, expires), create, get, revoke, regenerate.
// - create: 404 "User not found", 410 "User is not active" (deactivated actor), 400 "Invalid
//   scope"; the owner is the caller (its client, its user, or the actor of its personal token);
//   201 with `access_token`, the only answers that carry it besides regenerate;
// - revoke: 404, 409 already revoked; 200 with revoked_at set and expires_at null;
// - regenerate: 404 "Session not found", 422 "Session not valid" (revoked), 403 "Session does not
//   belong to you" (owner differs from the caller's), then the old token stops working.
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, bodyRejection, masGate, ADMIN_ERROR, type RouteEntry } from '../core/table.ts'
import { deviceOfScope, nowMicros, parseScope, type PersonalSession } from '../store/mas/index.ts'
import { authenticate, ownerOf } from './framework/auth.ts'
import { readJsonBody } from '../mas-http/body.ts'
import { checkClient, checkUser, CLIENT } from './framework/filters.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { PERSONAL_SESSION_STATUSES } from '../../lib/schemas.ts'
import { INVALID_LISTING, list, listFilters, listingDescription, twoStates } from './framework/listing.ts'
import { pathId } from '../mas-http/ulid.ts'
import { byId, found, notFoundTitle, USER, type Titled } from './framework/by-id.ts'
import { API, fmtTime, fmtTimeOrNull, resource, single } from './framework/resource.ts'
import { routeError } from '../mas-http/errors.ts'
import { getById } from './framework/session-handlers.ts'

const TYPE = 'personal-session'
const PATH = `${API}/personal-sessions`
const SITE = 'mas_handlers::admin::v1::personal_sessions'

// The handlers' titles, here once for the answers and the OpenAPI document.
/** get: the title leaves the id out */
const SESSION: Titled = { noun: 'Personal session', idInTitle: false }
/** revoke */
const REVOKED_SESSION: Titled = { noun: 'Personal session', idWord: 'with ID' }
/** regenerate: `Session not found` */
const OWN_SESSION: Titled = { noun: 'Session', idInTitle: false }
const ALREADY_REVOKED = (id: string) => `Personal session with ID ${id} is already revoked`
const ACTOR_NOT_FOUND = 'User not found'
const ACTOR_INACTIVE = 'User is not active'
const INVALID_SCOPE = 'Invalid scope'
const NOT_VALID = 'Session not valid'
const NOT_YOURS = 'Session does not belong to you'

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

/** `accessToken` only in the create and regenerate answers; otherwise the key is left out. */
export function personalAttributes(s: PersonalSession, accessToken?: string | null): Record<string, unknown> {
  const a: Record<string, unknown> = {
    created_at: fmtTime(s.createdAt),
    revoked_at: fmtTimeOrNull(s.revokedAt),
    owner_user_id: s.ownerUserId,
    owner_client_id: s.ownerClientId,
    actor_user_id: s.actorUserId,
    human_name: s.humanName,
    scope: s.scope,
    last_active_at: fmtTimeOrNull(s.lastActiveAt),
    last_active_ip: s.lastActiveIp,
    expires_at: s.revokedAt === null ? fmtTimeOrNull(s.tokenExpiresAt) : null,
  }
  if (accessToken !== undefined) a.access_token = accessToken
  return a
}

export function personalResource(ctx: Ctx, s: PersonalSession, accessToken?: string) {
  // The token value exists only in the answers to create and regenerate; the fault leaks a key into every answer.
  const token = accessToken ?? (ctx.faults.has('personal-access-token-in-get') ? null : undefined)
  return resource(TYPE, 'personal-sessions', s.id, personalAttributes(s, token))
}

export function listPersonalSessions(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:163`,
    path: PATH,
    filters: FILTERS,
    collection: ctx.world.mas.personal,
    toResource: (s) => personalResource(ctx, s),
  })
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
  if (!actor) return routeError(ctx, site, 404, ACTOR_NOT_FOUND)
  if (actor.deactivatedAt !== null) return routeError(ctx, site, 410, ACTOR_INACTIVE)
  const scope = parseScope(b.scope)
  if (!scope) return routeError(ctx, site, 400, INVALID_SCOPE)
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
    kind: SESSION,
    collection: ctx.world.mas.personal,
    toResource: (s) => personalResource(ctx, s),
  })
}

export function revokePersonalSession(ctx: Ctx): Reply {
  const site = `${SITE}::revoke:43`
  const store = ctx.world.mas
  const session = byId(ctx, site, { ...REVOKED_SESSION, get: (_ctx, id) => store.personal.get(id) })
  if (!session.ok) return session.reply
  const s = session.item
  if (s.revokedAt !== null) {
    if (ctx.faults.has('revoke-twice-200')) return single(200, personalResource(ctx, s))
    return routeError(ctx, site, 409, ALREADY_REVOKED(s.id))
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
  const session = found(ctx, site, { ...OWN_SESSION, get: (_ctx, sid) => store.personal.get(sid) }, id.id)
  if (!session.ok) return session.reply
  const s = session.item
  if (s.revokedAt !== null) return routeError(ctx, site, 422, NOT_VALID)
  const owner = ownerOf(auth.caller)
  if (owner.ownerUserId !== s.ownerUserId || owner.ownerClientId !== s.ownerClientId) return routeError(ctx, site, 403, NOT_YOURS)
  if (!s.hasActiveToken) return routeError(ctx, site, 422, NOT_VALID)
  const expiresIn = (body.value as { expires_in: number | null }).expires_in
  const token = store.regeneratePersonalSession(s, expiresIn, nowMicros(ctx.now()), ctx.faults.has('regenerate-keeps-old-token'))
  ctx.log.queries += 3
  return single(201, personalResource(ctx, s, token.value))
}

const TAG = 'personal-session'

/** this family's rows of the admin route table */
export const PERSONAL_SESSION_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/personal-sessions',
    handler: listPersonalSessions,
    ...masGate('personal-sessions'),
    doc: {
      operationId: 'listPersonalSessions',
      tag: TAG,
      summary: 'List personal sessions',
      security: 'mas-admin',
      description: listingDescription('sessions', 'revoked'),
      query: 'admin/personal-session#ListQuery',
      responses: {
        '200': { description: 'A page of personal sessions (never with access tokens).', ref: 'admin/personal-session#Page' },
        '400': adminErr(`Invalid pagination or filter parameters (${INVALID_LISTING}), or an invalid scope in filter[scope].`),
        '404': adminErr(
          `The user ('${notFoundTitle(USER, '<id>')}') or client ('${notFoundTitle(CLIENT, '<id>')}') named in a filter does not exist.`,
        ),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/personal-sessions',
    handler: createPersonalSession,
    ...masGate('personal-sessions'),
    doc: {
      operationId: 'createPersonalSession',
      tag: TAG,
      summary: 'Create a personal session and its personal access token',
      security: 'mas-admin',
      description: 'The owner is the caller: its user, or its client for a client credentials token.',
      body: { ref: 'admin/personal-session#CreateRequest' },
      responses: {
        '201': {
          description: 'The new session; data.attributes.access_token holds the token (returned only here and by regenerate).',
          ref: 'admin/personal-session#Created',
        },
        '400': adminErr(`The scope is empty or malformed: '${INVALID_SCOPE}'.`),
        '404': adminErr(`The actor user does not exist: '${ACTOR_NOT_FOUND}'.`),
        '410': adminErr(`The actor user is deactivated: '${ACTOR_INACTIVE}'.`),
        '415': bodyRejection(),
        '422': bodyRejection(),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/personal-sessions/:id',
    handler: getPersonalSession,
    ...masGate('personal-sessions'),
    doc: {
      operationId: 'getPersonalSession',
      tag: TAG,
      summary: 'Get a personal session',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The session (without access token).', ref: 'admin/personal-session#Single' },
        '404': adminErr(`The session does not exist: '${notFoundTitle(SESSION, '<id>')}'.`),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/personal-sessions/:id/revoke',
    handler: revokePersonalSession,
    ...masGate('personal-sessions'),
    doc: {
      operationId: 'revokePersonalSession',
      tag: TAG,
      summary: 'Revoke a personal session',
      security: 'mas-admin',
      description: 'Sets revoked_at on the session and its tokens; expires_at becomes null. No request body.',
      responses: {
        '200': { description: 'The revoked session.', ref: 'admin/personal-session#Single' },
        '404': adminErr(`The session does not exist: '${notFoundTitle(REVOKED_SESSION, '<id>')}'.`),
        '409': adminErr(`The session is already revoked: '${ALREADY_REVOKED('<id>')}'.`),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/personal-sessions/:id/regenerate',
    handler: regeneratePersonalSession,
    ...masGate('personal-sessions'),
    doc: {
      operationId: 'regeneratePersonalSession',
      tag: TAG,
      summary: 'Replace the access token of a personal session',
      security: 'mas-admin',
      description: 'Revokes the current token and issues a new one; the session id stays. A JSON body is required, {} at least.',
      body: { ref: 'admin/personal-session#RegenerateRequest' },
      responses: {
        '201': { description: 'The session with the new token in data.attributes.access_token.', ref: 'admin/personal-session#Created' },
        '403': adminErr(`The session belongs to another owner than the caller: '${NOT_YOURS}'.`),
        '404': adminErr(`The session does not exist: '${notFoundTitle(OWN_SESSION, '<id>')}'.`),
        '415': bodyRejection(),
        '422': { ...bodyRejection(` As JSON: the session is revoked or has no active token, '${NOT_VALID}'.`), ref: ADMIN_ERROR },
      },
    },
  },
]
