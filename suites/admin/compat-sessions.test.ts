// Compatibility sessions (area A): listing, pagination, filters, lookups, errors, and finish (with writes).
import {
  familyCheck, filterCheck, dateFilterCheck, listingChecks, unknownFilterCheck, badFilterCheck, filterLinksCheck,
  mas, allItems, mostCommon, skip, memo, expectOk, expectMasError, expectStatus, mockControl,
  MAS_API, UNKNOWN_ULID, type FamilySpec, type MasItem,
} from '../../lib/suite.ts'

const spec: FamilySpec = {
  family: 'compat-sessions',
  type: 'compat-session',
  schema: 'admin/compat-session',
  notFoundTitle: (id) => [/compat/i, id],
}
const f = spec.family

listingChecks(spec)

// --- filters: the filtered listing against the full set filtered client-side

filterCheck(spec, 'filter[user] matches the full set filtered client-side', (items) => {
  const user = mostCommon(items.map((i) => i.attributes.user_id as string))
  if (!user) return 'no compat session has a user'
  return { filters: { 'filter[user]': user }, expect: (i) => i.attributes.user_id === user }
})

filterCheck(spec, 'filter[user-session] matches the full set filtered client-side', (items) => {
  const us = mostCommon(items.map((i) => i.attributes.user_session_id as string | null))
  if (!us) return 'no compat session was started from a browser session (user_session_id is null everywhere)'
  return { filters: { 'filter[user-session]': us }, expect: (i) => i.attributes.user_session_id === us }
})

filterCheck(spec, 'filter[status]=active matches the full set filtered client-side', (items) => {
  if (!items.some((i) => i.attributes.finished_at === null)) return 'no active compat session on the target'
  return { filters: { 'filter[status]': 'active' }, expect: (i) => i.attributes.finished_at === null }
})

filterCheck(spec, 'filter[status]=finished matches the full set filtered client-side', (items) => {
  if (!items.some((i) => i.attributes.finished_at !== null)) return 'no finished compat session on the target'
  return { filters: { 'filter[status]': 'finished' }, expect: (i) => i.attributes.finished_at !== null }
})

dateFilterCheck(spec, 'filter[created-before]', 'created_at', 'before', 'filter-created-before')
dateFilterCheck(spec, 'filter[created-after]', 'created_at', 'after', 'filter-created-after')
dateFilterCheck(spec, 'filter[last-active-before]', 'last_active_at', 'before', 'filter-last-active-before')
dateFilterCheck(spec, 'filter[last-active-after]', 'last_active_at', 'after', 'filter-last-active-after')

filterLinksCheck(spec, (items) => {
  const user = mostCommon(items.map((i) => i.attributes.user_id as string))
  return user ? { 'filter[user]': user, 'filter[status]': 'active' } : 'no compat session has a user'
})

// --- errors of the listing

unknownFilterCheck(spec, 'filter[user]', 'user')
unknownFilterCheck(spec, 'filter[user-session]', 'session')
badFilterCheck(spec, 'an invalid filter[status] value', { 'filter[status]': 'bogus' }, ['filter'])
badFilterCheck(spec, 'a malformed filter[user]', { 'filter[user]': 'not-a-ulid' }, ['filter'])

// --- finish (writes): an active session, then again, then an unknown one

/** The session finished by the first transition check, shared with the "again" check. */
function finished(): Promise<{ id: string } | string> {
  return memo('compat:finished', async () => {
    const items = await allItems(spec)
    const active = items.filter((i: MasItem) => i.attributes.finished_at === null)
    // The newest active session: on a live target the least likely to be someone's daily device.
    const pick = active.at(-1)
    if (!pick) return 'no active compat session on the target to finish'
    const res = await mas('POST', `/${f}/${pick.id}/finish`)
    return res.status === 200 ? { id: pick.id } : `finishing ${pick.id} answered ${res.status}`
  })
}

