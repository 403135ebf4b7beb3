// matrix-js-sdk signs in through the mock's OpenID Connect with its own helpers: the homeserver's
// auth metadata (`getAuthMetadata`, with the issuer's keys), dynamic client registration
// (`registerOidcClient`), the authorization URL with PKCE (`generateOidcAuthorizationUrl`) and the
// code exchange with its ID token checks (`completeAuthorizationCodeGrant`). The login and consent
// pages are answered by HTTP, as a user would click through them. With the token it got the SDK's
// MatrixClient asks whoami and reads the event reports through the homeserver admin API
// (`client.http.authedRequest` with the `/_synapse/admin/v1` prefix); then its `OidcTokenRefresher`
// trades the refresh token for new tokens, which work the same.
//
// Two seams of running a browser SDK on Node 20: the authorization helpers keep the flow's state in
// `window.sessionStorage` and rebuild the callback URL from `window.location.origin`, and the OIDC
// library under them (oidc-client-ts) makes a `localStorage` store whenever its settings are built, so
// the test gives them a `window` with exactly those two and a global `localStorage` (in-memory
// Storages; Node 20 has none); and the helper asks for the
// client API and a device only, so the test adds the homeserver admin scope `urn:synapse:admin:*` to
// the URL it made, as an admin tool built on the SDK has to.
import t from 'tap'
import { SEEDED_PASSWORD } from '../../mock/seed/mas/index.ts'
import { startTestMock } from '../mock/admin/helpers.ts'
import { browser, seededUser } from '../mock/auth-service/oidc-helpers.ts'
import { absence, importClient, installedVersion, required } from './npm-helpers.ts'

const PKG = 'matrix-js-sdk'
const REDIRECT = 'http://127.0.0.1:9/callback'
const ADMIN_SCOPE = 'urn:synapse:admin:*'
const absent = absence(PKG)
if (required && absent) t.fail(`AC_REQUIRE_CLIENTS=1 but ${absent}`)

/** The slice of the SDK the test calls (it is loaded by path, so its own types do not reach here). */
interface JsSdk {
  createClient(opts: { baseUrl: string; accessToken?: string; deviceId?: string; userId?: string }): JsClient
  registerOidcClient(metadata: unknown, client: Record<string, unknown>): Promise<string>
  generateOidcAuthorizationUrl(opts: Record<string, unknown>): Promise<string>
  completeAuthorizationCodeGrant(
    code: string,
    state: string,
  ): Promise<{
    tokenResponse: { access_token: string; refresh_token?: string; scope: string; token_type: string }
    oidcClientSettings: { clientId: string; issuer: string }
    homeserverUrl: string
    idTokenClaims: Record<string, unknown>
  }>
  Method: { Get: string }
  OidcTokenRefresher: new (
    issuer: string,
    clientId: string,
    redirectUri: string,
    deviceId: string,
    idTokenClaims: Record<string, unknown>,
  ) => {
    oidcClientReady: Promise<void>
    doRefreshAccessToken(refreshToken: string): Promise<{ accessToken: string; refreshToken?: string; expiry?: Date }>
  }
}
interface JsClient {
  getAuthMetadata(): Promise<Record<string, any>>
  whoami(): Promise<{ user_id: string; device_id?: string; is_guest?: boolean }>
  http: {
    authedRequest<T>(method: string, path: string, query?: Record<string, string>, body?: unknown, opts?: { prefix?: string }): Promise<T>
  }
  stopClient(): void
}

/** A Web Storage kept in memory: what `window.sessionStorage` is to the SDK's authorization helpers. */
class MemoryStorage {
  private readonly items = new Map<string, string>()
  get length(): number {
    return this.items.size
  }
  key(i: number): string | null {
    return [...this.items.keys()][i] ?? null
  }
  getItem(k: string): string | null {
    return this.items.get(k) ?? null
  }
  setItem(k: string, v: string): void {
    this.items.set(k, String(v))
  }
  removeItem(k: string): void {
    this.items.delete(k)
  }
  clear(): void {
    this.items.clear()
  }
}

