// Filters of the three listings, each checked against the full listing filtered here, plus the
// 404/400 answers and the order in which links re-print the filters.
import t, { type Test } from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'

const tm = await startTestMock(t, { seed: 5, sessions: 600 })
const mas = tm.world().mas

const ms = (s: string | null) => (s === null ? null : Date.parse(s))
/** micros of an RFC 3339 timestamp with up to 6 fractional digits */
const us = (s: string | null) => {
  if (s === null) return null
  const m = /\.(\d+)Z$/.exec(s)
  const frac = m ? Number((m[1]! + '000000').slice(0, 6)) : 0
  return Math.floor(Date.parse(s) / 1000) * 1_000_000 + frac
}

/** the listing with `query`, all pages, with its count and self link */
async function filtered(path: string, query: string) {
  const first = await tm.get(`${path}?${query}&page[first]=1000`)
  if (first.status !== 200) throw new Error(`${query}: ${first.status} ${first.text}`)
  const items = [...first.body.data]
  let next = first.body.links.next
  while (next) {
    const r = await tm.get(next)
    items.push(...r.body.data)
    next = r.body.links.next
  }
  return { ids: items.map((d: any) => d.id), count: first.body.meta.count, self: first.body.links.self, body: first.body }
}

async function check(t: Test, path: string, all: any[], query: string, keep: (a: any) => boolean, ref: string) {
  const want = all.filter((d) => keep(d.attributes)).map((d) => d.id)
  const got = await filtered(path, query)
  t.same(got.ids, want, `${query}: items`)
  t.equal(got.count, want.length, `${query}: count`)
  t.equal(schemaErrors(ref, got.body), '', `${query}: valid page`)
  return want.length
}

