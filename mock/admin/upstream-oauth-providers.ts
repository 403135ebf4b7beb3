// /api/admin/v1/upstream-oauth-providers: list (filter[enabled]) and get (404 `Provider not found`,
// without the id). Read-only: providers come from the configuration.
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, masGate, type RouteEntry } from '../core/table.ts'
import { type UpstreamProvider } from '../store/mas/extra.ts'
import { list, listFilters } from './framework/listing.ts'
import { API, fmtTime, resource } from './framework/resource.ts'
import { getById } from './framework/session-handlers.ts'
import { notFoundTitle, type Titled } from './framework/by-id.ts'

const SITE = 'mas_handlers::admin::v1::upstream_oauth_providers'
const PATH = `${API}/upstream-oauth-providers`

export const providerResource = (p: UpstreamProvider) =>
  resource('upstream-oauth-provider', 'upstream-oauth-providers', p.id, {
    issuer: p.issuer,
    human_name: p.humanName,
    brand_name: p.brandName,
    created_at: fmtTime(p.createdAt),
    disabled_at: p.disabledAt === null ? null : fmtTime(p.disabledAt),
    registration_token_required: p.registrationTokenRequired,
  })

const FILTERS = listFilters<'enabled'>([
  // the bug: the flag read the wrong way round
  { key: 'filter[enabled]', kind: 'bool', index: 'enabled', invertFault: 'upstream-providers-enabled-inverted' },
])

export function listProviders(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:110`,
    path: PATH,
    filters: FILTERS,
    collection: ctx.world.mas.extra.providers,
    toResource: providerResource,
  })
}

export function getProvider(ctx: Ctx): Reply {
  // the service's title names no id
  return getById(ctx, {
    site: `${SITE}::get:37`,
    queries: 1,
    kind: PROVIDER,
    collection: ctx.world.mas.extra.providers,
    toResource: providerResource,
  })
}

/** the get handler's 404: `Provider not found`, without the id */
const PROVIDER: Titled = { noun: 'Provider', idInTitle: false }

const TAG = 'upstream-oauth-provider'

export const PROVIDER_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/upstream-oauth-providers',
    handler: listProviders,
    ...masGate('upstream-oauth-providers'),
    doc: {
      operationId: 'listUpstreamOAuthProviders',
      tag: TAG,
      summary: 'List upstream OAuth 2.0 providers',
      security: 'mas-admin',
      description: 'All providers of the configuration, enabled and disabled, oldest first.',
      query: 'admin/upstream-oauth-provider#ListQuery',
      responses: {
        '200': { description: 'A page of providers.', ref: 'admin/upstream-oauth-provider#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/upstream-oauth-providers/:id',
    handler: getProvider,
    ...masGate('upstream-oauth-provider-get'),
    doc: {
      operationId: 'getUpstreamOAuthProvider',
      tag: TAG,
      summary: 'Get an upstream OAuth 2.0 provider',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The provider.', ref: 'admin/upstream-oauth-provider#Single' },
        '404': adminErr(`${notFoundTitle(PROVIDER, '')} (the title names no id).`),
      },
    },
  },
]
