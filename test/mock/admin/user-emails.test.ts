// The user-emails family of the mock: the seeded addresses, both filters against the store, add
// (every error in the service's order), get, delete, and each user-emails-* fault.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'
import { emailProblem } from '../../../mock/admin/user-emails.ts'

const tm = await startTestMock(t, { seed: 7, sessions: 150 })
const mas = tm.world().mas
const emails = () =>
  tm
    .world()
    .mas.extra.emails.all()
    .filter((e) => !e.deleted)
const NIL = '01040G2081040G2081040G2081'

t.test('seeded addresses: most users have one or two, some in mixed case', async (t) => {
  const all = emails()
  t.ok(all.length >= mas.users.size * 0.8, `${all.length} addresses for ${mas.users.size} users`)
  t.ok(
    all.some((e) => e.email !== e.email.toLowerCase()),
    'a mixed-case address',
  )
  t.equal(new Set(all.map((e) => e.email.toLowerCase())).size, all.length, 'unique case-insensitively')
  const other = await startTestMock(t, { seed: 7, sessions: 150 })
  t.same(
    other
      .world()
      .mas.extra.emails.all()
      .map((e) => [e.id, e.email]),
    all.map((e) => [e.id, e.email]),
    'the same seed, the same addresses',
  )
})

t.test('listing and filters', async (t) => {
  const r = await tm.get(`${API}/user-emails`)
  t.equal(r.status, 200)
  t.equal(schemaErrors('admin/user-email#Page', r.body), '')
  t.same(
    (await tm.all(`${API}/user-emails`, 9)).map((x) => x.id),
    emails().map((e) => e.id),
  )
  const e = emails().find((x) => x.email !== x.email.toLowerCase())!
  const byEmail = await tm.get(`${API}/user-emails?filter[email]=${encodeURIComponent(e.email.toUpperCase())}`)
  t.same(
    byEmail.body.data.map((x: { id: string }) => x.id),
    [e.id],
    'filter[email] ignores letter case',
  )
  t.equal(byEmail.body.links.self, `${API}/user-emails?filter[email]=${e.email.toUpperCase()}&page[first]=10`)
  const byUser = await tm.all(`${API}/user-emails?filter[user]=${e.userId}`)
  t.same(
    byUser.map((x) => x.id),
    emails()
      .filter((x) => x.userId === e.userId)
      .map((x) => x.id),
  )
  const unknown = await tm.get(`${API}/user-emails?filter[user]=${NIL}`)
  t.same([unknown.status, ...titles(unknown.body)], [404, `User ID ${NIL} not found`])
  const bad = await tm.get(`${API}/user-emails?filter[user]=nope`)
  t.same([bad.status, titles(bad.body)[0]], [400, 'Invalid filter parameters'])
})

t.test('add, get, delete', async (t) => {
  const u = mas.users.all()[0]!
  const existing = emails()[0]!
  const none = await tm.post(`${API}/user-emails`, { user_id: NIL, email: 'not an address' })
  t.same([none.status, ...titles(none.body)], [404, `User ID ${NIL} not found`], 'the user is checked first')
  const invalid = await tm.post(`${API}/user-emails`, { user_id: u.id, email: 'not an address' })
  t.same([invalid.status, ...titles(invalid.body)], [400, 'Email "not an address" is not valid', 'Missing domain or user'])
  const dup = await tm.post(`${API}/user-emails`, { user_id: u.id, email: existing.email.toUpperCase() })
  t.same([dup.status, ...titles(dup.body)], [409, `User email "${existing.email.toUpperCase()}" already in use`])
  const add = await tm.post(`${API}/user-emails`, { user_id: u.id, email: 'New.Address@example.org' })
  t.equal(add.status, 201)
  t.equal(schemaErrors('admin/user-email#Single', add.body), '')
  const id = add.body.data.id
  t.equal(add.body.links.self, `${API}/user-emails/${id}`)
  t.same((await tm.get(`${API}/user-emails/${id}`)).body.data, add.body.data)
  const del = await tm.req('DELETE', `${API}/user-emails/${id}`, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.same([del.status, del.text], [204, ''])
  const gone = await tm.get(`${API}/user-emails/${id}`)
  t.same([gone.status, ...titles(gone.body)], [404, `User email ID ${id} not found`])
  t.notOk(
    (await tm.all(`${API}/user-emails`)).some((x) => x.id === id),
    'no longer listed',
  )
  const count = await tm.get(`${API}/user-emails?filter[email]=new.address@example.org&count=only`)
  t.equal(count.body.meta.count, 0)
  const again = await tm.req('DELETE', `${API}/user-emails/${id}`, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.equal(again.status, 404)
  const readd = await tm.post(`${API}/user-emails`, { user_id: u.id, email: 'new.address@example.org' })
  t.equal(readd.status, 201, 'a deleted address may be added again')
})

t.test('address syntax', async (t) => {
  t.equal(emailProblem('a@b.example'), null)
  t.equal(emailProblem('a.b+c@[127.0.0.1]'), null)
  t.equal(emailProblem('@b.example'), 'Missing domain or user')
  t.equal(emailProblem('a b@c.example'), 'Invalid email user')
  t.equal(emailProblem('a@-c.example'), 'Invalid email domain')
})

t.test('the user-emails-* faults', async (t) => {
  const e = emails().find((x) => x.email !== x.email.toLowerCase())!
  tm.mock.faults.set(['user-emails-filter-email-case-sensitive'])
  t.equal((await tm.get(`${API}/user-emails?filter[email]=${encodeURIComponent(e.email.toLowerCase())}&count=only`)).body.meta.count, 0)
  tm.mock.faults.set(['user-emails-duplicate-accepted'])
  t.equal((await tm.post(`${API}/user-emails`, { user_id: e.userId, email: e.email.toLowerCase() })).status, 201)
  tm.mock.faults.set(['user-emails-delete-keeps'])
  const del = await tm.req('DELETE', `${API}/user-emails/${e.id}`, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.equal(del.status, 204)
  t.equal((await tm.get(`${API}/user-emails/${e.id}`)).status, 200)
  tm.mock.faults.set([])
})
