// OpenID Connect on the mock, without a browser: discovery and keys, the authorization endpoint's
// errors, login + consent with the browser session, the code exchange (PKCE, replay, client binding),
// refresh-token rotation and the double refresh, userinfo, revocation of a refresh token, the
// policy's scopes, and --auto-approve. The session the grant creates is on the admin API.
import t from 'tap'
import { SEEDED_PASSWORD } from '../../../mock/seed/mas/index.ts'
import type { Ctx } from '../../../mock/core/context.ts'
import { oidcState } from '../../../mock/mas-http/oidc-state.ts'
import { API, startTestMock } from '../admin/helpers.ts'
import { authorizeUrl, browser, pkce, REDIRECT, registerPublicClient, seededUser, verifyIdToken } from './oidc-helpers.ts'

const tm = await startTestMock(t, { seed: 5, sessions: 30 })
const mas = tm.world().mas
const admin = seededUser(mas, true)
const plain = seededUser(mas, false)
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const token = (fields: Record<string, string>) =>
  tm.req('POST', '/oauth2/token', { headers: FORM, body: new URLSearchParams(fields).toString() })

/** login + consent in a cookie-keeping client; the code and state of the final redirect */
async function signIn(clientId: string, scope: string, challenge: string | null, username = admin.username) {
  const b = browser(tm.url)
  const start = await b.get(authorizeUrl(clientId, scope, challenge))
  if (start.status !== 303) throw new Error(`authorize answered ${start.status} ${start.text}`)
  const login = start.headers.get('location')!
  const page = await b.get(login)
  const next = /name="next" value="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&')
  const done = await b.post('/login', { username, password: SEEDED_PASSWORD, next })
  const consent = await b.get(done.headers.get('location')!)
  const csrf = /name="csrf" value="([^"]+)"/.exec(consent.text)?.[1]
  const back = await b.post(done.headers.get('location')!, { csrf: csrf ?? '' })
  return { b, login, consent, back, location: back.headers.get('location') ?? '' }
}

t.test('discovery and keys', async (t) => {
  const r = await tm.get('/.well-known/openid-configuration', null)
  t.equal(r.status, 200)
  const issuer = `${tm.url}/`
  t.match(r.body, {
    issuer,
    authorization_endpoint: `${issuer}authorize`,
    token_endpoint: `${issuer}oauth2/token`,
    jwks_uri: `${issuer}oauth2/keys.json`,
    registration_endpoint: `${issuer}oauth2/registration`,
    userinfo_endpoint: `${issuer}oauth2/userinfo`,
    account_management_uri: `${issuer}account/`,
  })
  t.same(r.body.code_challenge_methods_supported, ['plain', 'S256'])
  t.same(r.body.grant_types_supported, ['authorization_code', 'refresh_token', 'client_credentials'])
  t.ok(r.body.token_endpoint_auth_methods_supported.includes('none'))
  const keys = await tm.get('/oauth2/keys.json', null)
  t.equal(keys.body.keys.length, 1)
  t.match(keys.body.keys[0], { kty: 'RSA', alg: 'RS256', use: 'sig' })
})