t.test('compat-sessions filters', async (t) => {
  const path = `${API}/compat-sessions`
  const ref = 'admin/compat-session#Page'
  const all = await tm.all(path)
  const someUser = all[3].attributes.user_id
  const withBrowser = all.find((d: any) => d.attributes.user_session_id !== null).attributes.user_session_id
  const pivot = all[Math.floor(all.length / 2)].attributes.created_at
  const active = all
    .map((d: any) => d.attributes.last_active_at)
    .filter(Boolean)
    .sort()
  const laPivot = active[Math.floor(active.length / 2)]
  t.ok((await check(t, path, all, `filter[user]=${someUser}`, (a) => a.user_id === someUser, ref)) > 0)
  t.ok((await check(t, path, all, `filter[user-session]=${withBrowser}`, (a) => a.user_session_id === withBrowser, ref)) > 0)
  t.ok((await check(t, path, all, 'filter[status]=active', (a) => a.finished_at === null, ref)) > 0)
  t.ok((await check(t, path, all, 'filter[status]=finished', (a) => a.finished_at !== null, ref)) > 0)
  await check(t, path, all, `filter[user]=${someUser}&filter[status]=active`, (a) => a.user_id === someUser && a.finished_at === null, ref)
  // creation filters compare the id's millisecond: the pivot itself is neither before nor after
  const nb = await check(t, path, all, `filter[created-before]=${pivot}`, (a) => ms(a.created_at)! < ms(pivot)!, ref)
  const na = await check(t, path, all, `filter[created-after]=${pivot}`, (a) => ms(a.created_at)! > ms(pivot)!, ref)
  t.equal(nb + na, all.length - 1, 'the pivot session is excluded from both sides')
  await check(
    t,
    path,
    all,
    `filter[last-active-before]=${laPivot}`,
    (a) => a.last_active_at !== null && us(a.last_active_at)! < us(laPivot)!,
    ref,
  )
  await check(
    t,
    path,
    all,
    `filter[last-active-after]=${laPivot}`,
    (a) => a.last_active_at !== null && us(a.last_active_at)! > us(laPivot)!,
    ref,
  )
  await check(
    t,
    path,
    all,
    `filter[status]=finished&filter[created-after]=${pivot}&filter[last-active-after]=${laPivot}`,
    (a) => a.finished_at !== null && ms(a.created_at)! > ms(pivot)! && a.last_active_at !== null && us(a.last_active_at)! > us(laPivot)!,
    ref,
  )

  const links = await filtered(
    path,
    `filter[last-active-after]=2025-10-01T12:00:00.5%2B02:00&count=true&filter[status]=active&filter[user]=${someUser}&filter[created-before]=2026-01-01T00:00:00Z`,
  )
  t.equal(
    links.self,
    `${path}?filter[user]=${someUser}&filter[status]=active&filter[created-before]=2026-01-01T00:00:00Z&filter[last-active-after]=2025-10-01T10:00:00Z&page[first]=1000`,
    'filters re-printed in the handler order, dates in whole UTC seconds',
  )

  const unknownUser = '01FSHN9AG0MZAA6S4AF7CTV32E'
  const u = await tm.get(`${path}?filter[user]=${unknownUser}`)
  t.equal(u.status, 404)
  t.same(titles(u.body), [`User ID ${unknownUser} not found`])
  const s = await tm.get(`${path}?filter[user-session]=${unknownUser}`)
  t.same([s.status, ...titles(s.body)], [404, `User session ID ${unknownUser} not found`])
  const chain = (m: string) => ['Invalid filter parameters', `Failed to deserialize query string: ${m}`, m, m]
  for (const [q, m] of [
    ['filter[status]=bogus', 'filter[status]: unknown variant `bogus`, expected `active` or `finished`'],
    ['filter[user]=alice', 'filter[user]: invalid length'],
    ['filter[created-before]=yesterday', 'filter[created-before]: input contains invalid characters'],
    ['filter[last-active-after]=2026-01-01', 'filter[last-active-after]: premature end of input'],
    ['filter[status]=active&filter[status]=finished', 'filter[status]: unsupported value'],
  ] as const) {
    const r = await tm.get(`${path}?${q}`)
    t.equal(r.status, 400, q)
    t.same(titles(r.body), chain(m), q)
  }
  const empty = await tm.get(`${path}?filter[status]=&filter[user]=`)
  t.equal(empty.body.meta.count, all.length, 'empty filter values are absent')
})

