// The log suite (`run --area log`) itself: it passes against the bundled mock, each core log fault of
// the mock makes exactly its named check fail, and a hand-made log with malformed lines fails the
// parse check naming their line numbers, parts and columns.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { FAULTS } from '../../../mock/faults/registry.ts'
import type { MatrixReport, RunReport } from '../../../scripts/run/index.ts'
import { runCaptured } from '../../scripts/run/helpers.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'ac-log-suite-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

const CHECK = {
  parse: 'log: every line parses (responses by the full grammar, other events by timestamp, level and name)',
  level: 'log: the level matches the status range (INFO 1xx–3xx, WARN 4xx, ERROR 5xx)',
  query: 'log: the request line has no query string',
  attributed: 'log: the requests this suite sent are attributed: a requester when authenticated, none otherwise',
  own: 'log: each request this suite sent appears exactly once, with its method, path and status',
}

/** The check of the log suite that each core log fault must fail, and no other. */
const CAUGHT_BY: Record<string, string> = {
  'log-level-ignores-status': CHECK.level,
  'log-query-in-request-line': CHECK.query,
  'log-drops-requester': CHECK.attributed,
}

t.test('the clean bundled mock passes every check of the log suite', async (t) => {
  const out = path.join(dir, 'clean.json')
  const r = await runCaptured(['--area', 'log', '--reporter', 'json', '--output', out])
  t.equal(r.exitCode, 0, 'exit code 0', { stdout: r.stdout.slice(-3000), stderr: r.stderr.slice(-2000) })
  const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
  const checks = report.suites.flatMap((s) => s.checks)
  t.ok(checks.length >= 15, `the suite holds its checks (${checks.length})`)
  t.same(
    checks.filter((c) => !c.ok).map((c) => c.name),
    [],
    'no check fails',
  )
  t.same(
    checks.filter((c) => c.skip).map((c) => `${c.name}: ${c.skip}`),
    [],
    'no check is skipped (the mock has every token, writes are on)',
  )
  t.ok(
    checks.some((c) => c.name === CHECK.own && c.ok),
    'the suite correlated its own requests',
  )
})

t.test('each core log fault makes its named check fail, and only that one', async (t) => {
  const logFaults = FAULTS.filter((f) => f.area === 'log').map((f) => f.name)
  t.same(logFaults.sort(), Object.keys(CAUGHT_BY).sort(), 'the core log faults are the three this test knows')
  const out = path.join(dir, 'matrix.json')
  const r = await runCaptured(['--fault-matrix', '--area', 'log', '--reporter', 'json', '--output', out])
  const matrix = JSON.parse(readFileSync(out, 'utf8')) as MatrixReport
  t.equal(r.exitCode, 0, 'the matrix passes', { stderr: r.stderr.slice(-2000) })
  t.equal(matrix.clean.counts.fail, 0, 'the clean mock fails no check', { failed: matrix.clean.failedChecks.map((c) => c.check) })
  for (const [fault, check] of Object.entries(CAUGHT_BY)) {
    const row = matrix.faults.find((f) => f.name === fault)
    if (!t.ok(row, `${fault} was run`)) continue
    t.same(
      row!.failedChecks.map((c) => c.check),
      [check],
      `${fault} is caught by "${check}" alone`,
    )
  }
})

// A hand-made log with one offence of each kind, on known lines.
const TS = (s: number) => `2026-06-17T10:${String(52 + Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000000Z`
const STATS = '[polls: 2, cpu: 0.2ms, db: 0.1ms, elapsed: 0.4ms, queries: 1, fetched: 0]'
const resp = (s: number, level: string, id: string, req: string, status: string, fields = '', stats = STATS) =>
  `${TS(s)} ${level.padStart(5)} http.server.response ${id} - "${req} HTTP/1.1" ${status} "curl/8.5.0" ${stats}${fields}`
