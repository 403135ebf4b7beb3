// `admin-conformance audit-log` as a user runs it: the real command line (execFile on bin/), its exit
// codes, a reader that closes the pipe early (`| head`), an empty input, an unknown requester, and the
// admin actions of a log (fixture written with the formatter: every admin write route once, then a
// failed finish, an unauthenticated lock and a pre-v1.20 line).
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { ADMIN_ACTIONS, type AuditResult } from '../../../scripts/audit-log/index.ts'
import { validate } from '../../../lib/schemas.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BIN = path.join(ROOT, 'bin/admin-conformance.mjs')
const FIXTURES = fileURLToPath(new URL('../../fixtures/requestlog/', import.meta.url))
const ADMIN_LOG = path.join(FIXTURES, 'admin-actions.txt')
const SAMPLE = path.join(FIXTURES, 'audit-sample.txt')
const dir = mkdtempSync(path.join(tmpdir(), 'audit-log-cli-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

async function cli(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = promisify(execFile)
  try {
    const child = run(process.execPath, [BIN, 'audit-log', ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 })
    if (input !== undefined) child.child.stdin!.end(input)
    const { stdout, stderr } = await child
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    if (typeof e.code !== 'number') throw err
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

const noStack = (s: string) => !/\n\s+at .+:\d+:\d+\)?\n/.test(s) && !/EPIPE/.test(s)

t.test('exit codes', async (t) => {
  t.equal((await cli([ADMIN_LOG])).code, 0, 'a clean log: 0')
  t.equal((await cli([SAMPLE])).code, 1, 'malformed lines: 1')
  const usage = await cli(['--engine', 'wasn', ADMIN_LOG])
  t.equal(usage.code, 2, 'usage error: 2')
  t.match(
    usage.stderr,
    /^admin-conformance audit-log: --engine: unknown value 'wasn'; did you mean 'wasm'\?/m,
    'prefixed, with did-you-mean',
  )
  t.equal((await cli([path.join(dir, 'missing.log')])).code, 2, 'an unreadable input: 2')
  t.equal((await cli(['--top', '-1', ADMIN_LOG])).code, 2, 'a negative count: 2')
})

t.test('an empty input says so and exits 1', async (t) => {
  const empty = path.join(dir, 'empty.log')
  writeFileSync(empty, '')
  const file = await cli([empty])
  t.equal(file.code, 1)
  t.equal(file.stdout, '', 'no all-zero table')
  t.match(
    file.stderr,
    /^admin-conformance audit-log: .*empty\.log holds no http\.server\.response line \(the input is empty\): nothing was audited$/m,
  )
  const stdin = await cli(['-'], '\n\n')
  t.equal(stdin.code, 1, 'blank lines on stdin are empty too')
  t.match(stdin.stderr, /stdin holds no http\.server\.response line \(the input is empty\)/)
  const events = await cli(['--json', '-'], '2026-06-17T10:50:00.000000Z  INFO mas_cli::server:12 Listening on http://[::]:8080\n')
  t.equal(events.code, 1, 'other events only: still nothing audited')
  t.match(events.stderr, /\(1 lines read\): nothing was audited/)
  t.match(
    JSON.parse(events.stdout),
    { lines: 1, events: 1, requests: 0, timeRange: { first: '2026-06-17T10:50:00.000000Z', last: '2026-06-17T10:50:00.000000Z' } },
    '--json still prints the result',
  )
})

t.test('an unknown --requester says so and exits 2', async (t) => {
  const typo = await cli(['--requester', 'user:01J2KDPHTZYW3TAT1SKVAD63SX', ADMIN_LOG])
  t.equal(typo.code, 2)
  t.match(
    typo.stderr,
    /--requester user:01J2KDPHTZYW3TAT1SKVAD63SX: no request of .*admin-actions\.txt was made by it; did you mean 'user:01J2KDPHTZYW3TAT1SKVAD63SQ'\?/,
  )
  t.match(typo.stdout, /^timeline of user:01J2KDPHTZYW3TAT1SKVAD63SX:\n/, 'the (empty) timeline is shown')
  const far = await cli(['--json', '--requester', 'homeserver', ADMIN_LOG])
  t.equal(far.code, 2)
  t.match(
    far.stderr,
    /no request of .* was made by it; requesters of this log \(most requests first\): oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6, user:01J2KDPHTZYW3TAT1SKVAD63SQ, \(none\), \(unknown\)/,
  )
  const known = await cli(['--requester', 'kilgore-trout', ADMIN_LOG])
  t.equal(known.code, 2, 'a username alone is no requester key…')
  t.match(known.stderr, /did you mean 'user:01J2KDPHTZYW3TAT1SKVAD63SQ\(kilgore-trout\)'\?/, '…but it is suggested')
  const ok = await cli(['--requester', '01J2KDPHTZYW3TAT1SKVAD63SQ', ADMIN_LOG])
  t.equal(ok.code, 0, 'a bare id of the log: 0')
  t.equal(
    ok.stdout.split('\n').filter((l) => /^ +line \d+ /.test(l)).length,
    13 + 26,
    'its timeline (13 requests) and the admin action rows (26)',
  )
})

t.test('a reader that closes the pipe early: no EPIPE, no stack trace', async (t) => {
  // Enough timeline lines that the command is still writing when the reader goes away.
  const line = readFileSync(ADMIN_LOG, 'utf8').split('\n')[0]!
  const big = path.join(dir, 'big.log')
  writeFileSync(big, (line + '\n').repeat(60_000))
  const child = spawn(process.execPath, [BIN, 'audit-log', '--requester', 'oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6', big], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d))
  const first = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString())))
  child.stdout.destroy()
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
  t.match(first, /^timeline of oauth2-client:/, 'it had started writing')
  t.equal(code, 0, 'it ends with the exit code of the audit')
  t.equal(stderr, '', 'quietly')
  const shell = await promisify(execFile)(
    'bash',
    [
      '-c',
      `node ${JSON.stringify(BIN)} audit-log --requester oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6 ${JSON.stringify(big)} | head -n 2; echo "status \${PIPESTATUS[0]}"`,
    ],
    { encoding: 'utf8', timeout: 120_000 },
  )
  t.match(
    shell.stdout,
    /^timeline of oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6:\n +line 1 .*\nstatus 0\n$/,
    '`audit-log … | head -n 2` in a shell',
  )
  t.ok(noStack(shell.stderr), 'nothing on stderr but maybe a message', { stderr: shell.stderr })
  t.equal(shell.stderr, '')
})