t.test('oauth2-sessions filters', async (t) => {
  const path = `${API}/oauth2-sessions`
  const ref = 'admin/oauth2-session#Page'
  const all = await tm.all(path)
  const kinds = new Map(mas.clients.all().map((c) => [c.id, c.kind]))
  const byClient = new Map<string, number>()
  for (const d of all) byClient.set(d.attributes.client_id, (byClient.get(d.attributes.client_id) ?? 0) + 1)
  const [c1, c2] = [...byClient.keys()]
  const someUser = all.find((d: any) => d.attributes.user_id !== null).attributes.user_id
  const withBrowser = all.find((d: any) => d.attributes.user_session_id !== null).attributes.user_session_id
  const pivot = all[Math.floor(all.length / 3)].attributes.created_at
  const tokens = (a: any) => a.scope.split(' ')
  await check(t, path, all, `filter[user]=${someUser}`, (a) => a.user_id === someUser, ref)
  await check(t, path, all, `filter[client]=${c1}`, (a) => a.client_id === c1, ref)
  const both = await check(t, path, all, `filter[client]=${c1}&filter[client]=${c2}`, (a) => a.client_id === c1 || a.client_id === c2, ref)
  t.ok(both > byClient.get(c1!)!, 'a repeated client filter matches any of the clients')
  const self = (await filtered(path, `filter[client]=${c2}&filter[client]=${c1}`)).self
  t.equal(self, `${path}?filter[client]=${c2}&filter[client]=${c1}&page[first]=1000`, 'each client re-printed, in the order given')
  t.ok((await check(t, path, all, 'filter[client-kind]=static', (a) => kinds.get(a.client_id) === 'static', ref)) > 0)
  t.ok((await check(t, path, all, 'filter[client-kind]=dynamic', (a) => kinds.get(a.client_id) === 'dynamic', ref)) > 0)
  await check(t, path, all, `filter[user-session]=${withBrowser}`, (a) => a.user_session_id === withBrowser, ref)
  t.ok((await check(t, path, all, 'filter[scope]=urn:mas:admin', (a) => tokens(a).includes('urn:mas:admin'), ref)) > 0)
  const withApi = await check(
    t,
    path,
    all,
    'filter[scope]=openid&filter[scope]=urn:matrix:client:api:*',
    (a) => tokens(a).includes('openid') && tokens(a).includes('urn:matrix:client:api:*'),
    ref,
  )
  t.ok(withApi > 0, 'scope filters must all match')
  const device = all.map((d: any) => tokens(d.attributes).find((s: string) => s.startsWith('urn:matrix:client:device:'))).find(Boolean)
  t.equal(
    await check(t, path, all, `filter[scope]=${device}`, (a) => tokens(a).includes(device), ref),
    1,
    'a device scope names one session',
  )
  await check(t, path, all, 'filter[status]=finished', (a) => a.finished_at !== null, ref)
  await check(
    t,
    path,
    all,
    `filter[status]=active&filter[client-kind]=dynamic&filter[created-after]=${pivot}`,
    (a) => a.finished_at === null && kinds.get(a.client_id) === 'dynamic' && ms(a.created_at)! > ms(pivot)!,
    ref,
  )

  const ordered = await filtered(
    path,
    `filter[status]=active&filter[scope]=openid&filter[user-session]=${withBrowser}&filter[client-kind]=static&filter[client]=${c1}&filter[user]=${someUser}`,
  )
  t.equal(
    ordered.self,
    `${path}?filter[user]=${someUser}&filter[client]=${c1}&filter[client-kind]=static&filter[user-session]=${withBrowser}&filter[scope]=openid&filter[status]=active&page[first]=1000`,
  )

  const unknown = '01FSHN9AG0MZAA6S4AF7CTV32E'
  const c = await tm.get(`${path}?filter[client]=${c1}&filter[client]=${unknown}`)
  t.same([c.status, ...titles(c.body)], [404, `Client ID ${unknown} not found`])
  const u = await tm.get(`${path}?filter[user]=${unknown}&filter[client]=${unknown}`)
  t.same(titles(u.body), [`User ID ${unknown} not found`], 'the user is looked up before the clients')
  const bad = await tm.get(`${path}?filter[scope]=openid&filter[scope]=%22quoted%22`)
  t.same([bad.status, ...titles(bad.body)], [400, 'Invalid scope "\\"quoted\\"" in filter parameters'])
  const emptyScope = await tm.get(`${path}?filter[scope]=`)
  t.same(titles(emptyScope.body), ['Invalid scope "" in filter parameters'], 'an empty scope value is kept and rejected')
  const badClient = await tm.get(`${path}?filter[client]=${c1}&filter[client]=nope`)
  t.equal(titles(badClient.body)[2], 'filter[client][1]: invalid length')
  const badKind = await tm.get(`${path}?filter[client-kind]=Static`)
  t.equal(titles(badKind.body)[2], 'filter[client-kind]: unknown variant `Static`, expected `dynamic` or `static`')
})

