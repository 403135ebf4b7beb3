// The HTTP client against hostile answers on loopback: bodies compressed past the cap (bombs), JSON
// nested 100,000 deep, a body that drips one byte at a time, and the run's deadline.
import t, { type Test } from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { DeadlineReached, HttpClient, HttpError, MAX_JSON_DEPTH, ResponseTooLarge, jsonDeeperThan } from '../../lib/http.ts'

async function serve(t: Test, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const client = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
  new HttpClient({
    allowWrites: false,
    connectTimeoutMs: 2000,
    requestTimeoutMs: 5000,
    userAgent: 'test',
    maxResponseBytes: 64 * 1024,
    ...over,
  })

const zeros = Buffer.alloc(8 * 1024 * 1024, 0x20)

t.test('a compressed body is decoded to at most the cap: bombs fail as too large, small ones are read', async (t) => {
  const seen: string[] = []
  const url = await serve(t, (req, res) => {
    seen.push(String(req.headers['accept-encoding']))
    const kind = new URL(req.url!, 'http://x').pathname.slice(1)
    const small = Buffer.from(JSON.stringify({ ok: kind }))
    const body = kind.endsWith('-bomb') ? zeros : small
    const enc = kind.replace('-bomb', '')
    const packed = enc === 'gzip' ? gzipSync(body) : enc === 'deflate' ? deflateSync(body) : brotliCompressSync(body)
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': enc })
    res.end(packed)
  })
  const c = client()
  t.teardown(() => c.close())
  for (const enc of ['gzip', 'deflate', 'br']) {
    const ok = await c.request(url, `/${enc}`)
    t.same(ok.json, { ok: enc }, `${enc}: a small body is decoded`)
    const e = await c.request(url, `/${enc}-bomb`).catch((e: unknown) => e)
    t.ok(e instanceof ResponseTooLarge, `${enc}: 8 MiB packed into a few KiB fails as too large`)
    t.match((e as Error).message, /decode to more than the cap/)
  }
  t.ok(
    seen.every((s) => s === 'identity'),
    'the client asks for no compression',
  )
})

t.test('JSON nested deeper than the bound is not parsed; the pre-scan skips brackets in strings', async (t) => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  const url = await serve(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(req.url === '/deep' ? deep : JSON.stringify({ a: '[[[[[[[[[['.repeat(100), b: [[[1]]] }))
  })
  const c = client({ maxResponseBytes: 1024 * 1024 })
  t.teardown(() => c.close())
  const r = await c.request(url, '/deep')
  t.equal(r.json, undefined, 'not parsed')
  t.match(r.notParsed, /nested deeper than 64 levels/)
  const ok = await c.request(url, '/strings')
  t.same((ok.json as { b: unknown }).b, [[[1]]], 'brackets inside strings do not count')
  t.equal(jsonDeeperThan('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH), MAX_JSON_DEPTH), false, 'exactly the bound is parsed')
  t.equal(jsonDeeperThan('['.repeat(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH), true)
})

t.test('a body that drips one byte at a time ends at the request time bound, not per chunk', async (t) => {
  const url = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    const timer = setInterval(() => res.write(' '), 100)
    res.on('close', () => clearInterval(timer))
  })
  const c = client({ requestTimeoutMs: 800 })
  t.teardown(() => c.destroy())
  const started = Date.now()
  const e = await c.request(url, '/drip').catch((e: unknown) => e)
  t.ok(e instanceof HttpError && e.kind === 'timeout', 'a timeout', { e: String(e) })
  t.ok(Date.now() - started < 4000, `ended after ${Date.now() - started} ms (bound 800 ms)`)
})

t.test('the run deadline: a request under way is cut at it, none starts after it', async (t) => {
  const url = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    const timer = setInterval(() => res.write(' '), 100)
    res.on('close', () => clearInterval(timer))
  })
  const c = client({ requestTimeoutMs: 60_000, deadlineAt: Date.now() + 700 })
  t.teardown(() => c.destroy())
  const e = await c.request(url, '/drip').catch((e: unknown) => e)
  t.ok(e instanceof DeadlineReached, 'cut by the deadline', { e: String(e) })
  t.match((e as Error).message, /passed during GET http:\/\/127\.0\.0\.1:\d+\/drip/)
  const late = await c.request(url, '/next').catch((e: unknown) => e)
  t.ok(late instanceof DeadlineReached && !late.during, 'the next request is not sent')
})

t.test('a binary body (not UTF-8) is not decoded whole: no JSON, its first 16 KiB kept as text', async (t) => {
  const bin = Buffer.alloc(1024 * 1024, 0xff)
  const url = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(bin)
  })
  const c = client({ maxResponseBytes: 4 * 1024 * 1024 })
  t.teardown(() => c.close())
  const r = await c.request(url, '/bin')
  t.equal(r.bytes, bin.length, 'read whole')
  t.equal(r.json, undefined, 'no JSON')
  t.ok(r.textCut && r.text.length < 20 * 1024, `text kept: ${r.text.length} characters`)
  t.match(r.text, /not UTF-8\)$/)
})
