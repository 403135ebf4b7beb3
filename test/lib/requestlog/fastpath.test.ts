// The bulk fast path (one regex for canonical request lines) must agree with the hand-written
// scanner on every line: same kind and the same extracted parts. It may only decline lines
// (they then go through the scanner), never accept one the scanner rejects or read it differently.
import { isIP } from 'node:net'
import t from 'tap'
import { CanonicalMatcher, newLineView, scanLine, viewOfMatch, type LineView } from '../../../lib/requestlog.ts'
import { addressGenerator, fixture, lineCorpus, mutate, rng } from '../../fixtures/requestlog/records.ts'

// What the audit reads from a line: the canonical match when there is one, else the scanner.
function viaFastPath(line: string): { kind: string; view: LineView; fast: boolean } {
  const m = new CanonicalMatcher().match(line, 0)
  if (m !== null) return { kind: 'response', view: viewOfMatch(m), fast: true }
  const view = newLineView()
  return { kind: scanLine(line, view), view: { ...view }, fast: false }
}

function viaScanner(line: string): { kind: string; view: LineView } {
  const view = newLineView()
  const kind = scanLine(line, view)
  return { kind, view: { ...view } }
}

// The view fields that mean something for each kind.
function relevant(kind: string, v: LineView): unknown {
  if (kind === 'malformed') return { error: v.error }
  if (kind !== 'response') return {}
  return {
    method: v.method,
    path: v.path,
    status: v.status,
    format: v.format,
    requester: v.requester ?? '',
    graphqlOperationName: v.graphqlOperationName,
    // The time range of audit-log reads it from either side.
    timestamp: v.timestamp,
  }
}

function agree(line: string): { ok: boolean; fast: boolean; detail: string } {
  const a = viaFastPath(line)
  const b = viaScanner(line)
  const same = a.kind === b.kind && JSON.stringify(relevant(a.kind, a.view)) === JSON.stringify(relevant(b.kind, b.view))
  return {
    ok: same,
    fast: a.fast,
    detail: `${JSON.stringify(line)}\n fast path: ${a.kind} ${JSON.stringify(relevant(a.kind, a.view))}\n scanner: ${b.kind} ${JSON.stringify(relevant(b.kind, b.view))}`,
  }
}

const corpus = () => lineCorpus(99)

t.test('the fast path takes canonical lines and agrees with the scanner', async (t) => {
  let fast = 0
  let failures = 0
  const lines = corpus()
  for (const line of lines) {
    const r = agree(line)
    if (r.fast) fast++
    if (!r.ok && failures++ < 5) t.fail(r.detail)
  }
  t.equal(failures, 0, `all ${lines.length} lines agree`)
  t.ok(fast > lines.length / 4, `the fast path is exercised (${fast} of ${lines.length} lines)`)
  const example = viaFastPath(fixture('reference-example.txt').split('\n')[0]!)
  t.ok(example.fast, 'the reference example (IPv6 client, trace id) takes the fast path')
})

t.test('mutated lines: the fast path never accepts what the scanner rejects', async (t) => {
  const r = rng(4242)
  const specials = [' ', '"', '\\', '(', ')', '-', '.', '0', '9', 'a', 'Z', '\x1b', '=', ':', '[', ']', '\t', 'é', '\r', '\n', 'x', '1']
  const base = corpus().filter((l) => viaFastPath(l).fast)
  t.ok(base.length > 100, 'enough canonical lines to mutate')
  let failures = 0
  let checked = 0
  for (let i = 0; i < 20000; i++) {
    const mutated = mutate(r, base[Math.floor(r() * base.length)]!, specials)
    // A newline makes two lines; a block reader would see both, so compare line by line.
    for (const part of mutated.split('\n')) {
      const res = agree(part)
      checked++
      if (!res.ok && failures++ < 5) t.fail(res.detail)
    }
  }
  t.equal(failures, 0, `${checked} mutated lines agree`)
})

t.test('several lines in one block, with empty and CRLF lines', async (t) => {
  const lines = fixture('audit-sample.txt').split('\n')
  const all = [...lines, '', lines[0]! + '\r', lines[1]!]
  const text = all.join('\n')
  const matcher = new CanonicalMatcher()
  const kinds: string[] = []
  let pos = 0
  while (pos <= text.length) {
    const m = matcher.match(text, pos)
    let end = m !== null ? matcher.end : text.indexOf('\n', pos)
    if (end === -1) end = text.length
    kinds.push(m !== null ? 'response' : scanLine(text.slice(pos, end), newLineView()))
    if (m !== null) t.equal(text.slice(pos, end), all[kinds.length - 1], 'a match covers exactly its line')
    pos = end + 1
  }
  t.same(
    kinds,
    all.map((l) => scanLine(l, newLineView())),
  )
})

t.test('IPv6 client addresses: the fast path takes the valid forms and never an invalid one', async (t) => {
  const gen = addressGenerator(6161)
  const base = fixture('reference-example.txt').split('\n')[0]!
  const at = base.indexOf('client.address=') + 'client.address='.length
  const end = base.indexOf(' ', at)
  t.ok(at > 15 && end > at, 'the reference example has a client address to replace')
  let fast = 0
  let validCount = 0
  let failures = 0
  const n = 4000
  for (let i = 0; i < n; i++) {
    const addr = i % 2 === 0 ? gen.v6() : gen.damaged6()
    const line = base.slice(0, at) + addr + base.slice(end)
    const res = agree(line)
    if (res.fast) fast++
    if (!res.ok && failures++ < 5) t.fail(`${addr}: ${res.detail}`)
    if (isIP(addr) === 6) {
      validCount++
      if (!res.fast && failures++ < 5) t.fail(`${addr} is a valid IPv6 address but did not take the fast path`)
    }
  }
  t.equal(failures, 0, `${n} addresses: the fast path agrees with node:net and the scanner`)
  t.ok(validCount >= n / 2, `at least the generated valid half is valid for node:net (${validCount} of ${n})`)
  t.equal(fast, validCount, 'exactly the valid addresses take the fast path')
})

t.test('a line of millions of reason words: the fast path declines it, the scanner reads it', async (t) => {
  const line = canonicalLine().replace(' 200 OK "', ` 200 ${'a '.repeat(3_500_000)}"`)
  t.ok(line.length > 7_000_000)
  let m: RegExpExecArray | null | undefined
  t.doesNotThrow(() => (m = new CanonicalMatcher().match(line, 0)), 'no stack overflow in the regex')
  t.equal(m, null, 'left to the scanner')
  const v = newLineView()
  t.equal(scanLine(line, v), 'response', 'the scanner reads it')
  t.equal(v.status, 200)
  // Up to eight words stay on the fast path.
  t.not(new CanonicalMatcher().match(canonicalLine().replace(' 200 OK "', ` 200 ${'OK '.repeat(8)}"`), 0), null, 'eight words: canonical')
})

function canonicalLine(): string {
  return '2026-06-18T09:00:01.234000Z  INFO http.server.response GET-1 - "GET /api/admin/v1/compat-sessions HTTP/1.1" 200 OK "python-requests/2.32.3" [polls: 3, cpu: 0.4ms, db: 1.2ms, elapsed: 2.5ms, queries: 2, fetched: 1] client.address=10.0.0.7'
}
