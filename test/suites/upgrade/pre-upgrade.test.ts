// The pre-upgrade checks (suites/upgrade/pre-upgrade.suite.ts) run through the run command's programmatic
// entry against the mock (idle; with a running background update; at a version inside the rollback table)
// and against a small fake homeserver that still serves a legacy admin prefix and reports a release candidate.
import t from 'tap'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { run, type RunReport } from '../../../scripts/run/index.ts'
import { startMock, type RunningMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'

const NAMES = {
  hsVersion: 'upgrade: the homeserver server_version parses as a release version',
  masVersion: 'upgrade: the auth service version parses as a release version',
  prefix: 'upgrade: the admin API is served under /_synapse/admin/v1',
  legacy: 'upgrade: the legacy admin prefixes removed in v1.24.0 answer as unrouted requests',
  background: 'upgrade: no background update is running',
  floor: 'upgrade: the rollback floor of the running homeserver version is known',
}

interface Outcome {
  code: number
  report: RunReport | undefined
  /** the raw TAP stream (the suite's comments carry the floor) */
  tap: string
  stdout: string
  stderr: string
  /** check name → 'pass' | 'fail' | 'skip: <reason>' */
  checks: Record<string, string>
  failures: Record<string, string[]>
}

async function runUpgrade(args: string[], env: Record<string, string>): Promise<Outcome> {
  let stdout = ''
  let stderr = ''
  const { exitCode, report } = await run(['--area', 'upgrade', '--reporter', 'tap', '--jobs', '1', ...args], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { ...process.env, ...env },
  })
  const checks: Record<string, string> = {}
  const failures: Record<string, string[]> = {}
  for (const c of report?.suites.flatMap((s) => s.checks) ?? []) {
    checks[c.name] = !c.ok ? 'fail' : c.skip ? `skip: ${c.skip}` : 'pass'
    if (!c.ok) failures[c.name] = c.failures.map((f) => f.name)
  }
  // With --reporter tap and no --output, the report goes to stdout and the human summary to stderr.
  return { code: exitCode, report, tap: stdout, stdout, stderr, checks, failures }
}

async function mockAt(
  over: Parameters<typeof mockOptions>[0] = {},
): Promise<{ mock: RunningMock; args: string[]; env: Record<string, string> }> {
  const mock = await startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile: null, ...over }, {}))
  t.teardown(() => mock.close())
  return {
    mock,
    args: ['--mas-url', mock.url, '--hs-url', mock.url],
    env: { MAS_ADMIN_TOKEN: mock.options.adminToken, HS_ADMIN_TOKEN: mock.options.hsAdminToken },
  }
}

async function control(mock: RunningMock, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${mock.url}/_mock${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status !== 200) throw new Error(`${method} /_mock${path} answered ${res.status}`)
  return res.json()
}

