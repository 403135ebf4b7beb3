// Builds the OpenAPI 3.1 description of areas A and B by code: components.schemas come from the JSON
// Schema files (through the same bundling as the generated types), the operations from the route
// tables (mock/core/table.ts) the router is built from, so a route and its description are one row.
// Query parameters come from each listing's ListQuery schema, so a filter is declared once. The
// statuses every operation of an area shares (responses.ts), the security schemes (security.ts) and
// the links between operations (links.ts) are added here.

import { normalisePrefix } from '../../../lib/target.ts'
import { readFileSync } from 'node:fs'
import { bundleSchemas, schemaName, type JsonSchema } from '../../../lib/schemas.ts'
import { adminTable } from '../../admin/routes.ts'
import { publicTable } from '../../auth-service/routes.ts'
import { homeserverTable } from '../../homeserver/routes.ts'
import { mockOptions } from '../../core/options.ts'
import { isDocumented, presentAt, templateOf, type OperationDoc, type RouteEntry, type RouteTable } from '../../core/table.ts'
import { addLinks } from './links.ts'
import { otherMethods, responsesOf } from './responses.ts'
import { requirementOf, securitySchemes } from './security.ts'

export interface OpenApiOptions {
  /** servers[0].url; default '/'. The mock passes its own base URL. */
  serverUrl?: string
  /** Prefix of the homeserver admin API (area B), '_hs' in the interface; default '/_synapse'. */
  hsPrefix?: string
  /** Prefix of the client API of the chat protocol, '_compat' in the interface; default '/_matrix'. */
  clientPrefix?: string
  /** The versions the mock claims: operations their API does not have at that version are left out. */
  masVersion?: string
  hsVersion?: string
  /** The tables to describe; default: those of the auth service and the homeserver. */
  tables?: RouteTable[]
}

/** One described operation, as the tables give it (the upstream comparison test reads these). */
export interface Endpoint extends OperationDoc {
  area: 'admin' | 'homeserver' | 'client'
  method: 'get' | 'post' | 'put' | 'delete'
  /** OpenAPI path template with the prefixes filled in */
  path: string
  since?: string
  until?: string
  /** the version the document describes for the operation's API (undefined: the newest) */
  claimed?: string
}

const ULID_PATH = 'admin/common#ULID'

function defaultTables(hsPrefix: string, clientPrefix: string): RouteTable[] {
  const options = mockOptions(
    { hsPrefix, clientPrefix, adminToken: '-', userToken: '-', hsAdminToken: '-', hsUserToken: '-', adminClientSecret: '-' },
    {},
  )
  return [adminTable(), publicTable(options), homeserverTable(options)]
}

/** The documented operations of the tables, present at the claimed versions, in table order. */
export function endpointsOf(tables: RouteTable[], versions: { masVersion?: string; hsVersion?: string }, clientPrefix: string): Endpoint[] {
  const out: Endpoint[] = []
  for (const table of tables) {
    const claimed =
      table.api === 'homeserver' ? versions.hsVersion : table.api === 'control' || table.api === 'core' ? undefined : versions.masVersion
    for (const e of table.routes as RouteEntry[]) {
      if (!isDocumented(e.doc) || !presentAt(e, claimed)) continue
      const path = templateOf(e.pattern)
      const area = table.api === 'homeserver' ? (path.startsWith(`${clientPrefix}/`) ? 'client' : 'homeserver') : 'admin'
      out.push({ ...e.doc, area, method: e.method.toLowerCase() as Endpoint['method'], path, since: e.since, until: e.until, claimed })
    }
  }
  return out
}

/** The operations of areas A and B at the default prefixes and the newest versions. */
export const ENDPOINTS: readonly Endpoint[] = endpointsOf(defaultTables('/_synapse', '/_matrix'), {}, '/_matrix')

