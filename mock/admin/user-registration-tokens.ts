// /api/admin/v1/user-registration-tokens: list (filters used, revoked, expired, valid), add, get,
// update (PUT), revoke, unrevoke.
// - valid = under the usage limit, not revoked and not expired; expired = expires_at < now (the
//   `valid` attribute is computed at the time of the answer);
// - add: the token text defaults to 12 random alphanumerics; the same text again → 409 `A
//   registration token with the same token already exists`;
// - update: expires_at / usage_limit each absent (kept), null (cleared) or a value;
// - revoke 400 `… is already revoked`, unrevoke 400 `… is not revoked`; links.self is the action path;
// - 404 `Registration token with ID … not found`. The resource type has an underscore:
//   `user-registration_token` (the service's spelling).
import { randomInt } from 'node:crypto'
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, bodyRejection, masGate, type RouteEntry } from '../core/table.ts'
import { nowMicros, type Micros } from '../store/mas/index.ts'
import { tokenValid, type RegistrationToken, type TokenChanges } from '../store/mas/extra.ts'
import { authenticate } from './framework/auth.ts'
import { readJsonBody } from '../mas-http/body.ts'
import { list, listFilters } from './framework/listing.ts'
import { byId, found, pathTarget, type Kind } from './framework/by-id.ts'
import { parseDateTime } from './framework/query.ts'
import { API, fmtTime, resource, single } from './framework/resource.ts'
import { routeError } from '../mas-http/errors.ts'

const SITE = 'mas_handlers::admin::v1::user_registration_tokens'
const PATH = `${API}/user-registration-tokens`
const t = (us: Micros | null) => (us === null ? null : fmtTime(us))

export function tokenResource(x: RegistrationToken, now: Micros) {
  return resource('user-registration_token', 'user-registration-tokens', x.id, {
    token: x.token,
    valid: tokenValid(x, now),
    usage_limit: x.usageLimit,
    times_used: x.timesUsed,
    created_at: fmtTime(x.createdAt),
    last_used_at: t(x.lastUsedAt),
    expires_at: t(x.expiresAt),
    revoked_at: t(x.revokedAt),
  })
}

/** whether a token is in each listed state, at the time of the answer */
const used = () => (x: RegistrationToken) => x.timesUsed > 0
const revoked = () => (x: RegistrationToken) => x.revokedAt !== null
const expired = (ctx: Ctx) => {
  const now = nowMicros(ctx.now())
  // the bug: a token expiring at any time counts as expired
  const anyExpiry = ctx.faults.has('registration-tokens-expiry-ignores-time')
  return (x: RegistrationToken) => x.expiresAt !== null && (x.expiresAt < now || anyExpiry)
}
const valid = (ctx: Ctx) => {
  const now = nowMicros(ctx.now())
  return (x: RegistrationToken) => tokenValid(x, now)
}

const FILTERS = listFilters([
  { key: 'filter[used]', kind: 'holds', holds: used },
  { key: 'filter[revoked]', kind: 'holds', holds: revoked },
  { key: 'filter[expired]', kind: 'holds', holds: expired },
  { key: 'filter[valid]', kind: 'holds', holds: valid },
])

export function listTokens(ctx: Ctx): Reply {
  const now = nowMicros(ctx.now())
  return list(ctx, {
    site: `${SITE}::list:160`,
    path: PATH,
    filters: FILTERS,
    collection: ctx.world.mas.extra.tokens,
    toResource: (x) => tokenResource(x, now),
  })
}

/** a date of a JSON body, or the body parser's 422 */
function bodyDate(field: string, value: unknown): { ok: true; micros: Micros | null } | { ok: false; reply: Reply } {
  if (value === null || value === undefined) return { ok: true, micros: null }
  const d = parseDateTime(String(value))
  if (d.ok) return { ok: true, micros: d.value.micros }
  return {
    ok: false,
    reply: {
      status: 422,
      body: `Failed to deserialize the JSON body into the target type: ${field}: ${d.error}`,
      contentType: 'text/plain; charset=utf-8',
    },
  }
}

const ADD = {
  name: 'AddUserRegistrationTokenRequest',
  fields: [
    ['token', 'string?'],
    ['usage_limit', 'u32?'],
    ['expires_at', 'string?'],
  ],
} as const

