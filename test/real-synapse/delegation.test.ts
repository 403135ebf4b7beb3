// A real, unmodified Synapse from Debian's package delegating authentication to the mock (its
// `matrix_authentication_service` mode, password login off), and the mock's link pointed back at it
// (mock --homeserver-url, --homeserver-secret): a user signs in at the mock through OpenID Connect
// (login and consent pages, code exchange with PKCE), then uses the real Synapse's client API with
// that token (whoami, create a room, send, report); an admin signed in with urn:synapse:admin:* reads
// the report through the real Synapse's admin API; finishing the session at the mock makes Synapse
// refuse the token; display names asked at the mock reach Synapse's profiles; deactivating the user
// at the mock deactivates them in Synapse.
// Skips with the reason when the root filesystem (.ci/synapse.sh) is missing, unless
// AC_REQUIRE_SYNAPSE=1 (CI), which turns that into a failure.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { startSynapse, synapseAvailability } from '../fixtures/synapse/launcher.ts'
import { call } from '../fixtures/synapse/world.ts'
import { nowMicros } from '../../mock/store/mas/index.ts'
import { API, startTestMock } from '../mock/admin/helpers.ts'
import { accountPageSetDisplayName, registerPublicClient, seededUser, signInWithPages } from '../mock/auth-service/oidc-helpers.ts'

const required = process.env.AC_REQUIRE_SYNAPSE === '1'
const SERVER_NAME = 'example.test'

