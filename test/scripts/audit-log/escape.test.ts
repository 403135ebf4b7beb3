// A log line can hold anything a terminal obeys (BEL, backspace, ESC, C1 controls, bidi overrides,
// zero-width characters, DEL): audit-log shows every byte of the log escaped, in every part of its
// summary, its timeline, its messages and (as JSON escapes) its --json output.
import t from 'tap'
import { Readable } from 'node:stream'
import { main, type AuditIo } from '../../../scripts/audit-log/main.ts'

// (no ESC: the reader strips a line's ANSI colours; no CR: it ends a line)
const EVIL = '\u0007\u0008\u0008\u0085\u009b2J\u202eevil\u202c\u2066x\u2069\u200b\u007f\u2028'
const USER = '01J2KDPHTZYW3TAT1SKVAD63SQ'
const STATS = '[polls: 1, cpu: 0.1ms, db: 0.1ms, elapsed: 0.2ms, queries: 0, fetched: 0]'
const LOG =
  [
    `2026-06-17T10:52:03.118204Z  INFO http.server.response GET-7 - "GET /api/admin/v1/users/${EVIL} HTTP/1.1" 200 OK "ua" ${STATS} requester=user:${USER}(${EVIL})`,
    `2026-06-17T10:52:04.118204Z  INFO http.server.response POST-8 - "POST /api/admin/v1/users/${EVIL}/lock HTTP/1.1" 200 OK "ua" ${STATS} requester=user:${USER}(${EVIL})`,
    `2026-06-17T10:52:05.118204Z  INFO http.server.response POST-9 - "POST /graphql?op=${EVIL} HTTP/1.1" 200 OK "ua" ${STATS} requester=user:${USER}(${EVIL})`,
    `garbage ${EVIL}`,
  ].join('\n') + '\n'

const UNSAFE = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/u

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: AuditIo = {
    stdin: Readable.from([Buffer.from(LOG)]),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
  }
  return { code: await main(argv, io), stdout, stderr }
}

t.test('summary, admin actions, timeline, messages and JSON: every byte of the log escaped', async (t) => {
  for (const argv of [['-'], ['--requester', `user:${USER}`, '-'], ['--json', '-'], ['--requester', 'user:nobody\u001b[2J', '-']]) {
    const r = await run(argv)
    const m = UNSAFE.exec(r.stdout + r.stderr)
    t.notOk(m, `${argv.join(' ')}: no control, format or separator character in the output`, {
      found: m && `U+${m[0].codePointAt(0)!.toString(16)}`,
    })
    if (argv[0] !== '--json')
      t.match(
        r.stdout + r.stderr,
        /\\x07\\x08\\x08\\x85\\x9b2J\\u202eevil\\u202c\\u2066x\\u2069\\u200b\\x7f\\u2028|nobody\\x1b\[2J/,
        `${argv.join(' ')}: shown as visible escapes`,
      )
  }
  const human = await run(['-'])
  t.match(human.stdout, /admin actions[^]*\\u202eevil/, "the admin action's target is escaped too")
  const json = await run(['--json', '-'])
  const parsed = JSON.parse(json.stdout)
  t.equal(parsed.requesters[`user:${USER}`].username, EVIL, 'the JSON output keeps the value (escaped as JSON)')
})