const PATH_PARAMS: Record<string, { description: string; schemaRef?: string; schema?: JsonSchema }> = {
  id: { description: 'The resource id.', schemaRef: ULID_PATH },
  report_id: { description: 'The report id: a non-negative integer in decimal.', schema: { type: 'string' } },
  roomId: { description: 'The room (of the event, or the one asked about).', schema: { type: 'string' } },
  eventId: { description: 'The event (the reported one, or the one whose context is asked for).', schema: { type: 'string' } },
  userId: {
    description: 'The user (the reported one, or the one asked about): a full user id (@localpart:server).',
    schema: { type: 'string' },
  },
  username: { description: 'The username (localpart) of the user.', schema: { type: 'string' } },
  type: { description: 'The account data type (e.g. org.matrix.mjolnir.report_poll).', schema: { type: 'string' } },
  alias: { description: 'The room alias: #localpart:server.', schema: { type: 'string' } },
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0'
  } catch {
    return '0.0.0'
  }
}

/** The one prefix rule of the project (lib/target.ts): a trailing slash is dropped, anything else is an error. */
function trimPrefix(prefix: string | undefined, fallback: string, option: string): string {
  return normalisePrefix(prefix ?? fallback, option)
}

type Components = Record<string, JsonSchema>

function refIn(schemas: Components, ref: string): JsonSchema {
  const name = schemaName(ref)
  if (!(name in schemas)) throw new Error(`openapi: ${ref} is not in the bundled components`)
  return { $ref: `#/components/schemas/${name}` }
}

/** The properties of a query schema, following allOf members that are $refs into the bundle. */
function queryProperties(schemas: Components, schema: JsonSchema): [string, JsonSchema][] {
  const out: [string, JsonSchema][] = []
  for (const member of (schema.allOf as JsonSchema[] | undefined) ?? []) {
    const target = typeof member.$ref === 'string' ? schemas[member.$ref.split('/').pop() ?? ''] : member
    if (target) out.push(...queryProperties(schemas, target))
  }
  out.push(...Object.entries((schema.properties as Record<string, JsonSchema> | undefined) ?? {}))
  return out
}

function parametersOf(schemas: Components, path: string, doc: OperationDoc, claimed: string | undefined): unknown[] {
  const parameters: unknown[] = []
  for (const m of path.matchAll(/\{([^}]+)\}/g)) {
    const name = m[1] as string
    const spec = PATH_PARAMS[name]
    if (!spec) throw new Error(`openapi: no definition for path parameter ${name} of ${path}`)
    const schema = spec.schemaRef ? refIn(schemas, spec.schemaRef) : spec.schema
    parameters.push({ name, in: 'path', required: true, description: spec.description, schema })
  }
  if (!doc.query) return parameters
  const querySchema = schemas[schemaName(doc.query)]
  if (!querySchema) throw new Error(`openapi: ${doc.query} is not in the bundled components`)
  for (const [param, schema] of queryProperties(schemas, querySchema)) {
    const { description, 'x-since': since, ...rest } = schema
    // A parameter the claimed version does not have yet is left out, as the router ignores it then.
    if (typeof since === 'string' && !presentAt({ since }, claimed)) continue
    const p: Record<string, unknown> = { name: param, in: 'query', required: false }
    if (typeof description === 'string') p.description = description
    p.schema = Object.keys(rest).length > 0 ? rest : {}
    p.style = 'form'
    p.explode = true
    if (typeof since === 'string') p['x-since'] = since
    parameters.push(p)
  }
  return parameters
}

function operationOf(schemas: Components, ep: Endpoint): Record<string, unknown> {
  const doc = ep
  const parameters = parametersOf(schemas, ep.path, doc, ep.claimed)
  return {
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    operationId: doc.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: refIn(schemas, doc.body.ref) } } } } : {}),
    responses: responsesOf({ area: ep.area, method: ep.method, path: ep.path, doc }, (ref) => refIn(schemas, ref)),
    security: requirementOf(doc.security),
    ...(doc.deprecated ? { deprecated: true } : {}),
    ...(ep.since ? { 'x-since': ep.since } : {}),
    ...(ep.until ? { 'x-until': ep.until } : {}),
  }
}

/**
 * The authorization endpoint, when the auth service offers the OpenID Connect sign-in: its table routes
 * the discovery document (which advertises the authorization-code grant) and /authorize. A bare
 * /authorize (the browser pages of the activity table, whose codes the token endpoint refuses) is not
 * enough: the flow would be advertised without working.
 */
