// The auth service's public endpoints: OAuth 2.0, the compatibility login of the chat protocol and the
// browser pages and GraphQL API of the account page. None of them is in the described interface; each
// says so in its table entry.
import type { MockOptions } from '../core/options.ts'
import type { RouteEntry, RouteTable } from '../core/table.ts'
import { login, loginFlows, logout, logoutAll } from './compat-login.ts'
import { introspect, oauthError, revoke, token } from './oauth2.ts'
import { register } from './oidc/registration.ts'
import { keys, openidConfiguration } from './oidc/discovery.ts'
import { userinfo } from './oidc/userinfo.ts'
import { browserRoutes } from './browser/index.ts'

const OAUTH = { undocumented: 'OAuth 2.0 endpoint (RFC 6749/7591/7662/7009), described by the discovery document, not the admin API' }
const DISCOVERY = { undocumented: 'OpenID Connect discovery and keys (OpenID Connect Discovery 1.0, RFC 7517), not the admin API' }
const COMPAT = { undocumented: 'compatibility login of the chat protocol, described by its client-server specification' }

export function publicTable(options: MockOptions): RouteTable {
  const client = (method: string, pattern: string, handler: RouteEntry['handler']): RouteEntry[] =>
    ['v3', 'r0'].map((v) => ({
      method,
      pattern: `${options.clientPrefix}/client/${v}${pattern}`,
      handler,
      area: 'hs' as const,
      doc: COMPAT,
    }))
  return {
    api: 'mas-public',
    area: 'other',
    version: (o) => o.masVersion,
    routes: [
      { method: 'POST', pattern: '/oauth2/token', handler: token, doc: OAUTH },
      { method: 'POST', pattern: '/oauth2/registration', handler: (ctx) => register(ctx, oauthError), doc: OAUTH },
      { method: 'GET', pattern: '/.well-known/openid-configuration', handler: openidConfiguration, doc: DISCOVERY },
      { method: 'GET', pattern: '/oauth2/keys.json', handler: keys, doc: DISCOVERY },
      { method: 'GET', pattern: '/oauth2/userinfo', handler: userinfo, doc: OAUTH },
      { method: 'POST', pattern: '/oauth2/userinfo', handler: userinfo, doc: OAUTH },
      { method: 'POST', pattern: '/oauth2/introspect', handler: introspect, doc: OAUTH },
      { method: 'POST', pattern: '/oauth2/revoke', handler: revoke, doc: OAUTH },
      ...client('GET', '/login', loginFlows),
      ...client('POST', '/login', login),
      ...client('POST', '/logout', logout),
      ...client('POST', '/logout/all', logoutAll),
      ...browserRoutes(),
    ],
  }
}
