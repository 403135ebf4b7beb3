// Faults of the auth service side (area A): plausible server bugs, each switched on at the one
// place where a real server would get it wrong (grep the name to find it).
import { fault } from './def.ts'

const a = <N extends string>(name: N, description: string, more?: Parameters<typeof fault>[3]) => fault(name, 'admin', description, more)
const auth = <N extends string>(name: N, description: string, more?: Parameters<typeof fault>[3]) => fault(name, 'auth', description, more)

export const adminFaults = [
  // pagination and links (mock/admin/framework/pagination.ts)
  a('pagination-drop-next-link', 'listings never carry links.next, even when more items follow'),
  a('pagination-off-by-one', 'page[after] is inclusive: the cursor item is repeated at the top of the next page'),
  a('pagination-count-ignores-filters', 'meta.count is the size of the whole collection, whatever the filters'),
  a('pagination-prev-on-forward', 'a forward page fetched with page[after] carries a links.prev'),
  a('pagination-last-wrong-order', 'page[last] returns its items newest first instead of in ascending id order'),
  a('pagination-first-and-last-accepted', 'page[first] together with page[last] is accepted (first wins) instead of a 400'),
  a('pagination-zero-page-accepted', 'page[first]=0 / page[last]=0 silently mean the default page size instead of a 400'),
  a('pagination-bad-cursor-500', 'an invalid page[...] value crashes the handler: 500 instead of 400 Invalid pagination parameters'),
  a('links-self-wrong-order', 'links.self puts page[first]/page[last] before the cursors and the filters'),
  a('count-only-includes-data', 'count=only still returns data and the first/last links', {
    versions: { mas: 'count-param' },
    differsBy: 'mas',
  }),
  a('item-cursor-missing', 'listed items lack meta.page.cursor'),
  // filters (mock/admin/framework/filters.ts and the listings)
  a('filter-status-inverted', 'filter[status] returns the opposite state (active <-> finished/revoked)'),
  a('filter-client-only-first', 'a repeated filter[client] uses only its first value', { versions: { mas: 'client-filter-repeatable' } }),
  a('filter-scope-any', 'filter[scope] matches sessions with any of the tokens instead of all of them'),
  a('filter-unknown-user-empty', 'an unknown user in filter[user]/[owner_user]/[actor_user] gives an empty 200 instead of a 404', {
    differsBy: 'mas',
  }),
  a('filter-created-after-inclusive', 'filter[created-after] includes sessions created in the very millisecond given', {
    versions: { mas: 'filter-created-after' },
  }),
  // transitions (mock/admin/framework/session-handlers.ts, the families' files, mock/mas-http/jobs.ts)
  a('finish-twice-200', 'finishing an already finished compat or OAuth 2.0 session answers 200 instead of 400', { differsBy: 'mas' }),
  a('finish-no-sync-job', 'finishing a session schedules no device-sync job'),
  a('revoke-twice-200', 'revoking an already revoked personal session answers 200 instead of 409', {
    versions: { mas: 'personal-sessions' },
  }),
  a('personal-revoke-keeps-expires', 'the revoke answer still shows the revoked token’s expires_at instead of null', {
    versions: { mas: 'personal-sessions' },
  }),
  a('regenerate-keeps-old-token', 'after regenerate the previous personal access token keeps working', {
    versions: { mas: 'personal-sessions' },
  }),
  a('personal-access-token-in-get', 'personal sessions carry an access_token key (null) outside the create/regenerate answers', {
    versions: { mas: 'personal-sessions' },
  }),
  a('policy-latest-oldest', 'policy-data/latest returns the oldest record instead of the newest', { versions: { mas: 'policy-data' } }),
  a('policy-get-by-id-returns-latest', 'policy-data/{id} returns the latest record whatever the id (what the real v1.22 handler does)', {
    versions: { mas: 'policy-data' },
  }),
  // errors (mock/mas-http/errors.ts)
  a('error-envelope-flat', 'admin API errors are {"error": "..."} instead of {"errors": [{"title": "..."}]}', { differsBy: 'mas' }),
  a('error-title-missing-id', 'not-found titles leave out the id (e.g. "Compatibility session not found")', { differsBy: 'mas' }),
  // auth (mock/admin/framework/auth.ts)
  auth('auth-missing-scope-200', 'a token without urn:mas:admin is accepted by the admin API', { differsBy: 'mas' }),
  auth('auth-missing-header-401', 'a request without Authorization header gets 401 instead of 400', { differsBy: 'mas' }),
]
