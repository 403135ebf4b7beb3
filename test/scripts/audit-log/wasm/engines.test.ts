// The two audit engines give the same audit: on a corpus of every line kind the request-log grammar
// knows (each release's form, every optional field, every level, events, blank, coloured, CRLF,
// escaped, non-ASCII and broken lines), and on lines fast-check generates. The canonical kinds
// (what the releases write, in ASCII) must take the WebAssembly fast path: a kind that silently
// falls back to JavaScript is a failure here, not just a slower audit.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { Auditor, auditFile, isAdminWrite, type AuditResult } from '../../../../scripts/audit-log/index.ts'
import { scanModule, WasmScanner } from '../../../../scripts/audit-log/wasm/module.ts'
import {
  formatEventLine,
  formatResponseLine,
  formatTimestamp,
  type HttpVersion,
  type Level,
  type LogFormat,
  type Requester,
  type ResponseLineInput,
} from '../../../../lib/requestlog.ts'

const module = scanModule()
if (module === null) throw new Error('scripts/audit-log/wasm/audit-scan.wasm did not load')

function audit(text: string, engine: 'wasm' | 'js', piece = 1 << 20): AuditResult {
  const a = new Auditor({ engine })
  if (a.engine !== engine) throw new Error(`asked for ${engine}, got ${a.engine}`)
  const buf = Buffer.from(text, 'utf8')
  for (let i = 0; i < buf.length; i += piece) a.push(buf.subarray(i, i + piece))
  return a.end()
}

const scanner = new WasmScanner(module, '/_matrix')
/** How many of the lines of `text` the module declines (hands back to JavaScript). */
function declined(text: string): number {
  const bytes = Buffer.from(text, 'utf8')
  scanner.scan(bytes, 0, bytes.length, 0)
  scanner.drain()
  return scanner.declined.length / 3
}

const ULID = '01J2KDPHTZYW3TAT1SKVAD63SQ'
const TRACE = 'c8c8fc32288a76693e028ee97a6030a0'
const AT = new Date(Date.UTC(2026, 5, 17, 10, 49, 22, 419))
const requesters: Array<[string, Requester | undefined]> = [
  ['no requester', undefined],
  ['user with username', { kind: 'user', id: ULID, username: 'alice' }],
  ['user without username', { kind: 'user', id: ULID }],
  ['oauth2 client', { kind: 'oauth2-client', id: ULID }],
  ['homeserver', { kind: 'homeserver' }],
]

function response(over: Partial<ResponseLineInput> = {}, format: LogFormat = 'v1.20'): string {
  const status = over.status ?? 200
  const rec: ResponseLineInput = {
    timestamp: formatTimestamp(AT, 912),
    requestId: { method: over.method ?? 'POST', counter: 71 },
    method: 'POST',
    path: '/login',
    httpVersion: '1.1',
    status,
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    stats:
      format === 'v1.20'
        ? { polls: 12, cpuMs: 4.7, dbMs: 10.9, elapsedMs: 46.9, queries: 4, fetched: 2 }
        : { polls: 12, cpuMs: 4.7, elapsedMs: 46.9 },
    ...over,
  }
  return formatResponseLine(rec, { format })
}

