// /api/admin/v1/upstream-oauth-links: list (filters user, provider, subject, human-account-name),
// add, get, delete.
// - list: filter[user] / filter[provider] must exist (404 `User ID … not found`, `Provider ID … not
//   found`); subject and human-account-name are exact matches.
// - add: the user (404), the provider (404 `Upstream OAuth 2.0 Provider ID … not found`), then the
//   subject: linked to a user already → 409 `Upstream Oauth 2.0 Provider ID … with subject … is
//   already linked to a user` (sic); a link without a user is attached to this one (200); else a new
//   link (201).
// - get / delete: 404 `Upstream OAuth 2.0 Link ID … not found`; delete answers 204.
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, bodyRejection, masGate, type RouteEntry } from '../core/table.ts'
import { nowMicros } from '../store/mas/index.ts'
import { LIVE, type UpstreamLink, type UpstreamProvider } from '../store/mas/extra.ts'
import { authenticate } from './framework/auth.ts'
import { readJsonBody } from '../mas-http/body.ts'
import { checkUser } from './framework/filters.ts'
import { list, listFilters } from './framework/listing.ts'
import { byId, deleteById, found, USER, type Kind } from './framework/by-id.ts'
import { API, fmtTime, resource, single } from './framework/resource.ts'
import { routeError } from '../mas-http/errors.ts'

const SITE = 'mas_handlers::admin::v1::upstream_oauth_links'
const PATH = `${API}/upstream-oauth-links`

export const linkResource = (l: UpstreamLink) =>
  resource('upstream-oauth-link', 'upstream-oauth-links', l.id, {
    created_at: fmtTime(l.createdAt),
    provider_id: l.providerId,
    subject: l.subject,
    user_id: l.userId,
    human_account_name: l.humanAccountName,
  })

const PROVIDER: Kind<UpstreamProvider> = { noun: 'Provider', get: (ctx, id) => ctx.world.mas.extra.providers.get(id) }

const FILTERS = listFilters<'live' | 'user' | 'provider'>([
  { key: 'filter[user]', kind: 'ulid', index: 'user', exists: checkUser },
  {
    key: 'filter[provider]',
    kind: 'ulid',
    index: 'provider',
    exists: (ctx, site, id) => {
      const known = found(ctx, site, PROVIDER, id)
      return known.ok ? undefined : known.reply
    },
    // the bug: the provider filter is printed in links but not applied
    dropFault: 'upstream-links-provider-ignored',
  },
  { key: 'filter[subject]', kind: 'text', test: (_ctx, subject) => (l: UpstreamLink) => l.subject === subject },
  // since v1.22.0: an older release ignores the key as unknown
  {
    key: 'filter[human-account-name]',
    kind: 'text',
    test: (_ctx, han) => (l: UpstreamLink) => l.humanAccountName === han,
    since: 'upstream-oauth-links-filter-human-account-name',
  },
])

