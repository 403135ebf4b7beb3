// Tokens never appear in any output or report: runs with known tokens (clean with writes, so personal
// access tokens are created and regenerated; with faults, so failures print bodies and diagnostics), in
// every report format, and every byte of output is searched for the tokens and for token-shaped strings.
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { mockWith, runCaptured, tokenEnv, type Captured } from './helpers.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'ac-redaction-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
// Token shapes of both services: an mpt_ personal token created during the run must not show either.
const TOKEN_SHAPE = /\b(?:mat|mpt|mar|mct|mcr|syt|syr)_[A-Za-z0-9_]{8,}/

function assertClean(t: Test, what: string, texts: Record<string, string>, secrets: string[]): void {
  for (const [name, text] of Object.entries(texts)) {
    const leaked = secrets.filter((s) => text.includes(s))
    t.same(
      leaked.map((s) => s.slice(0, 6) + '…'),
      [],
      `${what}: ${name} holds none of the tokens`,
    )
    const shape = TOKEN_SHAPE.exec(text)
    t.notOk(shape, `${what}: ${name} holds no token-shaped string`, { found: shape?.[0].slice(0, 8) })
  }
}

function outputs(r: Captured, files: string[]): Record<string, string> {
  const o: Record<string, string> = { stdout: r.stdout, stderr: r.stderr }
  for (const f of files) o[path.basename(f)] = readFileSync(f, 'utf8')
  return o
}

const FAULTS = [
  'error-envelope-flat',
  'auth-missing-scope-200',
  'regenerate-keeps-old-token',
  'reports-extra-key',
  'hs-auth-non-admin-allowed',
]

t.test('a failing run with writes (faults), JSON report', async (t) => {
  const mock = await mockWith({ faults: FAULTS })
  t.teardown(() => mock.close())
  const env = tokenEnv(mock)
  const report = path.join(dir, 'faults.json')
  const r = await runCaptured(
    ['--mas-url', mock.url, '--hs-url', mock.url, '--allow-writes', '--area', 'admin,reports', '--reporter', 'json', '--output', report],
    env,
  )
  t.equal(r.exitCode, 1, 'the run fails')
  const checks = JSON.parse(readFileSync(report, 'utf8')).suites.flatMap(
    (s: { checks: { name: string; ok: boolean; skip?: string }[] }) => s.checks,
  )
  const created = checks.filter(
    (c: { name: string; skip?: string }) => /^personal-sessions: (create|regenerate) → 201/.test(c.name) && !c.skip,
  )
  t.equal(created.length, 2, 'personal access tokens were created and regenerated during the run')
  t.ok(
    checks.some((c: { ok: boolean }) => !c.ok),
    'failures with their diagnostics are in the report',
  )
  assertClean(t, 'failing run (json)', outputs(r, [report]), Object.values(env).map(String))
})

t.test('a failing run, TAP and JUnit reports', async (t) => {
  const mock = await mockWith({ faults: FAULTS })
  t.teardown(() => mock.close())
  const env = tokenEnv(mock)
  const tapFile = path.join(dir, 'faults.tap')
  const r1 = await runCaptured(
    ['--mas-url', mock.url, '--hs-url', mock.url, '--allow-writes', '--area', 'reports', '--reporter', 'tap', '--output', tapFile],
    env,
  )
  t.equal(r1.exitCode, 1, 'the run fails')
  t.match(readFileSync(tapFile, 'utf8'), /^TAP version 14/, 'a TAP report')
  assertClean(t, 'failing run (tap)', outputs(r1, [tapFile]), Object.values(env).map(String))
  // The report on stdout, the progress on stderr.
  const r2 = await runCaptured(
    ['--mas-url', mock.url, '--hs-url', mock.url, '--allow-writes', '--area', 'reports', '--reporter', 'junit'],
    env,
  )
  t.equal(r2.exitCode, 1, 'the run fails')
  t.match(r2.stdout, /^<\?xml[^]*<testsuites[^]*<testcase[^]*<failure/, 'a JUnit report on stdout')
  t.match(r2.stderr, /\d+ passed, \d+ failed.* of \d+ checks/, 'the progress and summary on stderr')
  assertClean(t, 'failing run (junit)', outputs(r2, []), Object.values(env).map(String))
})
