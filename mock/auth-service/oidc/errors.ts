// The OAuth 2.0 error answers of the service: `{error, error_description}` with its default
// descriptions (oauth2-types, v1.22), for the JSON endpoints and for the redirects back to a client.
import type { Reply } from '../../core/context.ts'

export const DESCRIPTIONS: Record<string, string> = {
  invalid_request:
    'The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.',
  invalid_client: 'Client authentication failed.',
  invalid_grant: 'The provided access grant is invalid, expired, or revoked.',
  unauthorized_client: 'The client is not authorized to request an access token using this method.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  access_denied: 'The resource owner or authorization server denied the request.',
  unsupported_response_type: 'The authorization server does not support obtaining an access token using this method.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  login_required: 'The Authorization Server requires End-User authentication.',
  request_not_supported: 'The provider does not support use of the request parameter.',
  request_uri_not_supported: 'The provider does not support use of the request_uri parameter.',
  registration_not_supported: 'The provider does not support use of the registration parameter.',
  invalid_redirect_uri: 'The value of one or more redirection URIs is invalid.',
  invalid_client_metadata: 'The value of one of the client metadata fields is invalid',
  unsupported_token_type: 'The authorization server does not support the revocation of the presented token type.',
}

export function oauthError(status: number, error: string, description = DESCRIPTIONS[error] ?? ''): Reply {
  return { status, body: { error, error_description: description }, headers: { 'cache-control': 'no-store' } }
}
