// Users (area A): listing, pagination, every filter against the full set, lookups by id and by
// username, errors; with writes, the five actions on a user this file creates (never on an existing
// one: deactivation ends every session of the user and cannot be undone for them). The created user
// is deactivated when the file ends (the admin API cannot delete users; it stays, deactivated, named
// admin-conformance-<run>).
import {
  requireMasFeature,
  masHasFeature,
  masVersion,
  note,
  skip,
  target,
  mas,
  expectOk,
  expectMasError,
  MAS_API,
  UNKNOWN_ULID,
} from '../lib/suite.ts'
import { familyCheck, allItems, walk, pageSizeFor, assertPages, sameIds, type FamilySpec, type MasItem } from './listing/walk.ts'
import { activeOwners } from './listing/owners.ts'
import { filterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'
import { userActionChecks } from './user-actions.ts'

const spec: FamilySpec = {
  family: 'users',
  type: 'user',
  schema: 'admin/user',
  notFoundTitle: (id) => [/user id/i, id],
}
const f = 'users'
const base = `${MAS_API}/${f}`
type Single = { data: MasItem; links: { self: string } }

listingChecks(spec)

// --- filters on the user's own attributes

for (const value of [true, false]) {
  filterCheck(spec, `filter[admin]=${value} matches the full set filtered client-side`, (items) => {
    const expect = (i: MasItem) => i.attributes.admin === value
    return items.some(expect) ? { filters: { 'filter[admin]': String(value) }, expect } : `no user ${value ? 'is' : 'is not'} an admin`
  })
  filterCheck(
    spec,
    `filter[legacy-guest]=${value} matches the full set filtered client-side`,
    (items) => {
      const expect = (i: MasItem) => i.attributes.legacy_guest === value
      return { filters: { 'filter[legacy-guest]': String(value) }, expect }
    },
    { feature: 'users-filter-search' },
  )
}

const STATES: Record<string, (i: MasItem) => boolean> = {
  active: (i) => i.attributes.locked_at === null && i.attributes.deactivated_at === null,
  // the service's condition is locked_at alone: deactivated users that are also locked are included
  locked: (i) => i.attributes.locked_at !== null,
  deactivated: (i) => i.attributes.deactivated_at !== null,
}
for (const [state, expect] of Object.entries(STATES)) {
  filterCheck(spec, `filter[status]=${state} matches the full set filtered client-side`, (items) =>
    items.some(expect)
      ? {
          filters: { 'filter[status]': state },
          expect,
          describe:
            state === 'locked'
              ? `${items.filter((i) => expect(i) && i.attributes.deactivated_at !== null).length} also deactivated`
              : undefined,
        }
      : `no ${state} user on the target`,
  )
}

/** the service's `ILIKE '%s%'`: case-insensitive, `_` one character, `%` any text */
function ilike(search: string): (name: string) => boolean {
  const re = new RegExp(
    [...search.toLowerCase()].map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join(''),
    's',
  )
  return (name) => re.test(name.toLowerCase())
}

filterCheck(
  spec,
  'filter[search] matches usernames containing the text, case-insensitively',
  (items) => {
    // three letters of a middle user's name, upper-cased: a case-sensitive match finds none of them
    const name = String(items[Math.floor(items.length / 2)]!.attributes.username)
    const letters = name.replace(/[^a-z]/g, '')
    if (letters.length < 3) return 'no username with three letters'
    const text = letters.slice(0, 3).toUpperCase()
    return { filters: { 'filter[search]': text }, expect: (i) => ilike(text)(String(i.attributes.username)), describe: `search ${text}` }
  },
  { feature: 'users-filter-search' },
)

filterCheck(
  spec,
  'filter[search] treats _ as any one character (SQL ILIKE)',
  (items) => {
    const name = String(items[0]!.attributes.username)
    if (name.length < 3) return 'the first username is shorter than three characters'
    const text = `${name[0]}_${name[2]}`
    return { filters: { 'filter[search]': text }, expect: (i) => ilike(text)(String(i.attributes.username)), describe: `search ${text}` }
  },
  { feature: 'users-filter-search' },
)

// --- filters on the user's sessions: the truth comes from the session listings, read before and
// after the filtered walk; users whose sessions changed in between (other suites finish sessions)
// are left out of the comparison.

/** The window's users with an active session of the family (of one client), as far as a bounded read settles it. */
function activeSessionUsers(
  family: 'oauth2-sessions' | 'compat-sessions',
  ids: readonly string[],
  client?: string,
): Promise<Map<string, boolean>> {
  return activeOwners({
    family,
    attr: 'user_id',
    ownerFilter: 'filter[user]',
    ids,
    extra: client ? { 'filter[client]': client } : undefined,
  })
}

/** Ids whose answer was settled both times and did not change (other suites finish sessions meanwhile). */
function settled(before: Map<string, boolean>, after: Map<string, boolean>): (id: string) => boolean {
  return (id) => before.has(id) && after.has(id) && before.get(id) === after.get(id)
}

function sessionFilterCheck(
  name: string,
  key: string,
  value: string,
  truth: (ids: string[]) => Promise<Map<string, boolean>>,
  want: boolean,
): void {
  familyCheck(spec, name, ['mas'], async (t) => {
    await requireMasFeature(t, 'users-filter-sessions')
    const items = await allItems(spec)
    const ids = items.map((i) => i.id)
    const before = await truth(ids)
    // The filtered walk stops at the window's last user (a window on a large target).
    const w = await walk(spec, {
      direction: 'forward',
      pageSize: pageSizeFor(items.length),
      filters: { [key]: value },
      until: items.at(-1)!.id,
    })
    const after = await truth(ids)
    assertPages(t, w, `${key}=${value}`)
    const stable = settled(before, after)
    const expected = items.filter((i) => stable(i.id) && before.get(i.id) === want)
    if (expected.length === 0) note(t, `no user expected for ${key}=${value} among the ${items.filter((i) => stable(i.id)).length} settled`)
    sameIds(
      t,
      w.items.filter((i) => stable(i.id) && i.id <= items.at(-1)!.id),
      expected,
      `${key}=${value}: the listing equals the users ${want ? 'with' : 'without'} such a session`,
    )
  })
}

for (const want of [true, false]) {
  sessionFilterCheck(
    `filter[has-active-oauth2-session]=${want} matches the active OAuth 2.0 sessions' users`,
    'filter[has-active-oauth2-session]',
    String(want),
    (ids) => activeSessionUsers('oauth2-sessions', ids),
    want,
  )
  sessionFilterCheck(
    `filter[has-active-compat-session]=${want} matches the active compat sessions' users`,
    'filter[has-active-compat-session]',
    String(want),
    (ids) => activeSessionUsers('compat-sessions', ids),
    want,
  )
}

familyCheck(spec, "filter[active-oauth2-client] matches the users of the client's active sessions", ['mas'], async (t) => {
  await requireMasFeature(t, 'users-filter-sessions')
  const res = await mas('GET', '/oauth2-sessions', { query: { 'filter[status]': 'active', 'page[first]': 100 } })
  const withUser = ((res.json as { data?: MasItem[] } | undefined)?.data ?? []).filter((s) => s.attributes.user_id)
  const client = withUser.at(-1)?.attributes.client_id as string | undefined
  if (!client) skip('no active OAuth 2.0 session with a user')
  const items = await allItems(spec)
  const ids = items.map((i) => i.id)
  const before = await activeSessionUsers('oauth2-sessions', ids, client)
  const w = await walk(spec, {
    direction: 'forward',
    pageSize: pageSizeFor([...before.values()].filter(Boolean).length),
    filters: { 'filter[active-oauth2-client]': client },
    until: items.at(-1)!.id,
  })
  const after = await activeSessionUsers('oauth2-sessions', ids, client)
  assertPages(t, w, `filter[active-oauth2-client]=${client}`)
  const stable = settled(before, after)
  sameIds(
    t,
    w.items.filter((i) => stable(i.id)),
    items.filter((i) => stable(i.id) && before.get(i.id)),
    `the users with an active session of client ${client}`,
  )
})

// --- lookups and errors

familyCheck(spec, 'GET by-username returns the listed user, links.self is the by-username path', ['mas'], async (t) => {
  const items = await allItems(spec)
  for (const item of [items[0]!, items.at(-1)!]) {
    const name = String(item.attributes.username)
    const res = await mas('GET', `/${f}/by-username/${encodeURIComponent(name)}`)
    const body = expectOk<Single>(t, res, `GET ${base}/by-username/${name}`, { schema: `${spec.schema}#Single` })
    if (!body) continue
    t.equal(body.data.id, item.id, 'the same user')
    t.equal(body.links.self, `${base}/by-username/${name}`, 'links.self is the requested path')
  }
})

familyCheck(spec, 'GET by-username of an unknown name → 404 naming it', ['mas'], async (t) => {
  const name = `admin-conformance-nobody-${target.runId ?? 'x'}`.toLowerCase()
  const res = await mas('GET', `/${f}/by-username/${name}`)
  expectMasError(t, res, 404, `GET ${base}/by-username/${name}`, [`User with username "${name}" not found`])
})

badFilterCheck(spec, 'an invalid filter[status] value', { 'filter[status]': 'finished' }, ['Invalid filter parameters'])
badFilterCheck(spec, 'an invalid filter[admin] value', { 'filter[admin]': 'yes' }, ['Invalid filter parameters'])

familyCheck(spec, 'filter[active-oauth2-client] with an unknown client → 404 naming it', ['mas'], async (t) => {
  await requireMasFeature(t, 'users-filter-sessions')
  const res = await mas('GET', `/${f}`, { query: { 'filter[active-oauth2-client]': UNKNOWN_ULID } })
  expectMasError(t, res, 404, `filter[active-oauth2-client]=${UNKNOWN_ULID}`, [`Client ID ${UNKNOWN_ULID} not found`])
})

familyCheck(spec, 'every action on an unknown user → 404 "User ID … not found"', ['mas', 'writes'], async (t) => {
  for (const action of ['lock', 'unlock', 'deactivate', 'reactivate', 'set-admin'] as const) {
    if (action === 'reactivate' && masHasFeature(await masVersion(), 'users-reactivate') === false) continue
    const res = await mas('POST', `/${f}/${UNKNOWN_ULID}/${action}`, action === 'set-admin' ? { body: { admin: false } } : {})
    expectMasError(t, res, 404, `POST ${base}/${UNKNOWN_ULID}/${action}`, [`User ID ${UNKNOWN_ULID} not found`])
  }
})

// --- the actions (writes), on a user created here

userActionChecks(spec)
