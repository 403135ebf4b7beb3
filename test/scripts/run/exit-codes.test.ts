// Exit codes that mean what they say: a run that proved nothing is not a pass. An area without a target
// or without a token fails before anything is sent (unless --allow-partial), a run whose checks were all
// skipped fails, and a report that cannot be written fails the run.
import t from 'tap'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { mockWith, runCaptured, tokenEnv } from './helpers.ts'

const mock = await mockWith()
t.teardown(() => mock.close())
const env = tokenEnv(mock)

t.test('targets without tokens: exit 1 naming each missing token, nothing run', async (t) => {
  const r = await runCaptured(['--mas-url', mock.url, '--hs-url', mock.url])
  t.equal(r.exitCode, 1, 'exit code 1')
  t.match(r.stderr, /not a pass: area admin has no token: it needs an auth service admin token \(--mas-token or MAS_ADMIN_TOKEN\)/)
  t.match(r.stderr, /not a pass: area reports has no token: it needs a homeserver admin token \(--hs-token or HS_ADMIN_TOKEN\)/)
  t.match(r.stderr, /--allow-partial/, 'names the way to accept a partial run')
  t.notMatch(r.stdout, /running \d+ suite file/, 'no suite was started')
})

t.test('a selected area without its target: exit 1', async (t) => {
  const r = await runCaptured(['--mas-url', mock.url, '--area', 'reports'], { MAS_ADMIN_TOKEN: env.MAS_ADMIN_TOKEN })
  t.equal(r.exitCode, 1, 'exit code 1')
  t.match(r.stderr, /area reports has no target: it needs a homeserver target \(--hs-url or HS_URL\)/)
})

t.test('--allow-partial runs what can run and passes with a warning', async (t) => {
  const r = await runCaptured(['--hs-url', mock.url, '--area', 'reports', '--allow-partial'])
  t.equal(r.exitCode, 0, 'exit code 0', { out: r.stdout.slice(-2500), err: r.stderr.slice(-1000) })
  t.match(r.stdout, /warning: accepted \(--allow-partial\): area reports has no token/, 'the accepted gap is named')
  t.match(r.stdout, /skipped:\n\s+\d+ × needs/, 'the skip reasons are grouped with counts')
  t.match(r.result.report?.counts, { fail: 0 })
  t.ok((r.result.report?.counts.pass ?? 0) > 0, 'some checks ran without the token')
})

t.test('every selected check skipped: exit 1, nothing was checked', async (t) => {
  const r = await runCaptured(['--mas-url', mock.url, '--area', 'admin', '--grep', 'finish an active session'], {
    MAS_ADMIN_TOKEN: env.MAS_ADMIN_TOKEN,
    MAS_USER_TOKEN: env.MAS_USER_TOKEN,
  })
  t.equal(r.exitCode, 1, 'exit code 1', { out: r.stdout.slice(-2000) })
  t.match(r.stdout, /not a pass: every one of the \d+ checks was skipped: nothing was checked/)
  t.match(r.stdout, /\d+ × needs --allow-writes/, 'says why they were skipped')
  t.equal(r.result.report?.ok, false, 'the report says not ok')
})

t.test('a report that cannot be written fails the run', async (t) => {
  const r = await runCaptured(['--area', 'admin', '--grep', '^version: ', '--reporter', 'junit', '--output', '/proc/ac-report.xml'])
  t.not(r.exitCode, 0, `not a pass (exit ${r.exitCode})`)
  t.match(r.stderr, /\/proc\/ac-report\.xml/, 'names the file')
  t.notMatch(r.stdout, /written to/, 'does not claim it was written')
  t.notOk(existsSync('/proc/ac-report.xml'), 'there is no such file')
})

t.test('a passing run exits 0 and says so, with the suites built once or through tsx', async (t) => {
  for (const loader of ['bundle', 'tsx']) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-exit-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const file = path.join(dir, 'r.tap')
    const r = await runCaptured(
      ['--area', 'admin', '--grep', '^version: ', '--output', file],
      loader === 'tsx' ? { AC_RUN_LOADER: 'tsx' } : {},
    )
    t.equal(r.exitCode, 0, `${loader}: exit 0`)
    t.match(r.stdout, /all selected checks passed/, `${loader}: the closing line`)
    t.notMatch(r.stdout, /\u001b\[/, `${loader}: no colour when the output is not a terminal`)
    t.notMatch(r.stderr, /could not be built/, `${loader}: no fallback note`)
    const tap = readFileSync(file, 'utf8')
    t.match(tap, /# Subtest: suites\/admin\/version\.suite\.ts/, `${loader}: the TAP report names the suite file`)
    t.notMatch(tap, /\.suite\.mjs/, `${loader}: not its build`)
  }
  const coloured = await runCaptured(['--area', 'admin', '--grep', '^version: '], { FORCE_COLOR: '1' })
  t.match(coloured.stdout, /\u001b\[32m/, 'FORCE_COLOR=1: colour')
})