t.test('authorization endpoint errors', async (t) => {
  const clientId = await registerPublicClient(tm)
  const b = browser(tm.url)
  const unknown = await b.get(authorizeUrl('01J00000000000000000000000', 'openid', null))
  t.equal(unknown.status, 400, 'unknown client: an error page, no redirect')
  t.notOk(unknown.headers.get('location'))
  const badRedirect = await b.get(authorizeUrl(clientId, 'openid', null, { redirect_uri: 'https://evil.example.com/cb' }))
  t.equal(badRedirect.status, 400, 'unregistered redirect_uri: an error page')
  t.equal((await b.get(`/authorize?client_id=${clientId}&scope=openid`)).status, 400, 'no response_type: the query is refused')
  const none = await b.get(authorizeUrl(clientId, 'openid', null, { prompt: 'none' }))
  t.equal(none.status, 303)
  t.equal(
    none.headers.get('location'),
    `${REDIRECT}?state=st4te&error=login_required&error_description=The+Authorization+Server+requires+End-User+authentication.#`,
  )
  const frag = await b.get(authorizeUrl(clientId, 'openid', null, { prompt: 'none', response_mode: 'fragment' }))
  t.match(frag.headers.get('location'), /#state=st4te&error=login_required/)
  const tokenType = await b.get(authorizeUrl(clientId, 'openid', null, { response_type: 'token' }))
  t.match(tokenType.headers.get('location'), /error=unsupported_response_type/)
  const loopbackPort = await b.get(authorizeUrl(clientId, 'openid', null, { redirect_uri: 'http://127.0.0.1:9/callback' }))
  t.equal(loopbackPort.status, 303)
  t.match(
    loopbackPort.headers.get('location'),
    /^\/login\?kind=continue_authorization_grant&id=[0-9A-Z]{26}$/,
    'no session: to the login page',
  )
})

t.test('sign-in, code exchange, ID token, userinfo, admin API', async (t) => {
  const clientId = await registerPublicClient(tm)
  const { verifier, challenge } = pkce()
  const flow = await signIn(clientId, 'openid urn:mas:admin urn:matrix:client:api:*', challenge)
  t.equal(flow.consent.status, 200, 'the consent page')
  t.match(flow.consent.text, /urn:mas:admin/)
  t.equal(flow.back.status, 303)
  const back = new URL(flow.location)
  t.equal(back.origin + back.pathname, REDIRECT)
  t.equal(back.searchParams.get('state'), 'st4te')
  const code = back.searchParams.get('code')!
  t.match(code, /^[A-Za-z0-9]{32}$/)

  const wrongVerifier = await token({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: 'x'.repeat(43) })
  t.same(
    [wrongVerifier.status, wrongVerifier.body],
    [400, { error: 'invalid_grant', error_description: 'PKCE verification failed: challenge verification failed' }],
  )
  const noVerifier = await token({ grant_type: 'authorization_code', code, client_id: clientId })
  t.same([noVerifier.status, noVerifier.body.error], [400, 'invalid_request'])
  const other = await registerPublicClient(tm, { client_name: 'other' })
  const otherClient = await token({ grant_type: 'authorization_code', code, client_id: other, code_verifier: verifier })
  t.same([otherClient.status, otherClient.body.error], [401, 'unauthorized_client'], 'a code is bound to its client')

  const r = await token({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier })
  t.equal(r.status, 200, r.text)
  t.match(r.body, { token_type: 'Bearer', expires_in: 300, scope: 'openid urn:mas:admin urn:matrix:client:api:*' })
  t.match(r.body.access_token, /^mat_/)
  t.match(r.body.refresh_token, /^mar_/)
  const claims = verifyIdToken(r.body.id_token, (await tm.get('/oauth2/keys.json', null)).body)
  t.match(claims, { iss: `${tm.url}/`, sub: admin.id, aud: clientId, nonce: 'n0nce' })
  t.equal(
    (await token({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier })).body.error,
    'invalid_grant',
    'a code is single-use',
  )

  const info = await tm.get('/oauth2/userinfo', r.body.access_token)
  t.same(info.body, { sub: admin.id, username: admin.username })
  t.equal((await tm.get('/oauth2/userinfo', null)).status, 401)
  t.equal((await tm.get('/oauth2/userinfo', 'mat_nope')).status, 401)

  const users = await tm.get(`${API}/users?page[first]=100`, r.body.access_token)
  t.equal(users.status, 200, 'the token works on the admin API')
  t.ok(users.body.data.some((u: any) => u.attributes.username === admin.username))
  const sessionId = mas.lookupAccessToken(r.body.access_token)!.sessionId
  const listed = await tm.get(`${API}/oauth2-sessions/${sessionId}`)
  t.match(listed.body.data.attributes, { user_id: admin.id, client_id: clientId, scope: 'openid urn:mas:admin urn:matrix:client:api:*' })
  t.ok(listed.body.data.attributes.user_session_id, 'the browser session that consented')
})

t.test('refresh rotation, double refresh, revocation', async (t) => {
  const clientId = await registerPublicClient(tm, { client_name: 'refresh' })
  const { verifier, challenge } = pkce()
  const flow = await signIn(clientId, 'openid', challenge)
  const code = new URL(flow.location).searchParams.get('code')!
  const first = (await token({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier })).body
  const second = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId })
  t.equal(second.status, 200)
  t.notOk(second.body.id_token)
  t.equal((await tm.get('/oauth2/userinfo', first.access_token)).status, 401, 'the old access token is revoked')
  // the new pair is unused: presenting the old refresh token again is a double refresh
  const again = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId })
  t.equal(again.status, 200, 'a lost pair is replaced')
  t.equal((await tm.get('/oauth2/userinfo', second.body.access_token)).status, 401, 'the lost pair is revoked')
  t.equal((await tm.get('/oauth2/userinfo', again.body.access_token)).status, 200)
  // now the newest pair was used: the old token is refused
  t.equal(
    (await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId })).body.error,
    'invalid_grant',
  )
  t.equal((await token({ grant_type: 'refresh_token', refresh_token: 'mar_unknown', client_id: clientId })).body.error, 'invalid_grant')
  const rev = await tm.req('POST', '/oauth2/revoke', {
    headers: FORM,
    body: new URLSearchParams({ token: again.body.refresh_token, client_id: clientId }).toString(),
  })
  t.equal(rev.status, 200)
  t.equal((await tm.get('/oauth2/userinfo', again.body.access_token)).status, 401, 'revoking the refresh token ends the session')
  t.equal(
    (await token({ grant_type: 'refresh_token', refresh_token: again.body.refresh_token, client_id: clientId })).body.error,
    'invalid_grant',
  )
})

