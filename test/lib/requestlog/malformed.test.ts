// Broken lines give a precise error: which part, and the 1-based column in the original line.
import t from 'tap'
import { parseLine } from '../../../lib/requestlog.ts'

const GOOD =
  '2026-06-17T10:52:03.118204Z  INFO http.server.response GET-1042 - "GET /api/admin/v1/compat-sessions HTTP/1.1" 200 OK "curl/8.5.0" ' +
  '[polls: 6, cpu: 1.3ms, db: 2.4ms, elapsed: 4.9ms, queries: 5, fetched: 4] requester=oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6 client.address=172.18.0.1'

/** Column (1-based) of the first occurrence of `marker` in `line`, plus `offset`. */
function col(line: string, marker: string, offset = 0): number {
  const i = line.indexOf(marker)
  if (i === -1) throw new Error(`marker ${marker} not in ${line}`)
  return i + 1 + offset
}

t.test('the good line parses', async (t) => {
  t.equal(parseLine(GOOD).kind, 'response')
})

// [description, line, part, column]
const cases: [string, string, string, number][] = []
function add(desc: string, from: string, to: string, part: string, marker: string, offset = 0): void {
  if (!GOOD.includes(from)) throw new Error(`${from} not in GOOD`)
  const line = GOOD.replace(from, to)
  cases.push([desc, line, part, col(line, marker, offset)])
}

cases.push(['not a log line at all', "thread 'main' panicked at src/main.rs:1:1:", 'timestamp', 1])
cases.push(['a continuation line', '    at Module._compile (node:internal)', 'timestamp', 1])
add('bad month', '2026-06-17', '2026-13-17', 'timestamp', '13')
add('bad day', '2026-06-17', '2026-06-00', 'timestamp', '00')
add('hour out of range', 'T10:52', 'T24:52', 'timestamp', '24')
add('no Z', '.118204Z ', '.118204+01:00 ', 'timestamp', '+01')
add('no fraction digits', '.118204Z', '.Z', 'timestamp', '.Z', 1)
add('letter in the year', '2026-', '20x6-', 'timestamp', 'x')
add('unknown level', ' INFO ', ' NOTE ', 'level', 'NOTE')
add('lowercase level', ' INFO ', ' info ', 'level', 'info')
add('level does not match status', ' INFO ', ' WARN ', 'level', 'WARN')
add('request id without counter', 'GET-1042 ', 'GET- ', 'request-id', 'GET-', 4)
add('request id without dash', 'GET-1042 ', 'GET1042 ', 'request-id', 'GET1042')
add('missing " - " after the request id', 'GET-1042 - "', 'GET-1042 "', 'request-id', 'GET-1042', 8)
add('request line not quoted', '- "GET /api', '- GET /api', 'request-line', 'GET /api')
add('no HTTP version', ' HTTP/1.1" 200', '" 200', 'http-version', '" 200', 2)
add('unknown HTTP version', 'HTTP/1.1', 'HTTP/4.2', 'http-version', '4.2')
add('status not 3 digits', '" 200 OK', '" 20 OK', 'status', ' 20 OK', 1)
add('status out of range', '" 200 OK', '" 600 OK', 'status', '600')
add('User-Agent not quoted', '"curl/8.5.0"', 'curl/8.5.0', 'reason', 'OK')
add('unterminated User-Agent', '"curl/8.5.0" [', '"curl/8.5.0 [', 'user-agent', '"curl')
add('unknown escape in the User-Agent', 'curl/8.5.0', 'curl\\x41', 'user-agent', '\\x')
add('bad \\u escape', 'curl/8.5.0', 'curl\\u{zz}', 'user-agent', 'zz')
add('stats without brackets', '[polls: 6', 'polls: 6', 'stats', 'polls', -1)
add('two decimals', 'cpu: 1.3ms', 'cpu: 1.35ms', 'stats', '1.35', 3)
add('no decimal', 'cpu: 1.3ms', 'cpu: 1ms', 'stats', 'cpu: 1', 6)
add('wrong unit', 'elapsed: 4.9ms', 'elapsed: 4.9s', 'stats', '4.9s', 3)
add('µs unit', 'cpu: 1.3ms', 'cpu: 1.3µs', 'stats', '1.3µs', 3)
add('missing queries', ', queries: 5, fetched: 4]', ']', 'stats', '4.9ms]', 5)
add('unknown stat', 'polls: 6', 'pulls: 6', 'stats', 'pulls')
add('stats not closed', 'fetched: 4]', 'fetched: 4', 'stats', 'fetched: 4', 10)
add('field without =', ' requester=', ' requester:', 'fields', 'requester:')
add('empty field value', 'client.address=172.18.0.1', 'client.address=', 'fields', 'client.address=', 15)
add('duplicate field', 'client.address=172.18.0.1', 'client.address=172.18.0.1 client.address=10.0.0.1', 'fields', 'client.address=10')
add('bad requester', 'requester=oauth2-client:', 'requester=robot:', 'requester', 'robot:')
add(
  'empty username',
  'requester=oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6',
  'requester=user:01J44RKQYM4G3TNVANTMTDYTX6()',
  'requester',
  '()',
  1,
)
add('bad client address', '172.18.0.1', '172.18.0.256', 'client.address', '172.18.0.256')
add('bad trace id', 'client.address=172.18.0.1', 'client.address=172.18.0.1 trace.id=XYZ', 'trace.id', 'XYZ')
add(
  'bad graphql type',
  'client.address=172.18.0.1',
  'client.address=172.18.0.1 graphql.operation.type=Mutation',
  'graphql.operation.type',
  'Mutation',
)
add('two spaces between fields', ' client.address', '  client.address', 'fields', '  client', 1)

t.test('malformed lines: part and column', async (t) => {
  for (const [desc, line, part, column] of cases) {
    const r = parseLine(line)
    if (r.kind !== 'malformed') {
      t.fail(`${desc}: expected malformed, got ${r.kind}`)
      continue
    }
    t.same({ part: r.error.part, column: r.error.column }, { part, column }, `${desc}: ${r.error.message}`)
    t.ok(r.error.message.length > 0, `${desc} has a message`)
  }
})

t.test('columns count characters of the original line, ANSI escapes included', async (t) => {
  const coloured = GOOD.replace('  INFO ', ' \x1b[32m INFO\x1b[0m ')
    .replace('GET-1042', '\x1b[1mGET-1042\x1b[0m')
    .replace('cpu: 1.3ms', 'cpu: 1.33ms')
  const r = parseLine(coloured)
  t.equal(r.kind, 'malformed')
  if (r.kind === 'malformed') {
    t.equal(r.error.part, 'stats')
    t.equal(r.error.column, coloured.indexOf('1.33') + 4, 'column points at the extra digit in the coloured line')
  }
})

t.test('a line naming http.server.response must follow the whole grammar', async (t) => {
  const r = parseLine('2026-06-17T10:52:03.118204Z  INFO http.server.response GET-1 - hello')
  t.match(r, { kind: 'malformed', error: { part: 'request-line' } })
  t.match(parseLine('2026-06-17T10:52:03.118204Z  INFO http.server.response'), { kind: 'malformed', error: { part: 'request-id' } })
  t.match(parseLine('2026-06-17T10:52:03.118204Z  INFO'), { kind: 'malformed', error: { part: 'event-name' } })
  t.match(parseLine('2026-06-17T10:52:03.118204Z'), { kind: 'malformed', error: { part: 'level', column: 28 } })
})
