// The mock runs on developers' laptops next to their browser: a web page must not drive it. The
// control API takes only requests a browser preflights, and answers CORS only to --cors-origin;
// every path checks the Host header (DNS rebinding); /_mock/seed sizes are bounded; a request that
// declares a body past the limit is answered at once.
import t from 'tap'
import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { startTestMock } from '../admin/helpers.ts'
import { allowedHostName, allowedHosts, hostAllowed } from '../../../mock/core/host.ts'
import { CONTROL_SIZE_LIMITS } from '../../../mock/site/control.ts'

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/** A request with any Host header (fetch sets its own). */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

t.test('a web page cannot drive the control API: simple requests are refused', async (t) => {
  const tm = await startTestMock(t, { sessions: 9, reports: 2 })
  const active = tm
    .world()
    .mas.compat.all()
    .find((s) => s.finishedAt === null)!
  t.equal((await tm.post(`/api/admin/v1/compat-sessions/${active.id}/finish`)).status, 200, 'a write to lose')
  const page = { origin: 'http://evil.example' }
  // What a cross-site form or fetch without preflight can send.
  const attempts: [string, string, Record<string, string>, string?][] = [
    ['POST', '/_mock/reset', { ...page, 'content-type': 'text/plain' }, '{}'],
    ['POST', '/_mock/reset', page],
    ['POST', '/_mock/seed', { ...page, 'content-type': 'application/x-www-form-urlencoded' }, 'sessions=2000000'],
    ['POST', '/_mock/seed', { ...page, 'content-type': 'text/plain;charset=UTF-8' }, '{"sessions":5}'],
    ['GET', '/_mock/info', page],
  ]
  for (const [method, path, headers, body] of attempts) {
    const res = await fetch(tm.url + path, { method, headers, body })
    t.equal(res.status, 403, `${method} ${path} (${headers['content-type'] ?? 'no body'}): 403`)
    t.match(((await res.json()) as { error: string }).error, /x-admin-conformance: 1' or a JSON body/, 'says what is needed')
    t.equal(res.headers.get('access-control-allow-origin'), null, 'and no page may read it')
  }
  t.not(tm.world().mas.compat.get(active.id)!.finishedAt, null, 'the write survived')
  t.equal(tm.world().mas.compat.all().length, 9 / 3, 'the world was not reseeded')
  // What the harness sends passes.
  t.equal((await fetch(`${tm.url}/_mock/info`, { headers: { 'x-admin-conformance': '1' } })).status, 200, 'GET with the header')
  t.equal(
    (await fetch(`${tm.url}/_mock/seed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"sessions":6}' }))
      .status,
    200,
    'a JSON body',
  )
  t.equal(
    (await fetch(`${tm.url}/_mock/reset`, { method: 'POST', headers: { 'x-admin-conformance': '1' } })).status,
    200,
    'a bodiless POST with the header',
  )
  t.equal((await fetch(`${tm.url}/_mock/info`, { headers: { 'x-admin-conformance': 'yes' } })).status, 403, "the header's value is 1")
})

t.test('control API CORS: only the configured origin', async (t) => {
  const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-admin-conformance' }
  const open = await startTestMock(t, { sessions: 3, reports: 1 })
  const pre = await fetch(`${open.url}/_mock/reset`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', ...preflight } })
  t.equal(pre.headers.get('access-control-allow-origin'), null, 'no origin configured: no CORS, the preflight fails in the browser')
  t.equal(pre.headers.get('access-control-allow-headers'), null)
  const admin = await fetch(`${open.url}/api/admin/v1/version`, {
    method: 'OPTIONS',
    headers: { origin: 'http://evil.example', ...preflight },
  })
  t.equal(admin.headers.get('access-control-allow-origin'), '*', 'the admin API keeps its CORS (bearer tokens, no credentials)')

  const dev = 'http://localhost:5173'
  const tm = await startTestMock(t, { sessions: 3, reports: 1, corsOrigin: dev })
  const ok = await fetch(`${tm.url}/_mock/reset`, { method: 'OPTIONS', headers: { origin: dev, ...preflight } })
  t.equal(ok.status, 204)
  t.equal(ok.headers.get('access-control-allow-origin'), dev, 'the developer’s dev origin may')
  t.equal(ok.headers.get('access-control-allow-headers'), 'x-admin-conformance')
  const other = await fetch(`${tm.url}/_mock/reset`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', ...preflight } })
  t.equal(other.headers.get('access-control-allow-origin'), null, 'another origin may not')
  const info = await fetch(`${tm.url}/_mock/info`, { headers: { origin: dev, 'x-admin-conformance': '1' } })
  t.equal(info.headers.get('access-control-allow-origin'), dev)
  t.equal(info.headers.get('access-control-allow-credentials'), 'true')
  const adminDev = await fetch(`${tm.url}/api/admin/v1/version`, { method: 'OPTIONS', headers: { origin: dev, ...preflight } })
  t.equal(adminDev.headers.get('access-control-allow-origin'), dev, "the admin API's CORS for the dev origin still works")
})

t.test('every path checks the Host header', async (t) => {
  const tm = await startTestMock(t, { sessions: 3, reports: 1, allowedHosts: ['mock.internal', 'proxy.example:8443'] })
  const port = tm.mock.port
  const control = { 'x-admin-conformance': '1' }
  const paths: [string, string, (r: Raw) => void][] = [
    ['/health', 'other', (r) => t.match(r.headers['content-type'], /text\/plain/)],
    ['/api/admin/v1/version', 'mas', (r) => t.match(JSON.parse(r.text), { errors: [{ title: /does not serve the host/ }] })],
    [
      '/_synapse/admin/v1/server_version',
      'hs',
      (r) => t.match(JSON.parse(r.text), { errcode: 'M_UNKNOWN', error: /does not serve the host/ }),
    ],
    ['/_mock/info', 'control', (r) => t.match(JSON.parse(r.text), { error: /--allowed-host/ })],
    ['/.well-known/openid-configuration', 'other', () => {}],
  ]
  for (const [path, area, body] of paths) {
    for (const host of [
      'attacker.example',
      `attacker.example:${port}`,
      `localhost:${port + 1}`,
      '127.0.0.2',
      `mock.internal.evil:${port}`,
      'proxy.example:8444',
    ]) {
      const r = await raw(port, 'GET', path, { host, ...control })
      t.equal(r.status, 421, `${path} with Host ${host}: 421`)
      if (host === 'attacker.example') body(r)
    }
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `LOCALHOST:${port}`,
      'mock.internal',
      'mock.internal:9999',
      'proxy.example:8443',
    ]) {
      t.not((await raw(port, 'GET', path, { host, ...control })).status, 421, `${path} (${area}) with Host ${host}: served`)
    }
  }
  // The rebinding attack: the page's own origin, so no CORS needed, but its Host names the page's domain.
  const token = await raw(
    port,
    'POST',
    '/oauth2/token',
    { host: 'rebind.example', 'content-type': 'application/x-www-form-urlencoded' },
    'grant_type=client_credentials',
  )
  t.equal(token.status, 421, 'the token endpoint too')
  t.equal(tm.world().mas.compat.all().length, 1, 'nothing reseeded by a refused request')
})

t.test('the allowlist', async (t) => {
  const list = allowedHosts({ host: '127.0.0.1', allowedHosts: ['Box.LAN'] }, 8080)
  t.ok(hostAllowed(list, 'localhost:8080'))
  t.notOk(hostAllowed(list, 'localhost'), 'the port counts on loopback names')
  t.ok(hostAllowed(list, 'box.lan:1234'), 'a given name at any port')
  t.notOk(hostAllowed(list, undefined), 'no Host: refused')
  t.notOk(hostAllowed(list, '[::1'), 'malformed')
  t.ok(hostAllowed(allowedHosts({ host: '127.0.0.1' }, 80), 'localhost'), 'port 80 may be left out')
  t.ok(hostAllowed(allowedHosts({ host: '192.0.2.7' }, 9000), '192.0.2.7:9000'), 'the listen address when it is one')
  t.notOk(hostAllowed(allowedHosts({ host: '0.0.0.0' }, 9000), '0.0.0.0:9000'), 'not a wildcard one')
  t.ok(hostAllowed(allowedHosts({ host: '::1' }, 9000), '[::1]:9000'))
  t.equal(allowedHostName('Mock.Example:08080'), 'mock.example:8080')
  t.throws(() => allowedHostName('http://x'), /not a host name/)
  t.throws(() => allowedHostName('a b'), /not a host name/)
})

t.test('/_mock/seed sizes are bounded', async (t) => {
  const tm = await startTestMock(t, { sessions: 3, reports: 1 })
  for (const key of ['sessions', 'reports'] as const) {
    const res = await tm.req('POST', '/_mock/seed', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ [key]: 2_000_000 }),
    })
    t.equal(res.status, 400, `${key}: 2,000,000 refused`)
    t.match(res.body.error, new RegExp(`'${key}' must be an integer from 0 to ${CONTROL_SIZE_LIMITS[key]}.*--${key}`), 'names the limit')
  }
  t.equal(tm.world().mas.compat.all().length, 1, 'the world is untouched')
  const over = await tm.req('POST', '/_mock/seed', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessions: CONTROL_SIZE_LIMITS.sessions + 1 }),
  })
  t.equal(over.status, 400, 'one past the limit: refused')
  const ok = await tm.req('POST', '/_mock/seed', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessions: 30, reports: 2 }),
  })
  t.equal(ok.status, 200, 'within it: reseeded')
})

/** Sends a head declaring `declared` bytes and `sent` bytes of body, and waits for the answer while sending no more. */
function lyingLength(
  port: number,
  path: string,
  declared: number,
  sent: number,
): Promise<{ status: number; head: string; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const socket = connect(port, '127.0.0.1')
    let got = ''
    const giveUp = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer within 3 s (${JSON.stringify(got.slice(0, 80))})`))
    }, 3000)
    socket.on('data', (c) => {
      got += c.toString('latin1')
      const end = got.indexOf('\r\n\r\n')
      if (end === -1) return
      const length = Number(/content-length: (\d+)/i.exec(got.slice(0, end))?.[1] ?? 0)
      if (got.length < end + 4 + length) return
      clearTimeout(giveUp)
      socket.destroy()
      resolve({
        status: Number(got.slice(9, 12)),
        head: got.slice(0, end),
        body: got.slice(end + 4, end + 4 + length),
        ms: Date.now() - started,
      })
    })
    socket.on('error', (e) => {
      clearTimeout(giveUp)
      reject(e)
    })
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    )
    socket.write(Buffer.alloc(sent, 0x20))
  })
}

