// The auth service's link to its homeserver against a recording stand-in for Synapse's /_synapse/mas/
// API: the shared secret on every call and at introspection, a user and their device provisioned at
// compat login and at an OpenID Connect sign-in before the answer leaves, the device list synced
// when a session finishes, and delete_user / reactivate_user / provision_user(locked) as the admin
// API changes the user. The real Synapse takes these calls in test/real-synapse/delegation.test.ts.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SEEDED_PASSWORD } from '../../../mock/seed/mas/index.ts'
import { HomeserverLink } from '../../../mock/auth-service/homeserver-link/link.ts'
import { API, startTestMock } from '../admin/helpers.ts'
import { accountPageSetDisplayName, registerPublicClient, seededUser, signInWithPages } from './oidc-helpers.ts'

interface Call {
  path: string
  auth: string | undefined
  body: any
}

const calls: Call[] = []
const hs = createServer((req, res) => {
  let data = ''
  req.on('data', (c: Buffer) => (data += c.toString()))
  req.on('end', () => {
    calls.push({ path: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(data || 'null') })
    // Synapse answers 201 for a new user or device, 204 for delete_device, 200 otherwise
    res.writeHead(/provision_user|upsert_device/.test(req.url ?? '') ? 201 : 200, { 'content-type': 'application/json' })
    res.end('{}')
  })
})
await new Promise<void>((r) => hs.listen(0, '127.0.0.1', () => r()))
t.teardown(() => hs.close())
const SECRET = 'link-secret-1234'
const tm = await startTestMock(t, {
  seed: 5,
  sessions: 30,
  homeserverUrl: `http://127.0.0.1:${(hs.address() as AddressInfo).port}/`,
  homeserverSecret: SECRET,
})
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const since = (n: number) => calls.slice(n).map((c) => [c.path, c.body])

t.test('introspection takes the shared secret as a Bearer token, nothing else', async (t) => {
  const form = new URLSearchParams({ token: tm.admin, token_type_hint: 'access_token' }).toString()
  const ok = await tm.req('POST', '/oauth2/introspect', {
    headers: { ...FORM, authorization: `Bearer ${SECRET}`, 'x-mas-supports-device-id': '1' },
    body: form,
  })
  t.equal(ok.status, 200)
  t.equal(ok.body.active, true)
  const wrong = await tm.req('POST', '/oauth2/introspect', { headers: { ...FORM, authorization: `Bearer ${SECRET}x` }, body: form })
  t.equal(wrong.status, 401, 'another bearer is refused')
  const log = await tm.log()
  t.notOk(JSON.stringify(log).includes(SECRET), 'the secret is in no log line')
})

t.test('compat login provisions the user and the device before it answers; logout syncs the devices', async (t) => {
  const user = seededUser(tm.world().mas, false)
  const n = calls.length
  const login = await tm.post(
    '/_matrix/client/v3/login',
    {
      type: 'm.login.password',
      identifier: { type: 'm.id.user', user: user.username },
      password: SEEDED_PASSWORD,
      initial_device_display_name: 'phone',
    },
    { token: null },
  )
  t.equal(login.status, 200)
  t.same(
    since(n),
    [
      [
        '/_synapse/mas/provision_user',
        {
          localpart: user.username,
          set_emails: tm
            .world()
            .mas.extra.emails.all()
            .filter((e) => e.userId === user.id && !e.deleted)
            .map((e) => e.email),
        },
      ],
      ['/_synapse/mas/upsert_device', { localpart: user.username, device_id: login.body.device_id, display_name: 'phone' }],
    ],
    'both calls were made when the login answered',
  )
  t.ok(
    calls.slice(n).every((c) => c.auth === `Bearer ${SECRET}`),
    'every call carries the secret',
  )
  const m = calls.length
  t.equal((await tm.post('/_matrix/client/v3/logout', {}, { token: login.body.access_token })).status, 200)
  t.equal(calls.length - m, 1)
  const sync = calls[m]!
  t.equal(sync.path, '/_synapse/mas/sync_devices')
  t.equal(sync.body.localpart, user.username)
  t.notOk(sync.body.devices.includes(login.body.device_id), "the finished session's device is not kept")
})

