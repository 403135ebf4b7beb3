// --state keeps what a sign-in produced: the OAuth 2.0 session, its refresh token and the rotation
// (the new records of mock/store/mas/writes.ts: mas.oauth2 with its refresh token, mas.oauth2.refresh)
// are replayed after a restart; the rotated-out tokens stay dead.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { API, startTestMock } from '../admin/helpers.ts'
import { authorizeUrl, browser, pkce, registerPublicClient, seededUser } from './oidc-helpers.ts'

t.test('a session, its refresh and a revocation survive a restart', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-oidc-state-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const probe = await startTestMock(t, { seed: 4, sessions: 20 })
  const username = seededUser(probe.world().mas, true).username
  await probe.close()
  const opts = {
    seed: 4,
    sessions: 20,
    stateDir: dir,
    autoApprove: username,
    hsAdminToken: 'syt_a',
    hsUserToken: 'syt_u',
    adminClientSecret: 'oidc-state-secret',
  }
  const a = await startTestMock(t, opts)
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
  const clientId = await registerPublicClient(a)
  const { verifier, challenge } = pkce()
  const r = await browser(a.url).get(authorizeUrl(clientId, 'openid urn:mas:admin', challenge))
  const code = new URL(r.headers.get('location')!).searchParams.get('code')!
  const first = (
    await a.req('POST', '/oauth2/token', {
      headers: FORM,
      body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier }).toString(),
    })
  ).body
  const second = (
    await a.req('POST', '/oauth2/token', {
      headers: FORM,
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId }).toString(),
    })
  ).body
  t.match(second.access_token, /^mat_/)
  await a.close()

  const b = await startTestMock(t, { ...opts, adminToken: a.admin, userToken: a.user })
  t.equal(
    (await b.get(`${API}/users?page[first]=1`, second.access_token)).status,
    200,
    'the refreshed access token works after the restart',
  )
  t.equal((await b.get(`${API}/users?page[first]=1`, first.access_token)).status, 401, 'the rotated-out access token stays revoked')
  const third = await b.req('POST', '/oauth2/token', {
    headers: FORM,
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: clientId }).toString(),
  })
  t.equal(third.status, 200, 'the replayed refresh token can be used')
  const session = b.world().mas.oauth2.get(b.world().mas.lookupAccessToken(third.body.access_token)!.sessionId)!
  t.match(session, { clientId, scope: 'openid urn:mas:admin', finishedAt: null })
  t.ok(session.userSessionId, 'with the browser session of the consent')
})
