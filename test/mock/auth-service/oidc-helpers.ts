// What the OpenID Connect tests share: a cookie-keeping HTTP client that does not follow redirects,
// a client registration, PKCE, and an ID token's signature check against the published keys.
import { createHash, createPublicKey, createVerify, randomBytes } from 'node:crypto'
import { SEEDED_PASSWORD } from '../../../mock/seed/mas/index.ts'
import { MasStore, type User } from '../../../mock/store/mas/index.ts'
import { answerOf, type TestMock } from '../admin/helpers.ts'

export interface Answer {
  status: number
  headers: Headers
  text: string
  body: any
}

/** A browser-like client: keeps the session cookie, never follows a redirect. */
export function browser(base: string) {
  let cookie = ''
  const send = async (
    method: string,
    path: string,
    form?: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const h: Record<string, string> = { ...headers }
    if (cookie) h.cookie = cookie
    if (form) h['content-type'] = 'application/x-www-form-urlencoded'
    const r = await fetch(path.startsWith('http') ? path : base + path, {
      method,
      headers: h,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    })
    const set = r.headers.get('set-cookie')
    if (set) cookie = set.split(';')[0]!
    return answerOf(r)
  }
  return {
    send,
    get: (p: string) => send('GET', p),
    post: (p: string, f: Record<string, string>, h?: Record<string, string>) => send('POST', p, f, h),
  }
}

export const REDIRECT = 'http://127.0.0.1:9/callback'

export async function registerPublicClient(tm: TestMock, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await tm.post(
    '/oauth2/registration',
    {
      client_uri: 'https://admin.example.com/',
      application_type: 'native',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...extra,
    },
    { token: null },
  )
  if (r.status !== 201) throw new Error(`registration answered ${r.status} ${r.text}`)
  return r.body.client_id
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** The first active seeded user with a password and can_request_admin (or without, when admin=false). */
export function seededUser(mas: MasStore, admin: boolean): User {
  const u = mas.users.all().find((u) => u.admin === admin && MasStore.isUserActive(u) && u.password === SEEDED_PASSWORD && !u.legacyGuest)
  if (!u) throw new Error('no such seeded user')
  return u
}

export function authorizeUrl(clientId: string, scope: string, challenge: string | null, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope,
    state: 'st4te',
    nonce: 'n0nce',
    ...extra,
  })
  if (challenge !== null) {
    q.set('code_challenge', challenge)
    q.set('code_challenge_method', 'S256')
  }
  return `/authorize?${q}`
}

/** Claims of an RS256 ID token whose signature verifies with a key of the JWKS; throws otherwise. */
export function verifyIdToken(idToken: string, jwks: { keys: Record<string, unknown>[] }): Record<string, any> {
  const [h, p, s] = idToken.split('.')
  const header = JSON.parse(Buffer.from(h!, 'base64url').toString())
  const jwk = jwks.keys.find((k) => k.kid === header.kid)
  if (!jwk || header.alg !== 'RS256') throw new Error('no key for the ID token')
  const key = createPublicKey({ key: jwk as any, format: 'jwk' })
  if (!createVerify('RSA-SHA256').update(`${h}.${p}`).verify(key, Buffer.from(s!, 'base64url'))) throw new Error('bad signature')
  return JSON.parse(Buffer.from(p!, 'base64url').toString())
}

/**
 * The whole code flow as a user clicks through it, without a browser: authorize, the login page,
 * the consent page, then the code exchange with PKCE. Answers the token endpoint's body.
 */
export async function signInWithPages(
  tm: TestMock,
  clientId: string,
  scope: string,
  username: string,
  password = SEEDED_PASSWORD,
): Promise<any> {
  const { verifier, challenge } = pkce()
  const b = browser(tm.url)
  const start = await b.get(authorizeUrl(clientId, scope, challenge))
  if (start.status !== 303) throw new Error(`authorize answered ${start.status}`)
  const page = await b.get(start.headers.get('location')!)
  const next = /name="next" value="([^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&')
  if (!next) throw new Error(`no login form (${page.status})`)
  const done = await b.post('/login', { username, password, next })
  const consent = await b.get(done.headers.get('location')!)
  const csrf = /name="csrf" value="([^"]+)"/.exec(consent.text)?.[1]
  const back = await b.post(done.headers.get('location')!, { csrf: csrf ?? '' })
  const location = back.headers.get('location')
  if (!location) throw new Error(`consent answered ${back.status}: ${JSON.stringify(back.text.slice(0, 300))}`)
  const code = new URL(location).searchParams.get('code')
  if (!code) throw new Error(`no code in the redirect: ${JSON.stringify(location)}`)
  const tok = await tm.req('POST', '/oauth2/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: clientId, code_verifier: verifier }).toString(),
  })
  if (tok.status !== 200) throw new Error(`the code exchange answered ${tok.status}`)
  return tok.body
}

/** The account page's setDisplayName as the frontend sends it, by a user signed in with a password: answers the status. */
export async function accountPageSetDisplayName(
  base: string,
  user: { id: string; username: string },
  password = SEEDED_PASSWORD,
): Promise<(displayName: string | null) => Promise<string | undefined>> {
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: user.username, password, next: '/account/' }).toString(),
    redirect: 'manual',
  })
  const cookie = login.headers.get('set-cookie')?.split(';')[0]
  if (!cookie) throw new Error(`the password sign-in of ${user.username} answered ${login.status} without a cookie`)
  return async (displayName) => {
    const r = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({
        operationName: 'SetDisplayName',
        query:
          'mutation SetDisplayName($userId: ID!, $displayName: String) { setDisplayName(input: {userId: $userId, displayName: $displayName}) { status } }',
        variables: { userId: `user:${user.id}`, displayName },
      }),
    })
    return ((await r.json()) as any).data?.setDisplayName?.status
  }
}
