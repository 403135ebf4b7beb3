// The security schemes: one per kind of credential, named as the tables name who may call
// (table.ts `Security`), and the requirement each operation carries. The auth service's admin API
// takes an OAuth 2.0 access token or a personal access token, both with urn:mas:admin; the
// homeserver takes an access token in the Authorization header or, deprecated, the access_token query
// parameter (OpenAPI needs one scheme per place, so each homeserver credential has a `-query` twin).
import type { Security } from '../../core/table.ts'

export const ADMIN_SCOPE = 'urn:mas:admin'

/** Which schemes an operation of a security kind names (each a requirement of its own: any one will do). */
export function requirementOf(security: Security): Record<string, string[]>[] {
  switch (security) {
    case 'mas-admin':
      return [{ 'mas-admin': [ADMIN_SCOPE] }, { 'mas-personal-token': [ADMIN_SCOPE] }]
    case 'hs-admin':
      return [{ 'hs-admin': [] }, { 'hs-admin-query': [] }]
    case 'hs-user':
      return [{ 'hs-user': [] }, { 'hs-user-query': [] }]
    case 'none':
      return []
  }
}

/**
 * components.securitySchemes. The OAuth 2.0 flows point at the mock's own token endpoint (the
 * client_credentials grant of the admin client, mock --admin-client-id/--admin-client-secret); an
 * authorization-code flow is added when the auth service's table has the authorize route.
 */
export function securitySchemes(base: string, authorizeUrl: string | undefined): Record<string, unknown> {
  const scopes = { [ADMIN_SCOPE]: 'the auth service admin API' }
  const tokenUrl = `${base}/oauth2/token`
  return {
    'mas-admin': {
      type: 'oauth2',
      description: `An OAuth 2.0 access token (mat_…) whose scope contains ${ADMIN_SCOPE}, as Authorization: Bearer <token>.`,
      flows: {
        clientCredentials: { tokenUrl, scopes },
        ...(authorizeUrl ? { authorizationCode: { authorizationUrl: authorizeUrl, tokenUrl, refreshUrl: tokenUrl, scopes } } : {}),
      },
    },
    'mas-personal-token': {
      type: 'http',
      scheme: 'bearer',
      description: `A personal access token (mpt_…, from POST /api/admin/v1/personal-sessions) whose scope contains ${ADMIN_SCOPE}, as Authorization: Bearer <token>.`,
    },
    'hs-admin': { type: 'http', scheme: 'bearer', description: 'The access token of a server admin, as Authorization: Bearer <token>.' },
    'hs-admin-query': {
      type: 'apiKey',
      in: 'query',
      name: 'access_token',
      description: 'The token of hs-admin as the access_token query parameter (deprecated; never together with the header).',
    },
    'hs-user': {
      type: 'http',
      scheme: 'bearer',
      description: 'The access token of any user of the homeserver, as Authorization: Bearer <token>.',
    },
    'hs-user-query': {
      type: 'apiKey',
      in: 'query',
      name: 'access_token',
      description: 'The token of hs-user as the access_token query parameter (deprecated; never together with the header).',
    },
  }
}
