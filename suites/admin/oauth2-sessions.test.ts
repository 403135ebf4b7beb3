// OAuth 2.0 sessions (area A): listing, pagination, filters, lookups, errors, and finish (with writes).
import {
  familyCheck, filterCheck, dateFilterCheck, listingChecks, unknownFilterCheck, badFilterCheck, filterLinksCheck,
  mas, allItems, mostCommon, skip, memo, walk, pageSizeFor, assertPages, sameIds, requireMasFeature, note,
  expectOk, expectMasError, expectStatus, mockControl, MAS_API, UNKNOWN_ULID, type FamilySpec, type MasItem,
} from '../../lib/suite.ts'

const spec: FamilySpec = {
  family: 'oauth2-sessions',
  type: 'oauth2-session',
  schema: 'admin/oauth2-session',
  notFoundTitle: (id) => [/oauth 2\.0 session/i, id],
}
const f = spec.family

const scopes = (i: MasItem): string[] => String(i.attributes.scope ?? '').split(' ').filter(Boolean)

listingChecks(spec)

// --- filters

filterCheck(spec, 'filter[user] matches the full set filtered client-side', (items) => {
  const user = mostCommon(items.map((i) => i.attributes.user_id as string | null))
  if (!user) return 'no OAuth 2.0 session has a user'
  return { filters: { 'filter[user]': user }, expect: (i) => i.attributes.user_id === user }
})

filterCheck(spec, 'filter[client] matches the full set filtered client-side', (items) => {
  const c = mostCommon(items.map((i) => i.attributes.client_id as string))
  if (!c) return 'no OAuth 2.0 session on the target'
  return { filters: { 'filter[client]': c }, expect: (i) => i.attributes.client_id === c }
})

filterCheck(
  spec,
  'filter[client] repeated returns the sessions of any listed client',
  (items) => {
    const counts = new Map<string, number>()
    for (const i of items) counts.set(i.attributes.client_id, (counts.get(i.attributes.client_id) ?? 0) + 1)
    const two = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([c]) => c)
    if (two.length < 2) return 'fewer than two clients have OAuth 2.0 sessions'
    return { filters: { 'filter[client]': two }, expect: (i) => two.includes(i.attributes.client_id), describe: 'two clients' }
  },
  { feature: 'client-filter-repeatable' },
)

filterCheck(spec, 'filter[user-session] matches the full set filtered client-side', (items) => {
  const us = mostCommon(items.map((i) => i.attributes.user_session_id as string | null))
  if (!us) return 'no OAuth 2.0 session was started from a browser session'
  return { filters: { 'filter[user-session]': us }, expect: (i) => i.attributes.user_session_id === us }
})

filterCheck(spec, 'filter[scope] with one token matches the full set filtered client-side', (items) => {
  // The token that splits the set most evenly says the most about the filter.
  const counts = new Map<string, number>()
  for (const i of items) for (const s of new Set(scopes(i))) counts.set(s, (counts.get(s) ?? 0) + 1)
  const candidates = [...counts.entries()].filter(([, n]) => n < items.length)
  const best = candidates.sort((a, b) => Math.abs(a[1] - items.length / 2) - Math.abs(b[1] - items.length / 2))[0]?.[0]
  if (!best) return 'every OAuth 2.0 session has the same scope tokens'
  return { filters: { 'filter[scope]': best }, expect: (i) => scopes(i).includes(best) }
})

filterCheck(spec, 'filter[scope] repeated requires every listed token', (items) => {
  const withTwo = items.find((i) => new Set(scopes(i)).size >= 2)
  if (!withTwo) return 'no OAuth 2.0 session has two scope tokens'
  const two = [...new Set(scopes(withTwo))].slice(0, 2)
  return { filters: { 'filter[scope]': two }, expect: (i) => two.every((s) => scopes(i).includes(s)), describe: `contains both ${two.join(' and ')}` }
})

