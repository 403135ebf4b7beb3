// OAuth 2.0 clients (area A, beyond the interface document; v1.20.0+): listing, pagination, every
// filter against the full set, lookups, errors. Read-only: the admin API cannot change clients.
import { requireMasFeature } from '../lib/suite.ts'
import { familyCheck, allItems, walk, pageSizeFor, assertPages, sameIds, type FamilySpec, type MasItem } from './listing/walk.ts'
import { activeOwners } from './listing/owners.ts'
import { filterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'

const spec: FamilySpec = {
  family: 'oauth2-clients',
  type: 'oauth2-client',
  schema: 'admin/oauth2-client',
  notFoundTitle: (id) => [/oauth 2\.0 client id/i, id],
  feature: 'oauth2-clients',
}

listingChecks(spec)

// --- filters

for (const kind of ['static', 'dynamic'] as const) {
  filterCheck(spec, `filter[client-kind]=${kind} matches the full set filtered on is_static`, (items) => {
    const expect = (i: MasItem) => i.attributes.is_static === (kind === 'static')
    return items.some(expect) ? { filters: { 'filter[client-kind]': kind }, expect } : `no ${kind} client on the target`
  })
}

/** the service's `ILIKE '%s%'`: case-insensitive, `_` one character, `%` any text */
function ilike(search: string): (text: string) => boolean {
  const re = new RegExp(
    [...search.toLowerCase()].map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join(''),
    's',
  )
  return (text) => re.test(text.toLowerCase())
}

for (const attr of ['client_name', 'client_uri'] as const) {
  const key = `filter[${attr.replace('_', '-')}]`
  filterCheck(spec, `${key} matches ${attr} containing the text, case-insensitively`, (items) => {
    const values = items.map((i) => i.attributes[attr]).filter((v): v is string => typeof v === 'string' && /[a-z]{3}/i.test(v))
    const value = values[Math.floor(values.length / 2)]
    if (!value) return `no client has a ${attr} with three letters`
    const text = /[a-z]{3}/i.exec(attr === 'client_uri' ? value.replace(/^https?:\/\//, '') : value)![0].toUpperCase()
    return {
      filters: { [key]: text },
      expect: (i) => typeof i.attributes[attr] === 'string' && ilike(text)(i.attributes[attr]),
      describe: `text ${text}`,
    }
  })
}

filterCheck(spec, 'filter[grant-type] matches the clients declaring that grant type', (items) => {
  const counts = new Map<string, number>()
  for (const i of items) for (const g of (i.attributes.grant_types as string[]) ?? []) counts.set(g, (counts.get(g) ?? 0) + 1)
  const grant = [...counts.entries()].filter(([, n]) => n < items.length).sort((a, b) => b[1] - a[1])[0]?.[0] ?? [...counts.keys()][0]
  if (!grant) return 'no client declares a grant type'
  return {
    filters: { 'filter[grant-type]': grant },
    expect: (i) => ((i.attributes.grant_types as string[]) ?? []).includes(grant),
    describe: grant,
  }
})

filterCheck(spec, 'filter[grant-type] with a grant type no client can declare matches nothing', () => ({
  filters: { 'filter[grant-type]': 'password' },
  expect: () => false,
}))

/** the window's clients with an unfinished OAuth 2.0 session, as far as a bounded read settles it */
function clientsWithActiveSessions(ids: readonly string[]): Promise<Map<string, boolean>> {
  return activeOwners({ family: 'oauth2-sessions', attr: 'client_id', ownerFilter: 'filter[client]', ids })
}

for (const want of [true, false]) {
  familyCheck(
    spec,
    `filter[has-active-sessions]=${want} matches the clients ${want ? 'with' : 'without'} an active OAuth 2.0 session`,
    ['mas'],
    async (t) => {
      await requireMasFeature(t, 'oauth2-clients')
      const items = await allItems(spec)
      const ids = items.map((i) => i.id)
      const before = await clientsWithActiveSessions(ids)
      const w = await walk(spec, {
        direction: 'forward',
        pageSize: pageSizeFor(items.length),
        filters: { 'filter[has-active-sessions]': String(want) },
        until: items.at(-1)!.id,
      })
      const after = await clientsWithActiveSessions(ids)
      assertPages(t, w, `filter[has-active-sessions]=${want}`)
      // other suites finish sessions meanwhile: clients whose answer changed (or that were not settled) are left out
      const stable = (id: string) => before.has(id) && after.has(id) && before.get(id) === after.get(id)
      sameIds(
        t,
        w.items.filter((i) => stable(i.id)),
        items.filter((i) => stable(i.id) && before.get(i.id) === want),
        'the listing equals the clients so selected',
      )
    },
  )
}

// --- errors

badFilterCheck(spec, 'an invalid filter[client-kind] value', { 'filter[client-kind]': 'bogus' }, ['Invalid filter parameters'])
badFilterCheck(spec, 'an invalid filter[has-active-sessions] value', { 'filter[has-active-sessions]': 'maybe' }, [
  'Invalid filter parameters',
])
