// The WebAssembly fast path (scripts/audit-log/wasm/assembly/audit-scan.ts) must read every line it takes exactly as the
// JavaScript scanner does, and take every canonical ASCII line the regex fast path takes (else the
// audit silently slows down). The committed module must be what the committed source builds to.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ACTIVITIES, Auditor, auditFile, classify, isAdminWrite, type AuditResult } from '../../../../scripts/audit-log/index.ts'
import { scanModule, WasmScanner } from '../../../../scripts/audit-log/wasm/module.ts'
import {
  CanonicalMatcher,
  fastMethod,
  fastPath,
  formatRequester,
  parseLine,
  type LogFormat,
  type ResponseLine,
} from '../../../../lib/requestlog.ts'
import { buildWasm, WASM_OUT } from '../../../../scripts/audit-log/wasm/build.ts'
import { addressGenerator, fixture, lineCorpus, mutate, rng } from '../../../fixtures/requestlog/records.ts'

const module = scanModule()
if (module === null) throw new Error('scripts/audit-log/wasm/audit-scan.wasm did not load')
const scanner = new WasmScanner(module, '/_matrix')

interface Read {
  activity: string
  ok: boolean
  format: LogFormat
  requester: string
  operation: string | undefined
}

/** What the module reads from one line ('event': an event other than a response), or null when it declines it. */
function viaWasm(line: string): Read | 'event' | null {
  const bytes = Buffer.from(line, 'utf8')
  scanner.scan(bytes, 0, bytes.length, 0)
  const c = scanner.drain()
  if (scanner.declined.length > 0) return null
  if (c.totals[c.totals.length - 1] === 1) return c.totals[0] === 0 ? 'event' : null
  const code = c.totals.slice(3).findIndex((n) => n === 1)
  return {
    activity: ACTIVITIES[code >> 1]!,
    ok: (code & 1) === 1,
    format: c.totals[1] === 1 ? 'v1.20' : 'pre-v1.20',
    requester: c.requesterKeys[0]!,
    operation: c.operationKeys[0],
  }
}

/** What the JavaScript scanner and classifier read from it (null: neither a request line nor another event). */
function viaScanner(line: string): Read | 'event' | null {
  const r = parseLine(line)
  if (r.kind === 'event') return 'event'
  if (r.kind !== 'response') return null
  const l = (r as { line: ResponseLine }).line
  const cl = classify(l)
  return {
    activity: cl.activity,
    ok: cl.outcome === 'ok',
    format: l.format,
    requester: l.requester !== undefined ? formatRequester(l.requester) : l.format === 'v1.20' ? '(none)' : '(unknown)',
    operation: cl.activity === 'account-self-service' ? (l.graphqlOperationName ?? '(unnamed)') : undefined,
  }
}

const ascii = (s: string) => /^[\x00-\x7f]*$/.test(s)

function check(line: string): string | null {
  const w = viaWasm(line)
  if (w !== null) {
    const m = new CanonicalMatcher().match(line, 0)
    if (m !== null && isAdminWrite(fastMethod(m), fastPath(m)))
      return `${JSON.stringify(line)}\n is an admin write, which the module must leave to JavaScript`
    const s = viaScanner(line)
    if (JSON.stringify(w) !== JSON.stringify(s))
      return `${JSON.stringify(line)}\n wasm: ${JSON.stringify(w)}\n scanner: ${JSON.stringify(s)}`
  } else if (ascii(line)) {
    const m = new CanonicalMatcher().match(line, 0)
    // Admin writes are left to JavaScript on purpose (scripts/audit-log/admin-actions.ts): every one, and only those.
    if (m !== null && !isAdminWrite(fastMethod(m), fastPath(m))) {
      return `${JSON.stringify(line)}\n is canonical (the regex fast path takes it) but the module declined it`
    }
  }
  return null
}

// Generated once: several tests draw from it.
const CORPUS = lineCorpus(7)
const corpus = () => CORPUS

t.test('the committed module is what the committed source builds to', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ac-wasm-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = join(dir, 'audit-scan.wasm')
  buildWasm(out)
  t.ok(readFileSync(out).equals(readFileSync(WASM_OUT)), 'byte for byte (else run `npm run build:wasm` and commit the result)')
})