t.test('the policy: admin scopes only for users who may request them', async (t) => {
  const clientId = await registerPublicClient(tm, { client_name: 'policy' })
  const flow = await signIn(clientId, 'openid urn:mas:admin', null, plain.username)
  t.equal(flow.consent.status, 200)
  t.match(flow.consent.text, /scope &#39;urn:mas:admin&#39; not allowed/)
  t.notMatch(flow.consent.text, /name="csrf"/, 'nothing to approve')
  const badCsrf = await browser(tm.url).post(`/consent/${/id=([0-9A-Z]{26})/.exec(flow.login)![1]}`, { csrf: 'forged' })
  t.equal(badCsrf.status, 400, 'a forged consent is refused')
})

t.test('dynamic registration as the service answers it', async (t) => {
  const reg = (body: unknown) => tm.post('/oauth2/registration', body, { token: null })
  const ok = await reg({
    client_uri: 'https://app.example.com/',
    redirect_uris: ['https://app.example.com/cb'],
    token_endpoint_auth_method: 'none',
  })
  t.equal(ok.status, 201)
  t.match(ok.body, {
    redirect_uris: ['https://app.example.com/cb'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'none',
    client_uri: 'https://app.example.com/',
  })
  t.notOk('client_secret' in ok.body)
  t.equal(
    (
      await reg({
        client_uri: 'https://app.example.com/',
        redirect_uris: ['https://app.example.com/cb'],
        token_endpoint_auth_method: 'none',
      })
    ).body.client_id,
    ok.body.client_id,
    'same public metadata, same client',
  )
  const conf = await reg({
    client_uri: 'https://app.example.com/',
    redirect_uris: ['https://app.example.com/cb'],
    token_endpoint_auth_method: 'client_secret_basic',
  })
  t.match(conf.body.client_secret, /^[A-Za-z0-9]{20}$/)
  const cases: [unknown, string, string?][] = [
    [{ redirect_uris: ['https://app.example.com/cb'] }, 'invalid_redirect_uri', 'missing client_uri; invalid redirect_uri'],
    [
      { grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_post' },
      'invalid_client_metadata',
      'missing client_uri',
    ],
    [
      { client_uri: 'http://app.example.com/', redirect_uris: ['https://app.example.com/cb'] },
      'invalid_client_metadata',
      'invalid client_uri',
    ],
    [{ client_uri: 'https://app.example.com/' }, 'invalid_redirect_uri'],
    [
      { client_uri: 'https://app.example.com/', redirect_uris: ['https://other.example.org/cb'] },
      'invalid_redirect_uri',
      'invalid redirect_uri',
    ],
    [{ client_uri: 'https://app.example.com/', redirect_uris: ['http://127.0.0.1/cb'] }, 'invalid_redirect_uri', 'invalid redirect_uri'],
    [{ client_uri: 'https://app.example.com/', redirect_uris: ['https://app.example.com/cb#x'] }, 'invalid_redirect_uri'],
    [
      { client_uri: 'https://app.example.com/', grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
      'invalid_client_metadata',
      'client_credentials grant_type requires some form of client authentication',
    ],
    [
      { client_uri: 'https://app.example.com/', redirect_uris: ['https://app.example.com/cb'], response_types: ['id_token'] },
      'invalid_client_metadata',
      "'id_token' response type not compatible with grant types",
    ],
  ]
  for (const [body, error, description] of cases) {
    const r = await reg(body)
    t.equal(r.status, 400, JSON.stringify(body))
    t.equal(r.body.error, error, JSON.stringify(body))
    if (description) t.equal(r.body.error_description, description)
  }
  const native = await reg({
    client_uri: 'https://app.example.com/',
    application_type: 'native',
    redirect_uris: ['com.example.app:/cb', 'http://localhost/cb'],
    token_endpoint_auth_method: 'none',
  })
  t.equal(native.status, 201, 'native: a reverse-DNS scheme and loopback http')
  t.equal(
    (await tm.post('/oauth2/registration', undefined, { token: null, raw: '{', headers: { 'content-type': 'application/json' } })).body
      .error,
    'invalid_request',
  )
})

t.test('--auto-approve signs the named user in and consents without pages', async (t) => {
  const auto = await startTestMock(t, { seed: 5, sessions: 30, autoApprove: admin.username })
  const clientId = await registerPublicClient(auto)
  const { verifier, challenge } = pkce()
  const r = await browser(auto.url).get(authorizeUrl(clientId, 'openid urn:mas:admin', challenge))
  t.equal(r.status, 303)
  const code = new URL(r.headers.get('location')!).searchParams.get('code')!
  const tok = await auto.req('POST', '/oauth2/token', {
    headers: FORM,
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier }).toString(),
  })
  t.equal(tok.status, 200)
  t.equal((await auto.get(`${API}/users`, tok.body.access_token)).status, 200)
})

t.test('prompt=create registers a new user who then consents; login_hint fills the login form', async (t) => {
  const clientId = await registerPublicClient(tm, { client_name: 'create' })
  const b = browser(tm.url)
  const start = await b.get(authorizeUrl(clientId, 'openid', null, { prompt: 'create' }))
  t.match(start.headers.get('location'), /^\/register\?kind=continue_authorization_grant&id=[0-9A-Z]{26}$/)
  const page = await b.get(start.headers.get('location')!)
  const next = /name="next" value="([^"]+)"/.exec(page.text)![1]!
  t.match(next, /^\/consent\/[0-9A-Z]{26}$/)
  const step = await b.post('/register/password', { username: 'new.oidc.user', password: 'long-enough-password', next })
  const finish = await b.get(step.headers.get('location')!)
  t.equal(finish.headers.get('location'), next, 'registered: on to the consent page')
  const consent = await b.get(next)
  const csrf = /name="csrf" value="([^"]+)"/.exec(consent.text)![1]!
  const back = await b.post(next, { csrf })
  t.match(back.headers.get('location'), /\?state=st4te&code=[A-Za-z0-9]{32}#$/)
  const hinted = await browser(tm.url).get(authorizeUrl(clientId, 'openid', null, { login_hint: admin.username }))
  const login = await browser(tm.url).get(hinted.headers.get('location')!)
  t.match(login.text, new RegExp(`name="username"[^>]*value="${admin.username.replace(/\./g, '\\.')}"`))
})

