// `admin-conformance snapshot`: the file it writes (every probe answered, normalised, no secret), its
// bounds (the same requests whatever the data size), read-only (only credential-free mutating requests),
// and its exit codes.
import t from 'tap'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import { run } from '../../../scripts/snapshot/main.ts'
import { HttpClient, WritesNotAllowed } from '../../../lib/http.ts'
import { newPolicyData, snapshotMock, snapshotOf, DIR } from './helpers.ts'

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; err: string }> {
  let err = ''
  const code = await run(
    args,
    {
      out: () => undefined,
      err: (s) => {
        err += s
      },
    },
    env,
  )
  return { code, err }
}

t.test('a snapshot of the mock: every probe answered, values normalised, nothing secret', async (t) => {
  const s = await snapshotOf({ sessions: 300, reports: 40 })
  t.equal(s.code, 0, s.stderr)
  const probes = Object.values(s.snap.probes)
  t.ok(probes.length > 300, `${probes.length} probes`)
  t.equal(probes.filter((p) => p.status === undefined).length, 0, 'every probe got an answer at the newest releases')
  t.equal(s.snap.requests, probes.length, 'one request per probe')
  for (const tok of s.tokens) t.notOk(s.text.includes(tok), 'no token in the file')
  // (the requests name the harness's own fixed values; the answers must hold none of the target's)
  const answers = JSON.stringify(probes.map((p) => [p.headers, p.body]))
  t.notOk(/\b[0-9A-HJKMNP-TV-Z]{26}\b/.test(answers), 'no ULID left in the recorded answers')
  t.notOk(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(answers), 'no timestamp left')
  t.notOk(/127\.0\.0\.1/.test(answers), "the target's own URL is a placeholder")
  t.ok(s.snap.normalisation.fields.mas.created_at, 'the normalisation section names the schema-derived rules')
  const listing = s.snap.probes['mas GET /api/admin/v1/compat-sessions?page[first]=5 [admin]']!
  t.equal(listing.body!['$.data[].id'], 'string:<ulid>')
  t.equal(listing.body!['$.meta.count'], 'number:<count>')
  t.equal(
    s.snap.probes['mas GET /api/admin/v1/compat-sessions [none]']!.status,
    400,
    'the auth answers are recorded (no Authorization header: 400)',
  )
  t.equal(s.snap.probes['mas GET /api/admin/v1/compat-sessions [user]']!.status, 401)
  t.equal(s.snap.probes['hs GET /_synapse/admin/v1/event_reports [user]']!.status, 403)
  t.equal(
    s.snap.probes['hs DELETE /_synapse/admin/v1/event_reports/{report_id:missing} [none]']!.status,
    401,
    'a mutating route asked without credential',
  )
  t.match(s.snap.probes['hs GET /_synapse/admin/v1/event_reports?dir=bogus [admin]']!.body!['$.error'], /dir/)
})

t.test('bounded: the same requests and about the same size whatever the data size', async (t) => {
  const small = await snapshotOf({ sessions: 300, reports: 20 })
  const big = await snapshotOf({ sessions: 30_000, reports: 2_000 })
  t.equal(big.snap.requests, small.snap.requests, 'request count independent of the data')
  t.same(Object.keys(big.snap.probes), Object.keys(small.snap.probes), 'the same probes')
  const ratio = big.text.length / small.text.length
  t.ok(ratio > 0.95 && ratio < 1.05, `file size ratio ${ratio.toFixed(3)}`)
})

