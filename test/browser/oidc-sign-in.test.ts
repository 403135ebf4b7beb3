// An admin UI's OpenID Connect sign-in against the mock, in a real browser (Debian's chromium driven
// by playwright-core; no browser download). A tiny client page served on loopback does what a UI
// does: discovery, dynamic registration, /authorize with PKCE (S256, WebCrypto); the browser fills
// the mock's login form and approves its consent page; the client page gets the code back, exchanges
// it at the token endpoint and lists the users through the admin API with the access token, all by
// cross-origin fetch. Skips with the reason when chromium is absent; AC_REQUIRE_CHROMIUM=1 (CI) makes
// its absence a failure.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SEEDED_PASSWORD } from '../../mock/seed/mas/index.ts'
import { startTestMock } from '../mock/admin/helpers.ts'
import { seededUser } from '../mock/auth-service/oidc-helpers.ts'
import { CHROMIUM, CHROMIUM_ARGS, requireChromium, skipChromium } from '../fixtures/chromium.ts'

requireChromium(t)

/** The client application: `/` starts the sign-in, `/callback` finishes it and lists the users. */
function clientPage(issuer: string): string {
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>client</title></head><body><pre id="result"></pre><script>
const ISSUER = ${JSON.stringify(issuer)}
const out = (v) => { document.getElementById('result').textContent = JSON.stringify(v) }
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')
async function start() {
  const meta = await (await fetch(ISSUER + '.well-known/openid-configuration')).json()
  const redirect = location.origin + '/callback'
  const reg = await fetch(meta.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({
    client_name: 'browser test UI', client_uri: 'https://admin.example.com/', application_type: 'native',
    redirect_uris: [redirect], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' }) })
  const client = await reg.json()
  if (reg.status !== 201) return out({ step: 'registration', status: reg.status, client })
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(48)))
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  const state = b64url(crypto.getRandomValues(new Uint8Array(12)))
  sessionStorage.setItem('flow', JSON.stringify({ verifier, state, clientId: client.client_id, redirect, token: meta.token_endpoint }))
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirect, scope: 'openid urn:mas:admin', state, code_challenge: challenge, code_challenge_method: 'S256' })
  location.href = meta.authorization_endpoint + '?' + q
}
async function finish() {
  const flow = JSON.parse(sessionStorage.getItem('flow'))
  const back = new URLSearchParams(location.search)
  if (back.get('state') !== flow.state) return out({ step: 'callback', error: 'state mismatch', back: location.search })
  const res = await fetch(flow.token, { method: 'POST', body: new URLSearchParams({ grant_type: 'authorization_code', code: back.get('code'), redirect_uri: flow.redirect, client_id: flow.clientId, code_verifier: flow.verifier }) })
  const tokens = await res.json()
  if (res.status !== 200) return out({ step: 'token', status: res.status, tokens })
  const users = await fetch(ISSUER + 'api/admin/v1/users?page[first]=100', { headers: { authorization: 'Bearer ' + tokens.access_token } })
  out({ step: 'done', scope: tokens.scope, hasIdToken: typeof tokens.id_token === 'string', status: users.status, usernames: (await users.json()).data.map((u) => u.attributes.username) })
}
(location.pathname === '/callback' ? finish() : start()).catch((e) => out({ step: 'exception', message: String(e) }))
</script></body></html>`
}

t.test('OpenID Connect sign-in in headless Chromium, then the admin API with the token', { skip: skipChromium }, async (t) => {
  const tm = await startTestMock(t, { seed: 9, sessions: 30 })
  const mas = tm.world().mas
  const admin = seededUser(mas, true)
  const app = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(clientPage(`${tm.url}/`))
  })
  await new Promise<void>((r) => app.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => app.close(() => r())))
  const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`

  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  await page.goto(`${appUrl}/`)
  await page.waitForURL(/\/login\?/, { timeout: 20_000 })
  t.pass('the client sent the browser to the mock, which asks for a login')
  await page.fill('input[name=username]', admin.username)
  await page.fill('input[name=password]', SEEDED_PASSWORD)
  await page.click('button[type=submit]')
  await page.waitForURL(/\/consent\//, { timeout: 20_000 })
  t.match(await page.textContent('main'), /urn:mas:admin/, 'the consent page names the scopes asked for')
  await page.click('button[type=submit]')
  await page.waitForURL(`${appUrl}/callback?**`, { timeout: 20_000 })
  await page.waitForFunction("document.getElementById('result').textContent !== ''", undefined, { timeout: 20_000 })
  const result = JSON.parse((await page.textContent('#result')) ?? '{}')
  t.match(result, { step: 'done', scope: 'openid urn:mas:admin', hasIdToken: true, status: 200 }, JSON.stringify(result))
  const seeded = mas.users
    .all()
    .map((u) => u.username)
    .sort()
  t.same([...(result.usernames ?? [])].sort(), seeded.slice(0, 100), 'the admin API lists the seeded users')
  const sessions = mas.oauth2.all().filter((s) => s.userId === admin.id && s.scope === 'openid urn:mas:admin')
  t.equal(sessions.length, 1, 'one OAuth 2.0 session of the signed-in user in the store')
})
