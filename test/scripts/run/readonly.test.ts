// Read-only by default: against a target that is not the bundled mock and without --allow-writes, the
// run sends no mutating request at all (counted by a proxy in front of the target, i.e. what the server
// received), and every check that would write is reported as skipped with the reason. The non-admin
// tokens are left out too: the checks that need them are skipped with that reason.
import t from 'tap'
import { mkdtempSync, rmSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { RunReport } from '../../../scripts/run/index.ts'
import { countingProxy, mockWith, runCaptured, tokenEnv } from './helpers.ts'

const mock = await mockWith()
const proxy = await countingProxy(mock.url)
t.teardown(async () => {
  await proxy.close()
  await mock.close()
})

const dir = mkdtempSync(path.join(tmpdir(), 'ac-readonly-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const out = path.join(dir, 'report.json')
const { MAS_USER_TOKEN: _u, HS_USER_TOKEN: _h, ...adminOnly } = tokenEnv(mock)
const r = await runCaptured(
  ['--mas-url', proxy.url, '--hs-url', proxy.url, '--area', 'admin,reports', '--reporter', 'json', '--output', out],
  adminOnly,
)
const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
const checks = report.suites.flatMap((s) => s.checks.map((c) => ({ file: s.file, ...c })))

t.test('the run passes without writing', async (t) => {
  t.equal(r.exitCode, 0, 'exit code 0: every read-only check passes, the write checks are skipped', { stdout: r.stdout.slice(-3000) })
  t.equal(report.target.writes, false, 'the report says writes off')
  t.equal(report.target.mock, false, 'the target is treated as a real deployment')
  t.match(r.stdout, /writes\s+off/, 'the header says writes are off')
})

t.test('the server received no mutating request', async (t) => {
  t.ok((proxy.counts.GET ?? 0) > 100, `many GET requests reached the server (${proxy.counts.GET})`)
  for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) t.equal(proxy.counts[m] ?? 0, 0, `no ${m} request reached the server`)
  t.same(Object.keys(proxy.counts).sort(), ['GET'], 'only GET requests', { counts: proxy.counts })
})

t.test('every write check is reported as skipped with the reason', async (t) => {
  const writes = [
    'compat-sessions: finish an active session → 200 with finished_at set, and a fresh read agrees',
    'compat-sessions: finish a finished session → 400 naming the session',
    'oauth2-sessions: finish an active session → 200 with finished_at set, and a fresh read agrees',
    'personal-sessions: create → 201 with an access token, and a fresh read agrees',
    'personal-sessions: revoke → 200 with revoked_at set, and the token is rejected',
    'personal-sessions: regenerate → 201 with a new token; the old token is rejected',
    'policy-data: set → 201, and latest and get by id return it',
    'event-reports: a report filed through the client API appears in the listing and reads back',
    'event-reports: delete → 200 {}, then the report is gone',
    'auth: mutating endpoints refuse a missing token',
  ]
  for (const name of writes) {
    const c = checks.find((x) => x.name === name)
    if (!t.ok(c, `${name}: reported`)) continue
    t.equal(c!.skip, 'needs --allow-writes', `${name}: skipped, needs --allow-writes`)
  }
  const skipped = checks.filter((c) => c.skip)
  t.ok(skipped.filter((c) => c.skip === 'needs --allow-writes').length >= 20, `${skipped.length} checks skipped in all`)
  t.ok(checks.filter((c) => c.ok && !c.skip).length > 100, 'the read-only checks ran')
})

t.test('checks that need a token that was not given are skipped with the reason', async (t) => {
  const masUser = 'needs an auth service token without the admin scope (--mas-user-token or MAS_USER_TOKEN)'
  const hsUser = 'needs a non-admin homeserver token (--hs-user-token or HS_USER_TOKEN)'
  t.equal(checks.find((c) => c.name === 'auth: a token without urn:mas:admin → 401 naming the scope on every endpoint')?.skip, masUser)
  t.equal(checks.find((c) => c.name === 'auth: a non-admin token → 403 M_FORBIDDEN')?.skip, hsUser)
  const reasons = new Set(checks.filter((c) => c.skip).map((c) => c.skip))
  // The run goes through a proxy: the bundled mock's throwaway tokens are not known to be throwaway there.
  const inUrl =
    'sends the admin token in the URL (query parameter access_token), which proxies and load balancers log; --allow-token-in-url runs it (with a throwaway token)'
  t.same([...reasons].sort(), [hsUser, masUser, 'needs --allow-writes', inUrl].sort(), 'no other reason to skip', { reasons: [...reasons] })
})
