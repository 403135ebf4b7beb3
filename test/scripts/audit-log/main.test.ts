// `admin-conformance audit-log` on a fixture whose counts were worked out by hand, from a file and
// from stdin, plus the streaming core's chunk handling.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import {
  ADMIN_ACTIONS,
  Auditor,
  auditFile,
  auditStream,
  finishAudit,
  workerMode,
  type AuditResult,
} from '../../../scripts/audit-log/index.ts'
import { validate } from '../../../lib/schemas.ts'
import { main, type AuditIo } from '../../../scripts/audit-log/main.ts'

const FIXTURE = fileURLToPath(new URL('../../fixtures/requestlog/audit-sample.txt', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

async function run(argv: string[], stdin: string | Buffer = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: AuditIo = {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
  }
  const code = await main(argv, io)
  return { code, stdout, stderr }
}

// Worked out by hand from the fixture (see the line-by-line list in the comments below).
const EXPECTED_ACTIVITIES = {
  'browser-login': 3, // l.1 ok, l.3 303 without requester failed, l.24 pre-v1.20 ok
  'browser-login-failed': 1, // l.2 200 re-render
  'browser-logout': 1, // l.4
  registration: 1, // l.5
  'upstream-login': 1, // l.6
  'client-login': 3, // l.7 ok, l.9 403 failed, l.27 ok (IPv6)
  'client-logout': 2, // l.10, l.11 (logout/all)
  'token-issuance': 3, // l.12 ok, l.14 401 failed, l.31 500 failed
  'token-revocation': 1, // l.15
  'token-introspection': 2, // l.16 homeserver, l.32 client (last line, no newline)
  'authorization-grant': 1, // l.17
  'account-self-service': 3, // l.18, l.19 SetDisplayName, l.20 unnamed query
  // The fixture has no admin write (l.23 is a read): admin-actions.test.ts has those.
  ...Object.fromEntries(ADMIN_ACTIONS.map((a) => [a.activity, 0])),
  other: 3, // l.23 admin API (ANSI) ok, l.28 _OTHER 405 failed, l.29 health ok
}
const EXPECTED_OUTCOMES = {
  'browser-login': { ok: 2, failed: 1 },
  'browser-login-failed': { ok: 0, failed: 1 },
  'browser-logout': { ok: 1, failed: 0 },
  registration: { ok: 1, failed: 0 },
  'upstream-login': { ok: 1, failed: 0 },
  'client-login': { ok: 2, failed: 1 },
  'client-logout': { ok: 2, failed: 0 },
  'token-issuance': { ok: 1, failed: 2 },
  'token-revocation': { ok: 1, failed: 0 },
  'token-introspection': { ok: 2, failed: 0 },
  'authorization-grant': { ok: 1, failed: 0 },
  'account-self-service': { ok: 3, failed: 0 },
  ...Object.fromEntries(ADMIN_ACTIONS.map((a) => [a.activity, { ok: 0, failed: 0 }])),
  other: { ok: 2, failed: 1 },
}

function checkFixtureResult(t: Test, r: AuditResult): void {
  const v = validate('requestlog/audit-result', r)
  t.ok(v.valid, `the --json output matches schemas/requestlog/audit-result.json: ${v.text}`)
  t.equal(r.lines, 32, 'all lines read')
  t.equal(r.requests, 25, 'request lines parsed')
  t.equal(r.events, 4, 'other events: the WARN/ERROR lines before error responses and a job line')
  t.equal(r.blank, 1)
  t.equal(r.malformedCount, 2)
  t.same(
    r.malformed.map((m) => [m.line, m.part]),
    [
      [21, 'stats'],
      [25, 'timestamp'],
    ],
    'malformed lines with 1-based line numbers',
  )
  t.same(r.activities, EXPECTED_ACTIVITIES)
  t.same(r.outcomes, EXPECTED_OUTCOMES)
  t.same(r.operations, { SetDisplayName: 2, '(unnamed)': 1 })
  t.same(r.formats, { 'v1.20': 24, 'pre-v1.20': 1 })
  t.same(
    r.timeRange,
    { first: '2026-06-17T10:50:00.107919Z', last: '2026-06-17T10:50:29.337570Z' },
    'the time range: first and last timestamp',
  )
  t.same([r.adminActions, r.adminActionsTruncated], [[], false], 'no admin action')
}

t.test('--json on the fixture file', async (t) => {
  const { code, stdout, stderr } = await run(['--json', FIXTURE])
  t.equal(code, 1, 'exit 1: malformed lines were found')
  t.equal(stderr, '', 'nothing on stderr (not a terminal)')
  const r = JSON.parse(stdout) as AuditResult
  checkFixtureResult(t, r)
  t.match(r.malformed[0]!.error, /^stats at column \d+: expected exactly one decimal/)
  const fixtureLines = readFileSync(FIXTURE, 'utf8').split('\n')
  t.equal(r.malformed[0]!.column, fixtureLines[20]!.indexOf('4.77') + 4, 'the column points at the second decimal')
  t.same(
    Object.fromEntries(Object.entries(r.requesters).map(([k, v]) => [k, v.requests])),
    {
      'user:01J2KDPHTZYW3TAT1SKVAD63SQ': 9,
      '(none)': 6,
      'oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6': 5,
      'user:01J3M0QX7ZBRV9T5D2C8N4K6PE': 3,
      '(unknown)': 1,
      homeserver: 1,
    },
    'requests per requester, most first',
  )
  t.equal(r.requesters['user:01J2KDPHTZYW3TAT1SKVAD63SQ']!.username, 'alice')
  t.same(r.requesters['oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6']!.activities, {
    'token-issuance': 2,
    'token-revocation': 1,
    'token-introspection': 1,
    other: 1,
  })
  t.notOk('timeline' in r, 'no timeline without --requester')
})

t.test('--engine js and --engine wasm print the same result', async (t) => {
  const js = await run(['--json', '--engine', 'js', FIXTURE])
  const wasm = await run(['--json', '--engine', 'wasm', FIXTURE])
  t.equal(wasm.code, js.code)
  t.same(JSON.parse(wasm.stdout), JSON.parse(js.stdout))
  checkFixtureResult(t, JSON.parse(wasm.stdout) as AuditResult)
  const stdin = await run(['--json', '--engine', 'wasm', '-'], readFileSync(FIXTURE))
  t.same(JSON.parse(stdin.stdout), JSON.parse(js.stdout), 'stdin too')
})

t.test('reading stdin with -', async (t) => {
  const { code, stdout } = await run(['--json', '-'], readFileSync(FIXTURE))
  t.equal(code, 1)
  checkFixtureResult(t, JSON.parse(stdout) as AuditResult)
})

t.test('stdin through the real command line', async (t) => {
  const res = spawnSync(process.execPath, [path.join(ROOT, 'bin/admin-conformance.mjs'), 'audit-log', '--json', '-'], {
    input: readFileSync(FIXTURE),
    encoding: 'utf8',
    timeout: 120_000,
  })
  t.equal(res.status, 1, res.stderr)
  checkFixtureResult(t, JSON.parse(res.stdout) as AuditResult)
})

t.test('a clean log exits 0', async (t) => {
  const clean = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((_, i) => i !== 20 && i !== 24)
    .join('\n')
  const { code, stdout } = await run(['--json', '-'], clean)
  t.equal(code, 0)
  const r = JSON.parse(stdout) as AuditResult
  t.same([r.lines, r.requests, r.malformedCount, r.malformed], [30, 25, 0, []])
})

t.test('human summary', async (t) => {
  const { code, stdout } = await run([FIXTURE])
  t.equal(code, 1)
  t.match(stdout, /^32 lines: 25 requests \(v1\.20 24, pre-v1\.20 1\), 4 other events, 1 blank, 2 malformed$/m)
  t.match(stdout, /^token-issuance +3 +1 +2$/m, 'activity with its ok/failed breakdown')
  t.match(stdout, /^time range: 2026-06-17T10:50:00\.107919Z to 2026-06-17T10:50:29\.337570Z$/m, 'the time range of the input')
  t.notMatch(stdout, /admin-user-lock|admin actions/, 'no admin rows when the log has no admin action')
  t.match(stdout, /^browser-login-failed +1 +0 +1$/m)
  t.match(stdout, /^ +SetDisplayName +2$/m, 'GraphQL operations')
  t.match(stdout, /^ +user:01J2KDPHTZYW3TAT1SKVAD63SQ\(alice\) +9 +browser-login 1, /m, 'requesters with their username')
  t.match(stdout, /^ +line 21: stats at column \d+: /m, 'malformed lines with line numbers')
  t.match(stdout, /^ +line 25: timestamp at column 1: /m)
  const top = await run(['--top', '2', FIXTURE])
  t.match(top.stdout, /requesters \(top 2 of 6, by requests\)/)
})

t.test('--requester prints a timeline', async (t) => {
  const human = await run(['--requester', 'oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6', FIXTURE])
  const timeline = human.stdout.split('\n').filter((l) => /^ +line \d+ +2026/.test(l))
  t.same(
    timeline.map((l) => l.match(/line (\d+)/)![1]),
    ['12', '14', '15', '23', '32'],
    'the lines of that client, in order',
  )
  t.match(timeline[1], /POST \/oauth2\/token 401 +token-issuance failed/)

  const json = JSON.parse((await run(['--json', '--requester', 'user:01J2KDPHTZYW3TAT1SKVAD63SQ(alice)', FIXTURE])).stdout) as AuditResult
  t.same(
    json.timeline!.map((e) => e.line),
    [1, 4, 7, 10, 11, 17, 18, 19, 20],
  )
  t.match(json.timeline![6], {
    line: 18,
    method: 'POST',
    path: '/graphql',
    status: 200,
    activity: 'account-self-service',
    outcome: 'ok',
    operation: 'SetDisplayName',
    requestId: 'POST-113',
  })
  t.ok(validate('requestlog/audit-result', json).valid, 'with a timeline too')
  const bare = JSON.parse((await run(['--json', '--requester', '01J3M0QX7ZBRV9T5D2C8N4K6PE', FIXTURE])).stdout) as AuditResult
  t.same(
    bare.timeline!.map((e) => [e.line, e.activity]),
    [
      [5, 'registration'],
      [6, 'upstream-login'],
      [27, 'client-login'],
    ],
    'a bare id',
  )
  t.match(bare.timeline![2], { clientAddress: '2a01:e0a:f5c:5b02:85c9:3849:4811:4383' })
  const none = JSON.parse((await run(['--json', '--requester', '(none)', FIXTURE])).stdout) as AuditResult
  t.same(
    none.timeline!.map((e) => e.line),
    [2, 3, 9, 28, 29, 31],
  )
})

t.test('--client-prefix', async (t) => {
  const text = readFileSync(FIXTURE, 'utf8').replaceAll('/_matrix/', '/_compat/')
  const dflt = JSON.parse((await run(['--json', '-'], text)).stdout) as AuditResult
  t.equal(dflt.activities['client-login'], 0, 'not recognised under the default prefix')
  const custom = JSON.parse((await run(['--json', '--client-prefix', '/_compat', '-'], text)).stdout) as AuditResult
  t.same([custom.activities['client-login'], custom.activities['client-logout']], [3, 2])
})

t.test('--max-malformed caps the list, not the count', async (t) => {
  const junk = Array.from({ length: 50 }, (_, i) => `junk ${i}`).join('\n')
  const { code, stdout } = await run(['--json', '--max-malformed', '3', '-'], junk)
  t.equal(code, 1)
  const r = JSON.parse(stdout) as AuditResult
  t.same([r.lines, r.malformedCount, r.malformed.map((m) => m.line), r.malformedTruncated], [50, 50, [1, 2, 3], true])
  const human = await run(['--max-malformed', '1', '-'], junk)
  t.match(human.stdout, /and 49 more \(raise --max-malformed/)
})

t.test('usage errors and unreadable input exit 2', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'audit-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const cases: [string[], RegExp][] = [
    [[], /missing FILE/],
    [['a', 'b'], /expected one FILE, got 2/],
    [['--bogus', FIXTURE], /unknown option '--bogus'/i],
    [['--max-malformed', 'x', FIXTURE], /--max-malformed must be a positive whole number \(0 or more\), got 'x'/],
    [['--top', '-1', FIXTURE], /./],
    [['--client-prefix', '_matrix', FIXTURE], /--client-prefix must start with '\/'/],
    [['--requester', '', FIXTURE], /--requester needs a value/],
    [['--engine', 'fast', FIXTURE], /--engine: unknown value 'fast'.*\(one of: wasm, js\)/],
    [[path.join(dir, 'missing.log')], /cannot read .*missing\.log: no such file/],
    [[dir], /cannot read .*: it is a directory/],
  ]
  for (const [argv, message] of cases) {
    const { code, stdout, stderr } = await run(argv)
    t.equal(code, 2, argv.join(' '))
    t.match(stderr, message, argv.join(' '))
    t.equal(stdout, '', 'nothing on stdout')
  }
  const help = await run(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /usage: admin-conformance audit-log/)
  t.match(help.stdout, /exit status:\n +0 .*\n +1 .*malformed.*\n +2 /)
  const empty = path.join(dir, 'empty.log')
  writeFileSync(empty, '')
  const e = await run(['--json', empty])
  // An empty input proved nothing: it says so and fails (this was exit 0 before).
  t.equal(e.code, 1)
  t.match(JSON.parse(e.stdout), { lines: 0, requests: 0, malformedCount: 0, timeRange: null })
  t.match(e.stderr, /holds no http\.server\.response line \(the input is empty\): nothing was audited/)
})

t.test('progress goes to stderr only when it is a terminal', async (t) => {
  let stderr = ''
  const io: AuditIo = {
    stdin: Readable.from([]),
    stdout: { write: () => true },
    stderr: { write: (s: string) => (stderr += s), isTTY: true },
  }
  // Enough lines for at least one progress report.
  const line = readFileSync(FIXTURE, 'utf8').split('\n')[0]!
  const dir = mkdtempSync(path.join(tmpdir(), 'audit-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'big.log')
  writeFileSync(file, (line + '\n').repeat(70_000))
  t.equal(await main(['--json', file], io), 0)
  t.match(stderr, /audit-log: [\d,]+ lines, [\d.]+ MiB \(\d+%\)/)
  t.match(stderr, /\r\x1b\[K$/, 'the progress line is cleared at the end')
  stderr = ''
  t.equal(await main(['--json', '--no-progress', file], io), 0)
  t.equal(stderr, '')
})

t.test('chunk boundaries do not matter (including inside UTF-8 sequences and CRLF)', async (t) => {
  const text =
    readFileSync(FIXTURE, 'utf8') +
    '\n' +
    '2026-06-17T10:52:03.118204Z  INFO http.server.response GET-7 - "GET /ünï HTTP/1.1" 200 OK "smile 😀 é" [polls: 1, cpu: 0.1ms, db: 0.1ms, elapsed: 0.2ms, queries: 0, fetched: 0] requester=user:01J2KDPHTZYW3TAT1SKVAD63SQ(ünï)\r\n'
  const bytes = Buffer.from(text, 'utf8')
  const whole = await auditStream(Readable.from([bytes]))
  t.equal(whole.requests, 26)
  t.equal(whole.lines, 33)
  t.equal(whole.requesters['user:01J2KDPHTZYW3TAT1SKVAD63SQ']!.username, 'ünï', 'the last username seen')
  for (const size of [1, 2, 3, 7, 64, 333]) {
    const a = new Auditor()
    for (let i = 0; i < bytes.length; i += size) a.push(bytes.subarray(i, i + size))
    t.same(a.end(), whole, `chunks of ${size} bytes`)
  }
  t.same(await auditStream(Readable.from([text])), whole, 'string chunks')
})

t.test('a file split across worker threads gives the same result as one pass', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'audit-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'many.log')
  // Several copies, so that cuts fall in the middle; malformed lines recur in every copy.
  const text = readFileSync(FIXTURE, 'utf8')
  writeFileSync(file, Array.from({ length: 40 }, () => text).join('\n'))
  const single = await auditFile(file, { jobs: 1, maxMalformed: 50 })
  t.equal(single.lines, 40 * 32)
  t.equal(single.malformedCount, 80)
  t.same(
    single.malformed.slice(0, 4).map((m) => m.line),
    [21, 25, 53, 57],
  )
  t.equal(workerMode(), 'bundle', 'workers run the bundled auditor, without a TypeScript loader of their own')
  for (const jobs of [2, 3]) {
    t.same(await auditFile(file, { jobs, maxMalformed: 50 }), single, `${jobs} workers`)
  }
  // Small chunks put cuts everywhere: inside lines, just before and after newlines.
  for (const chunkBytes of [997, 4096, 65536]) {
    t.same(await auditFile(file, { jobs: 2, maxMalformed: 50, chunkBytes }), single, `2 workers, chunks of ${chunkBytes} bytes`)
  }
  // A line longer than several chunks is counted once, by the chunk it starts in.
  const long = path.join(dir, 'long.log')
  const lines = text.split('\n')
  writeFileSync(long, [...lines.slice(0, 5), 'x'.repeat(5000), ...lines.slice(5)].join('\n'))
  const longSingle = await auditFile(long, { jobs: 1 })
  t.equal(longSingle.lines, 33)
  t.same(await auditFile(long, { jobs: 3, chunkBytes: 1000 }), longSingle, 'a 5,000-byte line across chunks of 1,000 bytes')
  const cli = await run(['--json', '--jobs', '3', '--max-malformed', '50', file])
  t.same(JSON.parse(cli.stdout), single, 'the command line with --jobs 3')
  t.equal((await run(['--jobs', '0', file])).code, 2, '--jobs 0 is a usage error')
})

t.test('chunks shared among threads merge in file order, whichever thread read them', async (t) => {
  const text = readFileSync(FIXTURE, 'utf8')
  const bytes = Buffer.from(text + '\n' + text.replaceAll('(alice)', '(alice2)'), 'utf8')
  const whole = new Auditor({ maxMalformed: 3 })
  whole.push(bytes)
  const expected = whole.end()
  t.equal(expected.requesters['user:01J2KDPHTZYW3TAT1SKVAD63SQ']?.username, 'alice2', 'the fixture renames the user in its second half')
  // Cut at arbitrary bytes; two "threads" take chunks alternately, each in increasing order.
  const cuts = [0, 700, 701, 2900, 4000, bytes.length]
  const threads = [new Auditor({ maxMalformed: 3 }), new Auditor({ maxMalformed: 3 })]
  for (let i = 0; i < cuts.length - 1; i++) {
    const a = threads[i % 2]!
    const start = cuts[i]!
    a.beginChunk(i, start > 0 && bytes[start - 1] !== 10)
    // The lines that start in [start, next cut): read through the newline ending the last one.
    const nl = i === cuts.length - 2 ? bytes.length - 1 : bytes.indexOf(10, cuts[i + 1]! - 1)
    a.push(bytes.subarray(start, nl === -1 ? bytes.length : nl + 1))
  }
  t.same(
    finishAudit(
      threads.map((a) => a.state()),
      3,
    ),
    expected,
  )
})
