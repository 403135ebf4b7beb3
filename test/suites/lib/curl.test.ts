// A failure is actionable from its message alone: run a suite against the mock with a fault injected,
// take the curl line from the failure's diagnostics, run it against the mock (loopback) with the token
// in its environment variable, and get the failing answer. The line itself holds no token.
import t from 'tap'
import { execFile } from 'node:child_process'
import { run } from '../../../scripts/run/index.ts'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'

interface Failure {
  name: string
  diag?: Record<string, unknown>
}

async function failuresOf(fault: string, area: string, grep: string, env: Record<string, string>, url: string): Promise<Failure[]> {
  const { report } = await run(
    ['--mas-url', url, '--hs-url', url, '--area', area, '--grep', grep, '--jobs', '2', '--reporter', 'json', '--output', '/dev/null'],
    {
      stdout: { write: () => undefined },
      stderr: { write: () => undefined },
      env: { ...process.env, ...env },
    },
  )
  t.ok(report, `${fault}: the run reports`)
  return (report?.suites ?? []).flatMap((s) => s.checks).flatMap((c) => c.failures as Failure[])
}

function sh(command: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', command], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 30_000 }, (e, stdout) =>
      e ? reject(e) : resolve(String(stdout)),
    )
  })
}

t.test('homeserver: the curl line of a failure replays the failing answer', async (t) => {
  const mock = await startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile: null, faults: ['reports-not-found-500'] }, {}))
  t.teardown(() => mock.close())
  const token = mock.options.hsAdminToken
  const failures = await failuresOf(
    'reports-not-found-500',
    'reports',
    'an unknown report',
    { HS_ADMIN_TOKEN: token, MAS_ADMIN_TOKEN: mock.options.adminToken },
    mock.url,
  )
  const f = failures.find((x) => typeof x.diag?.curl === 'string')
  if (!t.ok(f, 'a failure carries a curl line', { failures })) return
  const d = f!.diag!
  for (const key of ['request', 'status', 'response', 'expected', 'rule', 'curl']) t.ok(key in d, `the failure has ${key}`)
  const curl = String(d.curl)
  t.match(curl, /-H "Authorization: Bearer \$HS_ADMIN_TOKEN"/, 'the token comes from HS_ADMIN_TOKEN')
  t.notOk(curl.includes(token), 'the line holds no token')
  t.equal(d.status, 500, 'the status is the failing one')
  const out = await sh(curl, { HS_ADMIN_TOKEN: token })
  t.match(out, /^HTTP\/1\.1 500/, 'running it gets the failing status')
  t.match(out, /Internal server error/, 'and the failing body')
})

t.test('auth service: the curl line of a failure replays the failing answer', async (t) => {
  const mock = await startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile: null, faults: ['pagination-bad-cursor-500'] }, {}))
  t.teardown(() => mock.close())
  const token = mock.options.adminToken
  const failures = await failuresOf(
    'pagination-bad-cursor-500',
    'admin',
    'compat-sessions: a malformed cursor',
    { MAS_ADMIN_TOKEN: token, HS_ADMIN_TOKEN: mock.options.hsAdminToken },
    mock.url,
  )
  const f = failures.find((x) => typeof x.diag?.curl === 'string' && x.diag?.status === 500)
  if (!t.ok(f, 'a failure with status 500 carries a curl line', { failures })) return
  const curl = String(f!.diag!.curl)
  t.match(curl, /-H "Authorization: Bearer \$MAS_ADMIN_TOKEN"/, 'the token comes from MAS_ADMIN_TOKEN')
  t.notOk(curl.includes(token), 'the line holds no token')
  const out = await sh(curl, { MAS_ADMIN_TOKEN: token })
  t.match(out, /^HTTP\/1\.1 500/, 'running it gets the failing status')
  t.notOk(/"stack"|suites\/lib/.test(JSON.stringify(failures)), 'no harness stack or path in the failures')
})