/** Every line kind: [name, line, does the fast path take it]. */
function kinds(): Array<[string, string, boolean]> {
  const out: Array<[string, string, boolean]> = []
  // v1.20, every subset of the optional fields, with every requester form.
  for (const [who, requester] of requesters) {
    for (let mask = 0; mask < 16; mask++) {
      const over: Partial<ResponseLineInput> = { path: '/graphql' }
      if (requester !== undefined) over.requester = requester
      if (mask & 1) over.clientAddress = mask & 4 ? '2a01:e0a:f5c:5b02:85c9:3849:4811:4383' : '192.168.1.20'
      if (mask & 2) over.graphqlOperationType = 'mutation'
      if (mask & 4) over.graphqlOperationName = 'SetDisplayName'
      if (mask & 8) over.traceId = TRACE
      out.push([`v1.20, ${who}, fields ${mask.toString(2).padStart(4, '0')}`, response(over), true])
    }
  }
  // The pre-v1.20 form (no fields; trace id printed already).
  out.push(['pre-v1.20', response({}, 'pre-v1.20'), true])
  out.push(['pre-v1.20 with trace id', response({ traceId: TRACE }, 'pre-v1.20'), true])
  // Methods, HTTP versions, statuses of each class (the level follows the status).
  for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'])
    out.push([`method ${method}`, response({ method, path: '/account/' }), true])
  for (const v of ['0.9', '1.0', '1.1', '2.0', '3.0', '_OTHER'] as HttpVersion[])
    out.push([`HTTP/${v}`, response({ httpVersion: v }), true])
  for (const status of [101, 200, 204, 303, 304, 400, 401, 404, 429, 500, 503]) out.push([`status ${status}`, response({ status }), true])
  out.push(['no User-Agent', response({ userAgent: null }), true])
  out.push([
    'the stats at their widest',
    response({ stats: { polls: 999999999999999, cpuMs: 99999999999.9, dbMs: 0, elapsedMs: 1500, queries: 999999999999999, fetched: 0 } }),
    true,
  ])
  // Activities the classifier tells apart.
  for (const [method, path, status] of [
    ['POST', '/oauth2/token', 200],
    ['POST', '/oauth2/introspect', 200],
    ['POST', '/oauth2/revoke', 200],
    ['GET', '/authorize', 303],
    ['POST', '/logout', 303],
    ['POST', `/upstream/link/${ULID}`, 303],
    ['GET', `/register/steps/${ULID}/finish`, 303],
    ['POST', '/_matrix/client/v3/login', 200],
    ['POST', '/_matrix/client/v3/logout/all', 200],
    ['GET', '/api/admin/v1/users', 200],
  ] as const) {
    out.push([`${method} ${path}`, response({ method, path, status, requester: { kind: 'user', id: ULID, username: 'bob' } }), true])
  }
  // Events other than responses, at every level, with and without a context.
  for (const level of ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as Level[]) {
    out.push([
      `event ${level} with context`,
      formatEventLine({
        timestamp: AT,
        level,
        target: 'mas_handlers::admin::call_context:85',
        requestId: 'GET-1044',
        message: 'Missing authorization header',
      }),
      true,
    ])
  }
  out.push([
    'event without context',
    formatEventLine({ timestamp: AT, level: 'INFO', target: 'mas_tasks::matrix:57', message: 'Syncing devices for user x' }),
    true,
  ])
  out.push([
    'event with an explicit name',
    formatEventLine({ timestamp: AT, level: 'INFO', target: 'http.server.request', requestId: 'GET-1', message: 'a b=c' }),
    true,
  ])
  out.push([
    'event named like the response but longer',
    formatEventLine({ timestamp: AT, level: 'INFO', target: 'http.server.responses', message: 'x' }),
    true,
  ])
  out.push(['event with an empty message', formatEventLine({ timestamp: AT, level: 'WARN', target: 'mas_x:1', message: '' }), true])
  // What the releases also write, or a log's way there, read by JavaScript.
  // Quotes and backslashes escaped in the User-Agent: on the fast path too (the audit does not read it).
  out.push(['User-Agent with escapes', response({ userAgent: 'a "quoted" \\ probe' }), true])
  out.push(['User-Agent of escapes only', response({ userAgent: '"\\"\\' }), true])
  out.push(['User-Agent ending in an escaped backslash', response({ userAgent: 'probe\\' }), true])
  out.push(['User-Agent with an escaped quote then 40 more bytes', response({ userAgent: `x"${'y'.repeat(40)}` }), true])
  // Other escapes (a tab, a control character) stay JavaScript's.
  out.push(['User-Agent with an escaped tab', response({ userAgent: 'a\tb' }), false])
  out.push(['User-Agent with an escaped control character', response({ userAgent: 'a\u0001b "q"' }), false])
  // Broken escapes: the scanner reports them.
  out.push(['User-Agent with an unknown escape', response({ userAgent: 'ab' }).replace('"ab"', '"a\\qb"'), false])
  out.push(['User-Agent whose closing quote is escaped', response({ userAgent: 'ab' }).replace('"ab"', '"ab\\"'), false])
  out.push(['non-ASCII User-Agent', response({ userAgent: 'ünïcødé 😀' }), false])
  out.push(['non-ASCII requester name', response({ requester: { kind: 'user', id: ULID, username: 'ünï' } }), false])
  out.push(['unknown extra field', response({ extraFields: { 'some.new.field': 'v1' } }), false])
  out.push(['admin write', response({ method: 'POST', path: `/api/admin/v1/compat-sessions/${ULID}/finish` }), false])
  out.push([
    'coloured response',
    formatResponseLine(
      {
        timestamp: AT,
        requestId: { method: 'GET', counter: 1 },
        method: 'GET',
        path: '/health',
        httpVersion: '1.1',
        status: 200,
        userAgent: null,
        stats: { polls: 1, cpuMs: 0, dbMs: 0, elapsedMs: 0, queries: 0, fetched: 0 },
        clientAddress: '10.0.0.1',
      },
      { format: 'v1.20', ansi: true },
    ),
    false,
  ])
  out.push(['coloured event', formatEventLine({ timestamp: AT, level: 'WARN', target: 'mas_x:1', message: 'm', ansi: true }), false])
  out.push(['event with a tab', formatEventLine({ timestamp: AT, level: 'INFO', target: 'mas_x:1', message: 'a\tb' }), false])
  out.push(['event with non-ASCII', formatEventLine({ timestamp: AT, level: 'INFO', target: 'mas_x:1', message: 'café' }), false])
  out.push(['response with CRLF', response() + '\r', false])
  out.push(['event with CRLF', formatEventLine({ timestamp: AT, level: 'INFO', target: 'mas_x:1', message: 'm' }) + '\r', false])
  out.push(['timestamp with 3 fractional digits', response().replace('.419912Z', '.419Z'), false])
  out.push(['timestamp without fraction', response().replace('.419912Z', 'Z'), false])
  out.push([
    'event with 9 fractional digits',
    formatEventLine({ timestamp: AT, level: 'INFO', target: 'x', message: 'm' }).replace('.419912Z', '.419912000Z'),
    false,
  ])
  out.push([
    'event with a one-space INFO',
    formatEventLine({ timestamp: AT, level: 'INFO', target: 'x', message: 'm' }).replace('Z  INFO', 'Z INFO'),
    false,
  ])
  out.push([
    'ERROR padded with two spaces',
    formatEventLine({ timestamp: AT, level: 'ERROR', target: 'x', message: 'm' }).replace('Z ERROR', 'Z  ERROR'),
    false,
  ])
  // Blank and broken lines.
  for (const [name, line] of [
    ['empty', ''],
    ['spaces', '   '],
    ['tab', '\t'],
    ['junk', 'not a log line'],
    ['level mismatch', response({ status: 404 }).replace(' WARN ', ' INFO ')],
    ['broken stats', response().replace('queries: 4', 'queries: x')],
    ['mixed stats forms', response().replace(', db: 10.9ms', '')],
    ['truncated', response().slice(0, 120)],
    [
      'response name alone',
      formatEventLine({ timestamp: AT, level: 'INFO', target: 'x', message: '' }).replace(' x ', ' http.server.response'),
    ],
    ['invalid date', response().replace('2026-06-17', '2026-13-17')],
    ['unknown level', response().replace(' INFO ', ' NOTE ')],
    [
      'fields out of order',
      response({ requester: { kind: 'homeserver' }, clientAddress: '10.0.0.1' }).replace(
        / (requester=\S+) (client\.address=\S+)/,
        ' $2 $1',
      ),
    ],
  ] as const) {
    out.push([name, line, false])
  }
  return out
}

