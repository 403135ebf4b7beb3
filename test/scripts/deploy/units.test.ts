// The deploy library's parts that need no Docker engine: token refresh, probes, redaction, input checks.
import t from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createTcpServer, type AddressInfo } from 'node:net'
import { TokenSource } from '../../../scripts/deploy/oauth.ts'
import { httpHealthy, postgresReady, waitUntil } from '../../../scripts/deploy/health.ts'
import { Redactor } from '../../../lib/redact.ts'
import { deploy, serviceSpecs } from '../../../scripts/deploy/index.ts'
import { generateFiles, makePlan } from '../../../scripts/deploy/config.ts'
import { DeployError, bounded, sleep } from '../../../scripts/deploy/errors.ts'
import { freePort, portFree } from '../../../scripts/deploy/ports.ts'
import { demux } from '../../../scripts/deploy/service.ts'
import { parseDeployArgs } from '../../../scripts/deploy/main.ts'

async function server(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const srv = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => handler(req, body, res))
  })
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as AddressInfo).port
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => srv.close(() => r())) }
}

t.test('TokenSource: client_credentials, cached, refreshed before expiry', async (t) => {
  let n = 0
  const seen: { auth?: string; body: string }[] = []
  const s = await server((req, body, res) => {
    seen.push({ auth: req.headers.authorization, body })
    n++
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ access_token: `mat_token${n}`, token_type: 'Bearer', expires_in: 300, scope: 'urn:mas:admin' }))
  })
  t.teardown(s.close)
  let now = 1_000_000
  const src = new TokenSource({
    tokenUrl: `${s.url}/oauth2/token`,
    clientId: 'ID',
    clientSecret: 'S3CRET',
    scope: 'urn:mas:admin',
    now: () => now,
  })
  t.equal(await src.token(), 'mat_token1')
  t.equal(await src.token(), 'mat_token1', 'cached while valid')
  now += 239_000
  t.equal(await src.token(), 'mat_token1', 'still valid for more than the 60 s margin')
  now += 2_000
  t.equal(await src.token(), 'mat_token2', 'refreshed within the margin')
  t.equal(await src.token(undefined, 299_000), 'mat_token2', 'fresh token satisfies a long validity need')
  now += 10_000
  t.equal(await src.token(undefined, 295_000), 'mat_token3', 'refreshed when a run needs more time than is left')
  const [a, b] = await Promise.all([src.token(undefined, 400_000), src.token(undefined, 400_000)])
  t.equal(a, b, 'concurrent callers share one grant')
  t.equal(seen[0]!.auth, `Basic ${Buffer.from('ID:S3CRET').toString('base64')}`, 'client_secret_basic')
  t.same(Object.fromEntries(new URLSearchParams(seen[0]!.body)), { grant_type: 'client_credentials', scope: 'urn:mas:admin' })

  const post = new TokenSource({
    tokenUrl: `${s.url}/oauth2/token`,
    clientId: 'ID',
    clientSecret: 'S3CRET',
    scope: 'openid',
    auth: 'client_secret_post',
  })
  await post.token()
  t.equal(seen.at(-1)!.auth, undefined, 'client_secret_post sends no Authorization header')
  t.match(Object.fromEntries(new URLSearchParams(seen.at(-1)!.body)), { client_id: 'ID', client_secret: 'S3CRET' })
})

t.test('TokenSource: a refused grant is a bootstrap error with the answer', async (t) => {
  const s = await server((_req, _b, res) => {
    res.writeHead(401, { 'content-type': 'application/json' })
    res.end('{"error":"invalid_client"}')
  })
  t.teardown(s.close)
  const src = new TokenSource({ tokenUrl: `${s.url}/oauth2/token`, clientId: 'ID', clientSecret: 'S', scope: 'urn:mas:admin' })
  await t.rejects(src.token(), {
    name: 'DeployError',
    kind: 'bootstrap',
    message: /POST \/oauth2\/token answered 401: \{"error":"invalid_client"\}/,
  })
})

