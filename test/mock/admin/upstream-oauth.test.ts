// The upstream-oauth-providers and upstream-oauth-links families of the mock: the seeded providers
// and links, every filter against the store, add (404s, 409, attaching a user-less link: 200, new:
// 201), get, delete, and the upstream-* faults.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'

const tm = await startTestMock(t, { seed: 13, sessions: 150 })
const x = tm.world().mas.extra
const mas = tm.world().mas
const NIL = '01040G2081040G2081040G2081'
const ids = (xs: readonly { id: string }[]) => xs.map((i) => i.id)
const links = () => x.links.all().filter((l) => !l.deleted)

t.test('providers', async (t) => {
  const all = x.providers.all()
  t.equal(all.length, 4)
  const r = await tm.get(`${API}/upstream-oauth-providers`)
  t.equal(schemaErrors('admin/upstream-oauth-provider#Page', r.body), '')
  t.same(ids(r.body.data), ids(all))
  t.same(
    ids((await tm.get(`${API}/upstream-oauth-providers?filter[enabled]=false`)).body.data),
    ids(all.filter((p) => p.disabledAt !== null)),
  )
  t.same(
    ids((await tm.get(`${API}/upstream-oauth-providers?filter[enabled]=true`)).body.data),
    ids(all.filter((p) => p.disabledAt === null)),
  )
  const one = await tm.get(`${API}/upstream-oauth-providers/${all[0]!.id}`)
  t.equal(schemaErrors('admin/upstream-oauth-provider#Single', one.body), '')
  const none = await tm.get(`${API}/upstream-oauth-providers/${NIL}`)
  t.same([none.status, ...titles(none.body)], [404, 'Provider not found'])
  tm.mock.faults.set(['upstream-providers-enabled-inverted'])
  t.same(
    ids((await tm.get(`${API}/upstream-oauth-providers?filter[enabled]=true`)).body.data),
    ids(all.filter((p) => p.disabledAt !== null)),
  )
  tm.mock.faults.set([])
})

t.test('links: listing and filters', async (t) => {
  const all = links()
  t.ok(all.some((l) => l.userId === null) && all.some((l) => l.userId !== null), 'links with and without a user')
  const r = await tm.get(`${API}/upstream-oauth-links`)
  t.equal(schemaErrors('admin/upstream-oauth-link#Page', r.body), '')
  t.same(ids(await tm.all(`${API}/upstream-oauth-links`, 5)), ids(all))
  const l = all.find((y) => y.userId !== null && y.humanAccountName !== null)!
  const cases: [string, (y: (typeof all)[number]) => boolean][] = [
    [`filter[user]=${l.userId}`, (y) => y.userId === l.userId],
    [`filter[provider]=${l.providerId}`, (y) => y.providerId === l.providerId],
    [`filter[subject]=${l.subject}`, (y) => y.subject === l.subject],
    [`filter[human-account-name]=${encodeURIComponent(l.humanAccountName!)}`, (y) => y.humanAccountName === l.humanAccountName],
  ]
  for (const [q, keep] of cases) t.same(ids(await tm.all(`${API}/upstream-oauth-links?${q}`, 4)), ids(all.filter(keep)), q)
  const nu = await tm.get(`${API}/upstream-oauth-links?filter[user]=${NIL}`)
  t.same([nu.status, ...titles(nu.body)], [404, `User ID ${NIL} not found`])
  const np = await tm.get(`${API}/upstream-oauth-links?filter[provider]=${NIL}`)
  t.same([np.status, ...titles(np.body)], [404, `Provider ID ${NIL} not found`])
  tm.mock.faults.set(['upstream-links-provider-ignored'])
  t.equal((await tm.get(`${API}/upstream-oauth-links?filter[provider]=${l.providerId}&count=only`)).body.meta.count, all.length)
  tm.mock.faults.set([])
})

t.test('links: add, attach, refuse, get, delete', async (t) => {
  const u = mas.users.all()[0]!
  const p = x.providers.all()[0]!
  const none = await tm.post(`${API}/upstream-oauth-links`, { user_id: NIL, provider_id: NIL, subject: 's' })
  t.same([none.status, ...titles(none.body)], [404, `User ID ${NIL} not found`])
  const np = await tm.post(`${API}/upstream-oauth-links`, { user_id: u.id, provider_id: NIL, subject: 's' })
  t.same([np.status, ...titles(np.body)], [404, `Upstream OAuth 2.0 Provider ID ${NIL} not found`])
  const add = await tm.post(`${API}/upstream-oauth-links`, {
    user_id: u.id,
    provider_id: p.id,
    subject: 'fresh-subject',
    human_account_name: 'fresh',
  })
  t.equal(add.status, 201)
  t.equal(schemaErrors('admin/upstream-oauth-link#Single', add.body), '')
  const dup = await tm.post(`${API}/upstream-oauth-links`, { user_id: mas.users.all()[1]!.id, provider_id: p.id, subject: 'fresh-subject' })
  t.same(
    [dup.status, ...titles(dup.body)],
    [409, `Upstream Oauth 2.0 Provider ID ${p.id} with subject fresh-subject is already linked to a user`],
  )
  const pending = links().find((l) => l.userId === null)!
  const attach = await tm.post(`${API}/upstream-oauth-links`, { user_id: u.id, provider_id: pending.providerId, subject: pending.subject })
  t.same(
    [attach.status, attach.body.data.id, attach.body.data.attributes.user_id],
    [200, pending.id, u.id],
    'a user-less link is attached: 200, same id',
  )
  const id = add.body.data.id
  t.same((await tm.get(`${API}/upstream-oauth-links/${id}`)).body.data, add.body.data)
  const del = await tm.req('DELETE', `${API}/upstream-oauth-links/${id}`, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.same([del.status, del.text], [204, ''])
  const gone = await tm.get(`${API}/upstream-oauth-links/${id}`)
  t.same([gone.status, ...titles(gone.body)], [404, `Upstream OAuth 2.0 Link ID ${id} not found`])
  const again = await tm.post(`${API}/upstream-oauth-links`, { user_id: u.id, provider_id: p.id, subject: 'fresh-subject' })
  t.equal(again.status, 201, 'after delete the subject can be linked anew')
  tm.mock.faults.set(['upstream-links-relink-accepted'])
  t.equal(
    (await tm.post(`${API}/upstream-oauth-links`, { user_id: mas.users.all()[1]!.id, provider_id: p.id, subject: 'fresh-subject' })).status,
    200,
  )
  tm.mock.faults.set([])
})