export function listLinks(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:130`,
    path: PATH,
    filters: FILTERS,
    base: [LIVE],
    collection: ctx.world.mas.extra.links,
    toResource: linkResource,
  })
}

const ADD = {
  name: 'AddUpstreamOauthLinkRequest',
  fields: [
    ['user_id', 'ulid'],
    ['provider_id', 'ulid'],
    ['subject', 'string'],
    ['human_account_name', 'string?'],
  ],
} as const

export function addLink(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const body = readJsonBody(ctx, ADD)
  if (!body.ok) return body.reply
  const b = body.value as { user_id: string; provider_id: string; subject: string; human_account_name: string | null }
  const site = `${SITE}::add:90`
  const x = ctx.world.mas.extra
  const user = found(ctx, site, USER, b.user_id, 2)
  if (!user.ok) return user.reply
  const provider = found(
    ctx,
    site,
    { noun: 'Upstream OAuth 2.0 Provider', get: (c, id) => c.world.mas.extra.providers.get(id) },
    b.provider_id,
    0,
  )
  if (!provider.ok) return provider.reply
  const existing = x.linkBySubject(b.provider_id, b.subject)
  if (existing && existing.userId !== null && !ctx.faults.has('upstream-links-relink-accepted')) {
    return routeError(
      ctx,
      site,
      409,
      `Upstream Oauth 2.0 Provider ID ${b.provider_id} with subject ${b.subject} is already linked to a user`,
    )
  }
  if (existing) {
    // an existing link without a user is attached to this one: 200, not 201
    x.linkToUser(existing, b.user_id)
    ctx.log.queries += 1
    return single(200, linkResource(existing))
  }
  const l = x.addLink(b.provider_id, b.subject, b.user_id, b.human_account_name, nowMicros(ctx.now()))
  ctx.log.queries += 2
  return single(201, linkResource(l))
}

const LINK: Kind<UpstreamLink> = { noun: 'Upstream OAuth 2.0 Link', get: (ctx, id) => ctx.world.mas.extra.getLink(id) }

export function getLink(ctx: Ctx): Reply {
  const l = byId(ctx, `${SITE}::get:37`, LINK)
  return l.ok ? single(200, linkResource(l.item)) : l.reply
}

export function deleteLink(ctx: Ctx): Reply {
  return deleteById(ctx, `${SITE}::delete:40`, LINK, (l) => ctx.world.mas.extra.removeLink(l))
}

const TAG = 'upstream-oauth-link'
const NOT_FOUND = adminErr('The link does not exist.')

export const LINK_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/upstream-oauth-links',
    handler: listLinks,
    doc: {
      operationId: 'listUpstreamOAuthLinks',
      tag: TAG,
      summary: 'List upstream OAuth 2.0 links',
      security: 'mas-admin',
      description: 'All links, with or without a user, oldest first. filter[subject] and filter[human-account-name] are exact matches.',
      query: 'admin/upstream-oauth-link#ListQuery',
      responses: {
        '200': { description: 'A page of links.', ref: 'admin/upstream-oauth-link#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
        '404': adminErr('The user or provider named in a filter does not exist.'),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/upstream-oauth-links',
    handler: addLink,
    ...masGate('upstream-oauth-links-add'),
    doc: {
      operationId: 'addUpstreamOAuthLink',
      tag: TAG,
      summary: 'Link a user to an upstream account',
      security: 'mas-admin',
      description:
        'Checked in this order: the user (404), the provider (404), the subject (409 when already linked to a user). A link of the subject without a user is attached to this user (200).',
      body: { ref: 'admin/upstream-oauth-link#AddRequest' },
      responses: {
        '200': { description: 'A link of the subject without a user, now attached to this user.', ref: 'admin/upstream-oauth-link#Single' },
        '201': { description: 'The new link.', ref: 'admin/upstream-oauth-link#Single' },
        '404': adminErr('The user or the provider does not exist.'),
        '409': adminErr('The subject is already linked to a user.'),
        '415': bodyRejection(),
        '422': bodyRejection(),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/upstream-oauth-links/:id',
    handler: getLink,
    doc: {
      operationId: 'getUpstreamOAuthLink',
      tag: TAG,
      summary: 'Get an upstream OAuth 2.0 link',
      security: 'mas-admin',
      responses: { '200': { description: 'The link.', ref: 'admin/upstream-oauth-link#Single' }, '404': NOT_FOUND },
    },
  },
  {
    method: 'DELETE',
    pattern: '/upstream-oauth-links/:id',
    handler: deleteLink,
    ...masGate('upstream-oauth-links-add'),
    doc: {
      operationId: 'deleteUpstreamOAuthLink',
      tag: TAG,
      summary: 'Delete an upstream OAuth 2.0 link',
      security: 'mas-admin',
      responses: { '204': { description: 'Deleted (no body).' }, '404': NOT_FOUND },
    },
  },
]