t.test('policy data switches the registration policy, as on the service (a UI on http://localhost)', async (t) => {
  const dev = {
    client_uri: 'http://localhost:5173/',
    redirect_uris: ['http://localhost:5173/callback'],
    token_endpoint_auth_method: 'none',
  }
  const before = await tm.post('/oauth2/registration', dev, { token: null })
  t.same([before.status, before.body.error], [400, 'invalid_redirect_uri'], 'refused by the default policy')
  t.equal((await tm.post(`${API}/policy-data`, { data: { client_registration: { allow_insecure_uris: true } } })).status, 201)
  t.equal((await tm.post('/oauth2/registration', dev, { token: null })).status, 201, 'allowed with client_registration.allow_insecure_uris')
  t.equal((await tm.post(`${API}/policy-data`, { data: { admin_users: [plain.username] } })).status, 201)
  const clientId = await registerPublicClient(tm, { client_name: 'admin_users' })
  const flow = await signIn(clientId, 'openid urn:mas:admin', null, plain.username)
  t.match(flow.location, /code=/, 'admin_users of the policy data may ask for urn:mas:admin')
})

t.test('a code older than 10 minutes is refused; a replay after 20 s ends the session it gave', async (t) => {
  const grants = oidcState({ world: tm.world() } as unknown as Ctx)
  const clientId = await registerPublicClient(tm, { client_name: 'clock' })
  const grantOf = (code: string) => grants.grants.get(grants.byCode.get(code)!)!
  const codeOf = async () => new URL((await signIn(clientId, 'openid', null)).location).searchParams.get('code')!
  const stale = await codeOf()
  grantOf(stale).fulfilledAt! -= 11 * 60 * 1_000_000
  t.equal((await token({ grant_type: 'authorization_code', code: stale, client_id: clientId })).body.error, 'invalid_grant')
  const code = await codeOf()
  const ok = await token({ grant_type: 'authorization_code', code, client_id: clientId })
  t.equal(ok.status, 200)
  t.equal((await token({ grant_type: 'authorization_code', code, client_id: clientId })).body.error, 'invalid_grant', 'at once: refused')
  t.equal((await tm.get('/oauth2/userinfo', ok.body.access_token)).status, 200, 'the session lives on')
  grantOf(code).exchangedAt! -= 21 * 1_000_000
  t.equal((await token({ grant_type: 'authorization_code', code, client_id: clientId })).body.error, 'invalid_grant')
  t.equal((await tm.get('/oauth2/userinfo', ok.body.access_token)).status, 401, 'after 20 s the replay ends the session')
})
