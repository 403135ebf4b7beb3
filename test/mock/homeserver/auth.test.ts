// Authentication of the homeserver side: token transport, the 401/403 bodies on every admin endpoint
// (checked before any parameter), and delegated auth by introspection at an auth service.
import t from 'tap'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ADMIN_TOKEN, USER_TOKEN, hsErr, startHs, valid } from './helpers.ts'

const hs = await startHs({ reports: 5 })
t.teardown(() => hs.close())

const endpoints: [string, string][] = [
  ['GET', `${hs.reports}`],
  ['GET', `${hs.reports}/2`],
  ['DELETE', `${hs.reports}/2`],
  ['GET', `${hs.admin}/background_updates/status`],
]

t.test('no token: 401 M_MISSING_TOKEN on every admin endpoint', async (t) => {
  for (const [method, path] of endpoints) hsErr(t, await hs.req(method, path), 401, 'M_MISSING_TOKEN', 'Missing access token')
})

t.test('unknown token: 401 M_UNKNOWN_TOKEN with soft_logout false', async (t) => {
  for (const [method, path] of endpoints) {
    const res = await hs.req(method, path, { token: 'syt_bm9ib2R5_unknown' })
    hsErr(t, res, 401, 'M_UNKNOWN_TOKEN', 'Invalid access token passed.')
    t.equal(res.body.soft_logout, false)
  }
})

t.test('non-admin: 403 M_FORBIDDEN', async (t) => {
  for (const [method, path] of endpoints)
    hsErr(t, await hs.req(method, path, { token: USER_TOKEN }), 403, 'M_FORBIDDEN', 'You are not a server admin')
  // ...and the report was not deleted by the forbidden DELETE.
  t.equal((await hs.req('GET', `${hs.reports}/2`, { token: ADMIN_TOKEN })).status, 200)
})

t.test('auth is checked before the parameters', async (t) => {
  hsErr(t, await hs.req('GET', `${hs.reports}?dir=bar&limit=-1`), 401, 'M_MISSING_TOKEN')
  hsErr(t, await hs.req('GET', `${hs.reports}?dir=bar`, { token: USER_TOKEN }), 403, 'M_FORBIDDEN')
  hsErr(t, await hs.req('GET', `${hs.reports}/abc`, { token: 'nope' }), 401, 'M_UNKNOWN_TOKEN')
  hsErr(t, await hs.req('DELETE', `${hs.reports}/-1`, { token: USER_TOKEN }), 403, 'M_FORBIDDEN')
})

t.test('token transport', async (t) => {
  const q = (s: string) => `${hs.reports}?limit=1&${s}`
  t.equal((await hs.req('GET', q(`access_token=${ADMIN_TOKEN}`))).status, 200, 'query parameter')
  t.equal((await hs.req('GET', q(''), { token: ADMIN_TOKEN })).status, 200, 'Bearer header')
  hsErr(
    t,
    await hs.req('GET', q(`access_token=${ADMIN_TOKEN}`), { token: ADMIN_TOKEN }),
    401,
    'M_MISSING_TOKEN',
    'Mixing Authorization headers and access_token query parameters.',
  )
  hsErr(
    t,
    await hs.req('GET', q('access_token='), { token: ADMIN_TOKEN }),
    401,
    'M_MISSING_TOKEN',
    'Mixing Authorization headers and access_token query parameters.',
  )
  for (const header of [
    `bearer ${ADMIN_TOKEN}`,
    `Bearer  ${ADMIN_TOKEN}`,
    `Bearer ${ADMIN_TOKEN} x`,
    `Token ${ADMIN_TOKEN}`,
    'Bearer',
    '',
  ]) {
    hsErr(t, await hs.req('GET', q(''), { headers: { authorization: header } }), 401, 'M_MISSING_TOKEN', 'Invalid Authorization header.')
  }
  // Header values lose surrounding whitespace on the wire, so `Bearer ` arrives as `Bearer`.
  hsErr(t, await hs.req('GET', q(''), { headers: { authorization: 'Bearer ' } }), 401, 'M_MISSING_TOKEN', 'Invalid Authorization header.')
  hsErr(t, await hs.req('GET', q('access_token=')), 401, 'M_UNKNOWN_TOKEN', 'Invalid access token passed.')
  hsErr(t, await hs.req('GET', q('access_token=%C3%A9')), 401, 'M_UNKNOWN_TOKEN')
  // The first of repeated access_token parameters counts.
  t.equal((await hs.req('GET', q(`access_token=${ADMIN_TOKEN}&access_token=x`))).status, 200)
})

t.test('server_version needs no token and ignores a bad one', async (t) => {
  for (const token of [undefined, 'garbage', USER_TOKEN]) {
    const res = await hs.req('GET', `${hs.admin}/server_version`, { token })
    t.equal(res.status, 200)
    valid(t, 'homeserver/server-version', res.body)
  }
})

t.test('client endpoints take any valid user and reject unknown tokens', async (t) => {
  hsErr(t, await hs.req('GET', '/_matrix/client/v3/account/whoami'), 401, 'M_MISSING_TOKEN')
  hsErr(t, await hs.req('GET', '/_matrix/client/v3/account/whoami', { token: 'x' }), 401, 'M_UNKNOWN_TOKEN')
  hsErr(t, await hs.req('POST', '/_matrix/client/v3/rooms/!a:example.test/report/$b', { body: {} }), 401, 'M_MISSING_TOKEN')
  t.equal((await hs.req('GET', '/_matrix/client/v3/account/whoami', { token: USER_TOKEN })).status, 200)
})