t.test(`${PKG}: OpenID Connect sign-in, whoami, event reports through the admin API`, { skip: absent }, async (t) => {
  t.comment(`${PKG} ${installedVersion(PKG)} (test/fixtures/clients), Node ${process.version}`)
  const g = globalThis as { window?: unknown; localStorage?: unknown }
  const had = { window: 'window' in g, localStorage: 'localStorage' in g }
  g.window = { sessionStorage: new MemoryStorage(), location: { origin: new URL(REDIRECT).origin } }
  g.localStorage ??= new MemoryStorage()
  t.teardown(() => {
    if (!had.window) delete g.window
    if (!had.localStorage) delete g.localStorage
  })
  const sdk = await importClient<JsSdk>(PKG)
  // It logs every request at debug level; warnings and errors still show.
  ;(await importClient<{ logger: { setLevel(level: string): void } }>(`${PKG}/lib/logger.js`)).logger.setLevel('warn')
  const tm = await startTestMock(t, { seed: 26, reports: 12 })
  const mas = tm.world().mas
  const admin = seededUser(mas, true)

  const anonymous = sdk.createClient({ baseUrl: tm.url })
  const metadata = await anonymous.getAuthMetadata()
  t.equal(metadata.issuer, `${tm.url}/`, 'getAuthMetadata: the homeserver names the mock as its issuer')
  t.ok(Array.isArray(metadata.signingKeys) && metadata.signingKeys.length > 0, 'and the SDK fetched its signing keys')

  const clientId = await sdk.registerOidcClient(metadata, {
    clientName: 'matrix-js-sdk test client',
    clientUri: 'https://admin.example.com/',
    redirectUris: [REDIRECT],
    applicationType: 'native',
    contacts: ['admin@example.com'],
    tosUri: 'https://admin.example.com/tos',
    policyUri: 'https://admin.example.com/policy',
  })
  t.match(clientId, /^[0-9A-HJKMNP-TV-Z]{26}$/, 'registerOidcClient: a client id back')

  const made = new URL(
    await sdk.generateOidcAuthorizationUrl({ metadata, redirectUri: REDIRECT, clientId, homeserverUrl: tm.url, nonce: 'js-sdk-nonce' }),
  )
  t.equal(made.searchParams.get('code_challenge_method'), 'S256', 'the authorization URL carries a PKCE challenge (S256)')
  made.searchParams.set('scope', `${made.searchParams.get('scope')} ${ADMIN_SCOPE}`)

  // The pages, as the user clicks through them.
  const b = browser(tm.url)
  const start = await b.get(made.href)
  t.equal(start.status, 303, 'authorize sends the user to the login page')
  const page = await b.get(start.headers.get('location')!)
  const next = /name="next" value="([^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&')
  if (!next) return t.fail('no login form', { status: page.status, body: JSON.stringify(page.text.slice(0, 400)) })
  const done = await b.post('/login', { username: admin.username, password: SEEDED_PASSWORD, next })
  const consentUrl = done.headers.get('location')!
  const consent = await b.get(consentUrl)
  t.match(consent.text, /urn:synapse:admin:\*/, 'the consent page names the admin scope')
  const csrf = /name="csrf" value="([^"]+)"/.exec(consent.text)?.[1] ?? ''
  const back = await b.post(consentUrl, { csrf })
  const callback = new URL(back.headers.get('location') ?? 'about:blank')
  const code = callback.searchParams.get('code')
  const state = callback.searchParams.get('state')
  if (!code || !state) return t.fail('no code and state in the redirect', { location: JSON.stringify(callback.href) })

  const signedIn = await sdk.completeAuthorizationCodeGrant(code, state)
  t.equal(signedIn.homeserverUrl, tm.url, 'completeAuthorizationCodeGrant: the flow state came back from the storage')
  t.equal(signedIn.oidcClientSettings.clientId, clientId, 'for the registered client')
  t.equal(signedIn.tokenResponse.token_type, 'Bearer', 'a bearer token, the ID token checked by the SDK')
  t.ok(signedIn.tokenResponse.scope.split(' ').includes(ADMIN_SCOPE), 'granted with the admin scope', {
    scope: signedIn.tokenResponse.scope,
  })
  const device = /urn:matrix:org\.matrix\.msc2967\.client:device:(\S+)/.exec(signedIn.tokenResponse.scope)?.[1]
  t.ok(device, 'and a device scope')

  const client = sdk.createClient({ baseUrl: tm.url, accessToken: signedIn.tokenResponse.access_token })
  t.teardown(() => client.stopClient())
  const me = await client.whoami()
  t.match(me, { user_id: new RegExp(`^@${admin.username}:`), device_id: device }, 'whoami: the signed-in user on the device of the scope')

  const first = await client.http.authedRequest<{ event_reports: { id: number }[]; total: number; next_token?: number }>(
    sdk.Method.Get,
    '/event_reports',
    { from: '0', limit: '5', dir: 'f' },
    undefined,
    { prefix: '/_synapse/admin/v1' },
  )
  t.equal(first.total, 12, 'event_reports through the admin API: the 12 seeded reports counted')
  t.equal(first.event_reports.length, 5, 'a page of 5')
  t.equal(first.next_token, 5, 'with next_token 5')
  const ids: number[] = first.event_reports.map((r) => r.id)
  for (let from = first.next_token; from !== undefined;) {
    const p = await client.http.authedRequest<{ event_reports: { id: number }[]; next_token?: number }>(
      sdk.Method.Get,
      '/event_reports',
      { from: String(from), limit: '5', dir: 'f' },
      undefined,
      { prefix: '/_synapse/admin/v1' },
    )
    ids.push(...p.event_reports.map((r) => r.id))
    from = p.next_token
  }
  const seeded = tm
    .world()
    .hs.listReports({ from: 0, limit: 100, dir: 'f' })
    .reports.map((r) => r.id)
  t.same(ids, seeded, 'walked to the end: every seeded report, in order')

  // The SDK's refresher, as a client does when the access token expires.
  const refresher = new sdk.OidcTokenRefresher(signedIn.oidcClientSettings.issuer, clientId, REDIRECT, device!, signedIn.idTokenClaims)
  await refresher.oidcClientReady
  const fresh = await refresher.doRefreshAccessToken(signedIn.tokenResponse.refresh_token!)
  t.not(fresh.accessToken, signedIn.tokenResponse.access_token, 'OidcTokenRefresher: a new access token')
  const after = sdk.createClient({ baseUrl: tm.url, accessToken: fresh.accessToken })
  t.teardown(() => after.stopClient())
  t.match(await after.whoami(), { user_id: me.user_id, device_id: device }, 'whoami with it: the same user and device')
  const reports = await after.http
    .authedRequest<{ total: number }>(sdk.Method.Get, '/event_reports', { limit: '1' }, undefined, { prefix: '/_synapse/admin/v1' })
    .then(
      (r) => r.total,
      (e: { httpStatus?: number; errcode?: string }) => [e.httpStatus, e.errcode],
    )
  // The auth service's refresh keeps the session and its scope (the refresher asks for no scope).
  t.equal(reports, 12, 'and the admin API still answers: the session kept its admin scope')
})
