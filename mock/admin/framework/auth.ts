// The admin API's caller check (the service's CallContext), in the service's order:
// 1. `Authorization` header, Bearer scheme: missing → 400, unparsable → 400;
// 2. the token's format (prefix, lengths, checksum) → 401 "Invalid type of access token" [+ cause];
//    only OAuth 2.0 (`mat_`) and personal (`mpt_`) tokens may call the admin API;
// 3. lookup → 401 "Unknown access token"; finished/revoked session → "Access token revoked";
//    expired or replaced token → "Access token expired"; locked/deactivated user → "User locked";
// 4. the requester is recorded for the request log here, before
// 5. the scope check → 401 "Missing urn:mas:admin scope".
// Every rejection is logged first as a WARN line from `mas_handlers::admin::call_context:85`.
//
// Tokens configured by the user (--admin-token, --user-token) need not follow the format: a known
// token is looked up first, and the format rules apply only to unknown ones.
import type { Ctx, Reply } from '../../core/context.ts'
import {
  checkTokenFormat,
  MasStore,
  nowMicros,
  scopeHasToken,
  type OAuth2Session,
  type PersonalSession,
  type User,
} from '../../store/mas/index.ts'
import { routeError } from '../../mas-http/errors.ts'
import { ADMIN_SCOPE, bearerToken } from '../../mas-http/bearer.ts'

const SITE = 'mas_handlers::admin::call_context:85'

/** Who is calling: what personal-session ownership and the request log need. */
export type Caller =
  { kind: 'oauth2'; session: OAuth2Session; user: User | null } | { kind: 'personal'; session: PersonalSession; user: User }

export type AuthResult = { ok: true; caller: Caller } | { ok: false; reply: Reply }

const fail = (ctx: Ctx, status: number, ...titles: string[]): AuthResult => ({ ok: false, reply: routeError(ctx, SITE, status, ...titles) })

export function authenticate(ctx: Ctx): AuthResult {
  const got = bearerToken(ctx.headers.authorization)
  if ('error' in got) {
    if (got.error === 'missing') {
      if (ctx.faults.has('auth-missing-header-401')) return fail(ctx, 401, 'Missing authorization header')
      return fail(ctx, 400, 'Missing authorization header')
    }
    return fail(ctx, 400, 'Invalid authorization header')
  }
  const store = ctx.world.mas
  ctx.log.queries += 1
  const token = store.lookupAccessToken(got.token)
  if (!token) {
    const format = checkTokenFormat(got.token)
    if (!format.ok) return fail(ctx, 401, 'Invalid type of access token', format.error)
    if (format.type !== 'access' && format.type !== 'personal') return fail(ctx, 401, 'Invalid type of access token')
    return fail(ctx, 401, 'Unknown access token')
  }
  if (token.kind === 'compat') return fail(ctx, 401, 'Invalid type of access token')
  const now = nowMicros(ctx.now())
  const tokenValid = token.revokedAt === null && (token.expiresAt === null || token.expiresAt >= now)
  ctx.log.queries += 2
  let caller: Caller
  if (token.kind === 'oauth2') {
    const session = store.oauth2.get(token.sessionId)
    if (!session || session.finishedAt !== null) return fail(ctx, 401, 'Access token revoked')
    if (!tokenValid) return fail(ctx, 401, 'Access token expired')
    const user = session.userId === null ? null : (store.getUser(session.userId) ?? null)
    if (user && !MasStore.isUserActive(user)) return fail(ctx, 401, 'User locked')
    caller = { kind: 'oauth2', session, user }
    ctx.log.requester = user ? { kind: 'user', id: user.id, username: user.username } : { kind: 'oauth2-client', id: session.clientId }
  } else {
    const session = store.personal.get(token.sessionId)
    if (!session || session.revokedAt !== null) return fail(ctx, 401, 'Access token revoked')
    if (!tokenValid) return fail(ctx, 401, 'Access token expired')
    if (session.ownerUserId !== null) {
      const owner = store.getUser(session.ownerUserId)
      if (!owner || !MasStore.isUserActive(owner)) return fail(ctx, 401, 'User locked')
    }
    const actor = store.getUser(session.actorUserId)
    // A locked actor may still act; a deactivated one may not.
    if (!actor || actor.deactivatedAt !== null) return fail(ctx, 401, 'User locked')
    caller = { kind: 'personal', session, user: actor }
    ctx.log.requester = { kind: 'user', id: actor.id, username: actor.username }
  }
  if (!scopeHasToken(caller.session.scope, ADMIN_SCOPE) && !ctx.faults.has('auth-missing-scope-200')) {
    return fail(ctx, 401, 'Missing urn:mas:admin scope')
  }
  return { ok: true, caller }
}

/** The owner a personal session created by this caller gets (and must have to be regenerated). */
export function ownerOf(caller: Caller): { ownerUserId: string | null; ownerClientId: string | null } {
  if (caller.kind === 'personal') return { ownerUserId: caller.session.actorUserId, ownerClientId: null }
  if (caller.session.userId !== null) return { ownerUserId: caller.session.userId, ownerClientId: null }
  return { ownerUserId: null, ownerClientId: caller.session.clientId }
}
