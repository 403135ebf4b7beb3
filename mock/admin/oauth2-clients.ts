// /api/admin/v1/oauth2-clients: list (filters client-kind, client-name, client-uri, grant-type,
// has-active-sessions) and get (404 `OAuth 2.0 client ID … not found`).
// - client-name and client-uri are the service's `ILIKE '%text%'` (case-insensitive, % and _ wildcards);
// - grant-type takes any text: the four grant types a client can declare (authorization_code,
//   refresh_token, client_credentials, the device-code URN) match the clients declaring it, any
//   other value matches nothing;
// - has-active-sessions: the client has (or has not) an unfinished OAuth 2.0 session.
// The mock's clients carry no URI of their own: a named client's client_uri is derived from its name.
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, masGate, type RouteEntry } from '../core/table.ts'
import type { Client } from '../store/mas/index.ts'
import { list, listFilters } from './framework/listing.ts'
import { API, resource } from './framework/resource.ts'
import { getById } from './framework/session-handlers.ts'
import { ilikeContains } from './users.ts'

const SITE = 'mas_handlers::admin::v1::oauth2_clients'
const PATH = `${API}/oauth2-clients`

/** the client's home page: derived from its name (the mock's clients have none of their own) */
export function clientUri(c: Client): string | null {
  if (c.name === null) return null
  const slug =
    c.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'client'
  return `https://${slug}.example.com/`
}

export const oauth2ClientResource = (c: Client) =>
  resource('oauth2-client', 'oauth2-clients', c.id, {
    client_id: c.id,
    client_name: c.name,
    client_uri: clientUri(c),
    logo_uri: null,
    redirect_uris: [...c.redirectUris],
    grant_types: [...c.grantTypes],
    is_static: c.kind === 'static',
  })

const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code'
const DECLARABLE = new Set(['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE])

const FILTERS = listFilters<'kind'>([
  { key: 'filter[client-kind]', kind: 'enum', index: 'kind', values: ['dynamic', 'static'] },
  {
    key: 'filter[client-name]',
    kind: 'text',
    test: (_ctx, name) => {
      const m = ilikeContains(name)
      return (c: Client) => c.name !== null && m(c.name)
    },
  },
  {
    key: 'filter[client-uri]',
    kind: 'text',
    test: (_ctx, uri) => {
      const m = ilikeContains(uri)
      return (c: Client) => {
        const u = clientUri(c)
        return u !== null && m(u)
      }
    },
  },
  {
    key: 'filter[grant-type]',
    kind: 'text',
    // the bug: a grant type no column holds is treated as "no condition"
    test: (ctx, grant) =>
      DECLARABLE.has(grant)
        ? (c: Client) => c.grantTypes.includes(grant)
        : () => ctx.faults.has('oauth2-clients-unknown-grant-matches-all'),
  },
  {
    key: 'filter[has-active-sessions]',
    kind: 'holds',
    holds: (ctx) => {
      const oauth2 = ctx.world.mas.oauth2
      const anySession = ctx.faults.has('oauth2-clients-active-counts-finished')
      return (c: Client) =>
        oauth2.count({
          in: anySession
            ? [{ index: 'client', keys: [c.id] }]
            : [
                { index: 'client', keys: [c.id] },
                { index: 'status', keys: ['active'] },
              ],
        }).count > 0
    },
  },
])

export function listOAuth2Clients(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:140`,
    path: PATH,
    filters: FILTERS,
    collection: ctx.world.mas.clients,
    toResource: oauth2ClientResource,
  })
}

export function getOAuth2Client(ctx: Ctx): Reply {
  return getById(ctx, {
    site: `${SITE}::get:37`,
    queries: 1,
    kind: { noun: 'OAuth 2.0 client' },
    collection: ctx.world.mas.clients,
    toResource: oauth2ClientResource,
  })
}

const TAG = 'oauth2-client'

/** this family's rows of the admin route table */
export const OAUTH2_CLIENT_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/oauth2-clients',
    handler: listOAuth2Clients,
    ...masGate('oauth2-clients'),
    doc: {
      operationId: 'listOAuth2Clients',
      tag: TAG,
      summary: 'List OAuth 2.0 clients',
      security: 'mas-admin',
      description:
        "All clients, static and dynamic, oldest first. client-name and client-uri match like SQL ILIKE '%text%'; a grant type no client can declare matches nothing.",
      query: 'admin/oauth2-client#ListQuery',
      responses: {
        '200': { description: 'A page of clients.', ref: 'admin/oauth2-client#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/oauth2-clients/:id',
    handler: getOAuth2Client,
    ...masGate('oauth2-clients'),
    doc: {
      operationId: 'getOAuth2Client',
      tag: TAG,
      summary: 'Get an OAuth 2.0 client',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The client.', ref: 'admin/oauth2-client#Single' },
        '404': adminErr('The client does not exist.'),
      },
    },
  },
]