// A stand-in auth service answering /oauth2/introspect, counting its calls.
interface Intro {
  url: string
  calls: string[]
  auth: (string | undefined)[]
  close(): Promise<void>
}

async function introspector(answers: Record<string, Record<string, unknown>>): Promise<Intro> {
  const calls: string[] = []
  const auth: (string | undefined)[] = []
  const server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      if (req.url !== '/oauth2/introspect' || req.method !== 'POST') {
        res.writeHead(404).end()
        return
      }
      const form = new URLSearchParams(body)
      const token = form.get('token') ?? ''
      calls.push(token)
      auth.push(req.headers.authorization)
      if (token === 'intro-broken') {
        res.writeHead(500).end('boom')
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers[token] ?? { active: false }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    calls,
    auth,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}

t.test('delegated auth: unknown tokens are introspected at the auth service', async (t) => {
  const api = 'urn:matrix:client:api:*'
  const intro = await introspector({
    'intro-admin': {
      active: true,
      scope: `openid ${api} urn:synapse:admin:* urn:matrix:client:device:ADMDEV`,
      username: 'carol',
      sub: '01J0CAROL',
    },
    'intro-user': { active: true, scope: `openid ${api} urn:matrix:client:device:DAVEDEV`, username: 'dave', sub: '01J0DAVE' },
    'intro-unstable': { active: true, scope: 'urn:matrix:org.matrix.msc2967.client:api:*', username: 'frank', device_id: 'FRANKDEV' },
    'intro-noscope': { active: true, scope: 'urn:mas:admin', username: 'erin' },
    'intro-expired': { active: true, scope: api, username: 'gina', expires_in: -1 },
    'intro-nouser': { active: true, scope: api },
  })
  t.teardown(() => intro.close())
  const d = await startHs({ hsDelegateUrl: intro.url, hsDelegateClientId: '01J0HOMESERVER', hsDelegateClientSecret: 's3cret' })
  t.teardown(() => d.close())

  const admin = await d.req('GET', d.reports, { token: 'intro-admin' })
  t.equal(admin.status, 200, 'admin scope: admin')
  t.equal(intro.auth[0], 'Basic ' + Buffer.from('01J0HOMESERVER:s3cret').toString('base64'), 'client_secret_basic')
  const me = await d.req('GET', '/_matrix/client/v3/account/whoami', { token: 'intro-user' })
  t.same(
    me.body,
    { user_id: '@dave:example.test', is_guest: false, device_id: 'DAVEDEV' },
    'user created on first sight, device from scope',
  )
  hsErr(t, await d.req('GET', d.reports, { token: 'intro-user' }), 403, 'M_FORBIDDEN', 'You are not a server admin')
  const unstable = await d.req('GET', '/_matrix/client/r0/account/whoami', { token: 'intro-unstable' })
  t.same(unstable.body, { user_id: '@frank:example.test', is_guest: false, device_id: 'FRANKDEV' }, 'unstable scope and device_id claim')
  hsErr(t, await d.req('GET', d.reports, { token: 'intro-inactive' }), 401, 'M_UNKNOWN_TOKEN', 'Token is not active')
  hsErr(t, await d.req('GET', d.reports, { token: 'intro-expired' }), 401, 'M_UNKNOWN_TOKEN', 'Token is not active')
  hsErr(
    t,
    await d.req('GET', d.reports, { token: 'intro-noscope' }),
    401,
    'M_UNKNOWN_TOKEN',
    "Token doesn't grant access to the Matrix C-S API",
  )
  const nouser = await d.req('GET', d.reports, { token: 'intro-nouser' })
  t.equal(nouser.status, 500, 'no username claim: the real server answers 500 too')
  hsErr(t, await d.req('GET', d.reports, { token: 'intro-broken' }), 503, 'M_UNKNOWN', 'Unable to introspect the access token')

  // Answers are cached for a short time; failures are not.
  const before = intro.calls.length
  await d.req('GET', d.reports, { token: 'intro-admin' })
  await d.req('GET', d.reports, { token: 'intro-inactive' })
  t.equal(intro.calls.length, before, 'cached answers reused')
  await d.req('GET', d.reports, { token: 'intro-broken' })
  t.equal(intro.calls.length, before + 1, 'failed introspection retried')
  // Local tokens never reach the auth service.
  t.equal((await d.req('GET', d.reports, { token: ADMIN_TOKEN })).status, 200)
  t.equal(intro.calls.length, before + 1)
  t.notOk(intro.calls.includes(ADMIN_TOKEN))
})

t.test('delegated auth with only a secret uses it as a Bearer token', async (t) => {
  const intro = await introspector({ tok: { active: true, scope: 'urn:matrix:client:api:*', username: 'hank' } })
  t.teardown(() => intro.close())
  const d = await startHs({ hsDelegateUrl: intro.url.slice(0, -1), hsDelegateClientSecret: 'shared' })
  t.teardown(() => d.close())
  t.equal((await d.req('GET', '/_matrix/client/v3/account/whoami', { token: 'tok' })).status, 200)
  t.equal(intro.auth[0], 'Bearer shared')
})

t.test('delegated auth: an unreachable auth service gives 503 quickly', async (t) => {
  // A port nothing listens on: bind one, note it, close it.
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((r) => probe.close(() => r()))
  const d = await startHs({ hsDelegateUrl: `http://127.0.0.1:${port}` })
  t.teardown(() => d.close())
  hsErr(t, await d.req('GET', d.reports, { token: 'whatever' }), 503, 'M_UNKNOWN', 'Unable to introspect the access token')
})