const avail = synapseAvailability()
if (!avail.ok) {
  if (required) t.fail(`a real Synapse is required here (AC_REQUIRE_SYNAPSE=1) but cannot start: ${avail.reason}`)
  else t.pass(`skipped: no real Synapse here (${avail.reason}); set AC_REQUIRE_SYNAPSE=1 to make this a failure`, { skip: true })
} else {
  const secret = randomBytes(24).toString('base64url')
  // The mock first (Synapse reads its address from its configuration), its link's URL once Synapse is up.
  const tm = await startTestMock(t, { seed: 7, sessions: 30, serverName: SERVER_NAME, homeserverSecret: secret })
  const started = Date.now()
  const s = await startSynapse(avail, { serverName: SERVER_NAME, authService: { endpoint: `${tm.url}/`, secret } })
  t.teardown(() => s.stop())
  tm.mock.options.homeserverUrl = s.url
  t.comment(
    `Synapse ${s.version} (Debian's matrix-synapse) on ${s.url}, delegating to the mock on ${tm.url}: started in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )

  const mas = tm.world().mas
  const user = seededUser(mas, false)
  const admin = seededUser(mas, true)
  const userId = `@${user.username}:${SERVER_NAME}`
  const clientId = await registerPublicClient(tm)
  const DEVICE = 'DELEGDEVICE01'
  let userToken = ''
  let adminToken = ''
  let eventId = ''
  let roomId = ''

  t.test('a user signed in at the mock uses the real client API: whoami, a room, a message, a report', async (t) => {
    const tok = await signInWithPages(tm, clientId, `openid urn:matrix:client:api:* urn:matrix:client:device:${DEVICE}`, user.username)
    userToken = tok.access_token
    const who = await call(s, 'GET', '/_matrix/client/v3/account/whoami', userToken)
    t.equal(who.status, 200, `whoami: ${JSON.stringify(who.json)}`)
    t.same(
      who.json,
      { user_id: userId, device_id: DEVICE, is_guest: false },
      'Synapse knows the user the mock provisioned, and the device of the session',
    )
    const room = await call(s, 'POST', '/_matrix/client/v3/createRoom', userToken, { name: 'delegated' })
    t.equal(room.status, 200, `createRoom: ${JSON.stringify(room.json)}`)
    roomId = room.json.room_id
    const sent = await call(s, 'PUT', `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/txn1`, userToken, {
      msgtype: 'm.text',
      body: 'reported',
    })
    t.equal(sent.status, 200, `send: ${JSON.stringify(sent.json)}`)
    eventId = sent.json.event_id
    const report = await call(
      s,
      'POST',
      `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/report/${encodeURIComponent(eventId)}`,
      userToken,
      { reason: 'delegated report', score: -100 },
    )
    t.equal(report.status, 200, `report: ${JSON.stringify(report.json)}`)
    const refused = await call(s, 'GET', '/_synapse/admin/v1/event_reports', userToken)
    t.equal(refused.status, 403, 'a token without urn:synapse:admin:* is no server admin')
    t.equal(refused.json.errcode, 'M_FORBIDDEN')
  })

  t.test('an admin signed in at the mock with urn:synapse:admin:* reads the report through the real admin API', async (t) => {
    const tok = await signInWithPages(
      tm,
      clientId,
      'openid urn:matrix:client:api:* urn:synapse:admin:* urn:matrix:client:device:DELEGADMIN01',
      admin.username,
    )
    adminToken = tok.access_token
    const list = await call(s, 'GET', '/_synapse/admin/v1/event_reports', adminToken)
    t.equal(list.status, 200, `event_reports: ${JSON.stringify(list.json)}`)
    t.equal(list.json.total, 1)
    t.match(list.json.event_reports?.[0], { event_id: eventId, room_id: roomId, user_id: userId, reason: 'delegated report', score: -100 })
  })

  t.test('finishing the session at the mock makes the real Synapse refuse its token', async (t) => {
    const info = mas.introspect(userToken, nowMicros(new Date()))
    t.ok(info.active, 'the session is active at the mock')
    const sessionId = info.active ? info.token.sessionId : ''
    const fin = await tm.post(`${API}/oauth2-sessions/${sessionId}/finish`)
    t.equal(fin.status, 200)
    // The answer of the finish waited for the device sync: the very next request is refused.
    const who = await call(s, 'GET', '/_matrix/client/v3/account/whoami', userToken)
    t.equal(who.status, 401, `whoami after the finish: ${JSON.stringify(who.json)}`)
    t.equal(who.json.errcode, 'M_UNKNOWN_TOKEN')
    const devices = await call(s, 'GET', `/_synapse/admin/v2/users/${encodeURIComponent(userId)}/devices`, adminToken)
    t.equal(devices.status, 200)
    t.notOk(
      devices.json.devices?.some((d: { device_id: string }) => d.device_id === DEVICE),
      'the device is gone from Synapse',
    )
  })

  t.test('display names set at the mock (at creation, on the account page) are what the real Synapse shows', async (t) => {
    const made = await tm.post(`${API}/users`, { username: 'named.delegated', displayname: 'Named Delegated' })
    t.equal(made.status, 201)
    const named = await call(s, 'GET', `/_matrix/client/v3/profile/${encodeURIComponent(`@named.delegated:${SERVER_NAME}`)}`, adminToken)
    t.equal(named.status, 200, `profile: ${JSON.stringify(named.json)}`)
    t.equal(named.json.displayname, 'Named Delegated', 'provisioned with the display name asked at creation')
    // the account page's mutation, by the user signed in at the mock with a password
    const setName = await accountPageSetDisplayName(tm.url, user)
    const profile = () => call(s, 'GET', `/_matrix/client/v3/profile/${encodeURIComponent(userId)}/displayname`, adminToken)
    t.equal(await setName('Renamed At The Mock'), 'SET')
    const renamed = await profile()
    t.same([renamed.status, renamed.json.displayname], [200, 'Renamed At The Mock'], 'set_displayname reached Synapse')
    t.equal(await setName(null), 'SET')
    const unset = await profile()
    const full = await call(s, 'GET', `/_matrix/client/v3/profile/${encodeURIComponent(userId)}`, adminToken)
    // as the mock's own homeserver answers a profile without a name (test/mock/auth-service/homeserver-link.test.ts)
    t.same([unset.status, unset.json], [200, { displayname: null }], 'unset_displayname reached Synapse')
    t.same([full.status, full.json?.errcode], [404, 'M_NOT_FOUND'], 'a profile with neither name nor avatar is not found')
  })

  t.test('deactivating the user at the mock deactivates them in Synapse', async (t) => {
    const tok = await signInWithPages(tm, clientId, 'openid urn:matrix:client:api:* urn:matrix:client:device:DELEGDEVICE02', user.username)
    t.equal((await call(s, 'GET', '/_matrix/client/v3/account/whoami', tok.access_token)).status, 200, 'a second sign-in works')
    const before = await call(s, 'GET', `/_synapse/admin/v2/users/${encodeURIComponent(userId)}`, adminToken)
    t.equal(before.json.deactivated, false)
    t.equal((await tm.post(`${API}/users/${user.id}/deactivate`)).status, 200)
    const after = await call(s, 'GET', `/_synapse/admin/v2/users/${encodeURIComponent(userId)}`, adminToken)
    t.equal(after.status, 200)
    t.equal(after.json.deactivated, true, 'Synapse has the user deactivated')
    const who = await call(s, 'GET', '/_matrix/client/v3/account/whoami', tok.access_token)
    t.equal(who.status, 401, `the user's token is refused: ${JSON.stringify(who.json)}`)
    t.equal(tm.mock.homeserverLink?.failed, 0, `no provisioning call failed: ${JSON.stringify(tm.mock.homeserverLink?.answers)}`)
    t.comment(`provisioning calls the real Synapse answered: ${JSON.stringify(tm.mock.homeserverLink?.answers)}`)
  })
}
