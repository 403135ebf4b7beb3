// The oauth2-clients family of the mock: every filter against the store, get, and its faults.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'
import { clientUri } from '../../../mock/admin/oauth2-clients.ts'

const tm = await startTestMock(t, { seed: 11, sessions: 150 })
const mas = tm.world().mas
const NIL = '01040G2081040G2081040G2081'
const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id)

t.test('listing, filters, get', async (t) => {
  const all = mas.clients.all()
  const r = await tm.get(`${API}/oauth2-clients`)
  t.equal(schemaErrors('admin/oauth2-client#Page', r.body), '')
  t.same(ids(await tm.all(`${API}/oauth2-clients`, 4)), ids(all))
  const named = all.find((c) => c.name !== null)!
  const part = named.name!.slice(0, 3).toUpperCase()
  const active = (id: string) => mas.oauth2.all().some((s) => s.clientId === id && s.finishedAt === null)
  const cases: [string, (c: (typeof all)[number]) => boolean][] = [
    ['filter[client-kind]=static', (c) => c.kind === 'static'],
    ['filter[client-kind]=dynamic', (c) => c.kind === 'dynamic'],
    [`filter[client-name]=${encodeURIComponent(part)}`, (c) => c.name !== null && c.name.toLowerCase().includes(part.toLowerCase())],
    ['filter[client-uri]=EXAMPLE', (c) => clientUri(c) !== null],
    ['filter[grant-type]=client_credentials', (c) => c.grantTypes.includes('client_credentials')],
    ['filter[grant-type]=password', () => false],
    ['filter[has-active-sessions]=true', (c) => active(c.id)],
    ['filter[has-active-sessions]=false', (c) => !active(c.id)],
  ]
  for (const [q, keep] of cases) t.same(ids(await tm.all(`${API}/oauth2-clients?${q}`, 3)), ids(all.filter(keep)), q)
  const one = await tm.get(`${API}/oauth2-clients/${named.id}`)
  t.equal(schemaErrors('admin/oauth2-client#Single', one.body), '')
  t.same([one.body.data.attributes.client_id, one.body.data.attributes.is_static], [named.id, named.kind === 'static'])
  const none = await tm.get(`${API}/oauth2-clients/${NIL}`)
  t.same([none.status, ...titles(none.body)], [404, `OAuth 2.0 client ID ${NIL} not found`])
  t.equal((await tm.get(`${API}/oauth2-clients?filter[client-kind]=bogus`)).status, 400)
})

t.test('faults', async (t) => {
  tm.mock.faults.set(['oauth2-clients-unknown-grant-matches-all'])
  t.equal((await tm.get(`${API}/oauth2-clients?filter[grant-type]=password&count=only`)).body.meta.count, mas.clients.size)
  tm.mock.faults.set(['oauth2-clients-active-counts-finished'])
  const withAny = mas.clients.all().filter((c) => mas.oauth2.all().some((s) => s.clientId === c.id)).length
  t.equal((await tm.get(`${API}/oauth2-clients?filter[has-active-sessions]=true&count=only`)).body.meta.count, withAny)
  tm.mock.faults.set([])
})
