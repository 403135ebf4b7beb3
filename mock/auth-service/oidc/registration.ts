// Dynamic client registration (POST /oauth2/registration, RFC 7591) as the service answers it (v1.22):
// - a body that is not JSON (or not sent as JSON): 400 invalid_request; a field of the wrong type:
//   400 invalid_client_metadata naming it;
// - the metadata checks: redirect_uris missing for the authorization_code (or implicit) grant, or one
//   with a fragment: 400 invalid_redirect_uri; a response type the grant types cannot give: 400
//   invalid_client_metadata "'<type>' response type not compatible with grant types";
// - the default policy (oidc/policy.ts): https client_uri required, redirect URIs on its host (or, for
//   application_type native, http on a loopback host or a reverse-DNS custom scheme), no
//   client_credentials for a public client; violations joined by "; ", invalid_redirect_uri when one
//   names a redirect_uri, else invalid_client_metadata;
// - 201 with client_id, client_secret (client_secret_basic / client_secret_post only: 20
//   alphanumerics), client_id_issued_at and the metadata as stored. A public client registered twice
//   with the same metadata gets the same client_id back. The device-code grant is dropped (the mock
//   does not offer it). Without token_endpoint_auth_method the client is public (the service would
//   store none and refuse it at the token endpoint; the mock lets it use none).
import { createHash, randomBytes } from 'node:crypto'
import type { Ctx, Reply } from '../../core/context.ts'
import { nowMicros, type Client } from '../../store/mas/index.ts'
import { JsonSyntaxError, parseJsonText, toValue } from '../../mas-http/body.ts'
import { registrationViolations } from './policy.ts'
import type { OAuthError } from './token-grants.ts'

const GRANT_TYPES = new Set([
  'authorization_code',
  'implicit',
  'refresh_token',
  'client_credentials',
  'password',
  'urn:ietf:params:oauth:grant-type:device_code',
])
const AUTH_METHODS = new Set(['none', 'client_secret_basic', 'client_secret_post'])
const STRING_FIELDS = [
  'client_name',
  'client_uri',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'application_type',
  'token_endpoint_auth_method',
  'initiate_login_uri',
] as const
/** the stored metadata the answer echoes, in the service's order */
const ECHOED = [
  'redirect_uris',
  'grant_types',
  'application_type',
  'client_name',
  'logo_uri',
  'client_uri',
  'policy_uri',
  'tos_uri',
  'token_endpoint_auth_method',
] as const

const digests = new WeakMap<object, Map<string, string>>()
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** The metadata, or the error answer for a field of the wrong type. */
function typed(m: Record<string, unknown>, err: OAuthError): Reply | null {
  for (const f of STRING_FIELDS)
    if (m[f] !== undefined && typeof m[f] !== 'string') return err(400, 'invalid_client_metadata', `${f}: invalid type: expected a string`)
  for (const f of ['redirect_uris', 'grant_types', 'response_types'] as const) {
    const v = m[f]
    if (v !== undefined && !(Array.isArray(v) && v.every((s) => typeof s === 'string')))
      return err(400, 'invalid_client_metadata', `${f}: invalid type: expected a sequence of strings`)
  }
  if (m.application_type !== undefined && m.application_type !== 'web' && m.application_type !== 'native')
    return err(400, 'invalid_client_metadata', 'application_type: unknown variant')
  if (m.token_endpoint_auth_method !== undefined && !AUTH_METHODS.has(m.token_endpoint_auth_method as string)) {
    return err(400, 'invalid_client_metadata', `token_endpoint_auth_method: the mock supports ${[...AUTH_METHODS].join(', ')}`)
  }
  const grants = (m.grant_types as string[] | undefined) ?? []
  if (grants.some((g) => !GRANT_TYPES.has(g))) return err(400, 'invalid_client_metadata', 'grant_types: unknown grant type')
  for (const u of [
    ...((m.redirect_uris as string[] | undefined) ?? []),
    ...(['client_uri', 'logo_uri', 'policy_uri', 'tos_uri'] as const).map((f) => m[f]).filter((v) => v !== undefined),
  ]) {
    try {
      new URL(u as string)
    } catch {
      return err(400, 'invalid_client_metadata', `relative URL without a base: ${String(u)}`)
    }
  }
  return null
}