familyCheck(spec, `finish an active session → 200 with finished_at set, and a fresh read agrees`, ['mas', 'writes'], async (t) => {
  const items = await allItems(spec)
  const pick = items.filter((i) => i.attributes.finished_at === null).at(-1)
  if (!pick) skip('no active compat session on the target to finish')
  const before = Date.now()
  const res = await mas('POST', `/${f}/${pick.id}/finish`)
  await memo('compat:finished', async () => ({ id: pick.id }))
  const body = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `POST ${MAS_API}/${f}/${pick.id}/finish`, { schema: `${spec.schema}#Single` })
  if (!body) return
  const at = Date.parse(String(body.data.attributes.finished_at))
  t.ok(Number.isFinite(at), 'finished_at is set', { finished_at: body.data.attributes.finished_at })
  t.ok(at >= before - 120_000, 'finished_at is the time of the request (not an old value)', { finished_at: body.data.attributes.finished_at })
  t.equal(body.data.id, pick.id, 'the answer is the finished session')
  t.equal(body.data.links.self, `${MAS_API}/${f}/${pick.id}`, 'data.links.self is the canonical path')
  const fresh = await mas('GET', `/${f}/${pick.id}`)
  const again = expectOk<{ data: MasItem }>(t, fresh, 'a fresh read', { schema: `${spec.schema}#Single` })
  if (again) t.equal(again.data.attributes.finished_at, body.data.attributes.finished_at, 'a fresh read shows the same finished_at')
})

familyCheck(spec, `finish a finished session → 400 naming the session`, ['mas', 'writes'], async (t) => {
  const done = await finished()
  let id: string
  if (typeof done === 'string') {
    // No session finished here: use one the target lists as finished.
    const items = await allItems(spec)
    const old = items.find((i) => i.attributes.finished_at !== null)
    if (!old) skip(`${done}, and no finished session is listed`)
    id = old.id
  } else id = done.id
  const res = await mas('POST', `/${f}/${id}/finish`)
  expectMasError(t, res, 400, `POST ${MAS_API}/${f}/${id}/finish again`, [/compat/i, id, /finished/i])
})

familyCheck(spec, `finish an unknown session → 404 naming the session`, ['mas', 'writes'], async (t) => {
  const res = await mas('POST', `/${f}/${UNKNOWN_ULID}/finish`)
  expectMasError(t, res, 404, `POST ${MAS_API}/${f}/${UNKNOWN_ULID}/finish`, [/compat/i, UNKNOWN_ULID])
})

familyCheck(spec, `a finished session leaves filter[status]=active`, ['mas', 'writes'], async (t) => {
  const done = await finished()
  if (typeof done === 'string') skip(done)
  const res = await mas('GET', `/${f}/${done.id}`)
  const body = expectOk<{ data: MasItem }>(t, res, `GET ${MAS_API}/${f}/${done.id}`, { schema: `${spec.schema}#Single` })
  if (!body) return
  t.not(body.data.attributes.finished_at, null, 'finished_at is set on a fresh read')
  const active = await mas('GET', `/${f}`, { query: { 'filter[status]': 'active', 'filter[user]': String(body.data.attributes.user_id), 'page[first]': 1000 } })
  const ids = ((active.json as { data?: MasItem[] } | undefined)?.data ?? []).map((i) => i.id)
  t.notOk(ids.includes(done.id), 'filter[status]=active no longer lists it')
})

familyCheck(spec, 'finishing a session schedules a device-sync job for its user', ['mas', 'writes'], async (t) => {
  const before = await mockControl('GET', '/jobs')
  const items = await allItems(spec)
  const pick = items.filter((i) => i.attributes.finished_at === null).at(-2) ?? items.filter((i) => i.attributes.finished_at === null).at(-1)
  if (!pick) skip('no active session left to finish')
  const res = await mas('POST', `/${f}/${pick.id}/finish`)
  if (!expectStatus(t, res, 200, `POST ${MAS_API}/${f}/${pick.id}/finish`)) return
  const after = await mockControl('GET', '/jobs')
  type Job = { userId: string; kind: string }
  const jobsOf = (r: typeof before) => ((r.json as { jobs?: Job[] } | undefined)?.jobs ?? [])
  const added = jobsOf(after).slice(jobsOf(before).length)
  t.ok(added.some((j) => j.kind === 'sync-devices' && j.userId === pick.attributes.user_id), `a sync-devices job for user ${pick.attributes.user_id} was scheduled`, { added })
})
