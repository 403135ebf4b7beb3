// The human output: colour only on a terminal (NO_COLOR, FORCE_COLOR), columns sized to the longest file
// name, failures with their diagnostics (request, status, response, expected, rule, curl; never tap's
// stack), skip reasons grouped with counts, deviations and leftovers listed, and a closing line that
// says what to do next.
import t from 'tap'
import { style, useColour } from '../../../../scripts/run/terminal/colour.ts'
import { groupSkips, type CheckResult, type RunReport, type SuiteResult } from '../../../../scripts/run/results/results.ts'
import { nextStep, suiteLine, summaryLines } from '../../../../scripts/run/terminal/terminal.ts'

const plain = style(false)
const ESC = /\u001b\[/

t.test('colour: terminal only, NO_COLOR and FORCE_COLOR respected', async (t) => {
  t.equal(useColour({ isTTY: true }, {}), true, 'a terminal')
  t.equal(useColour({ isTTY: false }, {}), false, 'a pipe or file')
  t.equal(useColour({}, {}), false, 'a stream that is no TTY')
  t.equal(useColour({ isTTY: true }, { NO_COLOR: '1' }), false, 'NO_COLOR')
  t.equal(useColour({ isTTY: true }, { TERM: 'dumb' }), false, 'a dumb terminal')
  t.equal(useColour({ isTTY: false }, { FORCE_COLOR: '1' }), true, 'FORCE_COLOR')
  t.equal(useColour({ isTTY: true }, { FORCE_COLOR: '0' }), false, 'FORCE_COLOR=0')
  t.equal(useColour({ isTTY: false }, { NO_COLOR: '1', FORCE_COLOR: '1' }), false, 'NO_COLOR wins')
  t.match(style(true).red('x'), ESC)
  t.equal(plain.red('x'), 'x')
})

const fail: CheckResult = {
  name: 'event-reports: an unknown report → 404',
  outcome: 'fail',
  ok: false,
  deviations: [],
  failures: [
    {
      name: 'status 404',
      diag: {
        body: '{"errcode":"M_UNKNOWN"}',
        curl: 'curl -g -H "Authorization: Bearer $HS_ADMIN_TOKEN" \'http://h/x\'',
        request: 'GET http://h/x',
        status: 500,
        rule: 'interface §4',
        diff: '--- expected\n+++ actual\n@@ -1,1 +1,1 @@\n-404\n+500\n',
      },
    },
  ],
}
const suite = (file: string, checks: CheckResult[]): SuiteResult => ({
  file,
  area: 'reports',
  ok: !checks.some((c) => c.outcome === 'fail'),
  durationMs: 1234,
  checks,
  leftovers: [],
  pass: checks.filter((c) => c.outcome === 'pass').length,
  fail: checks.filter((c) => c.outcome === 'fail').length,
  skip: checks.filter((c) => c.outcome === 'skip').length,
  deviation: checks.filter((c) => c.outcome === 'deviation').length,
})

t.test('a failing file: its failures with their diagnostics, in order, no stack', async (t) => {
  const text = suiteLine(suite('suites/homeserver/event-reports.suite.ts', [fail]), 50, plain)
  const lines = text.split('\n')
  t.match(
    lines[0],
    /^ {2}FAIL suites\/homeserver\/event-reports\.suite\.ts {10} {4}1\.2 s {2}0 passed, 1 failed$/,
    'the file line, padded to the width',
  )
  t.match(
    text,
    /✗ event-reports: an unknown report → 404\n\s+- status 404\n\s+request: +GET http:\/\/h\/x\n\s+status: +500\n\s+expected: +404\n\s+found: +500\n\s+rule: +interface §4\n\s+curl: +curl -g/,
    'request, status, expected, found, rule, curl in that order',
  )
  t.notMatch(text, /diff:|stack|at:/, 'a one-line diff becomes expected/found; no harness stack')
})

t.test('columns are sized to the longest file name', async (t) => {
  const long = 'suites/admin/a-very-long-family-name-that-breaks-fixed-columns.suite.ts'
  const a = suiteLine(suite(long, []), long.length, plain)
  const b = suiteLine(suite('suites/admin/x.suite.ts', []), long.length, plain)
  t.equal(a.indexOf(' s  '), b.indexOf(' s  '), 'the time column lines up')
})

t.test('the summary: grouped skips, deviations, leftovers, next step', async (t) => {
  const skip = (reason: string, i: number): CheckResult => ({
    name: `s${i}`,
    outcome: 'skip',
    ok: true,
    skip: reason,
    failures: [],
    deviations: [],
  })
  const dev: CheckResult = {
    name: 'policy-data: GET by id',
    outcome: 'deviation',
    ok: true,
    failures: [],
    deviations: [{ name: 'x', reason: 'v1.22 answers the latest' }],
  }
  const checks = [
    skip('needs --allow-writes', 1),
    skip('needs --allow-writes', 2),
    skip('needs a user token', 3),
    dev,
    { ...fail, outcome: 'pass' as const, ok: true, failures: [] },
  ]
  const s = {
    ...suite('suites/admin/policy-data.suite.ts', checks),
    leftovers: [{ what: 'event report 7 on the homeserver', reason: 'delete answered 500' }],
  }
  const report = {
    ok: true,
    interrupted: false,
    exitCode: 0,
    durationMs: 2000,
    problems: [],
    warnings: ['every one of the 40 responses from http://h was 401 or 403: the tokens are not accepted'],
    counts: { checks: 5, pass: 1, fail: 0, skip: 3, deviation: 1 },
    skipReasons: groupSkips(checks),
    target: { mock: false, writes: false },
    leftovers: s.leftovers.map((l) => ({ ...l, file: s.file })),
    suites: [s],
    areas: ['admin'],
  } as unknown as RunReport
  const text = summaryLines(report, plain).join('\n')
  t.match(text, /skipped:\n {2}2 × needs --allow-writes\n {2}1 × needs a user token/, 'skip reasons grouped with counts, most first')
  t.match(
    text,
    /deviations .*--strict.*\n {2}~ suites\/admin\/policy-data\.suite\.ts: policy-data: GET by id\n\s+v1\.22 answers the latest/,
    'deviations listed apart',
  )
  t.match(
    text,
    /data left behind on the target \(1\).*\n {2}! event report 7 on the homeserver \(delete answered 500\)/,
    'leftovers listed',
  )
  t.match(text, /warning: every one of the 40 responses/, 'warnings shown')
  t.match(text, /1 passed, 0 failed, 1 deviation, 3 skipped of 5 checks in 2\.0 s/)
  t.match(text, /next: all checks that ran passed; the write checks need --allow-writes/, 'says what to do next')
  t.match(
    nextStep({ ...report, ok: false, counts: { ...report.counts, fail: 1 }, suites: [suite('f', [fail])] }),
    /re-run one check with --grep 'event-reports: an unknown report → 404'/,
  )
  t.match(nextStep({ ...report, problems: ['x'] }), /--allow-partial/)
  t.match(nextStep({ ...report, interrupted: true }), /^interrupted/)
})