t.test('a lying Content-Length is answered at once, per API', async (t) => {
  const tm = await startTestMock(t, { sessions: 3, reports: 1 })
  const port = tm.mock.port
  const hs = await lyingLength(port, '/_synapse/admin/v1/event_reports/1', 50e9, 64 * 1024)
  t.equal(hs.status, 413, 'homeserver: 413')
  t.same(
    JSON.parse(hs.body),
    { errcode: 'M_TOO_LARGE', error: 'Request content is too large (>52428800)' },
    "Synapse's answer to a Content-Length past max_request_body_size",
  )
  const mas = await lyingLength(port, '/api/admin/v1/users', 50e9, 64 * 1024)
  t.equal(mas.status, 413, 'auth service: 413')
  t.equal(mas.body, 'Failed to buffer the request body: length limit exceeded')
  const control = await lyingLength(port, '/_mock/seed', 50e9, 64 * 1024)
  t.equal(control.status, 413, 'control: 413')
  t.match(JSON.parse(control.body).error, /more than 2097152 bytes/)
  // A body that passes the limit while it is sent, without a declared length past it, is refused as it passes.
  const chunked = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/admin/v1/users',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        agent: false,
      },
      (res) => {
        res.resume()
        resolve(res.statusCode!)
        req.destroy()
      },
    )
    req.on('error', reject)
    req.write(Buffer.alloc(3 * 1024 * 1024, 0x20))
    // and then nothing more: the answer must not wait for the end
  })
  t.equal(chunked, 413, 'chunked past the limit: 413 without the end of the body')
})
