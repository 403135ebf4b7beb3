// User (browser) sessions (area A, beyond the interface document): listing, pagination, filters
// against the full set, lookups, errors; with writes: finish a session (the newest active one not
// of the admin token's user), finish it again (400), finish an unknown one (404).
import { requireMasFeature, skip, memo, mas, expectOk, expectMasError, MAS_API, UNKNOWN_ULID } from '../lib/suite.ts'
import { familyCheck, allItems, type FamilySpec, type MasItem } from './listing/walk.ts'
import { unknownFilterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'
import { activeFilterLinksCheck, idFilterCheck, sessionDateFilterChecks, statusFilterChecks } from './session-checks.ts'

const spec: FamilySpec = {
  family: 'user-sessions',
  type: 'user-session',
  schema: 'admin/user-session',
  notFoundTitle: (id) => [/user session/i, id],
}
const f = 'user-sessions'
const base = `${MAS_API}/${f}`
type Single = { data: MasItem; links: { self: string } }

listingChecks(spec)

// --- filters

idFilterCheck(spec, 'filter[user]', 'user_id', 'no browser session on the target')
statusFilterChecks(spec, 'finished_at', ['active', 'finished'], 'browser session')
sessionDateFilterChecks(spec)
activeFilterLinksCheck(spec, 'filter[user]', 'user_id', 'no browser session on the target')

// --- errors of the listing

unknownFilterCheck(spec, 'filter[user]', 'user')
badFilterCheck(spec, 'an invalid filter[status] value', { 'filter[status]': 'revoked' }, ['Invalid filter parameters'])
badFilterCheck(
  spec,
  'a malformed filter[created-before]',
  { 'filter[created-before]': 'yesterday' },
  ['Invalid filter parameters'],
  'filter-created-before',
)

// --- finish (writes)

function finished(): Promise<{ id: string; finishedAt: string } | string> {
  return memo('user-sessions:finished', async () => {
    // the newest active session: on a live target the least likely to be someone's daily browser
    const pick = (await allItems(spec)).filter((i) => i.attributes.finished_at === null).at(-1)
    if (!pick) return 'no active browser session on the target'
    const res = await mas('POST', `/${f}/${pick.id}/finish`)
    const at = (res.json as Single | undefined)?.data?.attributes?.finished_at
    return res.status === 200 && typeof at === 'string' ? { id: pick.id, finishedAt: at } : `finishing ${pick.id} answered ${res.status}`
  })
}

familyCheck(
  spec,
  'finish an active session → 200 with finished_at set, links.self ending /finish, and a fresh read agrees',
  ['mas', 'writes'],
  async (t) => {
    await requireMasFeature(t, 'user-sessions-finish')
    const pick = (await allItems(spec)).filter((i) => i.attributes.finished_at === null).at(-1)
    if (!pick) skip('no active browser session on the target')
    const before = Date.now()
    const res = await mas('POST', `/${f}/${pick.id}/finish`)
    const body = expectOk<Single>(t, res, `POST ${base}/${pick.id}/finish`, { schema: `${spec.schema}#Single` })
    if (!body) return
    await memo('user-sessions:finished', async () => ({ id: pick.id, finishedAt: String(body.data.attributes.finished_at) }))
    const at = Date.parse(String(body.data.attributes.finished_at))
    t.ok(Number.isFinite(at) && at >= before - 120_000, 'finished_at is the time of the request', {
      finished_at: body.data.attributes.finished_at,
    })
    t.equal(body.links.self, `${base}/${pick.id}/finish`, 'links.self is the finish path')
    t.equal(body.data.links.self, `${base}/${pick.id}`, 'data.links.self is the canonical path')
    const again = expectOk<Single>(t, await mas('GET', `/${f}/${pick.id}`), 'a fresh read', { schema: `${spec.schema}#Single` })
    if (again) t.equal(again.data.attributes.finished_at, body.data.attributes.finished_at, 'a fresh read shows the same finished_at')
  },
)

familyCheck(spec, 'finish a finished session → 400 naming the session', ['mas', 'writes'], async (t) => {
  await requireMasFeature(t, 'user-sessions-finish')
  const done = await finished()
  if (typeof done === 'string') skip(done)
  const res = await mas('POST', `/${f}/${done.id}/finish`)
  expectMasError(t, res, 400, `POST ${base}/${done.id}/finish again`, [`User session with ID ${done.id} is already finished`])
})

familyCheck(spec, 'finish an unknown session → 404 naming the session', ['mas', 'writes'], async (t) => {
  await requireMasFeature(t, 'user-sessions-finish')
  const res = await mas('POST', `/${f}/${UNKNOWN_ULID}/finish`)
  expectMasError(t, res, 404, `POST ${base}/${UNKNOWN_ULID}/finish`, [`User session with ID ${UNKNOWN_ULID} not found`])
})

familyCheck(spec, 'a finished session leaves filter[status]=active', ['mas', 'writes'], async (t) => {
  await requireMasFeature(t, 'user-sessions-finish')
  const done = await finished()
  if (typeof done === 'string') skip(done)
  const s = expectOk<Single>(t, await mas('GET', `/${f}/${done.id}`), 'the finished session')
  if (!s) return
  const res = await mas('GET', `/${f}`, {
    query: { 'filter[status]': 'active', 'filter[user]': String(s.data.attributes.user_id), 'page[first]': 1000 },
  })
  const ids = ((res.json as { data?: MasItem[] } | undefined)?.data ?? []).map((i) => i.id)
  t.equal(res.status, 200, 'the active listing answers')
  t.notOk(ids.includes(done.id), 'filter[status]=active no longer lists it')
})
