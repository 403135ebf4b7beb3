// The user-sessions family of the mock: every filter against the store, get, finish (and again,
// unknown), and each user-sessions-* fault.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'

const tm = await startTestMock(t, { seed: 9, sessions: 150 })
const mas = tm.world().mas
const NIL = '01040G2081040G2081040G2081'
const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id)

t.test('listing and filters equal the store filtered here', async (t) => {
  const all = mas.userSessions.all()
  const r = await tm.get(`${API}/user-sessions?page[first]=3`)
  t.equal(schemaErrors('admin/user-session#Page', r.body), '')
  t.same(ids(await tm.all(`${API}/user-sessions`, 13)), ids(all))
  const u = all[5]!.userId
  const active = all.filter((s) => s.lastActiveAt !== null)
  const cut = active[Math.floor(active.length / 2)]!.lastActiveAt!
  const iso = new Date(cut / 1000).toISOString()
  const cases: [string, (s: (typeof all)[number]) => boolean][] = [
    [`filter[user]=${u}`, (s) => s.userId === u],
    ['filter[status]=active', (s) => s.finishedAt === null],
    ['filter[status]=finished', (s) => s.finishedAt !== null],
    [`filter[last-active-after]=${iso}`, (s) => s.lastActiveAt !== null && s.lastActiveAt > Math.floor(cut / 1000) * 1000],
    [`filter[last-active-before]=${iso}`, (s) => s.lastActiveAt !== null && s.lastActiveAt < Math.floor(cut / 1000) * 1000],
    [`filter[created-after]=${iso}`, (s) => Math.floor(s.createdAt / 1000) > Math.floor(cut / 1000)],
  ]
  for (const [q, keep] of cases) {
    t.same(ids(await tm.all(`${API}/user-sessions?${q}`, 7)), ids(all.filter(keep)), q)
  }
  const unknown = await tm.get(`${API}/user-sessions?filter[user]=${NIL}`)
  t.same([unknown.status, ...titles(unknown.body)], [404, `User ID ${NIL} not found`])
  t.equal((await tm.get(`${API}/user-sessions?filter[status]=revoked`)).status, 400)
  const self = await tm.get(`${API}/user-sessions?filter[status]=active&filter[user]=${u}&count=false`)
  t.equal(
    self.body.links.self,
    `${API}/user-sessions?filter[user]=${u}&filter[status]=active&count=false&page[first]=10`,
    'links in the service’s filter order',
  )
})

t.test('get and finish', async (t) => {
  const s = mas.userSessions.all().find((x) => x.finishedAt === null)!
  const got = await tm.get(`${API}/user-sessions/${s.id}`)
  t.equal(schemaErrors('admin/user-session#Single', got.body), '')
  const fin = await tm.post(`${API}/user-sessions/${s.id}/finish`)
  t.same(
    [fin.status, fin.body.links.self, typeof fin.body.data.attributes.finished_at],
    [200, `${API}/user-sessions/${s.id}/finish`, 'string'],
  )
  const again = await tm.post(`${API}/user-sessions/${s.id}/finish`)
  t.same([again.status, ...titles(again.body)], [400, `User session with ID ${s.id} is already finished`])
  const none = await tm.post(`${API}/user-sessions/${NIL}/finish`)
  t.same([none.status, ...titles(none.body)], [404, `User session with ID ${NIL} not found`])
  const noneGet = await tm.get(`${API}/user-sessions/${NIL}`)
  t.same([noneGet.status, ...titles(noneGet.body)], [404, `User session ID ${NIL} not found`])
})

t.test('the user-sessions-* faults', async (t) => {
  tm.mock.faults.set(['user-sessions-status-ignored'])
  t.equal((await tm.get(`${API}/user-sessions?filter[status]=active&count=only`)).body.meta.count, mas.userSessions.size)
  tm.mock.faults.set(['user-sessions-last-active-after-inclusive'])
  const s = mas.userSessions.all().find((x) => x.lastActiveAt !== null)!
  const exact = (await tm.get(`${API}/user-sessions/${s.id}`)).body.data.attributes.last_active_at
  const r = await tm.all(`${API}/user-sessions?filter[last-active-after]=${exact}`)
  t.ok(
    r.some((x) => x.id === s.id),
    'the session last active at the very time given is included under the fault',
  )
  tm.mock.faults.set([])
  const clean = await tm.all(`${API}/user-sessions?filter[last-active-after]=${exact}`)
  t.notOk(
    clean.some((x) => x.id === s.id),
    'and not without it',
  )
})
