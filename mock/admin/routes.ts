// The auth service's admin API table: every route under /api/admin/v1 with its handler, its OpenAPI
// description and the versions that have it (lib/data/mas-features.json). Handlers read the world
// from ctx.world (a reset swaps it), so the table is built once.
import { adminErr, bodyRejection, masGate, ADMIN_ERROR, type RouteEntry, type RouteTable } from '../core/table.ts'
import { finishCompatSession, getCompatSession, listCompatSessions } from './compat-sessions.ts'
import { finishOAuth2Session, getOAuth2Session, listOAuth2Sessions } from './oauth2-sessions.ts'
import { createPersonalSession, getPersonalSession, listPersonalSessions, regeneratePersonalSession, revokePersonalSession } from './personal-sessions.ts'
import { getLatestPolicyData, getPolicyData, setPolicyData } from './policy-data.ts'
import { getSiteConfig } from './site-config.ts'
import { USER_ENTRIES } from './users-routes.ts'
import { USER_EMAIL_ENTRIES } from './user-emails.ts'
import { USER_SESSION_ENTRIES } from './user-sessions.ts'
import { OAUTH2_CLIENT_ENTRIES } from './oauth2-clients.ts'
import { PROVIDER_ENTRIES } from './upstream-oauth-providers.ts'
import { LINK_ENTRIES } from './upstream-oauth-links.ts'
import { REGISTRATION_TOKEN_ENTRIES } from './user-registration-tokens.ts'
import { getVersion } from './version.ts'

export const ADMIN_BASE = '/api/admin/v1'

const listing = (noun: string, deleted: string) =>
  `All ${noun}, including ${deleted} ones, oldest first, unless filter[status] is given. Use page[last] for the last N.`

