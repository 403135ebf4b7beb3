// OAuth 2.0 sessions (area A): listing, pagination, filters, lookups, errors, and finish (with writes).
import { setDefaultRule, mas, requireMasFeature, note, expectMasError, UNKNOWN_ULID } from '../lib/suite.ts'
import { familyCheck, allItems, fullSet, walk, pageSizeFor, assertPages, sameIds, type FamilySpec, type MasItem } from './listing/walk.ts'
import { filterCheck, unknownFilterCheck, badFilterCheck, assertCounts } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'
import {
  activeFilterLinksCheck,
  finishChecks,
  idFilterCheck,
  scopes,
  scopeTokenFilterCheck,
  sessionDateFilterChecks,
  statusFilterChecks,
} from './session-checks.ts'

setDefaultRule('spec/interface.md, Endpoints > Area A (oauth2-sessions) and Common conventions of area A; reference/mas-admin-api.md')

const spec: FamilySpec = {
  family: 'oauth2-sessions',
  type: 'oauth2-session',
  schema: 'admin/oauth2-session',
  notFoundTitle: (id) => [/oauth 2\.0 session/i, id],
}
const f = spec.family

listingChecks(spec)

// --- filters

idFilterCheck(spec, 'filter[user]', 'user_id', 'no OAuth 2.0 session has a user')
idFilterCheck(spec, 'filter[client]', 'client_id', 'no OAuth 2.0 session on the target')

filterCheck(
  spec,
  'filter[client] repeated returns the sessions of any listed client',
  (items) => {
    const counts = new Map<string, number>()
    for (const i of items) counts.set(i.attributes.client_id, (counts.get(i.attributes.client_id) ?? 0) + 1)
    const two = [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 2)
      .map(([c]) => c)
    if (two.length < 2) return 'fewer than two clients have OAuth 2.0 sessions'
    return { filters: { 'filter[client]': two }, expect: (i) => two.includes(i.attributes.client_id), describe: 'two clients' }
  },
  { feature: 'client-filter-repeatable' },
)

idFilterCheck(spec, 'filter[user-session]', 'user_session_id', 'no OAuth 2.0 session was started from a browser session')
scopeTokenFilterCheck(spec, 'filter[scope] with one token matches the full set filtered client-side', 'OAuth 2.0 session')

filterCheck(spec, 'filter[scope] repeated requires every listed token', (items) => {
  const withTwo = items.find((i) => new Set(scopes(i)).size >= 2)
  if (!withTwo) return 'no OAuth 2.0 session has two scope tokens'
  const two = [...new Set(scopes(withTwo))].slice(0, 2)
  return {
    filters: { 'filter[scope]': two },
    expect: (i) => two.every((s) => scopes(i).includes(s)),
    describe: `contains both ${two.join(' and ')}`,
  }
})

statusFilterChecks(spec, 'finished_at', ['active', 'finished'], 'OAuth 2.0 session')

// The session carries no client kind, so the truth is structural: the two kinds partition the full set,
// and all sessions of one client fall on the same side.
familyCheck(spec, `filter[client-kind] dynamic and static partition the full set by client`, ['mas'], async (t) => {
  const items = await allItems(spec)
  const sides: Record<string, MasItem[]> = {}
  for (const kind of ['dynamic', 'static']) {
    const full = await fullSet(spec)
    const w = await walk(spec, {
      direction: 'forward',
      pageSize: pageSizeFor(items.length),
      filters: { 'filter[client-kind]': kind },
      until: full.end,
    })
    assertPages(t, w, `filter[client-kind]=${kind}`)
    sides[kind] = w.items
    await assertCounts(
      t,
      spec,
      w,
      { 'filter[client-kind]': kind },
      full.complete ? w.items.length : undefined,
      `filter[client-kind]=${kind}: `,
    )
  }
  const dyn = sides.dynamic ?? []
  const sta = sides.static ?? []
  const both = [...dyn, ...sta].sort((a, b) => (a.id < b.id ? -1 : 1))
  sameIds(t, both, items, 'dynamic and static together are the full set, each session once')
  const kindOf = new Map<string, string>()
  let mixed = ''
  for (const [kind, list] of [
    ['dynamic', dyn],
    ['static', sta],
  ] as const) {
    for (const i of list) {
      const seen = kindOf.get(i.attributes.client_id)
      if (seen && seen !== kind) mixed ||= i.attributes.client_id
      kindOf.set(i.attributes.client_id, kind)
    }
  }
  t.notOk(mixed, 'all sessions of one client are of one kind', { client: mixed })
  note(t, `${dyn.length} dynamic, ${sta.length} static`)
})

sessionDateFilterChecks(spec)
activeFilterLinksCheck(spec, 'filter[client]', 'client_id', 'no OAuth 2.0 session on the target')

// --- errors of the listing

unknownFilterCheck(spec, 'filter[user]', 'user')
unknownFilterCheck(spec, 'filter[client]', 'client')
unknownFilterCheck(spec, 'filter[user-session]', 'session')
badFilterCheck(spec, 'an invalid scope in filter[scope]', { 'filter[scope]': 'not a valid scope' }, ['scope', '"not a valid scope"'])
badFilterCheck(spec, 'an invalid filter[status] value', { 'filter[status]': 'bogus' }, ['filter'])
badFilterCheck(spec, 'an invalid filter[client-kind] value', { 'filter[client-kind]': 'bogus' }, ['filter'])

familyCheck(spec, `a repeated filter[client] with an unknown client → 404 naming it`, ['mas'], async (t) => {
  await requireMasFeature(t, 'client-filter-repeatable')
  const items = await allItems(spec)
  const known = items[0]!.attributes.client_id as string
  const res = await mas('GET', `/${f}`, { query: { 'filter[client]': [known, UNKNOWN_ULID] } })
  expectMasError(t, res, 404, `filter[client]=${known}&filter[client]=${UNKNOWN_ULID}`, ['client', UNKNOWN_ULID])
})

// --- finish (writes): never the caller's own session

finishChecks(spec, {
  // an active session that is safe to end: it has a user and no admin scope
  candidates: (items) =>
    items.filter((i) => i.attributes.finished_at === null && i.attributes.user_id !== null && !scopes(i).includes('urn:mas:admin')),
  none: 'no active OAuth 2.0 session with a user and without the admin scope to finish',
  sameGroup: ['filter[client]', 'client_id'],
})
