// lib/http.ts: read-only enforcement, bounded time, redaction, the size cap, budget, rate and meter.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  BudgetSpent,
  DEFAULT_MAX_RESPONSE_BYTES,
  HttpClient,
  HttpError,
  ResponseTooLarge,
  WritesNotAllowed,
  encodeQuery,
  endpointOf,
  redact,
  REDACTED,
  type RequestRecord,
} from '../../lib/http.ts'
import { refusingPort, silentServer } from '../scripts/run/helpers.ts'

const SECRET = 'mat_abcdefghijklmnopqrstuvwxyz0123_ABCDEF'

function client(over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  return new HttpClient({
    allowWrites: false,
    connectTimeoutMs: 2000,
    requestTimeoutMs: 1500,
    userAgent: 'test',
    secrets: [SECRET],
    ...over,
  })
}

t.test('mutating requests are refused on a read-only client, before anything is sent', async (t) => {
  let received = 0
  const server = createServer((_req, res) => {
    received++
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"ok":true}')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const c = client()
  t.teardown(() => c.close())
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    await t.rejects(c.request(base, '/x', { method, body: {} }), WritesNotAllowed, `${method} is refused`)
  }
  t.equal(received, 0, 'the server received nothing')
  t.same(c.sent, {}, 'nothing counted as sent')
  t.same(c.refused, { POST: 1, PUT: 1, PATCH: 1, DELETE: 1 }, 'the refusals are counted')
  const res = await c.request(base, '/x', { query: { 'filter[a]': 'b c' } })
  t.equal(res.status, 200, 'GET is sent')
  t.same(res.json, { ok: true }, 'JSON is parsed')
  t.equal(received, 1)
  const w = client({ allowWrites: true })
  t.teardown(() => w.close())
  t.equal((await w.request(base, '/x', { method: 'POST', body: {} })).status, 200, 'with writes allowed, POST is sent')
})

t.test('a refused connection and a silent server end in bounded time with a redacted message', async (t) => {
  const c = client()
  t.teardown(() => c.close())
  const port = await refusingPort()
  const refused = await c.request(`http://127.0.0.1:${port}`, '/p', { query: { access_token: 'syt_querytoken_123456' } }).catch((e) => e)
  t.type(refused, HttpError)
  t.equal(refused.kind, 'refused')
  t.match(refused.message, /connection refused/)
  t.notMatch(refused.message, /syt_querytoken/, 'the query token is redacted')
  const s = await silentServer()
  t.teardown(() => s.close())
  const silent = await c.request(s.url, `/p?access_token=${SECRET}`).catch((e) => e)
  t.type(silent, HttpError)
  t.equal(silent.kind, 'timeout')
  t.match(silent.message, /no complete answer within 1500 ms/)
  t.notMatch(silent.message, SECRET, 'the known token is redacted')
})

t.test('redact', async (t) => {
  t.equal(redact(`token ${SECRET} here`, [SECRET]), `token ${REDACTED} here`)
  t.equal(redact(`x=${encodeURIComponent('tok/en+1234')}`, ['tok/en+1234']), `x=${REDACTED}`)
  t.equal(redact('GET /a?b=1&access_token=zzzzzz&c=2'), `GET /a?b=1&access_token=${REDACTED}&c=2`)
  t.equal(redact('Authorization: Bearer abcdefghijk'), `Authorization: Bearer ${REDACTED}`)
  t.equal(redact('{"authorization":"Bearer abcdefghijk"}'), `{"authorization":"Bearer ${REDACTED}"}`)
  t.equal(redact('"access_token":"mpt_FM44zJN5qePGMLvvMXC4Ds1A3lCWc6_bJ9Wj1"'), `"access_token":"${REDACTED}"`)
  t.equal(redact('syt_dXNlcg_abcdefghij_0aBcDe and more'), `${REDACTED} and more`)
  t.equal(redact('nothing secret'), 'nothing secret')
})

t.test('encodeQuery keeps brackets readable and repeats arrays', async (t) => {
  t.equal(
    encodeQuery({ 'filter[client]': ['A', 'B'], 'page[first]': 3, skip: undefined }),
    'filter[client]=A&filter[client]=B&page[first]=3',
  )
  t.equal(encodeQuery([['filter[scope]', 'not a valid scope']]), 'filter[scope]=not%20a%20valid%20scope')
})