const USER = ' requester=user:01J2KDPHTZYW3TAT1SKVAD63SQ(kilgore-trout) client.address=10.0.0.7'
const HAND_MADE: [string, string][] = [
  /* 1 */ [
    'good',
    resp(
      1,
      'INFO',
      'GET-1042',
      'GET /api/admin/v1/compat-sessions',
      '200 OK',
      ' requester=oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6 client.address=172.18.0.1',
    ),
  ],
  /* 2 */ ['good', `${TS(2)}  WARN mas_handlers::admin::call_context:85 GET-1044 - Missing authorization header`],
  /* 3 */ [
    'stats cut off',
    `${TS(3)}  WARN http.server.response GET-1045 - "GET /api/admin/v1/version HTTP/1.1" 401 Unauthorized "-" [polls: 2, cpu: 0.2ms, elapsed: 0.4ms`,
  ],
  /* 4 */ ['good', resp(4, 'WARN', 'GET-1044', 'GET /api/admin/v1/personal-sessions', '400 Bad Request', ' client.address=127.0.0.1')],
  /* 5 */ ['no log line', 'this is not a log line'],
  /* 6 */ ['requester of no known form', resp(6, 'INFO', 'GET-1046', 'GET /api/admin/v1/version', '200 OK', ' requester=admin')],
  /* 7 */ ['blank', ''],
  /* 8 */ [
    'good',
    '2025-05-12T09:14:27.532101Z  INFO http.server.response GET-87 - "GET /api/admin/v1/users HTTP/1.1" 200 OK "curl/8.5.0" [polls: 4, cpu: 1.1ms, elapsed: 6.8ms]',
  ],
  /* 9 */ ['WARN for a 200', resp(9, 'WARN', 'GET-1050', 'GET /api/admin/v1/version', '200 OK', USER)],
  /* 10 */ ['a query string', resp(10, 'INFO', 'GET-1051', 'GET /api/admin/v1/users?page[first]=1', '200 OK', USER)],
  /* 11 */ [
    'a wrong reason phrase',
    resp(11, 'WARN', 'GET-1052', 'GET /api/admin/v1/users/01J2KDPHTZYW3TAT1SKVAD63SQ', '404 Not Here', USER),
  ],
  /* 12 */ ['a POST id on a GET', resp(12, 'INFO', 'POST-1053', 'GET /api/admin/v1/version', '200 OK', USER)],
  /* 13 */ ['good', `${TS(13)}  WARN mas_handlers::admin::call_context:85 GET-1054 - Unknown access token`],
  /* 14 */ ['a requester after an unknown token', resp(14, 'WARN', 'GET-1054', 'GET /api/admin/v1/version', '401 Unauthorized', USER)],
  /* 15 */ ['an id answered twice', resp(15, 'INFO', 'GET-1042', 'GET /api/admin/v1/site-config', '200 OK', USER)],
  /* 16 */ ['an event of a request never answered', `${TS(16)}  WARN mas_handlers::admin::v1::users::get:54 GET-1099 - User not found`],
  /* 17 */ ['a token request of a user', resp(17, 'INFO', 'POST-1055', 'POST /oauth2/token', '200 OK', USER)],
  /* 18 */ [
    'graphql fields on /login',
    resp(18, 'INFO', 'POST-1056', 'POST /login', '303 See Other', `${USER} graphql.operation.type=mutation`),
  ],
  /* 19 */ [
    'fields on a pre-v1.20 line',
    resp(19, 'INFO', 'GET-1057', 'GET /api/admin/v1/version', '200 OK', USER, '[polls: 4, cpu: 1.1ms, elapsed: 6.8ms]'),
  ],
  /* 20 */ ['no IP address', resp(140, 'INFO', 'GET-1058', 'GET /api/admin/v1/version', '200 OK', ' client.address=999.1.1.1')],
  /* 21 */ ['good', resp(141, 'WARN', '_OTHER-1060', 'PROPFIND /api/admin/v1/version', '405 Method Not Allowed')],
]

/** Check → the lines it must name. */
const HAND_MADE_OFFENCES: Record<string, number[]> = {
  [CHECK.parse]: [3, 5, 6, 20],
  [CHECK.level]: [9],
  [CHECK.query]: [10],
  'log: the status code has its reason phrase': [11],
  'log: request ids are METHOD-counter with the method of the request line (_OTHER for others)': [12],
  'log: all lines of one request share its id, and each request has its own': [15, 16],
  'log: requester is absent on unauthenticated requests': [14],
  'log: requester has one of the four forms': [6],
  'log: token requests are attributed to the OAuth 2.0 client (introspection: the client or the homeserver)': [17],
  'log: client.address is a valid IP address when present': [20],
  'log: graphql.operation.* fields appear only on /graphql': [18],
  'log: the stats and fields match the service version': [19],
}

t.test('a hand-made log fails each check on the lines that break its rule', async (t) => {
  const file = path.join(dir, 'hand-made.log')
  writeFileSync(file, HAND_MADE.map(([, l]) => l).join('\n') + '\n')
  const out = path.join(dir, 'hand-made.json')
  const r = await runCaptured(['--area', 'log', '--log-file', file, '--reporter', 'json', '--output', out])
  t.equal(r.exitCode, 1, 'exit code 1 (checks failed)', { stderr: r.stderr.slice(-2000) })
  const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
  const checks = report.suites.flatMap((s) => s.checks)
  const listedBy = (name: string) => {
    const c = checks.find((x) => x.name === name)
    return c ? c.failures.map((f) => f.name) : undefined
  }
  for (const [name, want] of Object.entries(HAND_MADE_OFFENCES)) {
    const listed = listedBy(name)
    if (!t.ok(listed, `${name}: ran`)) continue
    t.same(
      listed!.map((l) => Number(/^line (\d+): /.exec(l)?.[1])),
      want,
      `${name}: fails naming line(s) ${want.join(', ')}`,
      { listed },
    )
  }
  t.match(
    listedBy(CHECK.parse),
    [
      /^line 3: stats at column \d+: /,
      /^line 5: timestamp at column 1: /,
      /^line 6: requester at column \d+: /,
      /^line 20: client\.address at column \d+: /,
    ],
    'the parse check names the part and column of each malformed line',
  )
  const holds = checks.find((c) => c.name === 'log: the log holds http.server.response lines')
  t.equal(holds?.ok, true, 'the log holds response lines')
  // A log file alone has no target to send requests to: the own-traffic check is skipped with the reason
  // (it used to run against a freshly started mock whose log this file is not).
  const own = checks.find((c) => c.name === CHECK.own)
  t.match(own?.skip, /no auth service target/, "the suite's own-traffic check is skipped: no target to send requests to")
  t.equal(report.target.mock, false, 'no bundled mock was started for a log file alone')
})
