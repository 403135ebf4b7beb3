// The suites pass on the bundled mock at every tested release: `run --mock-hs-version V --mock-mas-version W`
// at Synapse 1.67.0, 1.79.0, 1.106.0 and the newest, and at the auth service's oldest supported release
// (v1.4.0: the first with GET /api/admin/v1/version, which the preflight and the version-dependent checks
// need) and the newest. Each homeserver version runs once, paired with one of the two auth-service
// versions (each of those twice), so that four runs cover the six versions. A check that does not apply
// at a version skips with that version in its reason: never a pass, never a failure.
import t from 'tap'
import { MAS_FEATURES, SYNAPSE_FEATURES, formatVersion, parseVersion } from '../../../lib/versions.ts'
import type { CheckResult, RunReport } from '../../../scripts/run/index.ts'
import { runCaptured } from './helpers.ts'
import { TESTED } from './tested-versions.ts'

const since = (f: { since: { major: number; minor: number; patch: number } | null }) => (f.since ? formatVersion(f.since) : 'v0.0.0')
const older = (a: string, b: string) => {
  const x = parseVersion(a)
  const y = parseVersion(b)
  return x.major - y.major || x.minor - y.minor || x.patch - y.patch
}

function checksOf(report: RunReport): (CheckResult & { file: string })[] {
  return report.suites.flatMap((s) => s.checks.map((c) => ({ ...c, file: s.file })))
}

for (const v of TESTED) {
  t.test(`homeserver ${v.hs}, auth service ${v.mas}`, async (t) => {
    // two workers, each with a mock of its own: both claim the release (the second once claimed the newest)
    const r = await runCaptured(['--mock-hs-version', v.hs, '--mock-mas-version', v.mas, '--jobs', '2'])
    const report = r.result.report!
    t.ok(report, 'the run gives a report')
    t.equal(r.exitCode, 0, 'exit code 0', { out: r.stdout.slice(-3000), stderr: r.stderr.slice(-2000) })
    t.equal(report.counts.fail, 0, '0 failed', {
      failed: checksOf(report)
        .filter((c) => c.outcome === 'fail')
        .map((c) => `${c.file}: ${c.name}`),
    })
    t.ok(report.counts.pass > 250, `most checks pass (${report.counts.pass} of ${report.counts.checks})`)
    t.match(
      r.stdout,
      new RegExp(
        `mock claims +homeserver ${v.hs.replace(/\./g, '\\.')} \\(--mock-hs-version\\), auth service ${v.mas.replace(/\./g, '\\.')} \\(--mock-mas-version\\)`,
      ),
      'the header names the claimed versions',
    )
    t.equal(report.target.hs?.version, v.hs, 'the homeserver reports the claimed version')
    t.equal(report.target.mas?.version, v.mas, 'the auth service reports the claimed version')
    const checks = checksOf(report)
    // Everything is given to the bundled mock (tokens, writes): a skip can only be the version's.
    const hsShown = formatVersion(parseVersion(v.hs))
    const masShown = formatVersion(parseVersion(v.mas))
    for (const c of checks.filter((c) => c.outcome === 'skip')) {
      // The auth service's suites: admin API and its request log; the homeserver's: reports and upgrade.
      // Delegated auth needs both: the homeserver's support and the auth service's tokens.
      const products = /^suites\/(admin|requestlog)\//.test(c.file)
        ? [masShown]
        : /^suites\/homeserver\/delegated-auth\./.test(c.file)
          ? [hsShown, masShown]
          : [hsShown]
      t.ok(
        products.some((p) => c.skip?.includes(p)),
        `${c.file}: ${c.name}: skipped with the version (${products.join(' or ')}) in the reason`,
        { reason: c.skip },
      )
    }
    // Features the claimed release lacks: their checks skip (not pass).
    const hsLacks = Object.entries(SYNAPSE_FEATURES)
      .filter(([, f]) => f.since && older(v.hs, since(f)) < 0)
      .map(([k]) => k)
    const masLacks = Object.entries(MAS_FEATURES)
      .filter(([, f]) => f.since && older(v.mas, since(f)) < 0)
      .map(([k]) => k)
    const expectSkipped = (pred: (c: CheckResult & { file: string }) => boolean, what: string, version: string) => {
      const hit = checks.filter(pred)
      t.ok(hit.length > 0, `${what}: checks found`)
      for (const c of hit) t.equal(c.outcome, 'skip', `${c.file}: ${c.name}: skipped at ${version}`, { reason: c.skip })
    }
    if (hsLacks.includes('event-sender-filter')) expectSkipped((c) => /event_sender_user_id/.test(c.name), 'event_sender_user_id', hsShown)
    if (masLacks.includes('personal-sessions'))
      expectSkipped((c) => c.file === 'suites/admin/personal-sessions.suite.ts', 'personal sessions', masShown)
    if (masLacks.includes('oauth2-clients'))
      expectSkipped((c) => c.file === 'suites/admin/oauth2-clients.suite.ts', 'OAuth 2.0 clients', masShown)
    if (hsLacks.length === 0 && masLacks.length === 0) t.equal(report.counts.skip, 0, 'the newest releases: nothing skipped')
    t.comment(
      `homeserver ${v.hs}, auth service ${v.mas}: ${report.counts.pass} passed, ${report.counts.skip} skipped, ${report.counts.deviation} deviations, ${report.counts.fail} failed of ${report.counts.checks}`,
    )
  })
}

t.test('an unparsable version is a usage error naming the flag', async (t) => {
  for (const [flag, value] of [
    ['--mock-hs-version', '1.67'],
    ['--mock-mas-version', 'latest'],
    ['--mock-hs-version', '1.67.0rc1'],
  ] as const) {
    const r = await runCaptured([flag, value])
    t.equal(r.exitCode, 2, `${flag} ${value}: exit code 2`)
    t.match(r.stderr, flag, `${flag} ${value}: the message names the flag`)
  }
  const r = await runCaptured(['--mock-hs-version', '1.67.0', '--hs-url', 'http://127.0.0.1:9'])
  t.equal(r.exitCode, 2, 'with a real target: exit code 2')
  t.match(r.stderr, /--mock-hs-version applies to the bundled mock only/, 'the message says why')
})