filterCheck(spec, 'filter[status]=active matches the full set filtered client-side', (items) => {
  if (!items.some((i) => i.attributes.finished_at === null)) return 'no active OAuth 2.0 session on the target'
  return { filters: { 'filter[status]': 'active' }, expect: (i) => i.attributes.finished_at === null }
})

filterCheck(spec, 'filter[status]=finished matches the full set filtered client-side', (items) => {
  if (!items.some((i) => i.attributes.finished_at !== null)) return 'no finished OAuth 2.0 session on the target'
  return { filters: { 'filter[status]': 'finished' }, expect: (i) => i.attributes.finished_at !== null }
})

// The session carries no client kind, so the truth is structural: the two kinds partition the full set,
// and all sessions of one client fall on the same side.
familyCheck(spec, `filter[client-kind] dynamic and static partition the full set by client`, ['mas'], async (t) => {
  const items = await allItems(spec)
  const sides: Record<string, MasItem[]> = {}
  for (const kind of ['dynamic', 'static']) {
    const w = await walk(spec, { direction: 'forward', pageSize: pageSizeFor(items.length), filters: { 'filter[client-kind]': kind } })
    assertPages(t, w, `filter[client-kind]=${kind}`)
    sides[kind] = w.items
    const counts = w.pages.map((p) => p.body?.meta?.count)
    t.ok(counts.every((n) => n === w.items.length), `filter[client-kind]=${kind}: meta.count equals the items listed`, { found: counts })
  }
  const dyn = sides.dynamic ?? []
  const sta = sides.static ?? []
  const both = [...dyn, ...sta].sort((a, b) => (a.id < b.id ? -1 : 1))
  sameIds(t, both, items, 'dynamic and static together are the full set, each session once')
  const kindOf = new Map<string, string>()
  let mixed = ''
  for (const [kind, list] of [['dynamic', dyn], ['static', sta]] as const) {
    for (const i of list) {
      const seen = kindOf.get(i.attributes.client_id)
      if (seen && seen !== kind) mixed ||= i.attributes.client_id
      kindOf.set(i.attributes.client_id, kind)
    }
  }
  t.notOk(mixed, 'all sessions of one client are of one kind', { client: mixed })
  note(t, `${dyn.length} dynamic, ${sta.length} static`)
})

dateFilterCheck(spec, 'filter[created-before]', 'created_at', 'before', 'filter-created-before')
dateFilterCheck(spec, 'filter[created-after]', 'created_at', 'after', 'filter-created-after')
dateFilterCheck(spec, 'filter[last-active-before]', 'last_active_at', 'before', 'filter-last-active-before')
dateFilterCheck(spec, 'filter[last-active-after]', 'last_active_at', 'after', 'filter-last-active-after')

filterLinksCheck(spec, (items) => {
  const c = mostCommon(items.map((i) => i.attributes.client_id as string))
  return c ? { 'filter[client]': c, 'filter[status]': 'active' } : 'no OAuth 2.0 session on the target'
})

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

// --- finish (writes)

/** An active session that is safe to end: it has a user and no admin scope (never the caller's own). */
function candidates(items: MasItem[]): MasItem[] {
  return items.filter((i) => i.attributes.finished_at === null && i.attributes.user_id !== null && !scopes(i).includes('urn:mas:admin'))
}

function finishable(items: MasItem[]): MasItem | undefined {
  return candidates(items).at(-1)
}

function finishedOnce(): Promise<{ id: string } | string> {
  return memo('oauth2:finished', async () => {
    const pick = finishable(await allItems(spec))
    if (!pick) return 'no active OAuth 2.0 session with a user and without the admin scope to finish'
    const res = await mas('POST', `/${f}/${pick.id}/finish`)
    return res.status === 200 ? { id: pick.id } : `finishing ${pick.id} answered ${res.status}`
  })
}