t.test('every line kind: the same audit from both engines, the canonical kinds on the fast path', async (t) => {
  const all = kinds()
  let taken = 0
  for (const [name, line, fast] of all) {
    t.same(audit(line, 'wasm'), audit(line, 'js'), `${name}: the same audit`)
    const d = declined(line)
    if (fast) {
      t.equal(d, 0, `${name}: taken by the fast path`)
      taken++
    }
  }
  t.ok(taken > 100, `${taken} canonical kinds`)
  // All together, cut anywhere: line numbers, time range, requesters and operations agree too.
  const text = all.map(([, l]) => l).join('\n')
  const js = audit(text, 'js')
  for (const piece of [1 << 20, 4099, 61]) t.same(audit(text, 'wasm', piece), js, `the whole corpus in pieces of ${piece} bytes`)
  t.ok(
    js.requests > 100 && js.events >= 8 && js.blank >= 3 && js.malformedCount >= 8,
    `the corpus has each kind (${js.requests} requests, ${js.events} events, ${js.blank} blank, ${js.malformedCount} malformed)`,
  )
})

// Generated lines: records the formatter accepts (both forms), other events, and edits of them.
const TOKEN = fc.stringMatching(/^[!#-~]{1,12}$/)
const NAME = fc.stringMatching(/^[!#-'*-~]{1,12}$/)
const ulid = fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/)
const requester: fc.Arbitrary<Requester> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), id: ulid, username: NAME }),
  fc.record({ kind: fc.constant('user' as const), id: ulid }),
  fc.record({ kind: fc.constant('oauth2-client' as const), id: ulid }),
  fc.constant({ kind: 'homeserver' as const }),
)
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'))
const ipv6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) =>
  g
    .map((x) => x.toString(16))
    .join(':')
    .replace(/(^|:)0(:0)+(:|$)/, '::'),
)
const ms = fc.nat(99999).map((n) => n / 10)
const STATUSES = [100, 200, 201, 204, 301, 302, 303, 304, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503]
const PATHS = [
  '/login',
  '/logout',
  '/graphql',
  '/oauth2/token',
  '/oauth2/revoke',
  '/oauth2/introspect',
  '/authorize',
  '/health',
  '/api/admin/v1/users',
  '/_matrix/client/v3/login',
  '/_matrix/client/v3/logout/all',
  '/account/',
]

