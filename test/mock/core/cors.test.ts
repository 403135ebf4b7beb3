// CORS per area and the control API's reset: the auth service's paths reflect the requested headers,
// echo a configured origin with credentials (else `*` without), and send Max-Age on preflights (the
// control API's CORS: test/mock/site/hostile.test.ts); the homeserver's paths answer as Synapse does; reset brings back the seeded world with
// no fault on, and says so.
import t from 'tap'
import { API, startTestMock } from '../admin/helpers.ts'
import { corsOrigin, mockOptions } from '../../../mock/core/options.ts'
import { PREFLIGHT_MAX_AGE } from '../../../mock/core/cors.ts'

const SYNAPSE_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS'
const SYNAPSE_HEADERS = 'X-Requested-With, Content-Type, Authorization, Date'

t.test('auth service paths without a configured origin', async (t) => {
  const tm = await startTestMock(t, { sessions: 9, reports: 1 })
  for (const path of [`${API}/compat-sessions`, '/graphql']) {
    const pre = await tm.req('OPTIONS', path, {
      headers: {
        origin: 'http://ui.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-custom, content-type',
      },
    })
    t.equal(pre.status, 204, `${path}: preflight 204`)
    t.equal(pre.headers.get('access-control-allow-origin'), '*')
    t.equal(pre.headers.get('access-control-allow-credentials'), null, 'no credentials with *')
    t.equal(pre.headers.get('access-control-allow-headers'), 'x-custom, content-type', 'the requested headers are reflected')
    t.equal(pre.headers.get('access-control-max-age'), PREFLIGHT_MAX_AGE)
    t.match(pre.headers.get('vary') ?? '', /Access-Control-Request-Headers/)
  }
  const plain = await tm.get(`${API}/compat-sessions`)
  t.equal(
    plain.headers.get('access-control-allow-headers'),
    'Authorization, Content-Type, X-Requested-With',
    'without a request: the default list',
  )
  t.equal(plain.headers.get('access-control-max-age'), null, 'Max-Age only on preflights')
  const odd = await tm.req('OPTIONS', `${API}/version`, {
    headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-a, "quoted"' },
  })
  t.equal(
    odd.headers.get('access-control-allow-headers'),
    'Authorization, Content-Type, X-Requested-With',
    'a list that is not header names is not reflected',
  )
  const notPreflight = await tm.req('OPTIONS', `${API}/version`)
  t.equal(notPreflight.status, 405, 'an OPTIONS without preflight headers is routed: the admin API has none (axum 405)')
})

t.test('a configured origin is echoed with credentials', async (t) => {
  const tm = await startTestMock(t, { sessions: 3, reports: 1, corsOrigin: 'http://localhost:5173' })
  const pre = await tm.req('OPTIONS', '/graphql', {
    headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  })
  t.equal(pre.status, 204)
  t.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:5173')
  t.equal(pre.headers.get('access-control-allow-credentials'), 'true')
  t.match(pre.headers.get('vary') ?? '', /Origin/)
  const answer = await tm.post('/graphql', { query: '{ viewer { id } }' }, { token: null, headers: { origin: 'http://localhost:5173' } })
  t.equal(answer.status, 200)
  t.equal(answer.headers.get('access-control-allow-origin'), 'http://localhost:5173')
  t.equal(answer.headers.get('access-control-allow-credentials'), 'true')
  t.equal(
    mockOptions({}, { MOCK_CORS_ORIGIN: 'https://admin.example:8443' }).corsOrigin,
    'https://admin.example:8443',
    'also from the environment',
  )
  t.throws(() => corsOrigin('http://ui.example/path'), /must look like http:\/\/host:port/)
  t.throws(() => corsOrigin('*'), /must look like/)
})

t.test('homeserver paths answer as Synapse does', async (t) => {
  const tm = await startTestMock(t, { sessions: 3, reports: 2, corsOrigin: 'http://localhost:5173' })
  const variants: Record<string, string>[] = [
    {},
    { origin: 'http://x', 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'x-custom' },
  ]
  for (const headers of variants) {
    for (const path of ['/_synapse/admin/v1/event_reports', '/_synapse/admin/v1/nothing', '/_matrix/client/v3/rooms/!r/report/$e']) {
      const res = await tm.req('OPTIONS', path, { headers })
      t.equal(res.status, 204, `OPTIONS ${path} ${Object.keys(headers).length ? 'preflight' : 'plain'}: 204`)
      t.equal(res.headers.get('access-control-allow-origin'), '*')
      t.equal(res.headers.get('access-control-allow-methods'), SYNAPSE_METHODS)
      t.equal(res.headers.get('access-control-allow-headers'), SYNAPSE_HEADERS, 'a fixed list, not reflected')
      t.equal(res.headers.get('access-control-allow-credentials'), null)
      t.equal(res.text, '')
    }
  }
  const json = await tm.req('GET', '/_synapse/admin/v1/server_version')
  t.equal(json.headers.get('cache-control'), 'no-cache, no-store, must-revalidate', 'JSON answers are not cached')
  t.equal(json.headers.get('access-control-allow-methods'), SYNAPSE_METHODS)
  const error = await tm.req('GET', '/_synapse/admin/v1/event_reports')
  t.equal(error.status, 401)
  t.equal(error.headers.get('cache-control'), 'no-cache, no-store, must-revalidate', 'errors too')
  t.equal((await tm.get(`${API}/version`)).headers.get('cache-control'), null, 'not on the auth service')
})

t.test('reset: the seeded world again, faults cleared, and the answer says so', async (t) => {
  const tm = await startTestMock(t, { seed: 5, sessions: 30, reports: 4, faults: ['reports-dir-ignored'] })
  const before = (await tm.all(`${API}/compat-sessions`)).map((d) => d.id)
  const active = tm
    .world()
    .mas.compat.all()
    .find((s) => s.finishedAt === null)!
  t.equal((await tm.post(`${API}/compat-sessions/${active.id}/finish`)).status, 200, 'a write')
  t.equal(
    (
      await tm.req('PUT', '/_mock/faults', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ faults: ['reports-dir-ignored', 'finish-twice-200'] }),
      })
    ).status,
    200,
  )
  t.equal((await tm.req('POST', '/_mock/background-updates')).status, 200)
  const reset = await tm.req('POST', '/_mock/reset')
  t.equal(reset.status, 200)
  t.same(reset.body.reset.faultsCleared, ['finish-twice-200', 'reports-dir-ignored'], 'names the faults it switched off')
  t.match(reset.body.reset.world, /rebuilt from seed 5 with 30 sessions and 4 reports/)
  t.same(reset.body.faults, [])
  t.same((await tm.req('GET', '/_mock/faults')).body.active, [], 'no fault on')
  t.equal(tm.world().mas.compat.get(active.id)!.finishedAt, null, 'the write is gone')
  t.same(
    (await tm.all(`${API}/compat-sessions`)).map((d) => d.id),
    before,
    'the same sessions as at start',
  )
  t.same((await tm.req('GET', '/_mock/jobs')).body.jobs, [], 'no jobs')
  t.same(tm.world().backgroundUpdates.current, [], 'no background update')
})
