// The service's default policy (policies/*.rego of v1.22) for what the mock decides: which scopes an
// interactive grant may carry for a user, and whether a dynamic registration is acceptable. The
// policy data (configuration merged with the latest record of the admin API's policy data) switches
// the same knobs as on the real service: admin_users, client_registration.allow_insecure_uris,
// allow_host_mismatch, allow_missing_client_uri.
import { mergePolicyData, type MasStore, type User } from '../../store/mas/index.ts'

export function policyData(store: MasStore): Record<string, unknown> {
  const latest = store.policyData.last()
  const merged = latest ? mergePolicyData(store.staticPolicyData, latest.data) : { ok: true as const, value: store.staticPolicyData }
  const v = merged.ok ? merged.value : store.staticPolicyData
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
}

function canRequestAdmin(store: MasStore, user: User): boolean {
  const admins = policyData(store).admin_users
  return user.admin || (Array.isArray(admins) && admins.includes(user.username))
}

const DEVICE_CHARS = "[A-Za-z0-9._~!$&'()*+,;=:@/-]{10,}"
const STABLE_DEVICE = new RegExp(`^urn:matrix:client:device:${DEVICE_CHARS}$`)
const UNSTABLE_DEVICE = new RegExp(`^urn:matrix:org\\.matrix\\.msc2967\\.client:device:${DEVICE_CHARS}$`)

function allowedForUser(store: MasStore, user: User, scope: string): boolean {
  if (scope === '' || scope === 'openid' || scope === 'email' || scope === 'urn:mas:graphql:*') return true
  if (scope === 'urn:synapse:admin:*' || scope === 'urn:mas:admin') return canRequestAdmin(store, user)
  if (scope === 'urn:matrix:client:api:*' || scope === 'urn:matrix:org.matrix.msc2967.client:api:*') return true
  return STABLE_DEVICE.test(scope) || UNSTABLE_DEVICE.test(scope)
}

/** The violations of an authorization-code grant of `scope` for `user` (empty: allowed), in the policy's words. */
export function grantViolations(store: MasStore, user: User, scope: readonly string[]): string[] {
  const out = scope.filter((s) => !allowedForUser(store, user, s)).map((s) => `scope '${s}' not allowed`)
  const count = (prefix: string) => scope.filter((s) => s.startsWith(prefix)).length
  if (count('urn:matrix:org.matrix.msc2967.client:device:') > 1 || count('urn:matrix:client:device:') > 1)
    out.push('only one device scope is allowed at a time')
  const device = count('urn:matrix:client:device:') + count('urn:matrix:org.matrix.msc2967.client:device:') > 0
  const api = count('urn:matrix:client:api:') + count('urn:matrix:org.matrix.msc2967.client:api:') > 0
  if (device && !api) out.push('device scopes are only allowed when the client-server API scope is requested')
  if (count('urn:matrix:client:') > 0 && count('urn:matrix:org.matrix.msc2967.client:') > 0)
    out.push('request cannot mix unstable and stable scopes')
  return out
}

// ----- client registration -------------------------------------------------------------------------

interface ParsedUri {
  scheme: string
  authority: string
  host: string
}

// The policy's URI grammar: lower-case scheme, optional //host[:port] (DNS names, 127.0.0.1, 0.0.0.0, [::1]), a plain path and query.
const URI_RE =
  /^(?<scheme>[a-z][a-z0-9+.-]*):(?:\/\/(?<authority>(?<host>(?:(?:[a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9])\.)*(?:[a-z0-9]|[a-z0-9][a-z0-9-]*[a-z0-9])|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?::[0-9]+)?))?(?:\/[A-Za-z0-9/._~-]*)?(?:\?[-a-zA-Z0-9()@:%_+.~#?&/=]*)?$/

function parseUri(v: unknown): ParsedUri | null {
  if (typeof v !== 'string') return null
  const m = URI_RE.exec(v)
  if (!m?.groups) return null
  return { scheme: m.groups.scheme!, authority: m.groups.authority ?? '', host: m.groups.host ?? '' }
}

const LOCAL = new Set(['localhost', '127.0.0.1', '0.0.0.0', '[::1]'])
const flag = (data: Record<string, unknown>, name: string): boolean => {
  const cr = data.client_registration
  return typeof cr === 'object' && cr !== null && (cr as Record<string, unknown>)[name] === true
}

/** `sub` is `host` or one of its subdomains (label-wise) */
function isSubdomain(host: string, sub: string): boolean {
  const h = host.split('.').reverse()
  const s = sub.split('.').reverse()
  return h.every((part, i) => s[i] === part)
}

/** The violations of a registration's metadata under the default client-registration policy, in its words. */
export function registrationViolations(store: MasStore, m: Record<string, unknown>): string[] {
  const data = policyData(store)
  const secure = (x: unknown): boolean => {
    if (flag(data, 'allow_insecure_uris')) return true
    const u = parseUri(x)
    return u !== null && u.scheme === 'https' && !LOCAL.has(u.host)
  }
  const clientUri = parseUri(m.client_uri)
  const hostMatches = (x: unknown): boolean => {
    if (flag(data, 'allow_host_mismatch')) return true
    if (flag(data, 'allow_missing_client_uri') && m.client_uri === undefined) return true
    const u = parseUri(x)
    return clientUri !== null && u !== null && isSubdomain(clientUri.host, u.host)
  }
  const grants = Array.isArray(m.grant_types) ? m.grant_types : m.grant_types === undefined ? ['authorization_code'] : []
  const requiresRedirects = grants.includes('authorization_code') || grants.includes('implicit')
  const out: string[] = []
  if (!flag(data, 'allow_missing_client_uri') && m.client_uri === undefined) out.push('missing client_uri')
  if (m.client_uri !== undefined && !secure(m.client_uri)) out.push('invalid client_uri')
  for (const field of ['tos_uri', 'policy_uri', 'logo_uri'] as const) {
    if (m[field] === undefined) continue
    if (!secure(m[field])) out.push(`invalid ${field}`)
    if (!hostMatches(m[field])) out.push(`${field} not on the same host as the client_uri`)
  }
  if (grants.includes('client_credentials') && m.token_endpoint_auth_method === 'none')
    out.push('client_credentials grant_type requires some form of client authentication')
  const redirects = m.redirect_uris
  if (requiresRedirects && redirects === undefined) out.push('missing redirect_uris')
  if (redirects !== undefined && !Array.isArray(redirects)) out.push('invalid redirect_uris: it must be an array')
  if (requiresRedirects && Array.isArray(redirects) && redirects.length === 0)
    out.push('invalid redirect_uris: it must have at least one redirect_uri')
  const nativeOk = (x: unknown): boolean => {
    const u = parseUri(x)
    if (!u) return false
    if (u.scheme === 'http' && (u.host === 'localhost' || u.host === '127.0.0.1' || u.host === '[::1]')) return true
    // a custom scheme in reverse-DNS form of the client_uri's host (io.element.app:/ for https://app.element.io/)
    if (u.scheme === 'http' || u.scheme === 'https' || u.authority !== '' || !clientUri) return false
    return isSubdomain(clientUri.host, u.scheme.split('.').reverse().join('.'))
  }
  if (Array.isArray(redirects)) {
    for (const r of redirects) {
      const ok = (m.application_type === 'native' && nativeOk(r)) || (secure(r) && hostMatches(r))
      if (!ok) out.push('invalid redirect_uri')
    }
  }
  return out
}