t.test('an OpenID Connect sign-in provisions the device of its scope', async (t) => {
  const clientId = await registerPublicClient(tm)
  const user = seededUser(tm.world().mas, true)
  const n = calls.length
  const tok = await signInWithPages(tm, clientId, 'openid urn:matrix:client:api:* urn:matrix:client:device:LINKDEVICE1', user.username)
  t.ok(tok.access_token)
  t.same(
    calls.slice(n).map((c) => c.path),
    ['/_synapse/mas/provision_user', '/_synapse/mas/upsert_device'],
  )
  t.same(calls[n + 1]!.body, { localpart: user.username, device_id: 'LINKDEVICE1' })
})

t.test('deactivate, reactivate, lock and unlock reach the homeserver', async (t) => {
  const user = tm
    .world()
    .mas.users.all()
    .find((u) => u.deactivatedAt === null && u.lockedAt === null && !u.legacyGuest)!
  const n = calls.length
  t.equal((await tm.post(`${API}/users/${user.id}/lock`)).status, 200)
  t.equal((await tm.post(`${API}/users/${user.id}/unlock`)).status, 200)
  t.equal((await tm.post(`${API}/users/${user.id}/deactivate`)).status, 200)
  t.equal((await tm.post(`${API}/users/${user.id}/reactivate`)).status, 200)
  const got = since(n).filter(([p]) => p !== '/_synapse/mas/sync_devices')
  t.same(got, [
    ['/_synapse/mas/provision_user', { localpart: user.username, locked: true }],
    ['/_synapse/mas/provision_user', { localpart: user.username, locked: false }],
    ['/_synapse/mas/delete_user', { localpart: user.username, erase: true }],
    ['/_synapse/mas/reactivate_user', { localpart: user.username }],
  ])
  t.ok(tm.mock.homeserverLink!.sent >= got.length, 'the link counts its calls')
  t.equal(tm.mock.homeserverLink!.failed, 0)
})

t.test('a display name asked at creation, or changed on the account page, reaches the homeserver', async (t) => {
  const n = calls.length
  const made = await tm.post(`${API}/users`, { username: 'named.link', displayname: 'Named Link' })
  t.equal(made.status, 201)
  t.same(since(n), [['/_synapse/mas/provision_user', { localpart: 'named.link', set_emails: [], set_displayname: 'Named Link' }]])
  const profile = await tm.req('GET', '/_matrix/client/v3/profile/@named.link:' + tm.world().hs.serverName)
  t.same(profile.body, { displayname: 'Named Link' }, "the mock's own homeserver has the profile at once")
  const plain = await tm.post(`${API}/users`, { username: 'plain.link' })
  t.equal(plain.status, 201)
  t.same(calls.at(-1)!.body, { localpart: 'plain.link', set_emails: [] }, 'no display name asked, none sent')
  const plainProfile = await tm.req('GET', '/_matrix/client/v3/profile/@plain.link:' + tm.world().hs.serverName)
  t.same(plainProfile.body, { displayname: 'plain.link' }, 'the localpart, as Synapse registers it')

  // the account page: signed in with a password, then the GraphQL mutation the frontend sends
  const user = seededUser(tm.world().mas, false)
  const setName = await accountPageSetDisplayName(tm.url, user)
  const m = calls.length
  t.equal(await setName('Renamed'), 'SET')
  t.equal(await setName(null), 'SET')
  t.equal(await setName('x'.repeat(257)), 'INVALID', 'more than 256 bytes')
  t.equal(await setName(''), 'INVALID', 'empty')
  t.same(since(m), [
    ['/_synapse/mas/set_displayname', { localpart: user.username, displayname: 'Renamed' }],
    ['/_synapse/mas/unset_displayname', { localpart: user.username }],
  ])
  const after = await tm.req('GET', `/_matrix/client/v3/profile/@${user.username}:${tm.world().hs.serverName}`)
  t.equal(after.status, 404, "the mock's own profile lost its name too")
  const field = await tm.req('GET', `/_matrix/client/v3/profile/@${user.username}:${tm.world().hs.serverName}/displayname`)
  t.same([field.status, field.body], [200, { displayname: null }], 'as the real Synapse answers after unset_displayname')
})

