// Builds the OpenAPI 3.1 description of areas A and B by code: components.schemas come from the JSON
// Schema files (through the same bundling as the generated types), the operations from the table
// below. Query parameters come from each listing's ListQuery schema, so a filter is declared once.

import { readFileSync } from 'node:fs'
import { bundleSchemas, schemaName, type JsonSchema } from '../../lib/schemas.ts'

export interface OpenApiOptions {
  /** servers[0].url; default '/'. The mock passes its own base URL. */
  serverUrl?: string
  /** Prefix of the homeserver admin API (area B), '_hs' in the interface; default '/_synapse'. */
  hsPrefix?: string
  /** Prefix of the client API of the chat protocol, '_compat' in the interface; default '/_matrix'. */
  clientPrefix?: string
}

type Method = 'get' | 'post' | 'delete'
type Area = 'admin' | 'homeserver' | 'client'

interface ResponseSpec {
  description: string
  /** Schema ref of a JSON body ('admin/compat-session#Single'); none for an empty body. */
  ref?: string
  /** The body may also be plain text (the admin API's JSON body parser answers 415/422 in text). */
  text?: boolean
}

export interface EndpointSpec {
  area: Area
  method: Method
  /** Path with {hs} / {client} standing for the configurable prefixes. */
  path: string
  operationId: string
  tag: string
  summary: string
  description?: string
  /** Ref of an object schema whose properties are the query parameters. */
  query?: string
  body?: { ref: string; description?: string }
  responses: Record<string, ResponseSpec>
  /** false: no authentication (server_version). */
  auth?: boolean
  since?: string
  deprecated?: boolean
}

const ULID_PATH = 'admin/common#ULID'
const ADMIN_ERROR = 'admin/error'
const HS_ERROR = 'homeserver/error'

const err = (description: string, area: 'admin' | 'homeserver' = 'admin'): ResponseSpec => ({
  description,
  ref: area === 'admin' ? ADMIN_ERROR : HS_ERROR,
})
const bodyRejection = (extra = ''): ResponseSpec => ({
  description: `The JSON body parser rejected the body (plain text): 415 without Content-Type application/json, 422 for a missing key or a wrong type.${extra}`,
  text: true,
})