t.test('canonical lines: the module takes them and reads them like the scanner', async (t) => {
  // check() also fails a canonical ASCII line that the module declines.
  const lines = corpus()
  let taken = 0
  let failures = 0
  let adminWrites = 0
  for (const line of lines) {
    if (viaWasm(line) !== null) taken++
    const m = new CanonicalMatcher().match(line, 0)
    if (m !== null && isAdminWrite(fastMethod(m), fastPath(m))) adminWrites++
    const err = check(line)
    if (err !== null && failures++ < 5) t.fail(err)
  }
  t.equal(failures, 0, `all ${lines.length} lines agree`)
  // Admin writes are declined on purpose (check() asserts it): the share is of the other lines.
  t.ok(adminWrites > 0, `the corpus has admin writes (${adminWrites})`)
  t.ok(
    taken > (lines.length - adminWrites) / 4,
    `the module is exercised (${taken} of the ${lines.length - adminWrites} lines that are no admin write; the generator makes many odd ones)`,
  )
  const example = fixture('reference-example.txt').split('\n')[0]!
  t.equal(viaWasm(example), null, 'the reference example is declined: its requester holds a non-ASCII "…"')
  t.match(
    viaWasm(example.replace('…', 'ABCDEFGHJKMNPQRSTVWX')) as Read,
    { activity: 'browser-login', ok: true, requester: 'user:01H8VZABCDEFGHJKMNPQRSTVWX(alice)' },
    'in ASCII it is taken (IPv6 client, trace id)',
  )
})

t.test('mutated lines: the module never takes what the scanner rejects or reads differently', async (t) => {
  const r = rng(5151)
  const specials = [
    ' ',
    '"',
    '\\',
    '(',
    ')',
    '-',
    '.',
    '0',
    '9',
    'a',
    'f',
    'Z',
    '\x1b',
    '=',
    ':',
    '[',
    ']',
    '\t',
    'é',
    '\r',
    'x',
    '1',
    '\x7f',
    '_',
  ]
  const base = corpus().filter((l) => viaWasm(l) !== null)
  let failures = 0
  let checked = 0
  for (let i = 0; i < 30000; i++) {
    const mutated = mutate(r, base[Math.floor(r() * base.length)]!, specials)
    checked++
    const err = check(mutated)
    if (err !== null && failures++ < 5) t.fail(err)
  }
  t.equal(failures, 0, `${checked} mutated lines agree`)
})

t.test('client addresses: the module takes exactly the addresses node:net accepts', async (t) => {
  const gen = addressGenerator(8383)
  const base = corpus().find((l) => viaWasm(l) !== null && l.includes(' client.address=') && l.includes(' trace.id='))!
  t.ok(base, 'a canonical line with a client address')
  const at = base.indexOf('client.address=') + 'client.address='.length
  const end = base.indexOf(' ', at)
  let taken = 0
  let valid = 0
  let failures = 0
  const n = 12000
  for (let i = 0; i < n; i++) {
    const k = i % 4
    const addr = k === 0 ? gen.v6() : k === 1 ? gen.damaged6() : k === 2 ? gen.v4() : gen.badV4()
    const line = base.slice(0, at) + addr + base.slice(end)
    const ok = isIP(addr) !== 0
    if (ok) valid++
    const w = viaWasm(line) !== null
    if (w) taken++
    if (w !== ok && failures++ < 5)
      t.fail(`${JSON.stringify(addr)}: node:net ${ok ? 'accepts' : 'rejects'}, the module ${w ? 'takes' : 'declines'} the line`)
    const err = check(line)
    if (err !== null && failures++ < 5) t.fail(err)
  }
  t.equal(failures, 0, `${n} addresses agree with node:net and the scanner`)
  t.ok(valid > n / 3 && valid < n, `a mix of valid and invalid ones (${valid} valid)`)
  t.equal(taken, valid)
})

