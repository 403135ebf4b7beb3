// The public OAuth 2.0 endpoints the deployment flow and the other suites use, with the service's
// error bodies (`{error, error_description}`, RFC 6749 codes, the service's default descriptions):
// - POST /oauth2/token: client_credentials only (no authorization grants exist in the mock);
//   scopes allowed by the default policy for that grant: openid, email, urn:mas:graphql:* and,
//   for admin clients (configured or in the latest policy data's admin_clients), urn:mas:admin;
//   a refused scope is 403 invalid_scope "scope 'x' not allowed". Tokens live 300 s.
// - POST /oauth2/registration: dynamic registration (201 {client_id, client_secret?, client_id_issued_at}).
// - POST /oauth2/introspect: RFC 7662; inactive tokens answer 200 {active:false}. The caller is a
//   confidential client, or the homeserver presenting the shared secret as a Bearer token (the
//   mock's hsDelegateClientSecret) — then the requester is `homeserver`, never the token's subject.
// - POST /oauth2/revoke: RFC 7009; ends the token's OAuth 2.0 session (device sync for user
//   sessions); unknown tokens still answer 200.
// Client authentication accepts client_secret_basic and client_secret_post for clients with a secret.
import type { Ctx, Reply } from '../core/context.ts'
import { randomBytes } from 'node:crypto'
import { normalizeScope, nowMicros, parseScope, type Client } from '../store/mas.ts'
import { ADMIN_SCOPE } from '../admin/framework/auth.ts'
import { JsonSyntaxError, parseJsonText, toValue } from '../admin/framework/body.ts'
import { scheduleDeviceSync } from '../admin/framework/jobs.ts'

export const ACCESS_TOKEN_TTL = 300

const DESCRIPTIONS: Record<string, string> = {
  invalid_request:
    'The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.',
  invalid_client: 'Client authentication failed.',
  invalid_grant: 'The provided access grant is invalid, expired, or revoked.',
  unauthorized_client: 'The client is not authorized to request an access token using this method.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  access_denied: 'The resource owner or authorization server denied the request.',
  invalid_redirect_uri: 'The value of one or more redirection URIs is invalid.',
  invalid_client_metadata: 'The value of one of the client metadata fields is invalid and the server has rejected this request.',
  unsupported_token_type: 'The authorization server does not support the revocation of the presented token type.',
}

function oauthError(status: number, error: string, description = DESCRIPTIONS[error] ?? ''): Reply {
  return { status, body: { error, error_description: description }, headers: { 'cache-control': 'no-store' } }
}

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
function authenticateClient(ctx: Ctx, form: URLSearchParams, allowHomeserver = false): ClientAuth {
  const header = ctx.headers.authorization
  let id = single(form, 'client_id')
  let secret = single(form, 'client_secret')
  if (id === 'repeated' || secret === 'repeated') return { ok: false, reply: oauthError(400, 'invalid_request') }
  if (header !== undefined) {
    const bearer = /^bearer (.+)$/i.exec(header)
    if (bearer) {
      const hsSecret = ctx.options.hsDelegateClientSecret
      if (allowHomeserver && hsSecret && bearer[1] === hsSecret) {
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
  if (client.secret === null ? secret !== undefined : secret !== client.secret) return { ok: false, reply: oauthError(401, 'invalid_client') }
  ctx.log.requester = { kind: 'oauth2-client', id: client.id }
  return { ok: true, client }
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
  if (grant === 'authorization_code' || grant === 'refresh_token' || grant === 'urn:ietf:params:oauth:grant-type:device_code') {
    // no such grant was ever issued by the mock
    return oauthError(400, 'invalid_grant')
  }
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

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'])
const AUTH_METHODS = new Set(['none', 'client_secret_basic', 'client_secret_post'])

export function register(ctx: Ctx): Reply {
  let meta: unknown
  try {
    meta = toValue(parseJsonText(ctx.body.toString('utf8')))
  } catch (e) {
    if (e instanceof JsonSyntaxError) return oauthError(400, 'invalid_request')
    throw e
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return oauthError(400, 'invalid_request')
  const m = meta as Record<string, unknown>
  const strings = (v: unknown): string[] | null => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : null)
  const grantTypes = m.grant_types === undefined ? ['authorization_code'] : strings(m.grant_types)
  if (!grantTypes || grantTypes.some((g) => !GRANT_TYPES.has(g))) return oauthError(400, 'invalid_client_metadata')
  const method = m.token_endpoint_auth_method === undefined ? 'client_secret_basic' : m.token_endpoint_auth_method
  if (typeof method !== 'string' || !AUTH_METHODS.has(method)) return oauthError(400, 'invalid_client_metadata')
  const redirectUris = m.redirect_uris === undefined ? [] : strings(m.redirect_uris)
  if (!redirectUris) return oauthError(400, 'invalid_client_metadata')
  for (const u of redirectUris) {
    try {
      new URL(u)
    } catch {
      return oauthError(400, 'invalid_redirect_uri')
    }
  }
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0) return oauthError(400, 'invalid_redirect_uri')
  const name = typeof m.client_name === 'string' ? m.client_name : null
  const at = nowMicros(ctx.now())
  const secret = method === 'none' ? null : randomBytes(24).toString('base64url')
  const client = ctx.world.mas.registerClient(
    { kind: 'dynamic', name, secret, authMethod: method as Client['authMethod'], grantTypes, redirectUris },
    at,
  )
  ctx.log.queries += 2
  const body: Record<string, unknown> = { client_id: client.id }
  if (secret !== null) body.client_secret = secret
  body.client_id_issued_at = Math.floor(at / 1_000_000)
  return { status: 201, body, headers: { 'cache-control': 'no-store' } }
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
  const t = store.lookupAccessToken(value)
  const ok: Reply = { status: 200 }
  if (!t || t.kind !== 'oauth2' || t.revokedAt !== null || (t.expiresAt !== null && t.expiresAt < nowUs)) return ok
  const session = store.oauth2.get(t.sessionId)
  if (!session || session.finishedAt !== null) return ok
  if (session.clientId !== auth.client.id) return oauthError(401, 'unauthorized_client')
  if (session.userId !== null) scheduleDeviceSync(ctx, session.userId, `oauth2-session ${session.id}/revoke`)
  store.finishOAuth2Session(session, nowUs)
  return ok
}