t.test('admin actions from a log, with target and requester, the same from both engines', async (t) => {
  const wasm = await cli(['--json', ADMIN_LOG])
  const js = await cli(['--json', '--engine', 'js', ADMIN_LOG])
  t.equal(wasm.code, 0)
  const r = JSON.parse(wasm.stdout) as AuditResult
  t.same(JSON.parse(js.stdout), r, '--engine js gives the same result')
  t.ok(validate('requestlog/audit-result', r).valid, 'the output follows the schema')
  t.equal(r.adminActions.length, ADMIN_ACTIONS.length + 3, 'every admin route once, and three more')
  t.same(
    r.adminActions.slice(0, ADMIN_ACTIONS.length).map((a) => a.activity),
    ADMIN_ACTIONS.map((a) => a.activity),
    'in input order',
  )
  t.same(r.adminActions[0], {
    line: 2,
    timestamp: '2026-06-18T09:00:02.468000Z',
    activity: 'admin-compat-session-finish',
    method: 'POST',
    path: '/api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish',
    target: '01J44S0000000000000000000A',
    requester: 'user:01J2KDPHTZYW3TAT1SKVAD63SQ(kilgore-trout)',
    status: 200,
    outcome: 'ok',
  })
  t.match(
    r.adminActions.find((a) => a.activity === 'admin-event-report-delete'),
    { method: 'DELETE', target: '42', status: 204, outcome: 'ok' },
  )
  t.notOk('target' in r.adminActions.find((a) => a.activity === 'admin-policy-data-set')!, 'policy data has no target')
  t.match(r.adminActions.slice(-3), [
    {
      activity: 'admin-compat-session-finish',
      status: 400,
      outcome: 'failed',
      requester: 'user:01J2KDPHTZYW3TAT1SKVAD63SQ(kilgore-trout)',
    },
    { activity: 'admin-user-lock', status: 401, outcome: 'failed', requester: '(none)' },
    { activity: 'admin-oauth2-session-finish', status: 200, outcome: 'ok', requester: '(unknown)' },
  ])
  t.same(r.outcomes['admin-compat-session-finish'], { ok: 1, failed: 1 })
  t.same([r.activities.other, r.activities['admin-user-lock']], [2, 2], 'admin reads stay other')
  t.same(r.timeRange, { first: '2026-06-18T09:00:01.234000Z', last: '2026-06-18T09:00:35.552000Z' })

  const human = await cli([ADMIN_LOG])
  t.match(human.stdout, /^time range: 2026-06-18T09:00:01\.234000Z to 2026-06-18T09:00:35\.552000Z$/m)
  t.match(human.stdout, /^admin actions \(26, in input order\):$/m)
  t.match(
    human.stdout,
    /^ +line 24 +2026-06-18T09:00:29\.616000Z +user:01J2KDPHTZYW3TAT1SKVAD63SQ\(kilgore-trout\) +admin-event-report-delete +42 +204 ok$/m,
  )
  t.match(human.stdout, /^ +line 8 +\S+ +user:\S+ +admin-policy-data-set +- +201 ok$/m, 'no target: -')
  const capped = await cli(['--max-admin-actions', '2', ADMIN_LOG])
  t.match(capped.stdout, /… and 24 more \(raise --max-admin-actions to list them\)/)
  const cappedJson = JSON.parse((await cli(['--json', '--max-admin-actions', '2', ADMIN_LOG])).stdout) as AuditResult
  t.same(
    [cappedJson.adminActions.length, cappedJson.adminActionsTruncated, cappedJson.activities['admin-user-lock']],
    [2, true, 2],
    'the list is capped, not the counts',
  )
})