t.test('the client API prefix is the configured one', async (t) => {
  const line = corpus().find((l) => l.includes('"POST /_matrix/client/v3/login '))!
  t.ok(line, 'a client login line in the corpus')
  const moved = line.replace('/_matrix/client/', '/_compat/client/')
  const s = new WasmScanner(module, '/_compat')
  const bytes = Buffer.from(moved)
  s.scan(bytes, 0, bytes.length, 0)
  const c = s.drain()
  t.equal(s.declined.length, 0)
  const code = c.totals.slice(3).findIndex((n) => n === 1)
  t.equal(ACTIVITIES[code >> 1], 'client-login')
  t.equal((viaWasm(moved) as Read).activity, 'other', 'under the default prefix the same path is another request')
})

// Whole audits: both engines give the same result, line numbers of malformed lines included, with
// the input cut anywhere (lines across pushes) and shared among threads.
function lines(): string {
  const r = rng(77)
  const base = corpus()
  const out: string[] = []
  for (let i = 0; i < 6000; i++) {
    const line = base[Math.floor(r() * base.length)]!
    const k = r()
    if (k < 0.05) out.push(line.slice(0, Math.floor(r() * line.length)))
    else if (k < 0.07) out.push('')
    else if (k < 0.09) out.push(line + '\r')
    else if (k < 0.1) out.push(line.replace('user', 'usér'))
    else out.push(line)
  }
  return out.join('\n')
}

function audit(text: string, engine: 'wasm' | 'js', piece: number, wasmBlockBytes?: number): AuditResult {
  const a = new Auditor({ engine, ...(wasmBlockBytes !== undefined ? { wasmBlockBytes } : {}) })
  if (a.engine !== engine) throw new Error(`asked for ${engine}, got ${a.engine}`)
  const buf = Buffer.from(text, 'utf8')
  for (let i = 0; i < buf.length; i += piece) a.push(buf.subarray(i, i + piece))
  return a.end()
}

t.test('a whole log: same result from both engines, however it is cut', async (t) => {
  const text = lines()
  const js = audit(text, 'js', 1 << 20)
  t.ok(js.malformedCount > 100 && js.requests > 4000, `a mixed log (${js.requests} requests, ${js.malformedCount} malformed)`)
  for (const piece of [1 << 20, 65536, 4097, 997]) t.same(audit(text, 'wasm', piece), js, `pushed in pieces of ${piece} bytes`)
  t.same(audit(text + '\n', 'wasm', 4096), audit(text + '\n', 'js', 4096), 'with a final newline')
  // A push bigger than the module's block goes in blocks cut at line ends (the heap stops at 1 GiB).
  for (const block of [1, 300, 4096]) t.same(audit(text, 'wasm', 1 << 20, block), js, `one push, scanned in blocks of ${block} bytes`)
  const firstEmpty = (engine: 'wasm' | 'js') => {
    const a = new Auditor({ engine })
    a.push(Buffer.from('\n'))
    a.push(Buffer.from(text))
    return a.end()
  }
  t.same(firstEmpty('wasm'), firstEmpty('js'), 'a first block that is empty (a lone newline pushed first)')
})

t.test('auditFile: workers get the module; same result as one JavaScript thread', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ac-wasm-file-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'mas.log')
  writeFileSync(file, lines() + '\n')
  const js = await auditFile(file, { jobs: 1, engine: 'js' })
  t.same(await auditFile(file, { jobs: 1 }), js, 'one thread')
  t.same(await auditFile(file, { jobs: 2, chunkBytes: 65536 }), js, 'two workers, 64 KiB chunks')
  t.same(await auditFile(file, { jobs: 3, chunkBytes: 4099, engine: 'wasm' }), js, 'three workers, 4 KiB chunks')
})

t.test('a --requester timeline reads every line in JavaScript', async (t) => {
  t.equal(new Auditor({ requester: 'homeserver' }).engine, 'js')
  t.equal(new Auditor({}).engine, 'wasm')
  t.equal(new Auditor({ engine: 'js' }).engine, 'js')
})

