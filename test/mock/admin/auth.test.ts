// The admin API's caller check, row by row (missing/invalid header, token format, unknown, revoked,
// expired, locked, missing scope), with the requester and the WARN line the service logs.
import t from 'tap'
import { generateToken, tokenCrc } from '../../../mock/store/mas/index.ts'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'

// Configured tokens need not follow the service's format.
const tm = await startTestMock(t, {
  seed: 9,
  sessions: 60,
  adminToken: 'my-admin-token',
  userToken: 'my user token without admin scope'.replace(/ /g, '-'),
})
const mas = tm.world().mas
const ENDPOINTS = ['/site-config', '/version', '/compat-sessions', '/oauth2-sessions', '/personal-sessions', '/policy-data/latest']

t.test('every endpoint needs a token', async (t) => {
  for (const e of ENDPOINTS) {
    const r = await tm.get(API + e, null)
    t.same([r.status, ...titles(r.body)], [400, 'Missing authorization header'], e)
    t.equal(schemaErrors('admin/error', r.body), '')
  }
  const post = await tm.post(`${API}/policy-data`, { data: {} }, { token: null })
  t.equal(post.status, 400, 'also on writes, before the body is read')
})

t.test('rows of the caller check', async (t) => {
  const admin = mas.findUserByUsername(mas.users.all()[1]!.username)!
  const body = `mat_${'A'.repeat(30)}`
  const cases: [Record<string, string>, number, string[]][] = [
    [{ authorization: 'Basic dXNlcjpwYXNz' }, 400, ['Invalid authorization header']],
    [{ authorization: 'Bearer' }, 400, ['Invalid authorization header']],
    [{ authorization: 'Bearer  two  spaces' }, 400, ['Invalid authorization header']],
    [{ authorization: 'Bearer not-a-token' }, 401, ['Invalid type of access token', 'invalid token format']],
    [{ authorization: `Bearer xyz_${'a'.repeat(30)}_aaaaaa` }, 401, ['Invalid type of access token', 'unknown token prefix "xyz"']],
    [
      { authorization: `Bearer ${body}_000000` },
      401,
      ['Invalid type of access token', `invalid crc "000000", expected "${tokenCrc(body)}"`],
    ],
    [{ authorization: `Bearer ${generateToken('mct')}` }, 401, ['Invalid type of access token']],
    [{ authorization: 'Bearer syt_YWxpY2U_randomrandom_0abcde' }, 401, ['Invalid type of access token']],
    [{ authorization: `Bearer ${generateToken('mat')}` }, 401, ['Unknown access token']],
    [{ authorization: `Bearer ${generateToken('mpt')}` }, 401, ['Unknown access token']],
    [{ authorization: `bearer ${tm.user}` }, 401, ['Missing urn:mas:admin scope']],
    [{ authorization: `BEARER ${tm.admin}` }, 200, []],
  ]
  for (const [headers, status, want] of cases) {
    const r = await tm.req('GET', `${API}/version`, { headers })
    t.equal(r.status, status, headers.authorization ?? '')
    t.same(titles(r.body), want, headers.authorization ?? '')
  }
  t.ok(admin)
})

t.test('the requester is recorded before the scope check, and the WARN line precedes the answer', async (t) => {
  const tokenUser = mas.getUser(mas.oauth2.get(mas.lookupAccessToken(tm.user)!.sessionId)!.userId!)!
  const r = await tm.get(`${API}/compat-sessions`, tm.user)
  t.same([r.status, ...titles(r.body)], [401, 'Missing urn:mas:admin scope'])
  await tm.get(`${API}/compat-sessions`, null)
  const ok = await tm.get(`${API}/compat-sessions`)
  t.equal(ok.status, 200)
  const { responses, events } = await tm.log()
  const [denied, missing, good] = responses.slice(-3)
  t.same(denied!.requester, { kind: 'user', id: tokenUser.id, username: tokenUser.username })
  t.equal(missing!.requester, undefined, 'no requester without a token')
  t.same(good!.requester, { kind: 'oauth2-client', id: tm.mock.options.adminClientId })
  const warn = events.filter((e) => e.requestId && e.requestId.counter === missing!.requestId.counter)
  t.equal(warn.length, 1)
  t.equal(warn[0]!.name, 'mas_handlers::admin::call_context:85')
  t.equal(warn[0]!.level, 'WARN')
  t.equal(warn[0]!.message, 'Missing authorization header')
  t.notOk(
    events.some((e) => e.requestId?.counter === good!.requestId.counter),
    'no event line for a success',
  )
})

t.test('finished sessions, locked users and expired tokens', async (t) => {
  // an admin token from the token endpoint, then its session finished through the admin API
  const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'urn:mas:admin' })
  const basic = Buffer.from(`${tm.mock.options.adminClientId}:${tm.mock.options.adminClientSecret}`).toString('base64')
  const got = await tm.req('POST', '/oauth2/token', {
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  })
  t.equal(got.status, 200)
  const token = got.body.access_token as string
  t.equal((await tm.get(`${API}/version`, token)).status, 200)
  const session = mas.lookupAccessToken(token)!.sessionId
  t.equal(
    (await tm.post(`${API}/oauth2-sessions/${session}/finish`, undefined, { token })).status,
    200,
    'a caller may finish its own session',
  )
  const after = await tm.get(`${API}/version`, token)
  t.same([after.status, ...titles(after.body)], [401, 'Access token revoked'])

  // a user-bound admin token whose user gets locked
  const user = mas.users.all().find((u) => u.lockedAt === null && u.deactivatedAt === null)!
  const pat = await tm.post(`${API}/personal-sessions`, { actor_user_id: user.id, human_name: 'x', scope: 'urn:mas:admin' })
  const patToken = pat.body.data.attributes.access_token as string
  const nested = await tm.post(
    `${API}/personal-sessions`,
    { actor_user_id: user.id, human_name: 'y', scope: 'urn:mas:admin' },
    { token: patToken },
  )
  const nestedToken = nested.body.data.attributes.access_token as string
  t.equal((await tm.get(`${API}/version`, nestedToken)).status, 200)
  user.lockedAt = Date.now() * 1000
  t.equal((await tm.get(`${API}/version`, patToken)).status, 200, 'a locked actor may still act (client-owned token)')
  t.same(titles((await tm.get(`${API}/version`, nestedToken)).body), ['User locked'], 'a locked owner may not')
  user.deactivatedAt = Date.now() * 1000
  t.same(titles((await tm.get(`${API}/version`, patToken)).body), ['User locked'], 'a deactivated actor may not')
  user.lockedAt = null
  user.deactivatedAt = null
})