t.test('personal-sessions filters', async (t) => {
  const path = `${API}/personal-sessions`
  const ref = 'admin/personal-session#Page'
  const all = await tm.all(path)
  const ownerUser = all.find((d: any) => d.attributes.owner_user_id !== null).attributes.owner_user_id
  const ownerClient = all.find((d: any) => d.attributes.owner_client_id !== null).attributes.owner_client_id
  const actor = all[5].attributes.actor_user_id
  const expiries = all
    .map((d: any) => d.attributes.expires_at)
    .filter(Boolean)
    .sort()
  const pivot = expiries[Math.floor(expiries.length / 2)]
  for (const d of all) t.ok((d.attributes.owner_user_id === null) !== (d.attributes.owner_client_id === null), 'exactly one owner')
  await check(t, path, all, `filter[owner_user]=${ownerUser}`, (a) => a.owner_user_id === ownerUser, ref)
  await check(t, path, all, `filter[owner_client]=${ownerClient}`, (a) => a.owner_client_id === ownerClient, ref)
  await check(t, path, all, `filter[actor_user]=${actor}`, (a) => a.actor_user_id === actor, ref)
  await check(t, path, all, 'filter[scope]=urn:mas:admin', (a) => a.scope.split(' ').includes('urn:mas:admin'), ref)
  await check(
    t,
    path,
    all,
    'filter[scope]=urn:mas:admin&filter[scope]=openid',
    (a) => a.scope.split(' ').includes('urn:mas:admin') && a.scope.split(' ').includes('openid'),
    ref,
  )
  t.ok((await check(t, path, all, 'filter[status]=active', (a) => a.revoked_at === null, ref)) > 0)
  t.ok((await check(t, path, all, 'filter[status]=revoked', (a) => a.revoked_at !== null, ref)) > 0)
  t.ok((await check(t, path, all, 'filter[expires]=true', (a) => a.expires_at !== null, ref)) > 0)
  t.ok((await check(t, path, all, 'filter[expires]=false', (a) => a.expires_at === null, ref)) > 0)
  await check(t, path, all, `filter[expires_before]=${pivot}`, (a) => a.expires_at !== null && us(a.expires_at)! < us(pivot)!, ref)
  await check(t, path, all, `filter[expires_after]=${pivot}`, (a) => a.expires_at !== null && us(a.expires_at)! > us(pivot)!, ref)
  await check(
    t,
    path,
    all,
    `filter[expires_after]=${pivot}&filter[status]=active&filter[owner_client]=${ownerClient}`,
    (a) => a.expires_at !== null && us(a.expires_at)! > us(pivot)! && a.owner_client_id === ownerClient,
    ref,
  )
  const self = (
    await filtered(
      path,
      `filter[expires]=true&filter[expires_after]=2025-01-01T00:00:00Z&filter[expires_before]=2030-01-01T00:00:00Z&filter[status]=active&filter[scope]=openid&filter[actor_user]=${actor}&filter[owner_client]=${ownerClient}&filter[owner_user]=${ownerUser}`,
    )
  ).self
  t.equal(
    self,
    `${path}?filter[owner_user]=${ownerUser}&filter[owner_client]=${ownerClient}&filter[actor_user]=${actor}&filter[scope]=openid&filter[status]=active&filter[expires_before]=2030-01-01T00:00:00Z&filter[expires_after]=2025-01-01T00:00:00Z&filter[expires]=true&page[first]=1000`,
  )
  const unknown = '01FSHN9AG0MZAA6S4AF7CTV32E'
  t.same(titles((await tm.get(`${path}?filter[owner_client]=${unknown}`)).body), [`Client ID ${unknown} not found`])
  t.same(titles((await tm.get(`${path}?filter[owner_user]=${unknown}`)).body), [`User ID ${unknown} not found`])
  t.same(titles((await tm.get(`${path}?filter[actor_user]=${unknown}`)).body), [`User ID ${unknown} not found`])
  const badBool = await tm.get(`${path}?filter[expires]=yes`)
  t.same(titles(badBool.body).slice(0, 3), [
    'Invalid filter parameters',
    'Failed to deserialize query string: filter[expires]: provided string was not `true` or `false`',
    'filter[expires]: provided string was not `true` or `false`',
  ])
  const badStatus = await tm.get(`${path}?filter[status]=finished`)
  t.equal(titles(badStatus.body)[2], 'filter[status]: unknown variant `finished`, expected `active` or `revoked`')
})