/** The operations of areas A and B, in the order of the interface document. */
export const ENDPOINTS: readonly EndpointSpec[] = [
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/site-config', operationId: 'siteConfig', tag: 'server',
    summary: 'Get the site configuration', since: 'v1.3.0',
    responses: { '200': { description: 'The site configuration (a plain object).', ref: 'admin/site-config#SiteConfig' } },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/version', operationId: 'version', tag: 'server',
    summary: 'Get the running version', since: 'v1.4.0',
    responses: { '200': { description: 'The version (a plain object).', ref: 'admin/version#Version' } },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/compat-sessions', operationId: 'listCompatSessions', tag: 'compat-session',
    summary: 'List compatibility sessions',
    description: 'All sessions, including finished ones, oldest first, unless filter[status] is given. Use page[last] for the last N.',
    query: 'admin/compat-session#ListQuery',
    responses: {
      '200': { description: 'A page of compatibility sessions.', ref: 'admin/compat-session#Page' },
      '400': err('Invalid pagination or filter parameters.'),
      '404': err('The user of filter[user] or the browser session of filter[user-session] does not exist.'),
    },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/compat-sessions/{id}', operationId: 'getCompatSession', tag: 'compat-session',
    summary: 'Get a compatibility session',
    responses: {
      '200': { description: 'The session.', ref: 'admin/compat-session#Single' },
      '404': err('The session does not exist.'),
    },
  },
  {
    area: 'admin', method: 'post', path: '/api/admin/v1/compat-sessions/{id}/finish', operationId: 'finishCompatSession', tag: 'compat-session',
    summary: 'Finish a compatibility session',
    description: "Sets finished_at and schedules a job that syncs the user's devices with the homeserver. No request body.",
    responses: {
      '200': { description: 'The finished session; links.self is the requested path (ending in /finish).', ref: 'admin/compat-session#Single' },
      '400': err('The session is already finished.'),
      '404': err('The session does not exist.'),
    },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/oauth2-sessions', operationId: 'listOAuth2Sessions', tag: 'oauth2-session',
    summary: 'List OAuth 2.0 sessions',
    description: 'All sessions, including finished ones, oldest first, unless filter[status] is given. Use page[last] for the last N.',
    query: 'admin/oauth2-session#ListQuery',
    responses: {
      '200': { description: 'A page of OAuth 2.0 sessions.', ref: 'admin/oauth2-session#Page' },
      '400': err('Invalid pagination or filter parameters, or an invalid scope in filter[scope].'),
      '404': err('The user, client or browser session named in a filter does not exist.'),
    },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/oauth2-sessions/{id}', operationId: 'getOAuth2Session', tag: 'oauth2-session',
    summary: 'Get an OAuth 2.0 session',
    responses: {
      '200': { description: 'The session.', ref: 'admin/oauth2-session#Single' },
      '404': err('The session does not exist.'),
    },
  },
  {
    area: 'admin', method: 'post', path: '/api/admin/v1/oauth2-sessions/{id}/finish', operationId: 'finishOAuth2Session', tag: 'oauth2-session',
    summary: 'Finish an OAuth 2.0 session',
    description: "Sets finished_at; when the session has a user, schedules a job that syncs that user's devices. No request body.",
    responses: {
      '200': { description: 'The finished session; links.self is the requested path (ending in /finish).', ref: 'admin/oauth2-session#Single' },
      '400': err('The session is already finished.'),
      '404': err('The session does not exist.'),
    },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/personal-sessions', operationId: 'listPersonalSessions', tag: 'personal-session',
    summary: 'List personal sessions', since: 'v1.5.0',
    description: 'All sessions, including revoked ones, oldest first, unless filter[status] is given. Use page[last] for the last N.',
    query: 'admin/personal-session#ListQuery',
    responses: {
      '200': { description: 'A page of personal sessions (never with access tokens).', ref: 'admin/personal-session#Page' },
      '400': err('Invalid pagination or filter parameters, or an invalid scope in filter[scope].'),
      '404': err('The user or client named in a filter does not exist.'),
    },
  },
  {
    area: 'admin', method: 'post', path: '/api/admin/v1/personal-sessions', operationId: 'createPersonalSession', tag: 'personal-session',
    summary: 'Create a personal session and its personal access token', since: 'v1.5.0',
    description: 'The owner is the caller: its user, or its client for a client credentials token.',
    body: { ref: 'admin/personal-session#CreateRequest' },
    responses: {
      '201': { description: 'The new session; data.attributes.access_token holds the token (returned only here and by regenerate).', ref: 'admin/personal-session#Created' },
      '400': err('Invalid scope.'),
      '404': err('The actor user does not exist.'),
      '410': err('The actor user is deactivated.'),
      '415': bodyRejection(),
      '422': bodyRejection(),
    },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/personal-sessions/{id}', operationId: 'getPersonalSession', tag: 'personal-session',
    summary: 'Get a personal session', since: 'v1.5.0',
    responses: {
      '200': { description: 'The session (without access token).', ref: 'admin/personal-session#Single' },
      '404': err('The session does not exist.'),
    },
  },
  {
    area: 'admin', method: 'post', path: '/api/admin/v1/personal-sessions/{id}/revoke', operationId: 'revokePersonalSession', tag: 'personal-session',
    summary: 'Revoke a personal session', since: 'v1.5.0',
    description: 'Sets revoked_at on the session and its tokens; expires_at becomes null. No request body.',
    responses: {
      '200': { description: 'The revoked session.', ref: 'admin/personal-session#Single' },
      '404': err('The session does not exist.'),
      '409': err('The session is already revoked.'),
    },
  },
  {
    area: 'admin', method: 'post', path: '/api/admin/v1/personal-sessions/{id}/regenerate', operationId: 'regeneratePersonalSession', tag: 'personal-session',
    summary: 'Replace the access token of a personal session', since: 'v1.5.0',
    description: 'Revokes the current token and issues a new one; the session id stays. A JSON body is required, {} at least.',
    body: { ref: 'admin/personal-session#RegenerateRequest' },
    responses: {
      '201': { description: 'The session with the new token in data.attributes.access_token.', ref: 'admin/personal-session#Created' },
      '403': err('The session belongs to another owner than the caller.'),
      '404': err('The session does not exist.'),
      '415': bodyRejection(),
      '422': { ...bodyRejection(' As JSON: the session is revoked or has no active token.'), ref: ADMIN_ERROR },
    },
  },
  {
    area: 'admin', method: 'post', path: '/api/admin/v1/policy-data', operationId: 'setPolicyData', tag: 'policy-data',
    summary: 'Set the policy data',
    description: 'The new record becomes the latest. The data is merged into the static policy data and the policy is test-instantiated first; nothing is stored on failure.',
    body: { ref: 'admin/policy-data#SetRequest' },
    responses: {
      '201': { description: 'The stored record.', ref: 'admin/policy-data#Single' },
      '400': err('The policy data is invalid; errors lists the causes.'),
      '415': bodyRejection(),
      '422': bodyRejection(),
    },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/policy-data/latest', operationId: 'getLatestPolicyData', tag: 'policy-data',
    summary: 'Get the latest policy data',
    responses: {
      '200': { description: 'The latest record; links.self is its canonical path.', ref: 'admin/policy-data#Single' },
      '404': err('No policy data exists.'),
    },
  },
  {
    area: 'admin', method: 'get', path: '/api/admin/v1/policy-data/{id}', operationId: 'getPolicyData', tag: 'policy-data',
    summary: 'Get policy data by id',
    responses: {
      '200': { description: 'The record.', ref: 'admin/policy-data#Single' },
      '404': err('The record does not exist.'),
    },
  },
  {
    area: 'homeserver', method: 'get', path: '{hs}/admin/v1/event_reports', operationId: 'listEventReports', tag: 'event-report',
    summary: 'List event reports',
    description: 'Offset pagination: while next_token is present, call again with from set to it.',
    query: 'homeserver/event-report#ListQuery',
    responses: {
      '200': { description: 'A page of reports.', ref: 'homeserver/event-report#List' },
      '400': err('from or limit not a non-negative integer, dir not b or f (M_INVALID_PARAM), or a non-ASCII filter.', 'homeserver'),
    },
  },
  {
    area: 'homeserver', method: 'get', path: '{hs}/admin/v1/event_reports/{report_id}', operationId: 'getEventReport', tag: 'event-report',
    summary: 'Get an event report with the reported event',
    responses: {
      '200': { description: 'The report and event_json.', ref: 'homeserver/event-report#Single' },
      '400': err('report_id is not a non-negative integer (M_INVALID_PARAM).', 'homeserver'),
      '404': err('The report does not exist, or its event or room data is gone (M_NOT_FOUND).', 'homeserver'),
    },
  },
  {
    area: 'homeserver', method: 'delete', path: '{hs}/admin/v1/event_reports/{report_id}', operationId: 'deleteEventReport', tag: 'event-report',
    summary: 'Delete an event report', since: 'v1.79.0',
    responses: {
      '200': { description: 'Deleted: an empty object.', ref: 'homeserver/event-report#DeleteResponse' },
      '400': err('report_id is not a non-negative integer (M_INVALID_PARAM).', 'homeserver'),
      '404': err('The report does not exist (M_NOT_FOUND).', 'homeserver'),
    },
  },
  {
    area: 'homeserver', method: 'get', path: '{hs}/admin/v1/server_version', operationId: 'getServerVersion', tag: 'homeserver',
    summary: 'Get the homeserver version', auth: false,
    responses: { '200': { description: 'The version.', ref: 'homeserver/server-version#ServerVersion' } },
  },
  {
    area: 'homeserver', method: 'get', path: '{hs}/admin/v1/background_updates/status', operationId: 'getBackgroundUpdatesStatus', tag: 'homeserver',
    summary: 'Get the status of database background updates',
    description: 'Before an upgrade, wait until current_updates is empty.',
    responses: { '200': { description: 'Whether updates are enabled and which run now.', ref: 'homeserver/background-updates#Status' } },
  },
  ...(['v3', 'r0'] as const).map(
    (version): EndpointSpec => ({
      area: 'client', method: 'post', path: `{client}/client/${version}/rooms/{roomId}/report/{eventId}`,
      operationId: version === 'v3' ? 'reportEvent' : 'reportEventR0', tag: 'client',
      summary: version === 'v3' ? 'Report an event (creates an event report)' : 'Report an event (legacy r0 prefix, same behaviour)',
      body: { ref: 'homeserver/client-report#Request' },
      responses: {
        '200': { description: 'Reported: an empty object.', ref: 'homeserver/client-report#Response' },
        '400': err('reason is not a string or score not an integer (M_BAD_JSON).', 'homeserver'),
        '404': err('The event does not exist or the user cannot see it (M_NOT_FOUND; 403 before v1.80.0).', 'homeserver'),
      },
    }),
  ),
]