/** The checks of the metadata itself (before the policy). */
function verify(m: Record<string, unknown>, err: OAuthError): Reply | null {
  const grants = (m.grant_types as string[] | undefined) ?? ['authorization_code']
  const implicit = grants.includes('implicit')
  const code = grants.includes('authorization_code')
  const redirects = m.redirect_uris as string[] | undefined
  if (redirects === undefined ? code || implicit : redirects.some((u) => new URL(u).hash !== '' || u.endsWith('#')))
    return err(400, 'invalid_redirect_uri')
  const types = (m.response_types as string[] | undefined) ?? (code || implicit ? ['code'] : [])
  for (const t of types) {
    const parts = t.split(' ')
    const hasCode = parts.includes('code')
    const hasId = parts.includes('id_token')
    const hasToken = parts.includes('token')
    const ok = (hasCode && code && implicit) || (!hasCode && implicit) || (code && !hasId && !hasToken) || (!hasCode && !hasId && !hasToken)
    if (!ok) return err(400, 'invalid_client_metadata', `'${t}' response type not compatible with grant types`)
  }
  return null
}

export function register(ctx: Ctx, err: OAuthError): Reply {
  const ct = (ctx.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (ct !== 'application/json' && !ct.endsWith('+json')) return err(400, 'invalid_request')
  let meta: unknown
  try {
    meta = toValue(parseJsonText(ctx.body.toString('utf8')))
  } catch (e) {
    if (e instanceof JsonSyntaxError) return err(400, 'invalid_request')
    throw e
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
    return err(400, 'invalid_client_metadata', 'invalid type: expected a map of client metadata')
  const m = { ...(meta as Record<string, unknown>) }
  const bad = typed(m, err)
  if (bad) return bad
  if (Array.isArray(m.grant_types))
    m.grant_types = (m.grant_types as string[]).filter((g) => g !== 'urn:ietf:params:oauth:grant-type:device_code')
  const invalid = verify(m, err)
  if (invalid) return invalid
  const store = ctx.world.mas
  const violations = registrationViolations(store, m)
  if (violations.length)
    return err(
      400,
      violations.some((v) => v.includes('redirect_uri')) ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      violations.join('; '),
    )
  const method = (m.token_endpoint_auth_method as Client['authMethod'] | undefined) ?? 'none'
  let secret: string | null = null
  if (method !== 'none') {
    secret = ''
    for (const b of randomBytes(20)) secret += ALNUM[b % ALNUM.length]
  }
  const stored: Record<string, unknown> = { redirect_uris: m.redirect_uris ?? [], grant_types: m.grant_types ?? ['authorization_code'] }
  for (const f of ECHOED.slice(2)) if (m[f] !== undefined) stored[f] = m[f]
  ctx.log.queries += 2
  // A public client with the same metadata is the same client (the service hashes the sorted metadata).
  const sortedJson = JSON.stringify(
    Object.keys(m)
      .sort()
      .map((k) => [k, Array.isArray(m[k]) ? [...(m[k] as string[])].sort() : m[k]]),
  )
  const digest = secret === null ? createHash('sha256').update(sortedJson).digest('hex') : null
  let byDigest = digests.get(store)
  if (!byDigest) digests.set(store, (byDigest = new Map()))
  let client = digest !== null ? store.getClient(byDigest.get(digest) ?? '') : undefined
  if (!client) {
    client = store.registerClient(
      {
        kind: 'dynamic',
        name: typeof m.client_name === 'string' ? m.client_name : null,
        secret,
        authMethod: method,
        grantTypes: stored.grant_types as string[],
        redirectUris: stored.redirect_uris as string[],
        metadata: stored,
      },
      nowMicros(ctx.now()),
    )
    if (digest !== null) byDigest.set(digest, client.id)
  }
  const body: Record<string, unknown> = { client_id: client.id }
  if (secret !== null) body.client_secret = secret
  body.client_id_issued_at = Math.floor(client.createdAt / 1_000_000)
  for (const f of ECHOED) if (client.metadata?.[f] !== undefined) body[f] = client.metadata[f]
  return { status: 201, body, headers: { 'cache-control': 'no-store' } }
}