const responseLine = fc
  .record({
    format: fc.constantFrom<LogFormat>('v1.20', 'v1.20', 'pre-v1.20'),
    ts: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    micros: fc.nat(999),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', '_OTHER'),
    counter: fc.nat(),
    path: fc.oneof(
      fc.constantFrom(...PATHS),
      TOKEN.map((s) => `/${s}`),
    ),
    httpVersion: fc.constantFrom<HttpVersion>('0.9', '1.0', '1.1', '2.0', '3.0', '_OTHER'),
    status: fc.constantFrom(...STATUSES),
    userAgent: fc.option(fc.oneof(fc.stringMatching(/^[ -~]{0,40}$/), fc.string({ maxLength: 12 })), { nil: null }),
    polls: fc.nat(1000),
    cpuMs: ms,
    dbMs: ms,
    elapsedMs: ms,
    queries: fc.nat(1000),
    fetched: fc.nat(1000),
    requester: fc.option(requester, { nil: undefined }),
    clientAddress: fc.option(fc.oneof(ipv4, ipv6), { nil: undefined }),
    graphqlOperationType: fc.option(fc.constantFrom('query' as const, 'mutation' as const, 'subscription' as const), { nil: undefined }),
    graphqlOperationName: fc.option(TOKEN, { nil: undefined }),
    traceId: fc.option(fc.stringMatching(/^[0-9a-f]{32}$/), { nil: undefined }),
  })
  .map((r) => {
    const rec: ResponseLineInput = {
      timestamp: formatTimestamp(new Date(r.ts), r.micros),
      requestId: { method: r.method, counter: r.counter },
      method: r.method,
      path: r.path,
      httpVersion: r.httpVersion,
      status: r.status,
      userAgent: r.userAgent,
      stats: { polls: r.polls, cpuMs: r.cpuMs, dbMs: r.dbMs, elapsedMs: r.elapsedMs, queries: r.queries, fetched: r.fetched },
    }
    for (const k of ['requester', 'clientAddress', 'graphqlOperationType', 'graphqlOperationName', 'traceId'] as const) {
      if (r[k] !== undefined) (rec as Record<string, unknown>)[k] = r[k]
    }
    return { line: formatResponseLine(rec, { format: r.format }), rec }
  })

const eventLine = fc
  .record({
    ts: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    level: fc.constantFrom<Level>('TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'),
    target: fc.oneof(TOKEN, fc.constantFrom('mas_handlers::oauth2::token:301', 'http.server.responsex')),
    requestId: fc.option(
      fc.tuple(fc.constantFrom('GET', 'POST', 'job'), fc.nat()).map(([m, n]) => `${m}-${n}`),
      { nil: undefined },
    ),
    message: fc.oneof(
      fc.stringMatching(/^[ -~]{0,40}$/),
      fc.string({ maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ' ')),
    ),
  })
  .map((e) =>
    formatEventLine({
      timestamp: new Date(e.ts),
      level: e.level,
      target: e.target,
      ...(e.requestId !== undefined ? { requestId: e.requestId } : {}),
      message: e.message,
    }),
  )

