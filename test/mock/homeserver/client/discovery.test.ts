// What a client calls at start against the homeserver side of the mock: the client well-known, the
// auth service discovery through the homeserver (gated by the claimed Synapse version), whoami with
// an auth-service token from the sign-in, and profiles.
import t from 'tap'
import { startTestMock } from '../../admin/helpers.ts'
import { authorizeUrl, browser, pkce, registerPublicClient, seededUser } from '../../auth-service/oidc-helpers.ts'

const probe = async (hsVersion: string) => {
  const tm = await startTestMock(t, { seed: 3, sessions: 20, hsVersion })
  const paths = [
    '/.well-known/matrix/client',
    '/_matrix/client/unstable/org.matrix.msc2965/auth_issuer',
    '/_matrix/client/unstable/org.matrix.msc2965/auth_metadata',
    '/_matrix/client/v1/auth_metadata',
  ]
  const answers = await Promise.all(paths.map((p) => tm.get(p, null)))
  return { tm, answers }
}

t.test('discovery through the homeserver, by version', async (t) => {
  const { tm, answers } = await probe('1.157.1')
  const issuer = `${tm.url}/`
  t.same(answers[0]!.body, {
    'm.homeserver': { base_url: issuer },
    'org.matrix.msc2965.authentication': { issuer, account: `${issuer}account/` },
  })
  t.same(answers[1]!.body, { issuer })
  t.match(answers[2]!.body, { issuer, authorization_endpoint: `${issuer}authorize`, registration_endpoint: `${issuer}oauth2/registration` })
  t.same(answers[3]!.body, answers[2]!.body, 'stable and unstable metadata are the same document')
  const old = await probe('1.122.0')
  t.same(
    old.answers.map((a) => a.status),
    [200, 200, 404, 404],
    '1.122.0: auth_issuer only',
  )
  const first = await probe('1.86.0')
  t.match(
    first.answers[0]!.body,
    { 'org.matrix.msc2965.authentication': { issuer: `${first.tm.url}/` } },
    '1.86.0 (MSC3861 support arrived in 1.86.0rc1): the MSC2965 field',
  )
  t.same(
    first.answers.slice(1).map((a) => a.status),
    [404, 404, 404],
  )
  const older = await probe('1.85.0')
  t.same(older.answers[0]!.body, { 'm.homeserver': { base_url: `${older.tm.url}/` } }, 'before 1.86.0: no MSC2965 field')
  t.same(
    older.answers.slice(1).map((a) => a.status),
    [404, 404, 404],
  )
})

t.test('whoami with a token from the sign-in, and profiles', async (t) => {
  const tm = await startTestMock(t, { seed: 3, sessions: 20 })
  const admin = seededUser(tm.world().mas, true)
  const auto = await startTestMock(t, { seed: 3, sessions: 20, autoApprove: admin.username })
  const clientId = await registerPublicClient(auto)
  const { verifier, challenge } = pkce()
  const device = 'ABCDEFGHIJ'
  const r = await browser(auto.url).get(
    authorizeUrl(clientId, `openid urn:matrix:client:api:* urn:matrix:client:device:${device}`, challenge),
  )
  const code = new URL(r.headers.get('location')!).searchParams.get('code')!
  const tok = await auto.req('POST', '/oauth2/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier }).toString(),
  })
  const serverName = auto.mock.options.serverName
  const who = await auto.get('/_matrix/client/v3/account/whoami', tok.body.access_token)
  t.same(who.body, { user_id: `@${admin.username}:${serverName}`, is_guest: false, device_id: device })
  const noApi = await auto.get('/_matrix/client/v3/account/whoami', auto.admin)
  t.same([noApi.status, noApi.body.errcode], [401, 'M_UNKNOWN_TOKEN'], 'a token without the C-S API scope')

  t.same((await auto.get(`/_matrix/client/v3/profile/${encodeURIComponent('not-a-user')}`, null)).body, {
    errcode: 'M_INVALID_PARAM',
    error: 'Invalid user id',
  })
  t.same(
    (await auto.get(`/_matrix/client/v3/profile/${encodeURIComponent(`@nobody:${serverName}`)}`, null)).body,
    { errcode: 'M_UNKNOWN', error: 'No row found (profiles)' },
    'an unknown local user: the store error, as Debian’s 1.160.0 answered it',
  )
  const hsUser = [...auto.world().hs.users.values()].find((u) => u.displayName !== null)!
  t.same((await auto.get(`/_matrix/client/v3/profile/${encodeURIComponent(hsUser.userId)}`, null)).body, {
    displayname: hsUser.displayName,
  })
  t.same((await auto.get(`/_matrix/client/r0/profile/${encodeURIComponent(hsUser.userId)}/displayname`, null)).body, {
    displayname: hsUser.displayName,
  })
  t.same((await auto.get(`/_matrix/client/v3/profile/${encodeURIComponent(hsUser.userId)}/avatar_url`, null)).body, { avatar_url: null })
})
