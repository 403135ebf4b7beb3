// Whole runs against hostile targets on loopback (test/fixtures/hostile/server.ts): a listing whose next
// link is new on every page and an event-report total of 10^12 end in bounded walks (a few pages each,
// reported as failures of the target), and a target that drips its bodies is stopped by --deadline,
// the verdict naming the file, check and request, exit 1, the report still written.
import t, { type Test } from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { hostileTarget, type HostileKind, type HostileOptions } from '../../fixtures/hostile/server.ts'
import { runCaptured } from './helpers.ts'
import type { RunReport } from '../../../scripts/run/index.ts'

const TOKENS = { MAS_ADMIN_TOKEN: 'mat_hostilerun000000000000000', HS_ADMIN_TOKEN: 'syt_hostilerun000000000000000' }

async function runAgainst(t: Test, kind: HostileKind, args: string[], opts: HostileOptions = {}) {
  const h = await hostileTarget(kind, opts)
  t.teardown(() => h.close())
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-hostile-run-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = path.join(dir, 'report.json')
  const started = Date.now()
  const r = await runCaptured(
    ['--mas-url', h.url, '--hs-url', h.url, '--jobs', '1', '--reporter', 'json', '--output', out, ...args],
    TOKENS,
  )
  const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
  const failures = report.suites.flatMap((s) => s.checks.flatMap((c) => c.failures.map((f) => f.name)))
  return { ...r, report, failures, answered: h.answered, seconds: (Date.now() - started) / 1000 }
}

t.test('an event-report total of 10^12: every walk bounded, the total reported as too large to walk', async (t) => {
  const r = await runAgainst(t, 'huge-total', ['--area', 'reports'])
  t.equal(r.exitCode, 1, 'the target fails (exit 1)')
  t.notOk(
    r.report.suites.some((s) => s.error),
    'no file crashed',
    { errors: r.report.suites.map((s) => s.error) },
  )
  // today's walks went on to 2,000 pages each (1,806 pages in one run)
  t.ok(r.answered < 800, `${r.answered} requests answered past the preflight`)
  t.ok(
    r.failures.some((f) => /the walk read more than 1200 items|would need a walk of more than 1200 reports/.test(f)),
    'a walk says it stopped at its bound',
    { failures: r.failures.slice(0, 20) },
  )
})

t.test('a next link new on every page: every walk bounded in items and pages', async (t) => {
  const r = await runAgainst(t, 'endless-next', ['--area', 'admin', '--grep', '^users: '], { bytes: 512 * 1024 })
  t.equal(r.exitCode, 1, 'the target fails (exit 1)')
  t.notOk(
    r.report.suites.some((s) => s.error),
    'no file crashed',
    { errors: r.report.suites.map((s) => s.error) },
  )
  t.ok(r.answered < 200, `${r.answered} pages answered past the preflight`)
  t.ok(
    r.failures.some((f) => /the walk read more than 1200 items/.test(f)),
    'the walks say they stopped at the item bound',
    { failures: r.failures.slice(0, 20) },
  )
})

t.test('user reports whose next_token goes on for ever: the walks end, the target fails by name', async (t) => {
  // (1.160.0: a release with the user-reports API; every user-reports walk is a window or bounded)
  const r = await runAgainst(t, 'endless-next', ['--area', 'reports', '--grep', '^user-reports: '], {
    bytes: 512 * 1024,
    hsVersion: '1.160.0',
  })
  t.equal(r.exitCode, 1, 'the target fails (exit 1)')
  t.notOk(
    r.report.suites.some((s) => s.error),
    'no file crashed',
    { errors: r.report.suites.map((s) => s.error) },
  )
  t.ok(r.answered < 400, `${r.answered} pages answered past the preflight`)
  t.ok(
    r.failures.some((f) => /the first 1201 reports equal the same stretch of the reference walk/.test(f)),
    'the window walks compare what they read and fail',
    { failures: r.failures.slice(0, 20) },
  )
})

t.test('a body dripping one byte at a time: --deadline ends the run, naming where, exit 1, the report written', async (t) => {
  const r = await runAgainst(t, 'slow-drip', ['--area', 'reports', '--deadline', '4', '--request-timeout', '300'], { dripMs: 200 })
  t.equal(r.exitCode, 1, 'exit 1')
  t.ok(r.seconds < 60, `the run ended after ${r.seconds.toFixed(1)} s (deadline 4 s)`)
  const late = r.report.problems.find((p) => /deadline/.test(p))
  t.match(
    late,
    /^the run's deadline \(--deadline 4 s\) passed at suites\/homeserver\/[\w-]+\.suite\.ts, check "[^"]+", GET http:\/\/127\.0\.0\.1:\d+\/\S+/,
    'the verdict names the file, the check and the request',
  )
  t.match(r.stdout + r.stderr, /not a pass: the run's deadline/, 'and says so in the summary')
})

t.test('pages of 4 MiB whose next link is new every time: the worker keeps no page past its check', async (t) => {
  // A timer made during a check keeps the check's state as its async store; that state held its last
  // answer, a whole parsed page, so a few checks later a worker ran out of its 96 MiB heap.
  // (every admin file in one worker: before, it died of its heap in the tenth or so)
  const r = await runAgainst(t, 'endless-next', ['--area', 'admin'])
  t.equal(r.exitCode, 1, 'the target fails (exit 1)')
  t.same(
    r.report.suites.filter((s) => s.error).map((s) => `${s.file}: ${s.error}`),
    [],
    'no file crashed',
  )
  t.ok(r.report.counts.checks > 300, `${r.report.counts.checks} checks reported`)
})
