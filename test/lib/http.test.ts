// lib/http.ts: read-only enforcement, bounded time, redaction.
import t from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HttpClient, HttpError, WritesNotAllowed, redact, encodeQuery, REDACTED } from '../../lib/http.ts'
import { refusingPort, silentServer } from '../scripts/run/helpers.ts'

const SECRET = 'mat_abcdefghijklmnopqrstuvwxyz0123_ABCDEF'

function client(over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  return new HttpClient({ allowWrites: false, connectTimeoutMs: 2000, requestTimeoutMs: 1500, userAgent: 'test', secrets: [SECRET], ...over })
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
  t.equal(encodeQuery({ 'filter[client]': ['A', 'B'], 'page[first]': 3, skip: undefined }), 'filter[client]=A&filter[client]=B&page[first]=3')
  t.equal(encodeQuery([['filter[scope]', 'not a valid scope']]), 'filter[scope]=not%20a%20valid%20scope')
})