function authorizeRoute(tables: RouteTable[], masVersion: string | undefined): string | undefined {
  const routes = tables.find((t) => t.api === 'mas-public')?.routes.filter((e) => e.method === 'GET' && presentAt(e, masVersion)) ?? []
  if (!routes.some((e) => e.pattern === '/.well-known/openid-configuration')) return undefined
  return routes.find((e) => /^\/(oauth2\/)?authorize$/.test(e.pattern))?.pattern
}

/** Build the OpenAPI 3.1 document. */
export function buildOpenApi(opts: OpenApiOptions = {}): Record<string, unknown> {
  const hs = trimPrefix(opts.hsPrefix, '/_synapse', 'hsPrefix')
  const client = trimPrefix(opts.clientPrefix, '/_matrix', 'clientPrefix')
  const { schemas } = bundleSchemas({
    refPrefix: '#/components/schemas/',
    include: (key) => key.startsWith('admin/') || key.startsWith('homeserver/'),
  })
  const tables = opts.tables ?? defaultTables(hs, client)
  const paths: Record<string, Record<string, unknown>> = {}
  for (const ep of endpointsOf(tables, opts, client)) {
    const item = (paths[ep.path] ??= { description: otherMethods(ep.area) })
    if (item[ep.method]) throw new Error(`openapi: duplicate operation ${ep.method.toUpperCase()} ${ep.path}`)
    item[ep.method] = operationOf(schemas, ep)
  }
  addLinks(paths as Parameters<typeof addLinks>[0], schemas)
  const base = (opts.serverUrl ?? '').replace(/\/$/, '')
  const authorize = authorizeRoute(tables, opts.masVersion)

  return {
    openapi: '3.1.0',
    info: {
      title: 'Admin and audit interfaces: authentication service admin API and homeserver event reports',
      version: packageVersion(),
      description:
        "Generated by admin-conformance from its JSON Schemas and the route tables the mock routes with. Area A: the authentication service admin API under /api/admin/v1. Area B: the homeserver admin API for event reports, its version and background updates, and the client call that files a report. Every status an operation answers is listed, with its error envelope; the answers to a method a path lacks are in the path item's description. No operation answers 429 (there is no rate limit) and none answers 5xx except as its responses say: injected faults (mock --fault) exist to prove the suites and are not described. OPTIONS (CORS preflight) is answered on every path and not described.",
    },
    servers: [{ url: opts.serverUrl ?? '/' }],
    tags: [
      { name: 'server', description: 'Site configuration and version of the authentication service.' },
      { name: 'compat-session', description: 'Sessions of the legacy login of the chat protocol.' },
      { name: 'oauth2-session', description: 'OAuth 2.0 sessions.' },
      { name: 'personal-session', description: 'Sessions backed by personal access tokens.' },
      { name: 'policy-data', description: 'Dynamic data of the authorization policy.' },
      { name: 'user', description: 'Users: create, look up, lock and unlock, deactivate and reactivate, admin flag, password.' },
      { name: 'user-email', description: 'E-mail addresses of users.' },
      { name: 'user-session', description: 'Browser sessions of users.' },
      { name: 'oauth2-client', description: 'OAuth 2.0 clients.' },
      { name: 'upstream-oauth-provider', description: 'Upstream OAuth 2.0 providers users sign in with.' },
      { name: 'upstream-oauth-link', description: 'Links between users and their accounts at upstream providers.' },
      { name: 'user-registration-token', description: 'Tokens that allow registration: usage limits, expiry, revocation.' },
      { name: 'event-report', description: 'Reports users filed against events (homeserver admin API).' },
      { name: 'room-context', description: 'The events around an event, as report consumers fetch them (homeserver admin API).' },
      {
        name: 'rooms',
        description: 'Rooms, their members and state, and who is a server admin, as admin UIs list them (homeserver admin API).',
      },
      { name: 'user-report', description: 'Reports users filed against users (homeserver admin API, since Synapse 1.152.0).' },
      { name: 'homeserver', description: 'Version and background updates of the homeserver.' },
      { name: 'client', description: 'Client API calls that file a report against an event or a user.' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: securitySchemes(base, authorize ? `${base}${authorize}` : undefined),
    },
  }
}