t.test('job calls are retried with a growing delay, decided again; calls made while a request waits are not', async (t) => {
  // a homeserver that fails the first three calls of each op
  const seen: { path: string; body: any; at: number }[] = []
  const failures = new Map<string, number>()
  const flaky = createServer((req, res) => {
    let data = ''
    req.on('data', (c: Buffer) => (data += c.toString()))
    req.on('end', () => {
      const path = req.url ?? ''
      seen.push({ path, body: JSON.parse(data || 'null'), at: Date.now() })
      const failed = failures.get(path) ?? 0
      failures.set(path, failed + 1)
      res.writeHead(failed < 3 ? 503 : 200, { 'content-type': 'application/json' })
      res.end(failed < 3 ? '{"errcode":"M_UNKNOWN","error":"down"}' : '{}')
    })
  })
  await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', () => r()))
  t.teardown(() => flaky.close())
  const lines: string[] = []
  const own = await startTestMock(t, { seed: 6, sessions: 10 })
  const link = new HomeserverLink({
    endpoint: () => `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`,
    secret: () => 'flaky-secret',
    log: (level, message) => lines.push(`${level} ${message}`),
    retry: { attempts: 3, firstDelayMs: 40 },
  })
  t.teardown(() => link.close())
  link.attach(own.world())
  const user = own
    .world()
    .mas.users.all()
    .find((u) => u.deactivatedAt === null && u.lockedAt === null && !u.legacyGuest)!
  t.equal((await own.post(`${API}/users/${user.id}/deactivate`)).status, 200)
  const deadline = Date.now() + 5_000
  while (link.stats.abandoned + seen.filter((c) => c.path === '/_synapse/mas/delete_user').length < 4 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20))
  const deletes = seen.filter((c) => c.path === '/_synapse/mas/delete_user')
  t.equal(deletes.length, 3, 'three attempts, the last one given up')
  t.ok(deletes[2]!.at - deletes[1]!.at >= deletes[1]!.at - deletes[0]!.at, 'each wait at least as long as the one before')
  t.ok(deletes[1]!.at - deletes[0]!.at >= 40, 'the first retry waited its delay')
  t.equal(link.stats.abandoned, 1)
  t.equal(link.stats.retried, 2)
  t.ok(
    lines.some((l) => l.includes('given up after 3 attempts')),
    'the giving up is logged',
  )
  t.notOk(lines.join('\n').includes('flaky-secret'), 'never the secret')

  // a compat login: provision_user (a job) is retried, upsert_device (made while the login waits) is not
  const other = own
    .world()
    .mas.users.all()
    .find((u) => u.deactivatedAt === null && u.lockedAt === null && !u.legacyGuest && u.id !== user.id)!
  const before = seen.length
  const login = await own.post(
    '/_matrix/client/v3/login',
    { type: 'm.login.password', identifier: { type: 'm.id.user', user: other.username }, password: SEEDED_PASSWORD },
    { token: null },
  )
  t.equal(login.status, 200)
  const until = Date.now() + 5_000
  while (link.stats.abandoned < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  const paths = seen.slice(before).map((c) => c.path)
  t.equal(paths.filter((p) => p === '/_synapse/mas/upsert_device').length, 1, 'upsert_device once')
  t.equal(paths.filter((p) => p === '/_synapse/mas/provision_user').length, 3, 'provision_user three times')
})