t.test('probes', async (t) => {
  const s = await server((req, _b, res) => {
    res.writeHead(req.url === '/health' ? 200 : 503)
    res.end('ok')
  })
  t.teardown(s.close)
  t.equal(await httpHealthy(`${s.url}/health`), true)
  t.equal(await httpHealthy(`${s.url}/other`), 'answered 503')
  const closed = await freePort()
  t.equal(await httpHealthy(`http://127.0.0.1:${closed}/health`), 'connection refused')
  t.equal(await postgresReady('127.0.0.1', closed, 'u', 'd'), 'ECONNREFUSED')

  // A fake PostgreSQL: first "starting up", then an authentication request.
  let starting = true
  const pg = createTcpServer((sock) => {
    sock.once('data', () => {
      if (starting) {
        const body = Buffer.from('SFATAL\0C57P03\0Mthe database system is starting up\0\0')
        const head = Buffer.alloc(5)
        head.write('E')
        head.writeInt32BE(4 + body.length, 1)
        sock.end(Buffer.concat([head, body]))
      } else sock.end(Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 10]))
    })
  })
  await new Promise<void>((r) => pg.listen(0, '127.0.0.1', r))
  t.teardown(() => pg.close())
  const port = (pg.address() as AddressInfo).port
  t.equal(await postgresReady('127.0.0.1', port, 'u', 'd'), 'the database system is starting up')
  starting = false
  t.equal(await postgresReady('127.0.0.1', port, 'u', 'd'), true)
})

t.test('waitUntil: deadline, then a health error naming what was awaited', async (t) => {
  await t.rejects(waitUntil({ what: 'thing health', probe: async () => 'answered 503', timeoutMs: 300, intervalMs: 50 }), {
    kind: 'health',
    message: /thing health did not pass within 0 s \(last: answered 503\)/,
  })
  let calls = 0
  await waitUntil({ what: 'x', probe: async () => (++calls >= 3 ? true : 'not yet'), timeoutMs: 5_000, intervalMs: 10 })
  t.equal(calls, 3)
  const ac = new AbortController()
  setTimeout(() => ac.abort('test'), 50)
  await t.rejects(waitUntil({ what: 'x', probe: async () => 'no', timeoutMs: 5_000, intervalMs: 20, signal: ac.signal }), {
    name: 'DeployError',
    kind: 'interrupted',
  })
})

t.test('bounded and sleep', async (t) => {
  await t.rejects(
    bounded(new Promise(() => {}), 20, () => new Error('too slow')),
    /too slow/,
  )
  t.equal(await bounded(Promise.resolve(5), 1000, () => new Error('x')), 5)
  const ac = new AbortController()
  ac.abort('stop')
  await t.rejects(sleep(1000, ac.signal), { kind: 'interrupted', message: /interrupted \(stop\)/ })
})

t.test('Redactor', async (t) => {
  const r = new Redactor()
  // deploy uses the project's one rule (lib/redact.ts): secrets of 4+ characters, `[REDACTED]`
  r.add('supersecretvalue', 'short', 'abc', undefined)
  t.equal(
    r.apply('a supersecretvalue b short abc'),
    'a [REDACTED] b [REDACTED] abc',
    'values under 4 characters are not treated as secrets',
  )
  t.equal(r.apply('Bearer mat_abcdefghijABCDEFGHIJ0123456789_abc123'), 'Bearer [REDACTED]', 'token shapes are redacted unseen')
  t.equal(r.apply('mpt_FM44zJN5qePGMLvvMXC4Ds1A3lCWc6_bJ9Wj1 and syt_abc'), '[REDACTED] and syt_abc')
})

t.test('ports', async (t) => {
  const p = await freePort()
  t.ok(await portFree(p))
  const held = createTcpServer()
  await new Promise<void>((r) => held.listen(p, '127.0.0.1', r))
  t.notOk(await portFree(p), 'a held port is not free')
  held.close()
})

