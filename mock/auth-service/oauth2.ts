// The public OAuth 2.0 endpoints the deployment flow and the other suites use, with the service's
// error bodies (`{error, error_description}`, RFC 6749 codes, the service's default descriptions):
// - POST /oauth2/token: client_credentials here; authorization_code and refresh_token in
//   oidc/token-grants.ts. Scopes allowed by the default policy for client_credentials: openid, email, urn:mas:graphql:* and,
//   for admin clients (configured or in the latest policy data's admin_clients), urn:mas:admin;
//   a refused scope is 403 invalid_scope "scope 'x' not allowed". Tokens live 300 s.
// - POST /oauth2/registration: dynamic registration, in oidc/registration.ts.
// - POST /oauth2/introspect: RFC 7662; inactive tokens answer 200 {active:false}. The caller is a
//   confidential client, or the homeserver presenting the shared secret as a Bearer token (the
//   mock's homeserverSecret or hsDelegateClientSecret) — then the requester is `homeserver`, never
//   the token's subject.
// - POST /oauth2/revoke: RFC 7009; an access or refresh token ends its OAuth 2.0 session (device
//   sync for user sessions); unknown tokens still answer 200.
// Client authentication accepts client_secret_basic and client_secret_post for clients with a secret.
import { timingSafeEqual } from 'node:crypto'
import type { Ctx, Reply } from '../core/context.ts'
import { normalizeScope, nowMicros, parseScope, type Client } from '../store/mas/index.ts'
import { ADMIN_SCOPE } from '../mas-http/bearer.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { authorizationCodeGrant, refreshTokenGrant } from './oidc/token-grants.ts'
import { oidcState } from '../mas-http/oidc-state.ts'
import { oauthError } from './oidc/errors.ts'

export const ACCESS_TOKEN_TTL = 300

export { oauthError }

/** the form body, or null when it is not form-encoded */
function formOf(ctx: Ctx): URLSearchParams | null {
  const ct = (ctx.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (ct !== 'application/x-www-form-urlencoded') return null
  return new URLSearchParams(ctx.body.toString('utf8'))
}

function single(form: URLSearchParams, key: string): string | undefined | 'repeated' {
  const all = form.getAll(key)
  return all.length > 1 ? 'repeated' : all[0]
}

type ClientAuth = { ok: true; client: Client } | { ok: true; homeserver: true } | { ok: false; reply: Reply }

/**
 * Authenticates the calling client (Basic header or form fields). `allowHomeserver`: a Bearer token
 * equal to the homeserver's shared secret stands for the homeserver itself.
 */
export function authenticateClient(ctx: Ctx, form: URLSearchParams, allowHomeserver = false): ClientAuth {
  const header = ctx.headers.authorization
  let id = single(form, 'client_id')
  let secret = single(form, 'client_secret')
  if (id === 'repeated' || secret === 'repeated') return { ok: false, reply: oauthError(400, 'invalid_request') }
  if (header !== undefined) {
    const bearer = /^bearer (.+)$/i.exec(header)
    if (bearer) {
      if (allowHomeserver && isHomeserverSecret(ctx, bearer[1]!)) {
        ctx.log.requester = { kind: 'homeserver' }
        return { ok: true, homeserver: true }
      }
      return { ok: false, reply: oauthError(401, 'access_denied', 'The bearer token is not a valid homeserver secret') }
    }
    const basic = /^basic ([A-Za-z0-9+/=]+)$/i.exec(header)
    if (!basic) return { ok: false, reply: oauthError(400, 'invalid_request') }
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon === -1) return { ok: false, reply: oauthError(400, 'invalid_request') }
    let basicId: string
    let basicSecret: string
    try {
      basicId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '))
      basicSecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '))
    } catch {
      return { ok: false, reply: oauthError(400, 'invalid_request') }
    }
    // credentials in both places, or two different ids: malformed
    if (secret !== undefined || (id !== undefined && id !== basicId)) return { ok: false, reply: oauthError(400, 'invalid_request') }
    id = basicId
    secret = basicSecret
  }
  if (id === undefined) return { ok: false, reply: oauthError(401, 'invalid_client') }
  ctx.log.queries += 1
  const client = ctx.world.mas.getClient(id)
  if (!client) return { ok: false, reply: oauthError(401, 'invalid_client') }
  if (client.secret === null ? secret !== undefined : secret !== client.secret)
    return { ok: false, reply: oauthError(401, 'invalid_client') }
  ctx.log.requester = { kind: 'oauth2-client', id: client.id }
  return { ok: true, client }
}

/** The shared secret of the homeserver link (--homeserver-secret) or of the mock's own delegating homeserver role. */
function isHomeserverSecret(ctx: Ctx, given: string): boolean {
  const g = Buffer.from(given)
  return [ctx.options.homeserverSecret, ctx.options.hsDelegateClientSecret].some((s) => {
    if (!s) return false
    const b = Buffer.from(s)
    return b.length === g.length && timingSafeEqual(b, g)
  })
}

const CLIENT_CREDENTIALS_SCOPES = new Set(['openid', 'email', 'urn:mas:graphql:*'])