// ---------------------------------------------------------------------------------------------
// The size cap, the budget, the rate and the meter (decision 0004).

async function serve(handler: Parameters<typeof createServer>[1]) {
  const server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

t.test('a response over the cap fails the request, naming target, request and size, without reading on', async (t) => {
  let written = 0
  let closed = false
  const s = await serve((req, res) => {
    if (req.url?.startsWith('/announced')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) })
      res.write('[')
      return
    }
    // an endless chunked body: only stopping the read ends it
    res.writeHead(200, { 'content-type': 'application/json' })
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    let done = false
    closed = false
    written = 0
    res.on('close', () => (done = closed = true))
    const pump = () => {
      while (!done && written < 512 * 1024 * 1024) {
        written += chunk.length
        if (!res.write(chunk)) return void res.once('drain', pump)
      }
    }
    pump()
  })
  t.teardown(s.close)
  const c = client({ maxResponseBytes: 1024 * 1024 })
  t.teardown(() => c.close())
  t.equal(c.maxResponseBytes, 1024 * 1024)
  const announced = await c.request(s.base, `/announced/x?access_token=${SECRET}`).catch((e) => e)
  t.type(announced, ResponseTooLarge)
  t.type(announced, HttpError, 'a kind of HttpError: callers that handle network errors handle it')
  t.equal(announced.kind, 'too-large')
  t.match(
    announced.message,
    new RegExp(
      `^GET ${s.base.replace(/\./g, '\\.')}/announced/x\\?access_token=\\[REDACTED\\]: the response is larger than the cap of 1 MiB \\(1048576 bytes\\): the server announced 209715200 bytes \\(200 MiB\\)$`,
    ),
  )
  t.equal(announced.size, 200 * 1024 * 1024)
  const rssBefore = process.memoryUsage().rss
  const streamed = await c.request(s.base, '/stream').catch((e) => e)
  t.type(streamed, ResponseTooLarge)
  t.match(
    streamed.message,
    /GET http:\/\/127\.0\.0\.1:\d+\/stream: the response is larger than the cap of 1 MiB \(1048576 bytes\): stopped after reading \d+ bytes/,
  )
  t.ok(streamed.size > 1024 * 1024 && streamed.size < 2 * 1024 * 1024, `stopped just past the cap (${streamed.size} bytes)`)
  for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 20))
  t.ok(closed, 'the connection was aborted')
  t.ok(written < 64 * 1024 * 1024, `the server could write only ${written} bytes before the abort`)
  t.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024, 'memory stayed bounded')
  const small = await c.request(s.base, '/stream', { maxResponseBytes: 10 }).catch((e) => e)
  t.match(small.message, /cap of 10 bytes \(10 bytes\)/, 'a per-request cap')
})

t.test('the default cap is a few MiB and answers under it pass', async (t) => {
  t.equal(DEFAULT_MAX_RESPONSE_BYTES, 4 * 1024 * 1024)
  const body = JSON.stringify({ data: 'x'.repeat(3 * 1024 * 1024) })
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(body)
  })
  t.teardown(s.close)
  const c = client()
  t.teardown(() => c.close())
  const res = await c.request(s.base, '/big')
  t.equal(res.bytes, body.length, 'read whole')
  t.equal((res.json as { data: string }).data.length, 3 * 1024 * 1024, 'the JSON parsed from all of it')
  // what a check keeps of a body this large is its beginning (MAX_TEXT_KEPT)
  t.ok(res.textCut && res.text.length < 20 * 1024, 'its text kept: the first 16 KiB')
  t.throws(() => client({ maxResponseBytes: 0 }), RangeError)
})

