// Bad input on the auth service side: each gets a clear error with the right status, never a 5xx,
// never a crash, never a half-applied write. Also the request log of all of it, parsed back.
import t from 'tap'
import { API, startTestMock, titles } from './helpers.ts'

const tm = await startTestMock(t, { seed: 4, sessions: 90, maxBody: 4096 })
const mas = tm.world().mas

t.test('routing misses', async (t) => {
  const unknown = await tm.get(`${API}/no-such-thing`)
  t.equal(unknown.status, 404)
  t.match(unknown.headers.get('content-type'), /^text\/html/)
  const method = await tm.req('DELETE', `${API}/compat-sessions`, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.equal(method.status, 405)
  t.equal(method.text, '', 'axum answers 405 with an empty body')
  t.match(method.headers.get('allow'), /GET/)
  const put = await tm.req('PUT', `${API}/policy-data/latest`, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.equal(put.status, 405)
  const finishGet = await tm.get(`${API}/compat-sessions/${mas.compat.all()[0]!.id}/finish`)
  t.equal(finishGet.status, 405, 'finish is POST only')
})

t.test('bodies', async (t) => {
  const size = mas.policyData.size
  const big = await tm.post(`${API}/policy-data`, undefined, {
    raw: JSON.stringify({ data: { x: 'y'.repeat(5000) } }),
    headers: { 'content-type': 'application/json' },
  })
  t.equal(big.status, 413)
  t.equal(mas.policyData.size, size, 'nothing stored')
  const deep = await tm.post(`${API}/policy-data`, undefined, {
    raw: '{"data":' + '['.repeat(1000) + ']'.repeat(1000) + '}',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(deep.status, 400)
  t.match(deep.text, /recursion limit exceeded/)
  const binary = await tm.post(`${API}/policy-data`, undefined, {
    raw: Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
    headers: { 'content-type': 'application/json' },
  })
  t.equal(binary.status, 400)
  const nested = await tm.post(`${API}/policy-data`, { data: { a: [1, { b: null }], é: '\u2603' } })
  t.equal(nested.status, 201)
  t.same(nested.body.data.attributes.data, { a: [1, { b: null }], é: '\u2603' })
  const dup = await tm.post(`${API}/personal-sessions`, undefined, {
    raw: '{"scope":"openid","scope":"openid"}',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(dup.status, 422)
  t.match(dup.text, /duplicate field `scope`/)
  const proto = await tm.post(`${API}/policy-data`, undefined, {
    raw: '{"data":{"__proto__":{"admin":true}}}',
    headers: { 'content-type': 'application/json' },
  })
  t.equal(proto.status, 201, 'a __proto__ key is plain data')
  t.same(Object.keys(proto.body.data.attributes.data), ['__proto__'])
})

t.test('query strings', async (t) => {
  const path = `${API}/compat-sessions`
  const many = Array.from({ length: 500 }, (_, i) => `filter[scope]=${i}`).join('&')
  const r1 = await tm.get(`${path}?${many}`)
  t.equal(r1.status, 200, 'unknown keys, however many, are ignored')
  const repeated = await tm.get(`${API}/oauth2-sessions?${Array.from({ length: 300 }, () => 'filter[scope]=openid').join('&')}`)
  t.equal(repeated.status, 200, 'a repeated list filter value is one condition')
  const long = await tm.get(`${path}?x=${'a'.repeat(20_000)}`)
  t.ok(long.status === 414 || long.status === 431, `an oversized query string is refused (${long.status})`)
  for (const q of [
    '%',
    '%zz',
    'page[first]=%FF',
    '&&&',
    '=',
    'page%5Bfirst%5D=2',
    'page[first]=1;2',
    `page[after]=${'0'.repeat(26)}%00`,
    'filter[user]=%F0%9F%92%A9',
  ]) {
    const r = await tm.get(`${path}?${q}`)
    t.ok(r.status < 500, `${q}: ${r.status}`)
  }
  const encoded = await tm.get(`${path}?page%5Bfirst%5D=2`)
  t.equal(encoded.body.data.length, 2, 'percent-encoded keys are decoded')
  const weird = await tm.get(`${path}/%E0%A4%A`)
  t.ok(weird.status < 500, 'a bad percent-encoding in the path')
})

t.test('never a 5xx, whatever is sent', async (t) => {
  const ids = [mas.compat.all()[0]!.id, mas.oauth2.all()[0]!.id, mas.personal.all()[0]!.id, 'x', '', '%00', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ']
  const paths = [
    '/compat-sessions/ID',
    '/compat-sessions/ID/finish',
    '/oauth2-sessions/ID',
    '/oauth2-sessions/ID/finish',
    '/personal-sessions/ID',
    '/personal-sessions/ID/revoke',
    '/personal-sessions/ID/regenerate',
    '/policy-data/ID',
    '/users/ID',
  ]
  const bodies = [
    undefined,
    '',
    '{}',
    'null',
    '[]',
    '"x"',
    '{"expires_in":1e99}',
    '{"expires_in":"1"}',
    '{"data":null}',
    '{"actor_user_id":null}',
  ]
  let n = 0
  for (const p of paths) {
    for (const id of ids) {
      for (const body of bodies) {
        for (const method of ['GET', 'POST']) {
          const headers: Record<string, string> = { authorization: `Bearer ${tm.admin}` }
          if (body !== undefined) headers['content-type'] = 'application/json'
          const r = await tm.req(method, API + p.replace('ID', id), { headers, body: method === 'POST' ? body : undefined })
          if (r.status >= 500) t.fail(`${method} ${p} ${id} ${body}: ${r.status} ${r.text}`)
          n++
        }
      }
    }
  }
  t.ok(n > 1000, `${n} requests without a 5xx`)
})

t.test('the log line of each response', async (t) => {
  const { responses, events } = await tm.log()
  t.ok(responses.length > 1000)
  for (const l of responses) {
    if (l.status >= 500) t.fail(`5xx logged: ${l.method} ${l.path}`)
    t.notOk(l.path.includes('?'), 'no query string in the request line')
    t.equal(l.level, l.status >= 400 ? 'WARN' : 'INFO')
    t.equal(l.format, 'v1.20')
    t.equal(l.requestId.method, l.method)
    t.equal(l.clientAddress, '127.0.0.1')
  }
  const counters = responses.map((l) => l.requestId.counter)
  t.equal(new Set(counters).size, counters.length, 'request ids are unique')
  for (const e of events) t.ok(e.requestId && counters.includes(e.requestId.counter), 'every event line belongs to a request')
  const four04 = responses.find((l) => l.path === `${API}/no-such-thing`)!
  t.match(four04, { status: 404, reason: 'Not Found', method: 'GET', httpVersion: '1.1' })
  t.equal(four04.requester, undefined, 'routing misses have no requester')
  const created = responses.find((l) => l.status === 201)!
  t.same(created.requester, { kind: 'oauth2-client', id: tm.mock.options.adminClientId })
  t.equal(created.reason, 'Created')
  const tooBig = responses.find((l) => l.status === 413)!
  t.equal(tooBig.reason, 'Payload Too Large')
  t.equal(titles({}).length, 0)
})