t.test('read-only: the mock sees no write, and the client lets only credential-free mutating requests through', async (t) => {
  const m = await startMock(mockOptions({ port: 0, logFile: null, sessions: 60, reports: 10 }, {}))
  t.teardown(() => m.close())
  // every collection a mutating route could change, read in full before and after
  const state = async () => {
    const out: unknown[] = []
    for (const p of [
      'compat-sessions',
      'oauth2-sessions',
      'personal-sessions',
      'users',
      'user-emails',
      'user-sessions',
      'upstream-oauth-links',
      'user-registration-tokens',
      'policy-data/latest',
    ]) {
      out.push(
        await (
          await fetch(`${m.url}/api/admin/v1/${p}${p.includes('/') ? '' : '?page[first]=1000'}`, {
            headers: { authorization: `Bearer ${m.options.adminToken}` },
          })
        ).json(),
      )
    }
    out.push(
      await (
        await fetch(`${m.url}/_synapse/admin/v1/event_reports?limit=1000`, {
          headers: { authorization: `Bearer ${m.options.hsAdminToken}` },
        })
      ).json(),
    )
    return JSON.stringify(out)
  }
  const before = await state()
  const s = await snapshotMock(m)
  t.equal(s.code, 0)
  t.equal(await state(), before, 'every collection is unchanged')
  const client = new HttpClient({ allowWrites: false, connectTimeoutMs: 1000, requestTimeoutMs: 2000, userAgent: 't' })
  await t.rejects(
    client.request(m.url, '/_synapse/admin/v1/event_reports/1', { method: 'DELETE', token: 'x', credentialFree: true }),
    WritesNotAllowed,
    'a token makes it a write',
  )
  await t.rejects(
    client.request(m.url, '/api/admin/v1/users', { method: 'POST', body: {}, credentialFree: true }),
    WritesNotAllowed,
    'a body makes it a write',
  )
  await t.rejects(
    client.request(m.url, '/api/admin/v1/users', { method: 'POST', headers: { Cookie: 'a=b' }, credentialFree: true }),
    WritesNotAllowed,
    'a cookie makes it a write',
  )
  const r = await client.request(m.url, '/_synapse/admin/v1/event_reports/1', { method: 'DELETE', credentialFree: true })
  t.equal(r.status, 401)
  await client.close()
})

t.test('--noise-from records what varies by itself', async (t) => {
  const m = await startMock(mockOptions({ port: 0, logFile: null, sessions: 60, reports: 10 }, {}))
  t.teardown(() => m.close())
  const first = await snapshotMock(m)
  const same = await snapshotMock(m, ['--noise-from', first.file])
  t.same(same.snap.noise?.aspects, {}, 'nothing varies on an idle mock')
  // a write between the two (new policy data: ids and times are placeholders, a new key is not)
  t.equal(await newPolicyData(m.url, m.options.adminToken), 201)
  const moved = await snapshotMock(m, ['--noise-from', first.file])
  t.ok(
    Object.keys(moved.snap.noise!.aspects).some((k) => k.includes('policy-data/latest')),
    'the changed document is noise',
  )
})

t.test('exit codes: usage 2, unreachable 3', async (t) => {
  t.equal((await cli(['--output', `${DIR}/x.json`])).code, 2, 'no target')
  t.equal((await cli(['--hs-url', 'http://127.0.0.1:9'])).code, 2, 'no --output')
  t.equal(
    (await cli(['--hs-url', 'http://127.0.0.1:9', '--output', `${DIR}/x.json`, '--noise-from', `${DIR}/missing.json`])).code,
    2,
    'an unreadable --noise-from',
  )
  t.match((await cli(['--hs-url', 'nope', '--output', 'x'])).err, /admin-conformance snapshot: --hs-url/)
  const server = http.createServer((_q, r) => r.destroy())
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const res = await cli(['--hs-url', `http://127.0.0.1:${port}`, '--output', `${DIR}/x.json`], { HS_ADMIN_TOKEN: 'syt_secret_value_123' })
  t.equal(res.code, 3, res.err)
  t.notOk(res.err.includes('syt_secret_value_123'))
  server.close()
  const budget = await snapshotOf({ sessions: 30 }, ['--max-requests', '20'])
  t.equal(budget.code, 1, 'a spent budget is not a snapshot')
  t.match(budget.stderr, /budget/)
})