/** One edit: a character replaced, deleted or inserted (the characters the grammar cares about). */
const edited = (line: fc.Arbitrary<string>) =>
  fc
    .tuple(
      line,
      fc.nat(),
      fc.nat(2),
      fc.constantFrom(' ', '"', '\\', '(', ')', '-', '.', '0', '9', 'a', 'Z', '\x1b', '=', ':', '[', ']', '\t', 'é', '\r', '\x7f', '_'),
    )
    .map(([l, at, op, ch]) => {
      const i = l.length === 0 ? 0 : at % l.length
      return op === 0 ? l.slice(0, i) + ch + l.slice(i + 1) : op === 1 ? l.slice(0, i) + l.slice(i + 1) : l.slice(0, i) + ch + l.slice(i)
    })

const anyLine = fc.oneof(
  { weight: 6, arbitrary: responseLine.map((r) => r.line) },
  { weight: 2, arbitrary: eventLine },
  {
    weight: 3,
    arbitrary: edited(
      fc.oneof(
        responseLine.map((r) => r.line),
        eventLine,
      ),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('', '  ', 'junk') },
)

t.test('generated lines: the same audit from both engines', async (t) => {
  let runs = 0
  let lines = 0
  // fc.assert throws with the shrunk counterexample (both audits in its message) on a difference.
  fc.assert(
    fc.property(fc.array(anyLine, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4096 }), (log, piece) => {
      runs++
      lines += log.length
      const text = log.join('\n')
      const js = JSON.stringify(audit(text, 'js'))
      const wasm = JSON.stringify(audit(text, 'wasm', piece))
      if (wasm !== js) throw new Error(`the engines differ\n js:   ${js}\n wasm: ${wasm}`)
    }),
    { numRuns: 400, seed: 20261126 },
  )
  t.equal(runs, 400, `400 generated logs (${lines} lines) audited alike`)
})

t.test('generated canonical lines take the fast path', async (t) => {
  let taken = 0
  fc.assert(
    fc.property(
      fc.oneof(
        responseLine,
        eventLine.map((line) => ({ line, rec: null })),
      ),
      ({ line, rec }) => {
        if (!/^[\x20-\x7e]*$/.test(line)) return true // non-ASCII and control characters: JavaScript's, on purpose
        // An agent with characters past printable ASCII is written with escapes the module leaves to JavaScript.
        if (rec !== null && (isAdminWrite(rec.method, rec.path) || /[^\x20-\x7e]/.test(rec.userAgent ?? ''))) return true
        taken++
        return declined(line) === 0
      },
    ),
    { numRuns: 2000, seed: 20261127 },
  )
  t.ok(taken > 1000, `${taken} printable-ASCII canonical lines, every one taken`)
})

t.test('a file whose requesters grow the module memory mid-scan: the same audit', async (t) => {
  // 30,000 distinct requesters outgrow the module's first tables within one read of the file, so its
  // memory grows while the input it scans in place is in it. (Ids vary throughout, as ULIDs do.)
  const lines: string[] = []
  const part = (x: number) => (x >>> 0).toString(32).toUpperCase().padStart(13, '0').slice(-13)
  for (let i = 0; i < 30000; i++) {
    const id = part(Math.imul(i, 2654435761)) + part(Math.imul(i ^ 0x5bd1e995, 40503))
    lines.push(
      i % 50 === 0
        ? formatEventLine({ timestamp: AT, level: 'INFO', target: 'mas_x:1', message: `m${i}` })
        : response({ requester: { kind: 'user', id, username: `u${i}` }, clientAddress: '10.0.0.1' }),
    )
  }
  const dir = mkdtempSync(join(tmpdir(), 'ac-engines-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'grow.log')
  writeFileSync(file, lines.join('\n') + '\n')
  const js = await auditFile(file, { jobs: 1, engine: 'js' })
  const wasm = await auditFile(file, { jobs: 1, engine: 'wasm' })
  t.same(wasm, js, 'the same audit')
  t.equal(js.requests, 29400)
  t.equal(js.events, 600)
  t.equal(Object.keys(js.requesters).length, 29400, 'every requester counted')
})