// A homeserver that gets the upgrade preconditions wrong: a release candidate, a legacy prefix still served.
function fakeHomeserver(serverVersion: string, adminToken: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const admin = req.headers.authorization === `Bearer ${adminToken}`
    switch (url.pathname) {
      case '/_synapse/admin/v1/server_version':
      case '/_matrix/client/r0/admin/server_version':
        return json(200, { server_version: serverVersion })
      case '/_synapse/admin/v1/event_reports':
        return admin ? json(200, { event_reports: [], total: 0 }) : json(401, { errcode: 'M_MISSING_TOKEN', error: 'Missing access token' })
      case '/_synapse/admin/v1/background_updates/status':
        return admin
          ? json(200, { enabled: true, current_updates: {} })
          : json(401, { errcode: 'M_MISSING_TOKEN', error: 'Missing access token' })
      default:
        return json(404, { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' })
    }
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

// Four runs; each spawns tap, which takes seconds of CPU, so they run one after another (in parallel
// they were slower on a small machine).
const idle = await mockAt()
const busy = await mockAt({ hsVersion: '1.100.0' })
// Just started, as a fresh real database shows for about a minute: 0 items, average_items_per_ms null.
await control(busy.mock, 'POST', '/background-updates', { name: 'event_arbitrary_relations', total_item_count: 0 })
const old = await mockAt({ hsVersion: '1.12.5' })
old.mock.world().backgroundUpdates.enabled = false
const FAKE_TOKEN = 'syt_ZmFrZWFkbWlu_abcdefghijklmnopqrst_123456'
const fake = await fakeHomeserver('1.98.0rc1', FAKE_TOKEN)
t.teardown(() => new Promise<void>((resolve) => fake.close(() => resolve())))
const fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`

const runs = {
  idle: () => runUpgrade(idle.args, idle.env),
  busy: () => runUpgrade(busy.args, busy.env),
  old: () => runUpgrade(['--hs-url', old.mock.url], { HS_ADMIN_TOKEN: old.mock.options.hsAdminToken }),
  fake: () => runUpgrade(['--hs-url', fakeUrl], { HS_ADMIN_TOKEN: FAKE_TOKEN }),
}

t.test('idle mock: every pre-upgrade check passes; the floor is reported as beyond the interface table', async (t) => {
  const r = await runs.idle()
  t.equal(r.code, 0, 'exit 0', { stderr: r.stderr })
  t.same(r.checks, Object.fromEntries(Object.values(NAMES).map((n) => [n, 'pass'])), 'the six checks, all passed')
  // The mock reports 1.160.0: beyond the interface table (ends at v1.102.0), the reference's floor shown labelled.
  t.match(
    r.tap,
    /# v1\.160\.0 is beyond the interface document's rollback table \(its last row: v1\.98\.0–v1\.102\.0 → v1\.96\.0\); no floor is assumed/,
  )
  t.match(r.tap, /# reference table \(not the default; plan-upgrade --table reference\): floor v1\.100\.0 \(range v1\.105\.1 onward\)/)
  t.match(r.tap, /ok \d+ - GET \/_matrix\/client\/r0\/admin\/event_reports → 404/)
  t.match(r.tap, /current_updates is \{\} in 3 reads/)
  t.notMatch(r.stdout + r.stderr, /\b(mat|syt)_[A-Za-z0-9]{8,}/, 'no token in the output')
})

t.test('a running background update fails that check, by name, and only that one', async (t) => {
  const r = await runs.busy()
  t.equal(r.code, 1, 'exit 1: a check failed')
  t.equal(r.checks[NAMES.background], 'fail', 'the background-update check fails')
  t.same(Object.keys(r.failures), [NAMES.background], 'no other check fails')
  t.match(r.failures[NAMES.background], [
    /running: master: event_arbitrary_relations \(0 items so far\); wait until \/_synapse\/admin\/v1\/background_updates\/status answers "current_updates": \{\}/,
  ])
  t.match(r.stderr, /✗ upgrade: no background update is running/, 'the summary names the failed check')
  // Inside the interface table: the floor itself is printed.
  t.match(r.tap, /# rollback floor of v1\.100\.0: v1\.96\.0 \(range v1\.98\.0–v1\.102\.0, interface table/)
})

t.test('homeserver only, between two rollback ranges, before v1.24.0, updates paused', async (t) => {
  const r = await runs.old()
  t.equal(r.code, 1, 'exit 1: the floor check fails')
  t.same(r.checks, {
    [NAMES.hsVersion]: 'pass',
    [NAMES.masVersion]: 'skip: no auth service target (give --mas-url or MAS_URL)',
    [NAMES.prefix]: 'pass',
    [NAMES.legacy]: 'skip: the homeserver is 1.12.5; the legacy prefixes were served until v1.24.0',
    [NAMES.background]: 'pass',
    [NAMES.floor]: 'fail',
  })
  t.same(r.failures[NAMES.floor], [
    'v1.12.5 has a rollback floor: v1.12.5 falls between the rollback ranges v1.9.0–v1.12.4 and v1.13.0–v1.25.0; no such release is listed in the interface table',
  ])
  t.match(r.tap, /# background updates are paused \("enabled": false\)/)
})

t.test('a release candidate still serving a legacy prefix fails the version, legacy and floor checks', async (t) => {
  const r = await runs.fake()
  t.equal(r.code, 1)
  t.same(r.checks, {
    [NAMES.hsVersion]: 'fail',
    [NAMES.masVersion]: 'skip: no auth service target (give --mas-url or MAS_URL)',
    [NAMES.prefix]: 'pass',
    [NAMES.legacy]: 'fail',
    [NAMES.background]: 'pass',
    [NAMES.floor]: 'fail',
  })
  t.same(r.failures[NAMES.legacy], ['GET /_matrix/client/r0/admin/server_version → 404'], 'only the prefix still served fails')
  t.same(r.failures[NAMES.hsVersion], [
    'server_version starts with a release version X.Y.Z: "1.98.0rc1" is a release candidate, not a release',
  ])
  t.same(r.failures[NAMES.floor], [
    'server_version "1.98.0rc1" gives a version to look up: "1.98.0rc1" is a release candidate, not a release',
  ])
  t.notMatch(r.stdout + r.stderr, FAKE_TOKEN, 'the token never shows')
})
