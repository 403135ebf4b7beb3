// The user-registration-tokens family of the mock: the seeded tokens in every state, the four
// filters against the store, add / get / update / revoke / unrevoke with their errors, and the faults.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'
import { tokenValid } from '../../../mock/store/mas/extra.ts'

const tm = await startTestMock(t, { seed: 15, sessions: 90 })
const x = tm.world().mas.extra
const NIL = '01040G2081040G2081040G2081'
const P = `${API}/user-registration-tokens`
const ids = (xs: readonly { id: string }[]) => xs.map((i) => i.id)
const put = (path: string, body: unknown) =>
  tm.req('PUT', path, { headers: { authorization: `Bearer ${tm.admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

t.test('listing and filters', async (t) => {
  const all = x.tokens.all()
  const now = Date.now() * 1000
  t.ok(all.some((k) => tokenValid(k, now)) && all.some((k) => !tokenValid(k, now)), 'valid and invalid tokens')
  const r = await tm.get(P)
  t.equal(schemaErrors('admin/user-registration-token#Page', r.body), '')
  t.same(ids(r.body.data), ids(all))
  const cases: [string, (k: (typeof all)[number]) => boolean][] = [
    ['filter[used]=true', (k) => k.timesUsed > 0],
    ['filter[used]=false', (k) => k.timesUsed === 0],
    ['filter[revoked]=true', (k) => k.revokedAt !== null],
    ['filter[expired]=true', (k) => k.expiresAt !== null && k.expiresAt < now],
    ['filter[expired]=false', (k) => k.expiresAt === null || k.expiresAt >= now],
    ['filter[valid]=true', (k) => tokenValid(k, now)],
    ['filter[valid]=false&filter[revoked]=false', (k) => !tokenValid(k, now) && k.revokedAt === null],
  ]
  for (const [q, keep] of cases) t.same(ids((await tm.get(`${P}?${q}`)).body.data), ids(all.filter(keep)), q)
  t.equal((await tm.get(`${P}?filter[valid]=maybe`)).status, 400)
})

t.test('add, update, revoke, unrevoke', async (t) => {
  const add = await tm.post(P, { usage_limit: 2 })
  t.equal(add.status, 201)
  t.equal(schemaErrors('admin/user-registration-token#Single', add.body), '')
  t.match(add.body.data.attributes.token, /^[A-Za-z0-9]{12}$/)
  t.same([add.body.data.type, add.body.data.attributes.valid, add.body.data.attributes.times_used], ['user-registration_token', true, 0])
  const id = add.body.data.id
  const dup = await tm.post(P, { token: add.body.data.attributes.token })
  t.same([dup.status, ...titles(dup.body)], [409, 'A registration token with the same token already exists'])
  const past = await put(`${P}/${id}`, { expires_at: '2020-01-01T00:00:00Z' })
  t.same(
    [past.status, past.body.data.attributes.valid, past.body.data.attributes.usage_limit],
    [200, false, 2],
    'expired: invalid; the limit is kept',
  )
  const cleared = await put(`${P}/${id}`, { expires_at: null, usage_limit: null })
  t.same(
    [cleared.body.data.attributes.expires_at, cleared.body.data.attributes.usage_limit, cleared.body.data.attributes.valid],
    [null, null, true],
  )
  const rev = await tm.post(`${P}/${id}/revoke`)
  t.same(
    [rev.status, rev.body.links.self, rev.body.data.attributes.valid, typeof rev.body.data.attributes.revoked_at],
    [200, `${P}/${id}/revoke`, false, 'string'],
  )
  const rev2 = await tm.post(`${P}/${id}/revoke`)
  t.same([rev2.status, ...titles(rev2.body)], [400, `Registration token with ID ${id} is already revoked`])
  const un = await tm.post(`${P}/${id}/unrevoke`)
  t.same([un.status, un.body.links.self, un.body.data.attributes.revoked_at], [200, `${P}/${id}/unrevoke`, null])
  const un2 = await tm.post(`${P}/${id}/unrevoke`)
  t.same([un2.status, ...titles(un2.body)], [400, `Registration token with ID ${id} is not revoked`])
  for (const [m, path] of [
    ['GET', `${P}/${NIL}`],
    ['POST', `${P}/${NIL}/revoke`],
    ['POST', `${P}/${NIL}/unrevoke`],
  ] as const) {
    const r = m === 'GET' ? await tm.get(path) : await tm.post(path)
    t.same([r.status, ...titles(r.body)], [404, `Registration token with ID ${NIL} not found`], `${m} ${path}`)
  }
  t.equal((await put(`${P}/${NIL}`, {})).status, 404)
  t.equal((await put(`${P}/${id}`, { expires_at: 'soon' })).status, 422)
})

t.test('faults', async (t) => {
  tm.mock.faults.set(['registration-tokens-expiry-ignores-time'])
  t.equal((await tm.get(`${P}?filter[expired]=true&count=only`)).body.meta.count, x.tokens.all().filter((k) => k.expiresAt !== null).length)
  const id = x.tokens.all()[0]!.id
  tm.mock.faults.set(['registration-tokens-update-ignores-limit'])
  const before = x.tokens.get(id)!.usageLimit
  t.equal((await put(`${P}/${id}`, { usage_limit: 99 })).body.data.attributes.usage_limit, before)
  tm.mock.faults.set(['registration-tokens-unrevoke-unrevoked-200'])
  const live = x.tokens.all().find((k) => k.revokedAt === null)!
  t.equal((await tm.post(`${P}/${live.id}/unrevoke`)).status, 200)
  tm.mock.faults.set([])
})
