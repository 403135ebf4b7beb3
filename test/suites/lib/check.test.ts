// The suites' framework decides each check's outcome: a check that asserted nothing fails naming itself,
// a check of skips only is skipped, a known deviation is a TODO "deviation: …" (a failure with
// AC_STRICT=1), leftovers are top-level `# ac-leftover {json}` lines, and no failure carries a harness
// stack or path. The fixture suite runs as its own process, as the runner runs suite files.
import t from 'tap'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const FIXTURE = fileURLToPath(new URL('../../fixtures/suites/framework.fixture.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

function runFixture(extra: Record<string, string> = {}): Promise<string> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    AC_MAS_ADMIN_TOKEN: 'mat_fixtureAAAAAAAAAAAAAA',
    ...extra,
  }
  env.AC_TARGET = JSON.stringify({
    mas: { url: 'http://127.0.0.1:9' },
    hs: { url: 'http://127.0.0.1:9' },
    versions: { mas: 'v1.22.0', hs: '1.2.3rc1' },
    runId: 'fixture',
  })
  delete env.AC_TARGETS
  delete env.TAP
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import=tsx', FIXTURE], { cwd: ROOT, env, timeout: 60_000 }, (_e, stdout) => resolve(String(stdout)))
  })
}

/** The top-level result line of a check: "ok"/"not ok" with its directive. */
function result(tap: string, name: string): string {
  const line = tap.split('\n').find((l) => /^(not )?ok \d+ - /.test(l) && l.includes(`- ${name}`))
  return line ?? '(missing)'
}

/** The lines of a check's subtest block. */
function block(tap: string, name: string): string {
  const lines = tap.split('\n')
  const start = lines.findIndex((l) => l === `# Subtest: ${name}`)
  const end = lines.findIndex((l, i) => i > start && /^(not )?ok \d+ - /.test(l))
  return start === -1 ? '' : lines.slice(start, end + 10).join('\n')
}

t.test('outcomes', async (t) => {
  const out = await runFixture()
  t.match(result(out, 'fx: asserts nothing'), /^not ok/, 'a check that asserted nothing fails')
  t.match(block(out, 'fx: asserts nothing'), /the check "fx: asserts nothing" asserted nothing/, 'naming the check')
  t.match(result(out, 'fx: skips only'), /^ok .* # SKIP not on this target/, 'a check of skips only is a skip, not a pass')
  t.match(result(out, 'fx: skip thrown'), /^ok .* # SKIP the target is too old/, 'a thrown skip is a skip with its reason')
  t.match(result(out, 'fx: passes'), /^ok \d+ - fx: passes( #.*time.*)?$/, 'an asserting check passes')
  t.match(result(out, 'fx: deviation'), /^ok/, 'a known deviation does not fail the check')
  t.match(
    block(out, 'fx: deviation'),
    /not ok 1 - GET an unknown id: status 404 # TODO deviation: auth service v1\.22\.0: policy-data-get-returns-latest/,
    'the assertion is a TODO whose reason starts with "deviation: " and names the release',
  )
  t.match(result(out, 'fx: known defect'), /^ok/, 'a known defect of the release does not fail the check')
  t.match(
    block(out, 'fx: known defect'),
    /# TODO deviation: homeserver .*: known defect event-report-id-overflow-500: .*; reproduce: curl --oauth2-bearer "\$HS_ADMIN_TOKEN" \S+\/event_reports\/99999999999999999999999 → 500 /,
    'said to be a known defect of the release, with the request that reproduces it',
  )
  t.match(
    out,
    /^# ac-leftover \{"target":"hs","kind":"event-report","id":"7","reason":"the homeserver is v1\.67\.0"\}$/m,
    'a leftover is a top-level comment line with JSON',
  )
  t.match(result(out, 'fx: crash'), /^not ok/, 'a crash fails the check')
  const crash = block(out, 'fx: crash')
  t.match(crash, /the check could not complete: boom/, 'with the message')
  t.notMatch(crash, /stack:|at:|suites\/lib|fixture\.ts|node:internal/, 'without a harness stack or path')
  t.notMatch(block(out, 'fx: asserts nothing'), /stack:|\bat:/, 'the zero-assertion failure carries no stack either')
  t.match(result(out, 'fx: unknown version 1'), /^ok/, 'an unparsable version is taken as the newest release')
  t.match(result(out, 'fx: unknown version 2'), /^ok/)
  const said = out
    .split('\n')
    .filter((l) => /^# the homeserver version is unknown \(.*release candidate.*\): the checks assume the newest release$/.test(l))
  t.equal(said.length, 1, 'and it is said once, at the top level')
})

t.test('AC_STRICT=1 counts a deviation as a failure', async (t) => {
  const out = await runFixture({ AC_STRICT: '1' })
  t.match(result(out, 'fx: deviation'), /^not ok/, 'the check fails')
  t.notMatch(block(out, 'fx: deviation'), /# TODO/, 'no TODO directive')
  t.match(block(out, 'fx: deviation'), /known deviation: auth service v1\.22\.0/, 'the failure still names the deviation')
})
