// The public endpoints the fixtures use: token grant, dynamic registration, introspection,
// revocation, the admin API's user endpoints, and the compatibility login/logout.
import t from 'tap'
import { SEEDED_PASSWORD } from '../../../mock/seed/mas/index.ts'
import { API, startTestMock, titles } from '../admin/helpers.ts'

const HS_SECRET = 'homeserver-shared-secret'
const tm = await startTestMock(t, { seed: 21, sessions: 60, hsDelegateClientSecret: HS_SECRET })
const mas = tm.world().mas
const { adminClientId, adminClientSecret, clientPrefix, serverName } = tm.mock.options
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`
const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  tm.req('POST', path, { headers: { ...FORM, ...headers }, body: new URLSearchParams(fields).toString() })

t.test('client_credentials grant', async (t) => {
  const r = await form(
    '/oauth2/token',
    { grant_type: 'client_credentials', scope: 'urn:mas:admin' },
    { authorization: basic(adminClientId, adminClientSecret) },
  )
  t.equal(r.status, 200)
  t.same(Object.keys(r.body), ['access_token', 'token_type', 'expires_in', 'scope'])
  t.match(r.body, { token_type: 'Bearer', expires_in: 300, scope: 'urn:mas:admin' })
  t.match(r.body.access_token, /^mat_[A-Za-z0-9]{30}_[A-Za-z0-9]{6}$/)
  t.equal(r.headers.get('cache-control'), 'no-store')
  t.equal((await tm.get(`${API}/version`, r.body.access_token)).status, 200, 'the token works on the admin API')
  const session = mas.oauth2.get(mas.lookupAccessToken(r.body.access_token)!.sessionId)!
  t.match(session, { userId: null, clientId: adminClientId, scope: 'urn:mas:admin' })

  const post = await form('/oauth2/token', { grant_type: 'client_credentials', client_id: adminClientId, client_secret: adminClientSecret })
  t.equal(post.status, 200, 'client_secret_post works too')
  t.notOk('scope' in post.body, 'an empty scope is not echoed')

  const cases: [Record<string, string>, Record<string, string>, number, string, string?][] = [
    [
      { grant_type: 'client_credentials' },
      { authorization: basic(adminClientId, 'wrong') },
      401,
      'invalid_client',
      'Client authentication failed.',
    ],
    [{ grant_type: 'client_credentials' }, { authorization: basic('01FSHN9AG0MZAA6S4AF7CTV32E', 'x') }, 401, 'invalid_client'],
    [{ grant_type: 'client_credentials' }, {}, 401, 'invalid_client'],
    [
      { grant_type: 'password', username: 'a', password: 'b' },
      { authorization: basic(adminClientId, adminClientSecret) },
      400,
      'unsupported_grant_type',
    ],
    [{}, { authorization: basic(adminClientId, adminClientSecret) }, 400, 'invalid_request'],
    [
      { grant_type: 'refresh_token', refresh_token: 'mar_x' },
      { authorization: basic(adminClientId, adminClientSecret) },
      401,
      'unauthorized_client',
    ],
    [
      { grant_type: 'client_credentials', scope: 'urn:synapse:admin:* openid' },
      { authorization: basic(adminClientId, adminClientSecret) },
      403,
      'invalid_scope',
      "scope 'urn:synapse:admin:*' not allowed",
    ],
    [{ grant_type: 'client_credentials', client_id: adminClientId }, { authorization: basic(adminClientId, adminClientSecret) }, 200, ''],
    [
      { grant_type: 'client_credentials', client_id: 'other' },
      { authorization: basic(adminClientId, adminClientSecret) },
      400,
      'invalid_request',
    ],
  ]
  for (const [fields, headers, status, error, description] of cases) {
    const res = await form('/oauth2/token', fields, headers)
    t.equal(res.status, status, JSON.stringify(fields))
    if (error) t.equal(res.body.error, error, JSON.stringify(fields))
    if (description) t.equal(res.body.error_description, description)
  }
  const json = await tm.req('POST', '/oauth2/token', {
    headers: { 'content-type': 'application/json', authorization: basic(adminClientId, adminClientSecret) },
    body: '{}',
  })
  t.equal(json.status, 400)
  const { responses } = await tm.log()
  const tokenLines = responses.filter((l) => l.path === '/oauth2/token')
  t.same(tokenLines[0]!.requester, { kind: 'oauth2-client', id: adminClientId }, 'the requester of a token request is the client')
})

t.test('dynamic registration, then the grant for that client', async (t) => {
  const reg = await tm.post(
    '/oauth2/registration',
    {
      client_name: 'fixture bot',
      client_uri: 'https://fixture.example.com/',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_post',
    },
    { token: null },
  )
  t.equal(reg.status, 201)
  t.match(reg.body, { client_id: /^[0-9A-Z]{26}$/, client_secret: /.{20,}/, client_id_issued_at: Number })
  const c = mas.getClient(reg.body.client_id)!
  t.match(c, { kind: 'dynamic', authMethod: 'client_secret_post' })
  const ok = await form('/oauth2/token', {
    grant_type: 'client_credentials',
    scope: 'openid',
    client_id: c.id,
    client_secret: reg.body.client_secret,
  })
  t.equal(ok.status, 200)
  const admin = await form('/oauth2/token', {
    grant_type: 'client_credentials',
    scope: 'urn:mas:admin',
    client_id: c.id,
    client_secret: reg.body.client_secret,
  })
  t.same([admin.status, admin.body.error], [403, 'invalid_scope'], 'not an admin client')
  // listed in the policy data's admin_clients, it may
  await tm.post(`${API}/policy-data`, { data: { admin_clients: [c.id] } })
  const now = await form('/oauth2/token', {
    grant_type: 'client_credentials',
    scope: 'urn:mas:admin',
    client_id: c.id,
    client_secret: reg.body.client_secret,
  })
  t.equal(now.status, 200, 'admin_clients from the policy data')
  const kinds = await tm.get(`${API}/oauth2-sessions?filter[client]=${c.id}&filter[client-kind]=dynamic`)
  t.equal(kinds.body.meta.count, 2, 'both sessions are listed for the client')

  const pub = await tm.post(
    '/oauth2/registration',
    { client_uri: 'https://app.example.test/', redirect_uris: ['https://app.example.test/cb'], token_endpoint_auth_method: 'none' },
    { token: null },
  )
  t.equal(pub.status, 201)
  t.notOk('client_secret' in pub.body)
  t.equal(
    (await tm.post('/oauth2/registration', { grant_types: ['authorization_code'] }, { token: null })).body.error,
    'invalid_redirect_uri',
  )
  t.equal(
    (
      await tm.post(
        '/oauth2/registration',
        { token_endpoint_auth_method: 'private_key_jwt', grant_types: ['client_credentials'] },
        { token: null },
      )
    ).body.error,
    'invalid_client_metadata',
  )
  t.equal((await tm.post('/oauth2/registration', undefined, { token: null, raw: 'this is not a json' })).body.error, 'invalid_request')
})

t.test('introspection and revocation', async (t) => {
  const got = await form(
    '/oauth2/token',
    { grant_type: 'client_credentials', scope: 'urn:mas:admin openid' },
    { authorization: basic(adminClientId, adminClientSecret) },
  )
  const token = got.body.access_token
  const asClient = await form('/oauth2/introspect', { token }, { authorization: basic(adminClientId, adminClientSecret) })
  t.equal(asClient.status, 200)
  t.match(asClient.body, {
    active: true,
    scope: 'openid urn:mas:admin',
    client_id: adminClientId,
    token_type: 'access_token',
    exp: Number,
    iat: Number,
  })
  t.ok(asClient.body.exp - asClient.body.iat === 300)
  const asHs = await form('/oauth2/introspect', { token: tm.user }, { authorization: `Bearer ${HS_SECRET}` })
  const userSession = mas.oauth2.get(mas.lookupAccessToken(tm.user)!.sessionId)!
  const u = mas.getUser(userSession.userId!)!
  t.match(asHs.body, { active: true, scope: 'openid', username: u.username, sub: u.id })
  const badHs = await form('/oauth2/introspect', { token: tm.user }, { authorization: 'Bearer wrong' })
  t.equal(badHs.status, 401)
  const unknown = await form('/oauth2/introspect', { token: 'mat_nothing' }, { authorization: basic(adminClientId, adminClientSecret) })
  t.same([unknown.status, unknown.body], [200, { active: false }])
  const { responses } = await tm.log()
  const intro = responses.filter((l) => l.path === '/oauth2/introspect')
  t.same(intro[0]!.requester, { kind: 'oauth2-client', id: adminClientId }, 'the calling client, not the token subject')
  t.same(intro[1]!.requester, { kind: 'homeserver' })

  const revoked = await form('/oauth2/revoke', { token }, { authorization: basic(adminClientId, adminClientSecret) })
  t.same([revoked.status, revoked.text], [200, ''])
  t.same((await form('/oauth2/introspect', { token }, { authorization: basic(adminClientId, adminClientSecret) })).body, { active: false })
  t.same(titles((await tm.get(`${API}/version`, token)).body), ['Access token revoked'], 'revocation ends the session')
  t.equal(
    (await form('/oauth2/revoke', { token: 'mat_unknown' }, { authorization: basic(adminClientId, adminClientSecret) })).status,
    200,
    'unknown tokens: 200 too',
  )
})

t.test('admin API user endpoints', async (t) => {
  const add = await tm.post(`${API}/users`, { username: 'fixture-alice' })
  t.equal(add.status, 201)
  t.match(add.body.data, {
    type: 'user',
    attributes: { username: 'fixture-alice', locked_at: null, deactivated_at: null, admin: false, legacy_guest: false },
  })
  t.equal(add.body.links.self, `${API}/users/${add.body.data.id}`)
  t.same(titles((await tm.post(`${API}/users`, { username: 'fixture-alice' })).body), ['User already exists'])
  t.same([(await tm.post(`${API}/users`, { username: 'Bad Name' })).status], [400])
  t.same(titles((await tm.post(`${API}/users`, { username: '_hidden' })).body), ['Username is not valid'])
  const byName = await tm.get(`${API}/users/by-username/fixture-alice`)
  t.equal(byName.body.data.id, add.body.data.id)
  t.equal(byName.body.links.self, `${API}/users/by-username/fixture-alice`)
  t.same(titles((await tm.get(`${API}/users/by-username/nobody`)).body), ['User with username "nobody" not found'])
  t.equal((await tm.get(`${API}/users/${add.body.data.id}`)).body.data.attributes.username, 'fixture-alice')
  const weak = await tm.post(`${API}/users/${add.body.data.id}/set-password`, { password: 'short' })
  t.same([weak.status, ...titles(weak.body)], [400, 'Password is too weak'])
  const skip = await tm.post(`${API}/users/${add.body.data.id}/set-password`, { password: 'short', skip_password_check: true })
  t.same([skip.status, skip.text], [204, ''])
  const set = await tm.post(`${API}/users/${add.body.data.id}/set-password`, { password: 'correct horse battery' })
  t.equal(set.status, 204)
  t.same(titles((await tm.post(`${API}/users/01FSHN9AG0MZAA6S4AF7CTV32E/set-password`, { password: 'correct horse battery' })).body), [
    'User ID 01FSHN9AG0MZAA6S4AF7CTV32E not found',
  ])
  t.ok(mas.checkPassword('fixture-alice', 'correct horse battery'))
})

t.test('compatibility login and logout', async (t) => {
  const path = (v: string, p: string) => `${clientPrefix}/client/${v}${p}`
  const flows = await tm.get(path('v3', '/login'), null)
  t.equal(flows.body.flows[0].type, 'm.login.password')
  const user = mas.users.all().find((u) => u.lockedAt === null && u.deactivatedAt === null && u.password !== null)!
  const before = (await tm.get(`${API}/compat-sessions?filter[user]=${user.id}&count=only`)).body.meta.count
  const login = await tm.req('POST', path('v3', '/login'), {
    headers: { 'user-agent': 'fixture/1.0' },
    body: JSON.stringify({
      type: 'm.login.password',
      identifier: { type: 'm.id.user', user: `@${user.username}:${serverName}` },
      password: SEEDED_PASSWORD,
      initial_device_display_name: 'Fixture phone',
    }),
  })
  t.equal(login.status, 200, 'no Content-Type needed')
  t.same(Object.keys(login.body), ['access_token', 'device_id', 'user_id'])
  t.match(login.body.access_token, /^mct_/)
  t.equal(login.body.user_id, `@${user.username}:${serverName}`)
  const listed = await tm.get(`${API}/compat-sessions?filter[user]=${user.id}&filter[status]=active&page[last]=1`)
  t.match(listed.body.data[0].attributes, {
    device_id: login.body.device_id,
    human_name: 'Fixture phone',
    user_agent: 'fixture/1.0',
    finished_at: null,
  })
  t.equal((await tm.get(`${API}/compat-sessions?filter[user]=${user.id}&count=only`)).body.meta.count, before + 1)
  const { responses } = await tm.log()
  const loginLine = responses.find((l) => l.method === 'POST' && l.path === path('v3', '/login'))!
  t.same(loginLine.requester, { kind: 'user', id: user.id, username: user.username }, 'login is attributed to the user')
  t.same(
    titles((await tm.get(`${API}/version`, login.body.access_token)).body),
    ['Invalid type of access token'],
    'compat tokens cannot call the admin API',
  )

  const r0 = await tm.req('POST', path('r0', '/login'), {
    body: JSON.stringify({ type: 'm.login.password', user: user.username, password: SEEDED_PASSWORD, device_id: 'MYDEVICE01' }),
  })
  t.equal(r0.body.device_id, 'MYDEVICE01', 'r0, deprecated `user`, given device id')

  const bad: [unknown, number, string, string][] = [
    [
      { type: 'm.login.password', identifier: { type: 'm.id.user', user: user.username }, password: 'nope' },
      403,
      'M_FORBIDDEN',
      'Invalid username/password',
    ],
    [
      { type: 'm.login.password', identifier: { type: 'm.id.user', user: 'nobody' }, password: 'nope' },
      403,
      'M_FORBIDDEN',
      'Invalid username/password',
    ],
    [{ type: 'm.login.password', identifier: { type: 'm.id.phone' }, password: 'x' }, 400, 'M_UNKNOWN', 'Unsupported login identifier'],
    [{ type: 'm.login.password', password: 'x' }, 400, 'M_BAD_JSON', "Missing property 'identifier"],
    [{ type: 'm.login.dummy' }, 400, 'M_UNKNOWN', 'Invalid login type'],
    [{}, 400, 'M_BAD_JSON', 'JSON fields are not valid'],
  ]
  for (const [body, status, errcode, error] of bad) {
    const r = await tm.req('POST', path('v3', '/login'), { body: JSON.stringify(body) })
    t.same([r.status, r.body], [status, { errcode, error }], JSON.stringify(body))
  }
  const notJson = await tm.req('POST', path('v3', '/login'), { body: '{' })
  t.same(notJson.body, { errcode: 'M_NOT_JSON', error: 'Body is not a valid JSON document' })
  const locked = mas.users.all().find((u) => u.lockedAt !== null && u.deactivatedAt === null && u.password !== null)
  if (locked) {
    const r = await tm.req('POST', path('v3', '/login'), {
      body: JSON.stringify({ type: 'm.login.password', user: locked.username, password: SEEDED_PASSWORD }),
    })
    t.same([r.status, r.body.errcode], [401, 'M_USER_LOCKED'])
  }

  const jobsBefore = (await tm.req('GET', '/_mock/jobs')).body.jobs.length
  const out = await tm.req('POST', path('v3', '/logout'), { headers: { authorization: `Bearer ${login.body.access_token}` } })
  t.same([out.status, out.body], [200, {}])
  t.equal((await tm.req('GET', '/_mock/jobs')).body.jobs.length, jobsBefore + 1, 'logout schedules a device sync')
  const again = await tm.req('POST', path('v3', '/logout'), { headers: { authorization: `Bearer ${login.body.access_token}` } })
  t.same([again.status, again.body.errcode], [401, 'M_UNKNOWN_TOKEN'])
  t.same((await tm.req('POST', path('v3', '/logout'))).body, { errcode: 'M_MISSING_TOKEN', error: 'Missing access token' })

  const all = await tm.req('POST', path('v3', '/logout/all'), { headers: { authorization: `Bearer ${r0.body.access_token}` } })
  t.same([all.status, all.body.errcode], [404, 'M_UNRECOGNIZED'], 'logout/all needs the compat-only flag')
  const allOk = await tm.req('POST', path('v3', '/logout/all'), {
    headers: { authorization: `Bearer ${r0.body.access_token}` },
    body: JSON.stringify({ 'io.element.only_compat_is_fine': true }),
  })
  t.same([allOk.status, allOk.body], [200, {}])
  t.equal(
    (await tm.get(`${API}/compat-sessions?filter[user]=${user.id}&filter[status]=active&count=only`)).body.meta.count,
    0,
    'every compat session of the user is finished',
  )
})