export function addToken(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const body = readJsonBody(ctx, ADD)
  if (!body.ok) return body.reply
  const b = body.value as { token: string | null; usage_limit: number | null; expires_at: string | null }
  const expires = bodyDate('expires_at', b.expires_at)
  if (!expires.ok) return expires.reply
  const text =
    b.token ?? Array.from({ length: 12 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[randomInt(62)]).join('')
  const x = ctx.world.mas.extra
  ctx.log.queries += 1
  if (x.tokens.bucketSize('token', text) > 0)
    return routeError(ctx, `${SITE}::add:70`, 409, 'A registration token with the same token already exists')
  const now = nowMicros(ctx.now())
  const created = x.addToken(text, b.usage_limit, expires.micros, now)
  ctx.log.queries += 1
  return single(201, tokenResource(created, now))
}

const TOKEN: Kind<RegistrationToken> = {
  noun: 'Registration token',
  idWord: 'with ID',
  get: (ctx, id) => ctx.world.mas.extra.tokens.get(id),
}

export function getToken(ctx: Ctx): Reply {
  const x = byId(ctx, `${SITE}::get:40`, TOKEN)
  return x.ok ? single(200, tokenResource(x.item, nowMicros(ctx.now()))) : x.reply
}

const UPDATE = {
  name: 'EditUserRegistrationTokenRequest',
  fields: [
    ['expires_at', 'string?'],
    ['usage_limit', 'u32?'],
  ],
} as const

export function updateToken(ctx: Ctx): Reply {
  const id = pathTarget(ctx)
  if (!id.ok) return id.reply
  const body = readJsonBody(ctx, UPDATE)
  if (!body.ok) return body.reply
  // absent keeps the value, null clears it: the parsed struct cannot tell them apart, the raw object can
  const raw = JSON.parse(ctx.body.toString('utf8')) as Record<string, unknown>
  const expires = bodyDate('expires_at', body.value.expires_at)
  if (!expires.ok) return expires.reply
  const x = found(ctx, `${SITE}::update:80`, TOKEN, id.id)
  if (!x.ok) return x.reply
  const changes: TokenChanges = {}
  if (Object.hasOwn(raw, 'expires_at')) changes.expiresAt = expires.micros
  if (Object.hasOwn(raw, 'usage_limit') && !ctx.faults.has('registration-tokens-update-ignores-limit'))
    changes.usageLimit = body.value.usage_limit as number | null
  ctx.world.mas.extra.changeToken(x.item, changes)
  ctx.log.queries += 2
  return single(200, tokenResource(x.item, nowMicros(ctx.now())))
}

function revokeAction(ctx: Ctx, revoke: boolean): Reply {
  const action = revoke ? 'revoke' : 'unrevoke'
  const site = `${SITE}::${action}:50`
  const x = byId(ctx, site, TOKEN)
  if (!x.ok) return x.reply
  const tok = x.item
  if (revoke && tok.revokedAt !== null) return routeError(ctx, site, 400, `Registration token with ID ${tok.id} is already revoked`)
  if (!revoke && tok.revokedAt === null && !ctx.faults.has('registration-tokens-unrevoke-unrevoked-200'))
    return routeError(ctx, site, 400, `Registration token with ID ${tok.id} is not revoked`)
  const now = nowMicros(ctx.now())
  ctx.world.mas.extra.changeToken(tok, { revokedAt: revoke ? now : null })
  ctx.log.queries += 2
  return single(200, tokenResource(tok, now), `${PATH}/${tok.id}/${action}`)
}

export const revokeToken = (ctx: Ctx) => revokeAction(ctx, true)
export const unrevokeToken = (ctx: Ctx) => revokeAction(ctx, false)

const TAG = 'user-registration-token'
const NOT_FOUND = adminErr('The token does not exist.')
const gate = masGate('user-registration-tokens')
const single200 = (description: string) => ({ description, ref: 'admin/user-registration-token#Single' })

export const REGISTRATION_TOKEN_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/user-registration-tokens',
    handler: listTokens,
    ...gate,
    doc: {
      operationId: 'listUserRegistrationTokens',
      tag: TAG,
      summary: 'List user registration tokens',
      security: 'mas-admin',
      description: 'All tokens, oldest first. valid: under the usage limit, not revoked, not expired; expired: expires_at before now.',
      query: 'admin/user-registration-token#ListQuery',
      responses: {
        '200': { description: 'A page of tokens.', ref: 'admin/user-registration-token#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/user-registration-tokens',
    handler: addToken,
    ...gate,
    doc: {
      operationId: 'addUserRegistrationToken',
      tag: TAG,
      summary: 'Create a user registration token',
      security: 'mas-admin',
      description: 'Without token, 12 random alphanumerics are used.',
      body: { ref: 'admin/user-registration-token#AddRequest' },
      responses: {
        '201': single200('The new token.'),
        '409': adminErr('A token with the same text exists.'),
        '415': bodyRejection(),
        '422': bodyRejection(),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/user-registration-tokens/:id',
    handler: getToken,
    ...gate,
    doc: {
      operationId: 'getUserRegistrationToken',
      tag: TAG,
      summary: 'Get a user registration token',
      security: 'mas-admin',
      responses: { '200': single200('The token.'), '404': NOT_FOUND },
    },
  },
  {
    method: 'PUT',
    pattern: '/user-registration-tokens/:id',
    handler: updateToken,
    ...gate,
    doc: {
      operationId: 'updateUserRegistrationToken',
      tag: TAG,
      summary: 'Update the expiry or usage limit of a token',
      security: 'mas-admin',
      description: 'Each field: absent keeps it, null clears it, a value sets it.',
      body: { ref: 'admin/user-registration-token#UpdateRequest' },
      responses: { '200': single200('The token after the update.'), '404': NOT_FOUND, '415': bodyRejection(), '422': bodyRejection() },
    },
  },
  {
    method: 'POST',
    pattern: '/user-registration-tokens/:id/revoke',
    handler: revokeToken,
    ...gate,
    doc: {
      operationId: 'revokeUserRegistrationToken',
      tag: TAG,
      summary: 'Revoke a token',
      security: 'mas-admin',
      responses: {
        '200': single200('The revoked token; links.self ends in /revoke.'),
        '400': adminErr('The token is already revoked.'),
        '404': NOT_FOUND,
      },
    },
  },
  {
    method: 'POST',
    pattern: '/user-registration-tokens/:id/unrevoke',
    handler: unrevokeToken,
    ...gate,
    doc: {
      operationId: 'unrevokeUserRegistrationToken',
      tag: TAG,
      summary: 'Unrevoke a token',
      security: 'mas-admin',
      responses: {
        '200': single200('The token, no longer revoked; links.self ends in /unrevoke.'),
        '400': adminErr('The token is not revoked.'),
        '404': NOT_FOUND,
      },
    },
  },
]