t.test('demux of the engine log framing', async (t) => {
  const frame = (type: number, s: string) => {
    const b = Buffer.from(s)
    const h = Buffer.alloc(8)
    h[0] = type
    h.writeUInt32BE(b.length, 4)
    return Buffer.concat([h, b])
  }
  t.equal(demux(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n')])), 'out\nerr\n')
  t.equal(demux(Buffer.from('plain text')), 'plain text')
})

t.test('deploy(): bad input ends at once with a usage error, before any engine is needed', async (t) => {
  const lines: string[] = []
  const cases: [Parameters<typeof deploy>[0], RegExp][] = [
    [{ masImage: 'Not An Image!' }, /--mas-image: not a valid image reference/],
    [{ ports: { mas: 70000 } }, /port for mas must be an integer from 1 to 65535/],
    [{ ports: { mas: 20000, homeserver: 20000 } }, /ports must be distinct/],
    [{ areas: ['nope' as 'admin'] }, /unknown area 'nope'/],
    [{ skipDb: true }, /only works with the mock standing in/],
    [{ timeouts: { healthMs: -1 } }, /timeout healthMs must be a positive number/],
    [{ fixtures: { users: 0 } }, /fixture count users must be an integer from 1/],
  ]
  for (const [opts, re] of cases) {
    const r = await deploy({ ...opts, write: (l) => lines.push(l) })
    t.equal(r.exitCode, 2, `exit 2 for ${re}`)
    t.equal(r.error?.kind, 'usage')
    t.match(r.error?.message, re)
    t.same(r.leftovers, [])
  }
  t.ok(
    lines.some((l) => l.includes('[deploy] result: FAILED (usage)')),
    'the report says why',
  )
})

t.test('CLI flags', async (t) => {
  t.equal(parseDeployArgs(['--help']), 'help')
  const o = parseDeployArgs([
    '--mock-image',
    'x/mock:1',
    '--skip-db',
    '--area',
    'admin,log',
    '--mas-port',
    '18080',
    '--health-timeout',
    '2.5',
    '--keep',
  ])
  t.match(o, {
    masImage: 'x/mock:1',
    hsImage: 'x/mock:1',
    standIn: true,
    skipDb: true,
    areas: ['admin', 'log'],
    ports: { mas: 18080 },
    timeouts: { healthMs: 2500 },
    keep: true,
  })
  t.match(parseDeployArgs(['--hs-tag', 'v1.130.0']), { hsImage: 'docker.io/matrixdotorg/synapse:v1.130.0' })
  t.match(parseDeployArgs(['--suites', 'none']), { areas: [] })
  t.throws(() => parseDeployArgs(['--area', 'admin,bogus']), /--area: unknown value 'bogus' \(one of: admin, reports, log, none\)/)
  t.throws(() => parseDeployArgs(['--mas-port', 'x']), /--mas-port must be a positive whole number \(1 to 65535\), got 'x'/)
  t.throws(() => parseDeployArgs(['--hs-tag', 'bad tag']), /not a valid image tag/)
  t.throws(() => parseDeployArgs(['--skip-db']), /only works with --stand-in/)
  t.throws(() => parseDeployArgs(['--mock-image', 'a', '--mas-image', 'b']), /give one or the others/)
  t.throws(() => parseDeployArgs(['--delegation', 'maybe']), /--delegation: unknown value 'maybe' \(one of: stable, msc3861, none\)/)
  t.throws(() => parseDeployArgs(['--stray']), /unknown option '--stray'/)
  t.throws(() => parseDeployArgs(['--area', 'admn']), /did you mean 'admin'\?/)
  t.throws(() => parseDeployArgs(['--users', '-5']), /--users must be a positive whole number \(1 to 1000\), got '-5'/)
  t.throws(() => parseDeployArgs(['--health-timeout', '-1']), /--health-timeout must be a positive number of seconds/)
  t.throws(() => parseDeployArgs(['--area', 'none,admin']), /goes alone/)
  t.ok(new DeployError('usage', 'x') instanceof Error)
})

t.test('containers of the real services: commands, environment and files', async (t) => {
  const plan = makePlan({ ports: { mas: 18080, homeserver: 18008, postgres: 15432 }, masTag: 'latest', homeserverTag: 'latest' })
  const files = generateFiles(plan)
  const s = serviceSpecs(plan, files, { mas: 'm:1', homeserver: 'h:1', postgres: 'p:1' }, false)
  t.same(s.mas.command, ['server', '--config=/etc/mas/config.yaml'], 'mas-cli server with the generated file')
  t.same(s.mas.files, [{ content: files.masConfigYaml, target: '/etc/mas/config.yaml' }])
  t.equal(s.homeserver.command, undefined, "the image's own start script, in run mode")
  t.same(s.homeserver.env, { SYNAPSE_CONFIG_PATH: '/data/homeserver.yaml' })
  t.same(
    s.homeserver.files?.map((f) => f.target),
    ['/data/homeserver.yaml', '/data/signing.key'],
  )
  t.same(s.postgres.command, ['postgres', '-p', '15432', '-c', 'listen_addresses=127.0.0.1'])
  t.same(s.postgres.env, { POSTGRES_USER: plan.db.user, POSTGRES_PASSWORD: plan.db.password })
  t.same(
    s.postgres.files?.map((f) => f.target),
    ['/docker-entrypoint-initdb.d/10-admin-conformance.sql'],
  )
  const m = serviceSpecs(plan, files, { mas: 'x', homeserver: 'x', postgres: 'p' }, true)
  t.match(m.mas.command, ['mock', '--host', '127.0.0.1', '--port', '18080'])
  t.same(
    m.mas.env,
    { MOCK_ADMIN_CLIENT_ID: plan.adminClient.id, MOCK_ADMIN_CLIENT_SECRET: plan.adminClient.secret },
    'secrets by environment, not argv',
  )
  t.equal(m.homeserver.env?.MOCK_HS_DELEGATE_URL, 'http://127.0.0.1:18080')
  for (const spec of Object.values(m))
    t.notOk(
      spec.command?.some((a) => a.includes(plan.adminClient.secret)),
      'no secret on a command line',
    )
})
