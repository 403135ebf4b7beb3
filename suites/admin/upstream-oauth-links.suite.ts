// Upstream OAuth 2.0 links (area A, beyond the interface document): listing, pagination, every filter
// against the full set, lookups, errors; with writes: add a link with a subject of this run (201),
// add it again for another user (409), read it back, delete it (204), then 404. On the bundled mock
// only: a link without a user is attached by add (200); on a live target such a link is someone's
// unfinished registration, so that check skips.
import { skip, memo, cleanup, target, mas, expectOk, expectMasError, expectStatus, MAS_API, UNKNOWN_ULID } from '../lib/suite.ts'
import { familyCheck, allItems, type FamilySpec, type MasItem } from './listing/walk.ts'
import { filterCheck, unknownFilterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'
import { idFilterCheck } from './session-checks.ts'

const spec: FamilySpec = {
  family: 'upstream-oauth-links',
  type: 'upstream-oauth-link',
  schema: 'admin/upstream-oauth-link',
  notFoundTitle: (id) => [/upstream oauth 2\.0 link id/i, id],
}
const f = 'upstream-oauth-links'
const base = `${MAS_API}/${f}`
type Single = { data: MasItem; links: { self: string } }

listingChecks(spec)

idFilterCheck(spec, 'filter[user]', 'user_id', 'no link with a user on the target')
idFilterCheck(spec, 'filter[provider]', 'provider_id', 'no link on the target')
// filter[human-account-name] exists since v1.22.0 (lib/data/mas-features.json); an older release ignores it.
for (const [key, attr, feature] of [
  ['filter[subject]', 'subject', undefined],
  ['filter[human-account-name]', 'human_account_name', 'upstream-oauth-links-filter-human-account-name'],
] as const) {
  filterCheck(
    spec,
    `${key} matches exactly`,
    (items) => {
      const pick = items.find((i) => typeof i.attributes[attr] === 'string')
      if (!pick) return `no link has a ${attr}`
      const value = String(pick.attributes[attr])
      return { filters: { [key]: value }, expect: (i) => i.attributes[attr] === value }
    },
    feature ? { feature } : {},
  )
}

unknownFilterCheck(spec, 'filter[user]', 'user')
unknownFilterCheck(spec, 'filter[provider]', 'provider')
badFilterCheck(spec, 'a malformed filter[provider]', { 'filter[provider]': 'not-a-ulid' }, ['Invalid filter parameters'])

// --- writes

const subject = () => `admin-conformance-${String(target.runId)}`

/** a user and a provider to link: from the listed links */
async function parties(): Promise<{ userId: string; otherUserId: string; providerId: string }> {
  const items = await allItems(spec)
  const users = [...new Set(items.map((i) => i.attributes.user_id).filter((u): u is string => typeof u === 'string'))]
  if (users.length < 2) skip('fewer than two users have links on the target')
  return { userId: users.at(-1)!, otherUserId: users.at(-2)!, providerId: String(items.at(-1)!.attributes.provider_id) }
}

function added(): Promise<{ id: string; userId: string; otherUserId: string; providerId: string } | string> {
  return memo('links:added', async () => {
    const p = await parties()
    const res = await mas('POST', `/${f}`, {
      body: { user_id: p.userId, provider_id: p.providerId, subject: subject(), human_account_name: 'admin-conformance' },
    })
    if (res.status !== 201) return `adding a link answered ${res.status}`
    const id = String((res.json as Single).data.id)
    cleanup(async () => {
      await mas('DELETE', `/${f}/${id}`)
    })
    return { id, ...p }
  })
}

familyCheck(spec, 'add a link → 201, it reads back and filter[subject] finds it', ['mas', 'writes'], async (t) => {
  const a = await added()
  if (typeof a === 'string') skip(a)
  const body = expectOk<Single>(t, await mas('GET', `/${f}/${a.id}`), `GET ${base}/${a.id}`, { schema: `${spec.schema}#Single` })
  if (body)
    t.same(
      [body.data.attributes.user_id, body.data.attributes.provider_id, body.data.attributes.subject],
      [a.userId, a.providerId, subject()],
      'as sent',
    )
  const listed = expectOk<{ data?: MasItem[] }>(
    t,
    await mas('GET', `/${f}`, { query: { 'filter[subject]': subject() } }),
    'filter[subject]',
  )
  t.same(
    (listed?.data ?? []).map((i) => i.id),
    [a.id],
    'exactly the new link',
  )
})

familyCheck(
  spec,
  'add refusals: unknown user → 404, unknown provider → 404, subject linked already → 409',
  ['mas', 'writes'],
  async (t) => {
    const a = await added()
    if (typeof a === 'string') skip(a)
    expectMasError(
      t,
      await mas('POST', `/${f}`, { body: { user_id: UNKNOWN_ULID, provider_id: a.providerId, subject: 'x' } }),
      404,
      'unknown user',
      [`User ID ${UNKNOWN_ULID} not found`],
    )
    expectMasError(
      t,
      await mas('POST', `/${f}`, { body: { user_id: a.userId, provider_id: UNKNOWN_ULID, subject: 'x' } }),
      404,
      'unknown provider',
      [`Provider ID ${UNKNOWN_ULID} not found`],
    )
    const again = await mas('POST', `/${f}`, { body: { user_id: a.otherUserId, provider_id: a.providerId, subject: subject() } })
    expectMasError(t, again, 409, 'the same subject for another user', [a.providerId, subject(), /already linked/])
    const still = expectOk<Single>(t, await mas('GET', `/${f}/${a.id}`), 'the link after the refusal')
    t.equal(still?.data.attributes.user_id, a.userId, 'the link still belongs to its user')
  },
)

familyCheck(spec, 'add for a link without a user attaches it → 200 with the same id (bundled mock only)', ['mas', 'writes'], async (t) => {
  if (!target.isMock) skip("on a live target a link without a user is someone's unfinished registration")
  const pending = (await allItems(spec)).find((i) => i.attributes.user_id === null)
  if (!pending) skip('no link without a user')
  const { userId } = await parties()
  const res = await mas('POST', `/${f}`, {
    body: { user_id: userId, provider_id: pending.attributes.provider_id, subject: pending.attributes.subject },
  })
  const body = expectOk<Single>(t, res, 'attach', { status: 200, schema: `${spec.schema}#Single` })
  if (body) t.same([body.data.id, body.data.attributes.user_id], [pending.id, userId], 'the same link, now with the user')
})

familyCheck(spec, 'delete → 204; then get and delete → 404', ['mas', 'writes'], async (t) => {
  const a = await added()
  if (typeof a === 'string') skip(a)
  const del = await mas('DELETE', `/${f}/${a.id}`)
  expectStatus(t, del, 204, `DELETE ${base}/${a.id}`)
  expectMasError(t, await mas('GET', `/${f}/${a.id}`), 404, 'GET after delete', [`Upstream OAuth 2.0 Link ID ${a.id} not found`])
  expectMasError(t, await mas('DELETE', `/${f}/${a.id}`), 404, 'DELETE again', [`Upstream OAuth 2.0 Link ID ${a.id} not found`])
})