/** Area A, in the order of the interface document, then the user endpoints the fixtures use. */
const ENTRIES: RouteEntry[] = [
  {
    method: 'GET', pattern: '/site-config', handler: getSiteConfig, ...masGate('site-config'),
    doc: { operationId: 'siteConfig', tag: 'server', summary: 'Get the site configuration', security: 'mas-admin',
      responses: { '200': { description: 'The site configuration (a plain object).', ref: 'admin/site-config#SiteConfig' } } },
  },
  {
    method: 'GET', pattern: '/version', handler: getVersion, ...masGate('version-endpoint'),
    doc: { operationId: 'version', tag: 'server', summary: 'Get the running version', security: 'mas-admin',
      responses: { '200': { description: 'The version (a plain object).', ref: 'admin/version#Version' } } },
  },
  {
    method: 'GET', pattern: '/compat-sessions', handler: listCompatSessions,
    doc: { operationId: 'listCompatSessions', tag: 'compat-session', summary: 'List compatibility sessions', security: 'mas-admin',
      description: listing('sessions', 'finished'), query: 'admin/compat-session#ListQuery',
      responses: {
        '200': { description: 'A page of compatibility sessions.', ref: 'admin/compat-session#Page' },
        '400': adminErr("Invalid pagination or filter parameters: 'Invalid pagination parameters' or 'Invalid filter parameters', then 'Failed to deserialize query string: <message>' and the message again."),
        '404': adminErr("The user of filter[user] ('User ID <id> not found') or the browser session of filter[user-session] ('User session ID <id> not found') does not exist."),
      } },
  },
  {
    method: 'GET', pattern: '/compat-sessions/:id', handler: getCompatSession,
    doc: { operationId: 'getCompatSession', tag: 'compat-session', summary: 'Get a compatibility session', security: 'mas-admin',
      responses: { '200': { description: 'The session.', ref: 'admin/compat-session#Single' }, '404': adminErr("The session does not exist: 'Compatibility session ID <id> not found'.") } },
  },
  {
    method: 'POST', pattern: '/compat-sessions/:id/finish', handler: finishCompatSession, ...masGate('session-finish'),
    doc: { operationId: 'finishCompatSession', tag: 'compat-session', summary: 'Finish a compatibility session', security: 'mas-admin',
      description: "Sets finished_at and schedules a job that syncs the user's devices with the homeserver. No request body.",
      responses: {
        '200': { description: 'The finished session; links.self is the requested path (ending in /finish).', ref: 'admin/compat-session#Single' },
        '400': adminErr("The session is already finished: 'Compatibility session with ID <id> is already finished'."),
        '404': adminErr("The session does not exist: 'Compatibility session with ID <id> not found'."),
      } },
  },
  {
    method: 'GET', pattern: '/oauth2-sessions', handler: listOAuth2Sessions,
    doc: { operationId: 'listOAuth2Sessions', tag: 'oauth2-session', summary: 'List OAuth 2.0 sessions', security: 'mas-admin',
      description: listing('sessions', 'finished'), query: 'admin/oauth2-session#ListQuery',
      responses: {
        '200': { description: 'A page of OAuth 2.0 sessions.', ref: 'admin/oauth2-session#Page' },
        '400': adminErr("Invalid pagination or filter parameters ('Invalid pagination parameters' or 'Invalid filter parameters', then 'Failed to deserialize query string: <message>' and the message again), or an invalid scope in filter[scope]."),
        '404': adminErr("The user ('User ID <id> not found'), client ('Client ID <id> not found') or browser session ('User session ID <id> not found') named in a filter does not exist."),
      } },
  },
  {
    method: 'GET', pattern: '/oauth2-sessions/:id', handler: getOAuth2Session,
    doc: { operationId: 'getOAuth2Session', tag: 'oauth2-session', summary: 'Get an OAuth 2.0 session', security: 'mas-admin',
      responses: { '200': { description: 'The session.', ref: 'admin/oauth2-session#Single' }, '404': adminErr("The session does not exist: 'OAuth 2.0 session ID <id> not found'.") } },
  },
  {
    method: 'POST', pattern: '/oauth2-sessions/:id/finish', handler: finishOAuth2Session, ...masGate('session-finish'),
    doc: { operationId: 'finishOAuth2Session', tag: 'oauth2-session', summary: 'Finish an OAuth 2.0 session', security: 'mas-admin',
      description: "Sets finished_at; when the session has a user, schedules a job that syncs that user's devices. No request body.",
      responses: {
        '200': { description: 'The finished session; links.self is the requested path (ending in /finish).', ref: 'admin/oauth2-session#Single' },
        '400': adminErr("The session is already finished: 'OAuth 2.0 session with ID <id> is already finished'."),
        '404': adminErr("The session does not exist: 'OAuth 2.0 session with ID <id> not found'."),
      } },
  },
  {
    method: 'GET', pattern: '/personal-sessions', handler: listPersonalSessions, ...masGate('personal-sessions'),
    doc: { operationId: 'listPersonalSessions', tag: 'personal-session', summary: 'List personal sessions', security: 'mas-admin',
      description: listing('sessions', 'revoked'), query: 'admin/personal-session#ListQuery',
      responses: {
        '200': { description: 'A page of personal sessions (never with access tokens).', ref: 'admin/personal-session#Page' },
        '400': adminErr("Invalid pagination or filter parameters ('Invalid pagination parameters' or 'Invalid filter parameters', then 'Failed to deserialize query string: <message>' and the message again), or an invalid scope in filter[scope]."),
        '404': adminErr("The user ('User ID <id> not found') or client ('Client ID <id> not found') named in a filter does not exist."),
      } },
  },
  {
    method: 'POST', pattern: '/personal-sessions', handler: createPersonalSession, ...masGate('personal-sessions'),
    doc: { operationId: 'createPersonalSession', tag: 'personal-session', summary: 'Create a personal session and its personal access token', security: 'mas-admin',
      description: 'The owner is the caller: its user, or its client for a client credentials token.',
      body: { ref: 'admin/personal-session#CreateRequest' },
      responses: {
        '201': { description: 'The new session; data.attributes.access_token holds the token (returned only here and by regenerate).', ref: 'admin/personal-session#Created' },
        '400': adminErr("The scope is empty or malformed: 'Invalid scope'."),
        '404': adminErr("The actor user does not exist: 'User not found'."),
        '410': adminErr("The actor user is deactivated: 'User is not active'."),
        '415': bodyRejection(),
        '422': bodyRejection(),
      } },
  },
  {
    method: 'GET', pattern: '/personal-sessions/:id', handler: getPersonalSession, ...masGate('personal-sessions'),
    doc: { operationId: 'getPersonalSession', tag: 'personal-session', summary: 'Get a personal session', security: 'mas-admin',
      responses: { '200': { description: 'The session (without access token).', ref: 'admin/personal-session#Single' }, '404': adminErr("The session does not exist: 'Personal session not found'.") } },
  },
  {
    method: 'POST', pattern: '/personal-sessions/:id/revoke', handler: revokePersonalSession, ...masGate('personal-sessions'),
    doc: { operationId: 'revokePersonalSession', tag: 'personal-session', summary: 'Revoke a personal session', security: 'mas-admin',
      description: 'Sets revoked_at on the session and its tokens; expires_at becomes null. No request body.',
      responses: {
        '200': { description: 'The revoked session.', ref: 'admin/personal-session#Single' },
        '404': adminErr("The session does not exist: 'Personal session with ID <id> not found'."),
        '409': adminErr("The session is already revoked: 'Personal session with ID <id> is already revoked'."),
      } },
  },
  {
    method: 'POST', pattern: '/personal-sessions/:id/regenerate', handler: regeneratePersonalSession, ...masGate('personal-sessions'),
    doc: { operationId: 'regeneratePersonalSession', tag: 'personal-session', summary: 'Replace the access token of a personal session', security: 'mas-admin',
      description: 'Revokes the current token and issues a new one; the session id stays. A JSON body is required, {} at least.',
      body: { ref: 'admin/personal-session#RegenerateRequest' },
      responses: {
        '201': { description: 'The session with the new token in data.attributes.access_token.', ref: 'admin/personal-session#Created' },
        '403': adminErr("The session belongs to another owner than the caller: 'Session does not belong to you'."),
        '404': adminErr("The session does not exist: 'Session not found'."),
        '415': bodyRejection(),
        '422': { ...bodyRejection(" As JSON: the session is revoked or has no active token, 'Session not valid'."), ref: ADMIN_ERROR },
      } },
  },
  {
    method: 'POST', pattern: '/policy-data', handler: setPolicyData, ...masGate('policy-data'),
    doc: { operationId: 'setPolicyData', tag: 'policy-data', summary: 'Set the policy data', security: 'mas-admin',
      description: 'The new record becomes the latest. The data is merged into the static policy data and the policy is test-instantiated first; nothing is stored on failure.',
      body: { ref: 'admin/policy-data#SetRequest' },
      responses: {
        '201': { description: 'The stored record.', ref: 'admin/policy-data#Single' },
        '400': adminErr("The policy data is invalid: 'Failed to instanciate policy with the provided data', 'invalid policy data', then the cause."),
        '415': bodyRejection(),
        '422': bodyRejection(),
      } },
  },
  {
    method: 'GET', pattern: '/policy-data/latest', handler: getLatestPolicyData, ...masGate('policy-data'),
    doc: { operationId: 'getLatestPolicyData', tag: 'policy-data', summary: 'Get the latest policy data', security: 'mas-admin',
      responses: { '200': { description: 'The latest record; links.self is its canonical path.', ref: 'admin/policy-data#Single' }, '404': adminErr("No policy data exists: 'No policy data found'.") } },
  },
  {
    method: 'GET', pattern: '/policy-data/:id', handler: getPolicyData, ...masGate('policy-data'),
    doc: { operationId: 'getPolicyData', tag: 'policy-data', summary: 'Get policy data by id', security: 'mas-admin',
      responses: { '200': { description: 'The record.', ref: 'admin/policy-data#Single' }, '404': adminErr("The record does not exist: 'Policy data with ID <id> not found'. A release with the known deviation policy-data-get-returns-latest (the default claimed one, unless --no-deviations) answers the latest record whatever the id, and 404 only when there is no policy data.") } },
  },
  ...USER_ENTRIES,
  ...USER_EMAIL_ENTRIES,
  ...USER_SESSION_ENTRIES,
  ...OAUTH2_CLIENT_ENTRIES,
  ...PROVIDER_ENTRIES,
  ...LINK_ENTRIES,
  ...REGISTRATION_TOKEN_ENTRIES,
]

export function adminTable(): RouteTable {
  return {
    api: 'mas-admin',
    area: 'mas',
    version: (options) => options.masVersion,
    routes: ENTRIES.map((e) => ({ ...e, pattern: `${ADMIN_BASE}${e.pattern}` })),
  }
}