t.test('a body is read whole into one buffer, its length announced or not, sent in pieces or at once', async (t) => {
  // (one buffer of the announced length, else grown by doubling: lib/http.ts readCapped)
  const text = JSON.stringify({ data: Array.from({ length: 20_000 }, (_, i) => `é${i}`) })
  const bytes = Buffer.from(text)
  const s = await serve((req, res) => {
    const announced = req.url === '/announced'
    res.writeHead(200, { 'content-type': 'application/json', ...(announced ? { 'content-length': String(bytes.length) } : {}) })
    // in pieces of 1,000 bytes, cutting through the two-byte characters
    for (let at = 0; at < bytes.length; at += 1000) res.write(bytes.subarray(at, at + 1000))
    res.end()
  })
  t.teardown(s.close)
  const c = client()
  t.teardown(() => c.close())
  for (const path of ['/announced', '/chunked']) {
    const res = await c.request(s.base, path)
    t.equal(res.bytes, bytes.length, `${path}: every byte counted`)
    t.same(res.json, JSON.parse(text), `${path}: the same JSON`)
    t.equal(res.text, text, `${path}: the same text`)
  }
  // a body past the cap in a stream of unannounced length still stops at the cap
  const capped = client({ maxResponseBytes: 100_000 })
  t.teardown(() => capped.close())
  await t.rejects(capped.request(s.base, '/chunked'), ResponseTooLarge)
})

t.test('budget, rate and meter', async (t) => {
  const s = await serve((req, res) => {
    const slow = req.url?.startsWith('/slow')
    setTimeout(
      () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{}')
      },
      slow ? 120 : 0,
    )
  })
  t.teardown(s.close)
  const seen: RequestRecord[] = []
  const c = client({ maxRequests: 4, onRequest: (r) => seen.push(r) })
  t.teardown(() => c.close())
  await c.request(s.base, '/api/admin/v1/users/01H8ZK3ZJ9R6Y7W8X9V0A1B2C3')
  await c.request(s.base, '/api/admin/v1/users/01H8ZK3ZJ9R6Y7W8X9V0A1B2C4')
  await c.request(s.base, '/slow/_synapse/admin/v1/event_reports/17?from=3')
  await c.request(`${s.base}/other`, '/x')
  const spent = await c.request(s.base, `/api/admin/v1/users?access_token=${SECRET}`).catch((e) => e)
  t.type(spent, BudgetSpent)
  t.equal(spent.kind, 'budget')
  t.equal(spent.message, `request budget of 4 spent at GET ${s.base}/api/admin/v1/users?access_token=[REDACTED]: not sent`)
  t.equal(spent.request, `GET ${s.base}/api/admin/v1/users?access_token=[REDACTED]`)
  const st = c.stats()
  t.equal(st.requests, 4)
  t.same(Object.fromEntries(Object.entries(st.byBase).map(([k, v]) => [k, v.requests])), { [s.base]: 3, [`${s.base}/other`]: 1 })
  t.same(st.endpoints.map((e) => [e.endpoint, e.count]).sort(), [
    ['GET /api/admin/v1/users/{id}', 2],
    ['GET /other/x', 1],
    ['GET /slow/_synapse/admin/v1/event_reports/{id}', 1],
  ])
  t.equal(c.slowest(1)[0]!.endpoint, 'GET /slow/_synapse/admin/v1/event_reports/{id}', 'the slowest endpoint first')
  t.ok(c.slowest(1)[0]!.maxMs >= 100)
  t.equal(seen.length, 4)
  t.match(seen[2], { method: 'GET', base: s.base, status: 200, bytes: 2, endpoint: 'GET /slow/_synapse/admin/v1/event_reports/{id}' })
  t.equal(endpointOf('GET', 'http://h/u/%40alice%3Aexample.org/x'), 'GET /u/{id}/x', 'a Matrix id is an id')
  t.equal(
    endpointOf('GET', 'http://h/api/admin/v1/users/by-username/alice-1'),
    'GET /api/admin/v1/users/by-username/{username}',
    'a user name in a by-username path is an id',
  )

  const paced = client({ requestsPerSecond: 20 })
  t.teardown(() => paced.close())
  const started = performance.now()
  await Promise.all(Array.from({ length: 6 }, () => paced.request(s.base, '/fast')))
  const took = performance.now() - started
  t.ok(took >= 240, `6 requests at 20/s take at least 250 ms (took ${took.toFixed(0)} ms)`)
  t.ok(took < 2000)
})

t.test('an abort signal ends a request as aborted', async (t) => {
  const s = await serve(() => undefined)
  t.teardown(s.close)
  const c = client({ requestTimeoutMs: 5000 })
  t.teardown(() => c.destroy())
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 50)
  const e = await c.request(s.base, '/hang', { signal: ac.signal }).catch((x) => x)
  t.type(e, HttpError)
  t.equal(e.kind, 'aborted')
  t.match(e.message, /: aborted$/)
})
