// The request-log grammar against real-form lines: the reference's quoted example (verbatim), its
// constructed examples, and constructed lines for every released variation.
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import {
  formatEventLine,
  formatRequester,
  formatResponseLine,
  formatTimestamp,
  levelForStatus,
  parseLine,
  parseRequester,
  reasonPhrase,
  rustDebugQuote,
  stripAnsi,
  type EventLine,
  type ParsedLine,
  type ResponseLine,
} from '../../../lib/requestlog.ts'
import { validate } from '../../../lib/schemas.ts'

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/requestlog/${name}`, import.meta.url), 'utf8')

function response(t: Test, line: string): ResponseLine {
  const r = parseLine(line)
  if (r.kind !== 'response') {
    t.fail(`expected a response line, got ${JSON.stringify(r)}`)
    throw new Error('not a response line')
  }
  const v = validate('requestlog/response-line', r.line)
  t.ok(v.valid, `parsed record matches the schema: ${v.text}`)
  return r.line
}

function event(t: Test, line: string): EventLine {
  const r = parseLine(line)
  if (r.kind !== 'event') {
    t.fail(`expected an event line, got ${JSON.stringify(r)}`)
    throw new Error('not an event line')
  }
  return r.event
}

t.test('the example quoted in the reference, verbatim', async (t) => {
  const [line] = fixture('reference-example.txt').split('\n')
  const rec = response(t, line!)
  t.same(rec, {
    timestamp: '2026-06-17T10:49:22.419912Z',
    level: 'INFO',
    requestId: { method: 'POST', counter: 71 },
    method: 'POST',
    path: '/login',
    httpVersion: '2.0',
    status: 303,
    reason: 'See Other',
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.5 Safari/605.1.15',
    stats: { polls: 12, cpuMs: 4.7, dbMs: 10.9, elapsedMs: 46.9, queries: 4, fetched: 2 },
    requester: { kind: 'user', id: '01H8VZ…', username: 'alice' },
    clientAddress: '2a01:e0a:f5c:5b02:85c9:3849:4811:4383',
    traceId: 'c8c8fc32288a76693e028ee97a6030a0',
    format: 'v1.20',
  })
  const { format, ...input } = rec
  t.equal(formatResponseLine(input, { format }), line, 'the formatter reproduces it byte for byte')
})

t.test("the reference's constructed examples", async (t) => {
  const lines = fixture('reference-constructed.txt')
    .split('\n')
    .filter((l) => l !== '')
  t.equal(lines.length, 6)
  const kinds = lines.map((l) => parseLine(l).kind)
  t.same(kinds, ['response', 'event', 'response', 'event', 'response', 'response'])

  const admin = response(t, lines[0]!)
  t.match(admin, {
    requestId: { method: 'GET', counter: 1042 },
    path: '/api/admin/v1/compat-sessions',
    status: 200,
    reason: 'OK',
    userAgent: 'curl/8.5.0',
    requester: { kind: 'oauth2-client', id: '01J44RKQYM4G3TNVANTMTDYTX6' },
    clientAddress: '172.18.0.1',
    format: 'v1.20',
  })
  t.notOk('traceId' in admin, 'no trace.id, no traceId key')

  const warn = event(t, lines[1]!)
  t.same(warn, {
    timestamp: '2026-06-17T10:52:04.002311Z',
    level: 'WARN',
    name: 'mas_handlers::admin::v1::compat_sessions::finish:42',
    target: 'mas_handlers::admin::v1::compat_sessions::finish',
    sourceLine: 42,
    requestId: { method: 'POST', counter: 1043 },
    message: 'Compatibility session with ID 01J44S0000000000000000000A is already finished',
  })

  const finish = response(t, lines[2]!)
  t.match(finish, { level: 'WARN', status: 400, reason: 'Bad Request', requestId: { counter: 1043 } })
  t.same(finish.requester, { kind: 'user', id: '01J2KDPHTZYW3TAT1SKVAD63SQ', username: 'kilgore-trout' })

  t.match(event(t, lines[3]!), { target: 'mas_handlers::admin::call_context', sourceLine: 85, message: 'Missing authorization header' })

  const noAuth = response(t, lines[4]!)
  t.equal(noAuth.userAgent, null, '"-" is an absent User-Agent')
  t.notOk('requester' in noAuth, 'no requester field, no requester key')
  t.same(noAuth.stats, { polls: 2, cpuMs: 0.2, dbMs: 0, elapsedMs: 0.4, queries: 0, fetched: 0 })

  const old = response(t, lines[5]!)
  t.equal(old.format, 'pre-v1.20')
  t.same(old.stats, { polls: 4, cpuMs: 1.1, elapsedMs: 6.8 })

  for (const l of lines) {
    const r = parseLine(l)
    if (r.kind !== 'response') continue
    const { format, ...input } = r.line
    t.equal(formatResponseLine(input, { format }), l, `formatter reproduces: ${l.slice(0, 70)}…`)
  }
})

const BASE = '2026-06-17T10:52:03.118204Z  INFO http.server.response GET-7 - "GET /health HTTP/1.1" 200 OK "curl/8.5.0" '
const V120 = '[polls: 6, cpu: 1.3ms, db: 2.4ms, elapsed: 4.9ms, queries: 5, fetched: 4]'

t.test('constructed lines: stats forms and structured fields', async (t) => {
  const plain = response(t, BASE + V120)
  t.equal(plain.format, 'v1.20', 'v1.20 stats without any field')
  t.same(Object.keys(plain).sort(), [
    'format',
    'httpVersion',
    'level',
    'method',
    'path',
    'reason',
    'requestId',
    'stats',
    'status',
    'timestamp',
    'userAgent',
  ])

  const pre = response(t, BASE + '[polls: 1, cpu: 0.0ms, elapsed: 1500.0ms]')
  t.same(pre.stats, { polls: 1, cpuMs: 0, elapsedMs: 1500 })
  t.equal(pre.format, 'pre-v1.20')

  const gql = response(
    t,
    '2026-06-17T10:52:03.118204Z  INFO http.server.response POST-9 - "POST /graphql HTTP/1.1" 200 OK "Mozilla/5.0" ' +
      V120 +
      ' requester=user:01J2KDPHTZYW3TAT1SKVAD63SQ(alice) client.address=10.0.0.7 graphql.operation.type=mutation graphql.operation.name=SetDisplayName trace.id=0123456789abcdef0123456789abcdef',
  )
  t.match(gql, { graphqlOperationType: 'mutation', graphqlOperationName: 'SetDisplayName', traceId: '0123456789abcdef0123456789abcdef' })

  const anon = response(t, BASE + V120 + ' graphql.operation.type=query')
  t.equal(anon.graphqlOperationType, 'query')
  t.notOk('graphqlOperationName' in anon, 'an unnamed operation has no name')

  const extra = response(t, BASE + V120 + ' client.address=10.0.0.1 user.agent.family=curl')
  t.same(extra.extraFields, { 'user.agent.family': 'curl' }, 'an unknown field is kept, not rejected')
})

t.test('constructed lines: every requester form', async (t) => {
  const forms: [string, unknown][] = [
    ['user:01J2KDPHTZYW3TAT1SKVAD63SQ(alice)', { kind: 'user', id: '01J2KDPHTZYW3TAT1SKVAD63SQ', username: 'alice' }],
    ['user:01J2KDPHTZYW3TAT1SKVAD63SQ', { kind: 'user', id: '01J2KDPHTZYW3TAT1SKVAD63SQ' }],
    ['oauth2-client:01J44RKQYM4G3TNVANTMTDYTX6', { kind: 'oauth2-client', id: '01J44RKQYM4G3TNVANTMTDYTX6' }],
    ['homeserver', { kind: 'homeserver' }],
  ]
  for (const [text, expected] of forms) {
    t.same(response(t, `${BASE}${V120} requester=${text}`).requester, expected, text)
    t.same(parseRequester(text), expected)
    t.equal(formatRequester(expected as never), text)
  }
  t.throws(() => parseRequester('bot:x'), /expected 'user:<id>'/)
  t.throws(() => parseRequester('user:'), /empty user id/)
  t.throws(() => parseRequester('user:X(alice'), /must end with '\)'/)
  t.throws(() => parseRequester('user:X)'), /unbalanced/)
  t.throws(() => parseRequester('oauth2-client:'), /empty client id/)
})

t.test('constructed lines: client addresses', async (t) => {
  for (const ip of [
    '127.0.0.1',
    '10.0.0.7',
    '255.255.255.255',
    '::1',
    'fd00::1:2',
    '2a01:e0a:f5c:5b02:85c9:3849:4811:4383',
    '::ffff:192.0.2.1',
  ]) {
    t.equal(response(t, `${BASE}${V120} client.address=${ip}`).clientAddress, ip, ip)
  }
  for (const bad of ['256.1.1.1', '1.2.3', '01.2.3.4', 'localhost', '2a01::e0a::1', '[::1]']) {
    const r = parseLine(`${BASE}${V120} client.address=${bad}`)
    t.match(r, { kind: 'malformed', error: { part: 'client.address' } }, `rejects ${bad}`)
  }
})

t.test('constructed lines: User-Agent quoting (Rust Debug)', async (t) => {
  const head = '2026-06-17T10:52:03.118204Z  INFO http.server.response GET-7 - "GET / HTTP/1.1" 200 OK '
  // [as printed, decoded, whether the printed form is what Rust itself writes]
  const cases: [string, string | null, boolean][] = [
    ['"-"', null, false],
    ['"Mozilla/5.0 (compatible; \\"quoted\\")"', 'Mozilla/5.0 (compatible; "quoted")', true],
    ['"back\\\\slash"', 'back\\slash', true],
    ['"tab\\there"', 'tab\there', true],
    ['"nl\\nand\\rcr"', 'nl\nand\rcr', true],
    ['"nul\\0"', 'nul\0', true],
    ["\"it's \\'fine\\'\"", "it's 'fine'", false],
    ['"bell\\u{7}del\\u{7f}"', 'bell\x07del\x7f', true],
    ['"smile \\u{1F600} é"', 'smile \u{1f600} é', false],
    ['"ends with backslash\\\\"', 'ends with backslash\\', true],
    ['"brackets [polls: 1] and \\"quotes\\" inside"', 'brackets [polls: 1] and "quotes" inside', true],
    ['""', '', true],
  ]
  for (const [quoted, expected, canonical] of cases) {
    const rec = response(t, head + quoted + ' ' + V120)
    t.equal(rec.userAgent, expected, quoted)
    if (canonical) t.equal(rustDebugQuote(expected!), quoted, `quoted back: ${quoted}`)
  }
  t.equal(rustDebugQuote('it\'s "x"\\'), '"it\'s \\"x\\"\\\\"', 'single quotes stay, double quotes and backslashes are escaped')
  t.equal(rustDebugQuote('a\tb\nc\u0001d\u200be'), '"a\\tb\\nc\\u{1}d\\u{200b}e"')
  // The interface also allows a bare hyphen for a missing header.
  t.equal(response(t, head + '- ' + V120).userAgent, null, 'bare - is an absent User-Agent')
})

t.test('constructed lines: methods, versions, statuses', async (t) => {
  const other = response(
    t,
    '2026-06-17T10:52:03.118204Z  WARN http.server.response _OTHER-12 - "_OTHER /dav HTTP/1.1" 405 Method Not Allowed "litmus/0.13" ' +
      V120,
  )
  t.same([other.method, other.requestId], ['_OTHER', { method: '_OTHER', counter: 12 }])
  for (const v of ['0.9', '1.0', '1.1', '2.0', '3.0', '_OTHER']) {
    t.equal(response(t, BASE.replace('HTTP/1.1', `HTTP/${v}`) + V120).httpVersion, v)
  }
  const unknown = response(
    t,
    '2026-06-17T10:52:03.118204Z ERROR http.server.response GET-3 - "GET / HTTP/1.1" 599 <unknown status code> "-" ' + V120,
  )
  t.same([unknown.status, unknown.reason, unknown.level], [599, '<unknown status code>', 'ERROR'])
  const teapot = response(
    t,
    '2026-06-17T10:52:03.118204Z  WARN http.server.response GET-3 - "GET / HTTP/1.1" 418 I\'m a teapot "-" ' + V120,
  )
  t.equal(teapot.reason, "I'm a teapot")
  const counter = response(t, BASE.replace('GET-7', 'GET-9007199254740991') + V120)
  t.equal(counter.requestId.counter, 9007199254740991, 'a counter up to 2^53-1')
})

t.test('ANSI colours are stripped', async (t) => {
  const rec = response(t, BASE + V120 + ' requester=homeserver client.address=::1 trace.id=0123456789abcdef0123456789abcdef')
  const { format, ...input } = rec
  const coloured = formatResponseLine(input, { format, ansi: true })
  t.match(coloured, /\x1b\[32m INFO\x1b\[0m/, 'INFO is green')
  t.match(coloured, /\x1b\[2mhttp\.server\.response\x1b\[0m/, 'event name is dim')
  t.match(coloured, /\x1b\[1mGET-7\x1b\[0m/, 'context is bold')
  t.match(coloured, /\x1b\[3mrequester\x1b\[0m\x1b\[2m=\x1b\[0mhomeserver/, 'field names italic, = dim')
  t.match(coloured, /\x1b\[3mtrace\.id\x1b\[0m=/, 'trace.id label italic')
  t.same(response(t, coloured), rec)
  t.equal(stripAnsi(coloured), formatResponseLine(input, { format }))
  // A hand-written coloured line, as a terminal shows it (WARN yellow, ERROR red).
  const warn =
    '2026-06-17T10:52:04.002311Z \x1b[33m WARN\x1b[0m \x1b[2mmas_handlers::admin::call_context:85\x1b[0m \x1b[1mGET-1044\x1b[0m - Missing authorization header'
  t.match(event(t, warn), {
    level: 'WARN',
    sourceLine: 85,
    requestId: { method: 'GET', counter: 1044 },
    message: 'Missing authorization header',
  })
  const err =
    '2026-06-17T10:52:04.002311Z \x1b[31mERROR\x1b[0m \x1b[2mhttp.server.response\x1b[0m \x1b[1mPOST-1\x1b[0m - "POST /oauth2/token HTTP/1.1" 500 Internal Server Error "-" ' +
    V120
  t.match(response(t, err), { level: 'ERROR', status: 500 })
})

t.test('other events are recognised, not malformed', async (t) => {
  t.same(
    event(t, '2026-06-17T10:52:04.002311Z  INFO mas_cli::server:148 Listening on http://[::]:8080'),
    {
      timestamp: '2026-06-17T10:52:04.002311Z',
      level: 'INFO',
      name: 'mas_cli::server:148',
      target: 'mas_cli::server',
      sourceLine: 148,
      message: 'Listening on http://[::]:8080',
    },
    'an event outside any request has no context',
  )
  t.same(
    event(
      t,
      '2026-06-17T10:52:04.002311Z ERROR mas_handlers::oauth2::token:88 POST-300 - Database error message.sources=[connection refused, timeout]',
    ).message,
    'Database error message.sources=[connection refused, timeout]',
  )
  t.match(
    event(t, '2026-06-17T10:52:04.002311Z  INFO mas_tasks::matrix:57 job-sync-devices-31 - Syncing devices'),
    {
      requestId: { method: 'job-sync-devices', counter: 31 },
      message: 'Syncing devices',
    },
    'a context tag may contain hyphens',
  )
  t.same(
    event(t, '2026-06-17T10:52:04.002311Z DEBUG http.server.request GET-5 - started'),
    {
      timestamp: '2026-06-17T10:52:04.002311Z',
      level: 'DEBUG',
      name: 'http.server.request',
      requestId: { method: 'GET', counter: 5 },
      message: 'started',
    },
    'an explicitly named event is not a target',
  )
  t.match(event(t, '2026-06-17T10:52:04.002311Z TRACE mas_storage'), { name: 'mas_storage', message: '' })
  t.match(event(t, '2026-06-17T10:52:04.002311Z  WARN mas_core:12 GET-5 -'), { requestId: { counter: 5 }, message: '' })
  for (const blank of ['', '   ', '\t', '\r\n', '\n']) t.same(parseLine(blank), { kind: 'blank' }, JSON.stringify(blank))
})

t.test('line terminators are tolerated', async (t) => {
  const line = BASE + V120
  t.same(parseLine(line + '\n'), parseLine(line))
  t.same(parseLine(line + '\r\n'), parseLine(line))
})

t.test('formatEventLine', async (t) => {
  t.equal(
    formatEventLine({
      timestamp: '2026-06-17T10:52:04.002311Z',
      level: 'WARN',
      target: 'mas_handlers::admin::call_context:85',
      requestId: 'GET-1044',
      message: 'Missing authorization header',
    }),
    '2026-06-17T10:52:04.002311Z  WARN mas_handlers::admin::call_context:85 GET-1044 - Missing authorization header',
  )
  t.equal(
    formatEventLine({ timestamp: new Date('2026-06-17T10:52:04.002Z'), level: 'ERROR', target: 'mas_cli:1', message: 'boom' }),
    '2026-06-17T10:52:04.002000Z ERROR mas_cli:1 boom',
  )
  const ansi = formatEventLine({
    timestamp: '2026-06-17T10:52:04.002311Z',
    level: 'INFO',
    target: 'mas_tasks::matrix:57',
    requestId: 'job-1',
    message: 'x',
    ansi: true,
  })
  t.equal(ansi, '2026-06-17T10:52:04.002311Z \x1b[32m INFO\x1b[0m \x1b[2mmas_tasks::matrix:57\x1b[0m \x1b[1mjob-1\x1b[0m - x')
  t.match(parseLine(ansi), { kind: 'event', event: { requestId: { method: 'job', counter: 1 } } })
  t.throws(
    () => formatEventLine({ timestamp: '2026-06-17T10:52:04.002311Z', level: 'INFO', target: 'http.server.response', message: 'x' }),
    RangeError,
  )
  t.throws(
    () => formatEventLine({ timestamp: '2026-06-17T10:52:04.002311Z', level: 'INFO', target: 'a', requestId: 'nodash', message: 'x' }),
    RangeError,
  )
  t.throws(
    () => formatEventLine({ timestamp: '2026-06-17T10:52:04.002311Z', level: 'INFO', target: 'a', message: 'two\nlines' }),
    RangeError,
  )
})

t.test('formatResponseLine rejects what the service could not print', async (t) => {
  const base = {
    timestamp: '2026-06-17T10:52:03.118204Z',
    requestId: { method: 'GET', counter: 1 },
    method: 'GET',
    path: '/x',
    httpVersion: '1.1' as const,
    status: 200,
    userAgent: null,
    stats: { polls: 1, cpuMs: 0.1, elapsedMs: 0.2 },
  }
  t.throws(() => formatResponseLine(base, { format: 'v1.20' }), /needs stats\.dbMs/)
  t.throws(() => formatResponseLine({ ...base, status: 42 }, { format: 'pre-v1.20' }), /status/)
  t.throws(() => formatResponseLine({ ...base, level: 'WARN' }, { format: 'pre-v1.20' }), /does not match status/)
  t.throws(() => formatResponseLine({ ...base, path: '/a b' }, { format: 'pre-v1.20' }), /path/)
  t.throws(() => formatResponseLine({ ...base, traceId: 'xyz' }, { format: 'pre-v1.20' }), /traceId/)
  t.throws(() => formatResponseLine({ ...base, stats: { ...base.stats, polls: -1 } }, { format: 'pre-v1.20' }), /polls/)
  const v120 = { ...base, stats: { ...base.stats, dbMs: 0, queries: 0, fetched: 0 } }
  t.throws(() => formatResponseLine({ ...v120, clientAddress: 'nope' }, { format: 'v1.20' }), /clientAddress/)
  t.throws(() => formatResponseLine({ ...v120, requester: { kind: 'user', id: 'a b' } }, { format: 'v1.20' }), /requester/)
  t.equal(
    formatResponseLine({ ...base, path: '/search?q=secret' }, { format: 'pre-v1.20' }),
    '2026-06-17T10:52:03.118204Z  INFO http.server.response GET-1 - "GET /search HTTP/1.1" 200 OK "-" [polls: 1, cpu: 0.1ms, elapsed: 0.2ms]',
    'the query string is never logged',
  )
  t.equal(
    formatResponseLine(
      { ...base, requester: { kind: 'homeserver' }, clientAddress: '::1', traceId: '0123456789abcdef0123456789abcdef' },
      { format: 'pre-v1.20' },
    ),
    '2026-06-17T10:52:03.118204Z  INFO http.server.response GET-1 - "GET /x HTTP/1.1" 200 OK "-" [polls: 1, cpu: 0.1ms, elapsed: 0.2ms] trace.id=0123456789abcdef0123456789abcdef',
    'pre-v1.20 drops the structured fields but keeps trace.id',
  )
  t.equal(
    formatResponseLine(
      {
        ...v120,
        timestamp: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
        stats: { polls: 2, cpuMs: 1500, dbMs: 0.05, elapsedMs: 12.34, queries: 1, fetched: 0 },
      },
      { format: 'v1.20' },
    ),
    '2026-01-02T03:04:05.006000Z  INFO http.server.response GET-1 - "GET /x HTTP/1.1" 200 OK "-" [polls: 2, cpu: 1500.0ms, db: 0.1ms, elapsed: 12.3ms, queries: 1, fetched: 0]',
    'durations always print with one decimal, a Date becomes the timestamp',
  )
})

t.test('helpers', async (t) => {
  t.equal(reasonPhrase(303), 'See Other')
  t.equal(reasonPhrase(422), 'Unprocessable Entity')
  t.equal(reasonPhrase(413), 'Payload Too Large')
  t.equal(reasonPhrase(203), 'Non Authoritative Information')
  t.equal(reasonPhrase(599), '<unknown status code>')
  t.same([100, 200, 303, 399, 400, 404, 499, 500, 503].map(levelForStatus), [
    'INFO',
    'INFO',
    'INFO',
    'INFO',
    'WARN',
    'WARN',
    'WARN',
    'ERROR',
    'ERROR',
  ])
  const d = new Date(Date.UTC(2026, 5, 17, 10, 49, 22, 419))
  t.equal(formatTimestamp(d), '2026-06-17T10:49:22.419000Z')
  t.equal(formatTimestamp(d, 912), '2026-06-17T10:49:22.419912Z')
  t.equal(formatTimestamp(d, 5), '2026-06-17T10:49:22.419005Z')
  t.throws(() => formatTimestamp(d, 1000), RangeError)
  t.throws(() => formatTimestamp(new Date(NaN)), RangeError)
})

t.test('parse results are plain data of the documented kinds', async (t) => {
  const kinds = new Set<ParsedLine['kind']>()
  for (const l of [BASE + V120, '2026-06-17T10:52:04.002311Z  INFO a:1 x', '', 'junk']) kinds.add(parseLine(l).kind)
  t.same([...kinds].sort(), ['blank', 'event', 'malformed', 'response'])
})