const PATH_PARAMS: Record<string, { description: string; schemaRef?: string; schema?: JsonSchema }> = {
  id: { description: 'The resource id.', schemaRef: ULID_PATH },
  report_id: { description: 'The report id: a non-negative integer in decimal.', schema: { type: 'string' } },
  roomId: { description: 'The room of the event.', schema: { type: 'string' } },
  eventId: { description: 'The reported event.', schema: { type: 'string' } },
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  } catch {
    return '0.0.0'
  }
}

function trimPrefix(prefix: string | undefined, fallback: string, option: string): string {
  const value = prefix ?? fallback
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(value)) {
    throw new TypeError(`${option} must look like '/segment' (no trailing slash), got '${value}'`)
  }
  return value
}

/** Build the OpenAPI 3.1 document. */
export function buildOpenApi(opts: OpenApiOptions = {}): Record<string, unknown> {
  const hs = trimPrefix(opts.hsPrefix, '/_synapse', 'hsPrefix')
  const client = trimPrefix(opts.clientPrefix, '/_matrix', 'clientPrefix')
  const { schemas } = bundleSchemas({
    refPrefix: '#/components/schemas/',
    include: (key) => key.startsWith('admin/') || key.startsWith('homeserver/'),
  })
  const refTo = (ref: string): JsonSchema => {
    const name = schemaName(ref)
    if (!(name in schemas)) throw new Error(`openapi: ${ref} is not in the bundled components`)
    return { $ref: `#/components/schemas/${name}` }
  }

  // The properties of a query schema, following allOf members that are $refs into the bundle.
  const queryProperties = (schema: JsonSchema): [string, JsonSchema][] => {
    const out: [string, JsonSchema][] = []
    for (const member of (schema.allOf as JsonSchema[] | undefined) ?? []) {
      const target = typeof member.$ref === 'string' ? schemas[member.$ref.split('/').pop() ?? ''] : member
      if (target) out.push(...queryProperties(target))
    }
    out.push(...Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {}))
    return out
  }

  const paths: Record<string, Record<string, unknown>> = {}
  for (const ep of ENDPOINTS) {
    const path = ep.path.replace('{hs}', hs).replace('{client}', client)
    const parameters: unknown[] = []
    for (const m of path.matchAll(/\{([^}]+)\}/g)) {
      const name = m[1] as string
      const spec = PATH_PARAMS[name]
      if (!spec) throw new Error(`openapi: no definition for path parameter ${name} of ${path}`)
      parameters.push({
        name,
        in: 'path',
        required: true,
        description: spec.description,
        schema: spec.schemaRef ? refTo(spec.schemaRef) : spec.schema,
      })
    }
    if (ep.query) {
      const name = schemaName(ep.query)
      const querySchema = schemas[name]
      if (!querySchema) throw new Error(`openapi: ${ep.query} is not in the bundled components`)
      for (const [param, schema] of queryProperties(querySchema)) {
        const { description, 'x-since': since, ...rest } = schema
        const p: Record<string, unknown> = { name: param, in: 'query', required: false }
        if (typeof description === 'string') p.description = description
        p.schema = Object.keys(rest).length > 0 ? rest : {}
        p.style = 'form'
        p.explode = true
        if (typeof since === 'string') p['x-since'] = since
        parameters.push(p)
      }
    }

    const responses: Record<string, unknown> = {}
    for (const [status, r] of Object.entries(ep.responses)) {
      const content: Record<string, unknown> = {}
      if (r.ref) content['application/json'] = { schema: refTo(r.ref) }
      if (r.text) content['text/plain'] = { schema: { type: 'string' } }
      responses[status] = Object.keys(content).length > 0 ? { description: r.description, content } : { description: r.description }
    }
    // Authentication failures, common to every authenticated operation.
    if (ep.auth !== false) {
      if (ep.area === 'admin') {
        const bad = responses['400'] as { description: string } | undefined
        const header = path.includes('{id}')
          ? 'The id in the path is not a ULID, or the Authorization header is missing or not a Bearer token.'
          : 'The Authorization header is missing or not a Bearer token.'
        responses['400'] = bad ? { ...bad, description: `${bad.description} Also: ${header}` } : { description: header, content: { 'application/json': { schema: refTo(ADMIN_ERROR) } } }
        responses['401'] = { description: 'The token is malformed, unknown, expired or revoked, its user is locked, or it lacks the urn:mas:admin scope. There is no 403.', content: { 'application/json': { schema: refTo(ADMIN_ERROR) } } }
      } else {
        responses['401'] = { description: 'No access token (M_MISSING_TOKEN) or an unknown one (M_UNKNOWN_TOKEN).', content: { 'application/json': { schema: refTo(HS_ERROR) } } }
        if (ep.area === 'homeserver') {
          responses['403'] = { description: 'The user is not a server admin (M_FORBIDDEN).', content: { 'application/json': { schema: refTo(HS_ERROR) } } }
        }
      }
    }
    const ordered = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))

    const op: Record<string, unknown> = {
      tags: [ep.tag],
      summary: ep.summary,
      ...(ep.description ? { description: ep.description } : {}),
      operationId: ep.operationId,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(ep.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: refTo(ep.body.ref) } } } }
        : {}),
      responses: ordered,
      ...(ep.auth === false
        ? { security: [] }
        : ep.area === 'admin'
          ? {}
          : { security: [{ bearer: [] }, { accessTokenQuery: [] }] }),
      ...(ep.deprecated ? { deprecated: true } : {}),
      ...(ep.since ? { 'x-since': ep.since } : {}),
    }
    const item = (paths[path] ??= {})
    if (item[ep.method]) throw new Error(`openapi: duplicate operation ${ep.method.toUpperCase()} ${path}`)
    item[ep.method] = op
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Admin and audit interfaces: authentication service admin API and homeserver event reports',
      version: packageVersion(),
      description:
        'Generated by admin-conformance from its JSON Schemas. Area A: the authentication service admin API under /api/admin/v1. Area B: the homeserver admin API for event reports, its version and background updates, and the client call that files a report.',
    },
    servers: [{ url: opts.serverUrl ?? '/' }],
    tags: [
      { name: 'server', description: 'Site configuration and version of the authentication service.' },
      { name: 'compat-session', description: 'Sessions of the legacy login of the chat protocol.' },
      { name: 'oauth2-session', description: 'OAuth 2.0 sessions.' },
      { name: 'personal-session', description: 'Sessions backed by personal access tokens.' },
      { name: 'policy-data', description: 'Dynamic data of the authorization policy.' },
      { name: 'event-report', description: 'Reports users filed against events (homeserver admin API).' },
      { name: 'homeserver', description: 'Version and background updates of the homeserver.' },
      { name: 'client', description: 'Client API call that files a report.' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <token>. Admin API: an OAuth 2.0 access token or a personal access token whose scope contains urn:mas:admin. Homeserver: the access token of a server admin.',
        },
        accessTokenQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description: 'Homeserver only: the access token as a query parameter (not together with the header).',
        },
      },
    },
    security: [{ bearer: [] }],
  }
}
