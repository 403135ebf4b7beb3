// A mock that starts with no policy data (mock --no-policy-data): latest is
// the real 404, the rest of the world is the same as with it, `mock --no-policy-data` sets it, and the
// policy-data suite's 404 check runs (and passes) against such a mock.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions, randomToken } from '../../../mock/core/options.ts'
import { run as runMockCli } from '../../../scripts/mock/main.ts'
import { runCaptured } from '../../scripts/run/helpers.ts'

const tokens = {
  adminToken: randomToken('mat_'),
  userToken: randomToken('mat_'),
  hsAdminToken: randomToken('syt_'),
  hsUserToken: randomToken('syt_'),
}
const base = { host: '127.0.0.1', port: 0, logFile: null, seed: 5, sessions: 30, reports: 5, ...tokens }
const empty = await startMock(mockOptions({ ...base, policyData: false }, {}))
const seeded = await startMock(mockOptions(base, {}))
t.teardown(async () => {
  await empty.close()
  await seeded.close()
})

async function get(url: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url + path, { headers: { authorization: `Bearer ${tokens.adminToken}` } })
  return { status: res.status, body: await res.json() }
}

t.test('latest answers the real 404 until data is set, and a reset empties it again', async (t) => {
  t.same(await get(empty.url, '/api/admin/v1/policy-data/latest'), { status: 404, body: { errors: [{ title: 'No policy data found' }] } })
  t.equal((await get(seeded.url, '/api/admin/v1/policy-data/latest')).status, 200, 'the default mock has policy data')
  const set = await fetch(`${empty.url}/api/admin/v1/policy-data`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ data: {} }),
  })
  t.equal(set.status, 201, 'a POST stores the first record')
  const created = (await set.json()) as { data: { id: string } }
  const latest = await get(empty.url, '/api/admin/v1/policy-data/latest')
  t.equal(latest.status, 200)
  t.equal((latest.body as { data: { id: string } }).data.id, created.data.id, 'and latest is that record')
  t.equal((await fetch(`${empty.url}/_mock/reset`, { method: 'POST', headers: { 'x-admin-conformance': '1' } })).status, 200)
  t.equal((await get(empty.url, '/api/admin/v1/policy-data/latest')).status, 404, 'a reset keeps the option: no policy data again')
})

t.test('nothing else of the world changes', async (t) => {
  for (const path of [
    '/api/admin/v1/users?page[first]=100',
    '/api/admin/v1/compat-sessions?page[first]=100',
    '/api/admin/v1/oauth2-clients',
    '/api/admin/v1/user-registration-tokens',
  ]) {
    t.same(await get(empty.url, path), await get(seeded.url, path), path)
  }
})

t.test('admin-conformance mock --no-policy-data', async (t) => {
  let out = ''
  const io = { out: (s: string) => void (out += s), err: () => {} }
  let stop!: () => void
  const stopped = new Promise<void>((r) => (stop = r))
  const done = runMockCli(
    [
      '--port',
      '0',
      '--quiet',
      '--sessions',
      '3',
      '--reports',
      '1',
      '--log-file',
      'none',
      '--admin-token',
      tokens.adminToken,
      '--no-policy-data',
    ],
    io,
    stopped,
  )
  for (let i = 0; i < 100 && !out; i++) await new Promise((r) => setTimeout(r, 50))
  t.same(await get(out.trim(), '/api/admin/v1/policy-data/latest'), { status: 404, body: { errors: [{ title: 'No policy data found' }] } })
  stop()
  t.equal(await done, 0)
})

t.test('--state keeps it: a restart without the flag replays onto a world without policy data', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'no-policy-state-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const start = async (extra: string[]) => {
    let out = ''
    let stop!: () => void
    const stopped = new Promise<void>((r) => (stop = r))
    const done = runMockCli(
      [
        '--port',
        '0',
        '--quiet',
        '--sessions',
        '3',
        '--reports',
        '1',
        '--log-file',
        'none',
        '--admin-token',
        tokens.adminToken,
        '--state',
        dir,
        ...extra,
      ],
      { out: (s) => void (out += s), err: () => {} },
      stopped,
    )
    for (let i = 0; i < 100 && !out; i++) await new Promise((r) => setTimeout(r, 50))
    return { url: out.trim(), stop: async () => (stop(), done) }
  }
  const first = await start(['--no-policy-data'])
  t.equal((await get(first.url, '/api/admin/v1/policy-data/latest')).status, 404)
  t.equal(await first.stop(), 0)
  const second = await start([])
  t.ok(second.url, 'restarts without the flag')
  t.equal((await get(second.url, '/api/admin/v1/policy-data/latest')).status, 404, 'still no policy data: the journal says so')
  t.equal(await second.stop(), 0)
})

t.test("the policy-data suite's 404 check passes against it", async (t) => {
  const env = { MAS_ADMIN_TOKEN: tokens.adminToken, MAS_USER_TOKEN: tokens.userToken }
  const r = await runCaptured(['--mas-url', empty.url, '--area', 'admin', '--grep', '^policy-data: '], env)
  t.equal(r.exitCode, 0, 'exit 0', { out: r.stdout.slice(-1500), err: r.stderr.slice(-800) })
  const checks = (r.result.report?.suites ?? []).flatMap((s) => s.checks)
  const latest = checks.find((c) => c.name.startsWith('policy-data: GET latest'))
  t.equal(latest?.outcome, 'pass', 'the latest check passed on the 404 branch')
  const byId = checks.find((c) => c.name.startsWith('policy-data: GET by id'))
  t.equal(byId?.outcome, 'skip', 'the by-id check skips: the target has no policy data')
})