export function token(ctx: Ctx): Reply {
  const form = formOf(ctx)
  if (!form) return oauthError(400, 'invalid_request')
  const auth = authenticateClient(ctx, form)
  if (!auth.ok) return auth.reply
  if (!('client' in auth)) return oauthError(401, 'invalid_client')
  const client = auth.client
  const grant = single(form, 'grant_type')
  if (grant === undefined || grant === 'repeated') return oauthError(400, 'invalid_request')
  if (grant === 'authorization_code') return authorizationCodeGrant(ctx, client, form, oauthError, ACCESS_TOKEN_TTL)
  if (grant === 'refresh_token') return refreshTokenGrant(ctx, client, form, oauthError, ACCESS_TOKEN_TTL)
  // the device grant is not offered (not in the discovery document), as with it disabled
  if (grant === 'urn:ietf:params:oauth:grant-type:device_code') return oauthError(400, 'invalid_grant')
  if (grant !== 'client_credentials') return oauthError(400, 'unsupported_grant_type')
  if (!client.grantTypes.includes('client_credentials')) return oauthError(401, 'unauthorized_client')
  const rawScope = single(form, 'scope')
  if (rawScope === 'repeated') return oauthError(400, 'invalid_request')
  const scope = rawScope === undefined || rawScope === '' ? [] : parseScope(rawScope)
  if (!scope) return oauthError(400, 'invalid_request')
  const store = ctx.world.mas
  const admins = store.adminClients()
  const refused = scope.filter((s) => !(CLIENT_CREDENTIALS_SCOPES.has(s) || (s === ADMIN_SCOPE && admins.has(client.id))))
  if (refused.length) return oauthError(403, 'invalid_scope', refused.map((s) => `scope '${s}' not allowed`).join(', '))
  const ua = ctx.headers['user-agent']
  const { token: issued } = store.createOAuth2Session(
    { clientId: client.id, userId: null, scope: scope.join(' '), userAgent: typeof ua === 'string' ? ua : null },
    nowMicros(ctx.now()),
    ACCESS_TOKEN_TTL,
  )
  ctx.log.queries += 3
  const body: Record<string, unknown> = { access_token: issued.value, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL }
  if (scope.length) body.scope = scope.join(' ')
  return { status: 200, body, headers: { 'cache-control': 'no-store', pragma: 'no-cache' } }
}

export function introspect(ctx: Ctx): Reply {
  const form = formOf(ctx)
  if (!form) return oauthError(400, 'invalid_request')
  const auth = authenticateClient(ctx, form, true)
  if (!auth.ok) return auth.reply
  if ('client' in auth && auth.client.secret === null) return oauthError(401, 'access_denied')
  const value = single(form, 'token')
  if (value === undefined || value === 'repeated') return oauthError(400, 'invalid_request')
  const hint = single(form, 'token_type_hint')
  const inactive: Reply = { status: 200, body: { active: false } }
  if (hint !== undefined && hint !== 'access_token') return inactive
  const nowUs = nowMicros(ctx.now())
  ctx.log.queries += 3
  const info = ctx.world.mas.introspect(value, nowUs)
  if (!info.active) return inactive
  oidcState(ctx).markUsed(value)
  const explicitDevice = ctx.headers['x-mas-supports-device-id'] === '1'
  let scope = info.scope
  if (info.kind === 'compat' && explicitDevice) scope = normalizeScope(scope.split(' ').filter((s) => !s.includes(':device:'))).join(' ')
  const t = info.token
  const body: Record<string, unknown> = { active: true, scope }
  body.client_id = info.kind === 'compat' ? 'legacy' : info.clientId
  if (info.user) body.username = info.user.username
  body.token_type = 'access_token'
  if (t.expiresAt !== null) {
    body.exp = Math.floor(t.expiresAt / 1_000_000)
    body.expires_in = Math.floor((t.expiresAt - nowUs) / 1_000_000)
  }
  body.iat = Math.floor(t.createdAt / 1_000_000)
  body.nbf = body.iat
  if (info.user) body.sub = info.user.id
  if (info.kind === 'compat' && explicitDevice && info.deviceId !== null) body.device_id = info.deviceId
  if (body.client_id === null) delete body.client_id
  return { status: 200, body }
}

export function revoke(ctx: Ctx): Reply {
  const form = formOf(ctx)
  if (!form) return oauthError(400, 'invalid_request')
  const auth = authenticateClient(ctx, form)
  if (!auth.ok) return auth.reply
  if (!('client' in auth)) return oauthError(401, 'invalid_client')
  const value = single(form, 'token')
  if (value === undefined || value === 'repeated') return oauthError(400, 'invalid_request')
  const hint = single(form, 'token_type_hint')
  if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') return oauthError(400, 'unsupported_token_type')
  const store = ctx.world.mas
  const nowUs = nowMicros(ctx.now())
  ctx.log.queries += 2
  const ok: Reply = { status: 200 }
  let sessionId: string
  const refresh = hint !== 'access_token' ? store.lookupRefreshToken(value) : undefined
  if (refresh) {
    if (refresh.consumedAt !== null || refresh.revokedAt !== null) return ok
    sessionId = refresh.sessionId
  } else {
    const t = hint !== 'refresh_token' ? store.lookupAccessToken(value) : undefined
    if (!t || t.kind !== 'oauth2' || t.revokedAt !== null || (t.expiresAt !== null && t.expiresAt < nowUs)) return ok
    sessionId = t.sessionId
  }
  const session = store.oauth2.get(sessionId)
  if (!session || session.finishedAt !== null) return ok
  if (session.clientId !== auth.client.id) return oauthError(401, 'unauthorized_client')
  if (session.userId !== null) scheduleDeviceSync(ctx, session.userId, `oauth2-session ${session.id}/revoke`)
  store.finishOAuth2Session(session, nowUs)
  return ok
}