familyCheck(spec, `finish an active session → 200 with finished_at set, and a fresh read agrees`, ['mas', 'writes'], async (t) => {
  const pick = finishable(await allItems(spec))
  if (!pick) skip('no active OAuth 2.0 session with a user and without the admin scope to finish')
  const before = Date.now()
  const res = await mas('POST', `/${f}/${pick.id}/finish`)
  await memo('oauth2:finished', async () => ({ id: pick.id }))
  const body = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `POST ${MAS_API}/${f}/${pick.id}/finish`, { schema: `${spec.schema}#Single` })
  if (!body) return
  const at = Date.parse(String(body.data.attributes.finished_at))
  t.ok(Number.isFinite(at), 'finished_at is set', { finished_at: body.data.attributes.finished_at })
  t.ok(at >= before - 120_000, 'finished_at is the time of the request', { finished_at: body.data.attributes.finished_at })
  t.equal(body.data.id, pick.id, 'the answer is the finished session')
  t.equal(body.data.links.self, `${MAS_API}/${f}/${pick.id}`, 'data.links.self is the canonical path')
  const again = expectOk<{ data: MasItem }>(t, await mas('GET', `/${f}/${pick.id}`), 'a fresh read', { schema: `${spec.schema}#Single` })
  if (again) t.equal(again.data.attributes.finished_at, body.data.attributes.finished_at, 'a fresh read shows the same finished_at')
})

familyCheck(spec, `finish a finished session → 400 naming the session`, ['mas', 'writes'], async (t) => {
  const done = await finishedOnce()
  let id: string
  if (typeof done === 'string') {
    const old = (await allItems(spec)).find((i) => i.attributes.finished_at !== null)
    if (!old) skip(`${done}, and no finished session is listed`)
    id = old.id
  } else id = done.id
  const res = await mas('POST', `/${f}/${id}/finish`)
  expectMasError(t, res, 400, `POST ${MAS_API}/${f}/${id}/finish again`, [/oauth 2\.0 session/i, id, /finished/i])
})

familyCheck(spec, `finish an unknown session → 404 naming the session`, ['mas', 'writes'], async (t) => {
  const res = await mas('POST', `/${f}/${UNKNOWN_ULID}/finish`)
  expectMasError(t, res, 404, `POST ${MAS_API}/${f}/${UNKNOWN_ULID}/finish`, [/oauth 2\.0 session/i, UNKNOWN_ULID])
})

familyCheck(spec, `a finished session leaves filter[status]=active`, ['mas', 'writes'], async (t) => {
  const done = await finishedOnce()
  if (typeof done === 'string') skip(done)
  const res = await mas('GET', `/${f}/${done.id}`)
  const body = expectOk<{ data: MasItem }>(t, res, `GET ${MAS_API}/${f}/${done.id}`, { schema: `${spec.schema}#Single` })
  if (!body) return
  t.not(body.data.attributes.finished_at, null, 'finished_at is set on a fresh read')
  const active = await mas('GET', `/${f}`, { query: { 'filter[status]': 'active', 'filter[client]': String(body.data.attributes.client_id), 'page[first]': 1000 } })
  const ids = ((active.json as { data?: MasItem[] } | undefined)?.data ?? []).map((i) => i.id)
  t.equal(active.status, 200, 'the active listing answers')
  t.notOk(ids.includes(done.id), 'filter[status]=active no longer lists it')
})

familyCheck(spec, 'finishing a session schedules a device-sync job for its user', ['mas', 'writes'], async (t) => {
  const before = await mockControl('GET', '/jobs')
  const items = await allItems(spec)
  const pick = candidates(items).at(-2) ?? candidates(items).at(-1)
  if (!pick) skip('no active session left to finish')
  const res = await mas('POST', `/${f}/${pick.id}/finish`)
  if (!expectStatus(t, res, 200, `POST ${MAS_API}/${f}/${pick.id}/finish`)) return
  const after = await mockControl('GET', '/jobs')
  type Job = { userId: string; kind: string }
  const jobsOf = (r: typeof before) => ((r.json as { jobs?: Job[] } | undefined)?.jobs ?? [])
  const added = jobsOf(after).slice(jobsOf(before).length)
  t.ok(added.some((j) => j.kind === 'sync-devices' && j.userId === pick.attributes.user_id), `a sync-devices job for user ${pick.attributes.user_id} was scheduled`, { added })
})
