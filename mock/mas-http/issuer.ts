// The auth service's issuer and server metadata, with the fields and values the service publishes
// (v1.22): served by its discovery endpoint (mock/auth-service/oidc/discovery.ts) and by the homeserver that
// delegates to it (mock/homeserver/client/discovery.ts). Differences, on purpose: only what the mock
// implements is advertised: client authentication by secret (basic, post) or none (not
// client_secret_jwt / private_key_jwt), RS256 only, no device authorization grant, response types
// `code` only (the service also lists id_token flows it refuses without the implicit grant).
import type { Ctx } from '../core/context.ts'

/** The issuer: the base URL the client used (the Host header), with the trailing slash the service keeps. */
export function issuerOf(ctx: Ctx): string {
  const host = typeof ctx.headers.host === 'string' && /^[A-Za-z0-9.\-:[\]]+$/.test(ctx.headers.host) ? ctx.headers.host : `${ctx.options.host}:${ctx.options.port}`
  return `http://${host}/`
}

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none']

export function metadataOf(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}authorize`,
    token_endpoint: `${issuer}oauth2/token`,
    jwks_uri: `${issuer}oauth2/keys.json`,
    registration_endpoint: `${issuer}oauth2/registration`,
    scopes_supported: ['openid', 'email'],
    response_types_supported: ['code'],
    response_modes_supported: ['form_post', 'query', 'fragment'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint: `${issuer}oauth2/revoke`,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    introspection_endpoint: `${issuer}oauth2/introspect`,
    introspection_endpoint_auth_methods_supported: AUTH_METHODS,
    code_challenge_methods_supported: ['plain', 'S256'],
    userinfo_endpoint: `${issuer}oauth2/userinfo`,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    userinfo_signing_alg_values_supported: ['RS256'],
    display_values_supported: ['page'],
    claim_types_supported: ['normal'],
    claims_supported: ['iss', 'sub', 'aud', 'iat', 'exp', 'nonce', 'auth_time', 'at_hash', 'c_hash'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: ['login', 'create'],
    'org.matrix.matrix-authentication-service.graphql_endpoint': `${issuer}graphql`,
    account_management_uri: `${issuer}account/`,
    account_management_actions_supported: [
      'org.matrix.profile',
      'org.matrix.devices_list',
      'org.matrix.device_view',
      'org.matrix.device_delete',
      'org.matrix.cross_signing_reset',
      'org.matrix.sessions_list',
      'org.matrix.session_view',
      'org.matrix.session_end',
    ],
  }
}
