// --mas-version switches what the tables of lib/data/mas-features.json know, not only the version
// string: the date filters and the repeatable filter[client] (v1.20.0), the count parameter (v1.4.0),
// the request log's v1.20 fields; and a known deviation is reproduced where lib/data names it.
import t from 'tap'
import { API, startTestMock } from './helpers.ts'
import { inRange, masDeviates, masDeviationKnown } from '../../../mock/admin/framework/deviations.ts'
import { mockOptions } from '../../../mock/core/options.ts'

t.test('v1.19.0: no date filters, one filter[client]', async (t) => {
  const tm = await startTestMock(t, { seed: 3, sessions: 60, masVersion: 'v1.19.0' })
  const all = await tm.all(`${API}/compat-sessions`)
  const cut = all[Math.floor(all.length / 2)].attributes.created_at
  const filtered = await tm.all(`${API}/compat-sessions?filter[created-after]=${cut}`)
  t.equal(filtered.length, all.length, 'filter[created-after] is an unknown key before v1.20.0: ignored')
  const first = await tm.get(`${API}/compat-sessions?filter[last-active-before]=2000-01-01T00:00:00Z`)
  t.equal(first.status, 200)
  t.notMatch(first.body.links.self, /last-active/, 'and not echoed in the links')
  const clients = [
    ...new Set(
      tm
        .world()
        .mas.oauth2.all()
        .map((s) => s.clientId),
    ),
  ]
  const one = await tm.get(`${API}/oauth2-sessions?filter[client]=${clients[0]}`)
  t.equal(one.status, 200, 'one client')
  const two = await tm.get(`${API}/oauth2-sessions?filter[client]=${clients[0]}&filter[client]=${clients[1]}`)
  t.equal(two.status, 400, `two clients: a single-valued field then (${two.text.slice(0, 120)})`)
})

t.test('v1.22.0: date filters and a repeatable filter[client]', async (t) => {
  const tm = await startTestMock(t, { seed: 3, sessions: 60, masVersion: 'v1.22.0' })
  const all = await tm.all(`${API}/compat-sessions`)
  const cut = all[Math.floor(all.length / 2)].attributes.created_at
  const filtered = await tm.all(`${API}/compat-sessions?filter[created-after]=${cut}`)
  t.ok(filtered.length < all.length, `filter[created-after] filters (${filtered.length} of ${all.length})`)
  const clients = [
    ...new Set(
      tm
        .world()
        .mas.oauth2.all()
        .map((s) => s.clientId),
    ),
  ]
  t.equal((await tm.get(`${API}/oauth2-sessions?filter[client]=${clients[0]}&filter[client]=${clients[1]}`)).status, 200)
})

t.test('v1.3.0: no count parameter and no version endpoint, but site-config (since v1.3.0)', async (t) => {
  const tm = await startTestMock(t, { seed: 3, sessions: 30, masVersion: 'v1.3.0' })
  const only = await tm.get(`${API}/compat-sessions?count=only`)
  t.equal(only.status, 200)
  t.ok(Array.isArray(only.body.data), 'count=only is ignored: the data is there')
  t.type(only.body.meta.count, 'number', 'and meta.count always')
  t.equal((await tm.get(`${API}/compat-sessions?count=nonsense`)).status, 200, 'even a bad value is just an unknown key')
  t.equal((await tm.get(`${API}/site-config`)).status, 200, 'site-config: registered in v1.3.0')
  t.equal(
    (await startTestMock(t, { seed: 3, sessions: 3, masVersion: 'v1.2.0' }).then((m) => m.get(`${API}/site-config`))).status,
    404,
    'not in v1.2.0',
  )
  t.equal((await tm.get(`${API}/version`)).status, 404)
  const now = await startTestMock(t, { seed: 3, sessions: 30 })
  t.equal((await now.get(`${API}/compat-sessions?count=nonsense`)).status, 400, 'v1.22.0 checks it')
})

t.test('the request log follows the version unless its format is set', async (t) => {
  t.equal(mockOptions({ masVersion: 'v1.19.0' }, {}).logFormat, 'pre-v1.20')
  t.equal(mockOptions({ masVersion: 'v1.20.0' }, {}).logFormat, 'v1.20')
  t.equal(mockOptions({}, {}).logFormat, 'v1.20')
  t.equal(mockOptions({ masVersion: 'v1.19.0', logFormat: 'v1.20' }, {}).logFormat, 'v1.20', 'an explicit format wins')
  const tm = await startTestMock(t, { seed: 3, sessions: 9, masVersion: 'v1.19.0' })
  await tm.get(`${API}/compat-sessions`)
  const { responses } = await tm.log()
  t.equal(responses.length, 1)
  t.equal(responses[0]!.requester, undefined, 'no requester field before v1.20.0')
})

t.test('policy-data-get-returns-latest: reproduced where lib/data names it', async (t) => {
  t.ok(inRange({ since: 'v0.15.0' }, 'v1.22.0'))
  t.notOk(inRange({ since: 'v0.16.0' }, 'v0.15.9'))
  t.notOk(inRange({ since: 'v0.16.0', until: 'v1.23.0' }, 'v1.23.0'))
  t.ok(inRange({ since: 'v0.16.0' }, 'not a version'), 'an unparsable version is the newest')
  const tm = await startTestMock(t, { seed: 3, sessions: 9 })
  const store = tm.world().mas
  const first = store.policyData.first()
  t.ok(first, 'seeded policy data')
  if (!first) return
  t.equal((await tm.post(`${API}/policy-data`, { data: { x: 1 } })).status, 201, 'a newer record')
  const got = await tm.get(`${API}/policy-data/${first.id}`)
  t.equal(got.status, 200)
  const known = masDeviationKnown('policy-data-get-returns-latest')
  t.equal(masDeviates('v1.22.0', 'policy-data-get-returns-latest'), known)
  if (known) t.equal(got.body.data.id, store.policyData.last()!.id, 'v1.22.0 answers the latest record (lib/data/deviations.json)')
  else t.equal(got.body.data.id, first.id, 'without the row in lib/data: the record asked for, as the interface says')
})

t.test('the served document leaves out the parameters the claimed version lacks', async (t) => {
  const names = async (version: string) => {
    const tm = await startTestMock(t, { seed: 3, sessions: 3, masVersion: version })
    const spec = await tm.get('/api/spec.json')
    return ((spec.body.paths['/api/admin/v1/compat-sessions'].get.parameters ?? []) as { name: string }[]).map((p) => p.name)
  }
  const old = await names('v1.19.0')
  t.notOk(old.includes('filter[created-after]'), 'v1.19.0: no date filters')
  t.ok(old.includes('filter[status]'))
  t.ok((await names('v1.22.0')).includes('filter[created-after]'), 'v1.22.0: they are there')
})