t.test('admin writes: the module leaves them to JavaScript, and both engines count and list them alike', async (t) => {
  const finish =
    '2026-06-17T10:52:04.002517Z  INFO http.server.response POST-1043 - "POST /api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish HTTP/1.1" 200 OK "python-requests/2.32.3" [polls: 4, cpu: 0.9ms, db: 1.8ms, elapsed: 3.1ms, queries: 4, fetched: 3] requester=user:01J2KDPHTZYW3TAT1SKVAD63SQ(kilgore-trout) client.address=10.0.0.7'
  const read = finish.replace('"POST ', '"GET ').replace('POST-1043', 'GET-1043')
  t.equal(viaWasm(finish), null, 'a canonical admin write is declined')
  t.match(viaWasm(read), { activity: 'other', ok: true }, 'an admin read is taken')
  const text = [read, finish, read].join('\n') + '\n'
  const wasm = audit(text, 'wasm', 1 << 20)
  t.same(wasm, audit(text, 'js', 1 << 20), 'the same result')
  t.equal(wasm.activities['admin-compat-session-finish'], 1)
  t.same(wasm.adminActions, [
    {
      line: 2,
      timestamp: '2026-06-17T10:52:04.002517Z',
      activity: 'admin-compat-session-finish',
      method: 'POST',
      path: '/api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish',
      target: '01J44S0000000000000000000A',
      requester: 'user:01J2KDPHTZYW3TAT1SKVAD63SQ(kilgore-trout)',
      status: 200,
      outcome: 'ok',
    },
  ])
})

t.test('the time range: first and last timestamp, from lines either engine read', async (t) => {
  const canonical = corpus().filter((l) => viaWasm(l) !== null)
  const event = '2026-01-01T00:00:00.5Z  WARN mas_handlers::x:12 POST-1 - an event the module leaves to JavaScript'
  const last = '2027-12-31T23:59:59.999999Z ERROR mas_tasks::y:3 a last event'
  for (const [name, lines] of [
    ['canonical first and last', [canonical[0]!, event, canonical[1]!]],
    ['an event first and last', [event, canonical[0]!, 'junk', canonical[1]!, last]],
    ['malformed and blank lines around', ['junk', '', canonical[2]!, '   ', 'more junk']],
  ] as const) {
    const text = lines.join('\n')
    const js = audit(text, 'js', 1 << 20)
    for (const piece of [1 << 20, 7]) t.same(audit(text, 'wasm', piece).timeRange, js.timeRange, `${name}: pieces of ${piece}`)
    const stamps = lines
      .map((l) => parseLine(l))
      .flatMap((p) => (p.kind === 'response' ? [p.line.timestamp] : p.kind === 'event' ? [p.event.timestamp] : []))
    t.same(js.timeRange, { first: stamps[0], last: stamps[stamps.length - 1] }, `${name}: the first and the last timestamp`)
  }
  t.equal(audit('junk\n\n', 'wasm', 1 << 20).timeRange, null, 'none without timestamps')
})

t.test('requesters sharing all but a prefix: the module probes its table a few times per line, linearly', async (t) => {
  const line = (i: number) =>
    '2026-06-18T09:00:01.234000Z  INFO http.server.response GET-1 - "GET /api/admin/v1/compat-sessions HTTP/1.1" 200 OK "python-requests/2.32.3" [polls: 3, cpu: 0.4ms, db: 1.2ms, elapsed: 2.5ms, queries: 2, fetched: 1]' +
    ` requester=user:${i.toString(36).padStart(6, '0')}${'X'.repeat(20)}(alice-${'a'.repeat(24)}) client.address=10.0.0.7`
  const probesFor = (n: number) => {
    const s = new WasmScanner(module, '/_matrix')
    // Each requester twice: the second time a lookup that finds it.
    const text = Array.from({ length: 2 * n }, (_, i) => line(i % n)).join('\n')
    const bytes = Buffer.from(text, 'latin1')
    const before = s.probes()
    s.scan(bytes, 0, bytes.length, 0)
    const probes = s.probes() - before
    const c = s.drain()
    t.equal(s.declined.length, 0, 'every line on the fast path')
    t.equal(c.requesterKeys.length, n, `${n} requesters kept apart`)
    return probes
  }
  const small = probesFor(10_000)
  const big = probesFor(40_000)
  t.ok(small / 20_000 < 4, `${(small / 20_000).toFixed(2)} probes per line at 10,000 requesters`)
  t.ok(big / 80_000 < 4, `${(big / 80_000).toFixed(2)} probes per line at 40,000 requesters`)
  const ratio = big / small
  t.ok(ratio > 3 && ratio < 5.5, `40,000 vs 10,000 requesters: ${ratio.toFixed(2)}× the probes`)
})
