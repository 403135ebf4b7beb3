// lib/redact.ts: the one redaction rule (4+ characters, longest first, `[REDACTED]`, token shapes unseen).
import t from 'tap'
import { MIN_SECRET_LENGTH, REDACTED, Redactor, redact } from '../../lib/redact.ts'
import * as http from '../../lib/http.ts'

t.test('the client redacts with the same function', async (t) => {
  t.equal(http.redact, redact)
  t.equal(http.REDACTED, REDACTED)
  t.equal(REDACTED, '[REDACTED]')
  t.equal(MIN_SECRET_LENGTH, 4)
})

t.test('known secrets: 4 characters and more, longest first, URL-encoded too', async (t) => {
  t.equal(redact('pw abcd and abc', ['abcd', 'abc']), `pw ${REDACTED} and abc`, 'a 3-character value is not treated as a secret')
  t.equal(redact('secret-long and secret', ['secret', 'secret-long']), `${REDACTED} and ${REDACTED}`, 'the longer secret is replaced whole')
  t.equal(redact(`q=${encodeURIComponent('a b/c+d')}`, ['a b/c+d']), `q=${REDACTED}`)
  const r = new Redactor(['short6', undefined, 'ab'])
  r.add('supersecretvalue')
  t.equal(r.apply('a supersecretvalue b short6 ab'), `a ${REDACTED} b ${REDACTED} ab`)
  t.same(r.list().sort(), ['short6', 'supersecretvalue'])
})

t.test('unknown tokens by shape, header and parameter', async (t) => {
  t.equal(redact('Bearer mat_abcdefghijABCDEFGHIJ0123456789_abc123'), `Bearer ${REDACTED}`)
  t.equal(redact('mpt_FM44zJN5qePGMLvvMXC4Ds1A3lCWc6_bJ9Wj1 and syt_abc'), `${REDACTED} and syt_abc`, 'too short to be a token')
  t.equal(redact('GET /a?access_token=zzzzzz&c=2'), `GET /a?access_token=${REDACTED}&c=2`)
  t.equal(redact('authorization: Basic dXNlcjpwYXNzd29yZA=='), `authorization: Basic ${REDACTED}`)
  t.equal(redact('basic configuration'), 'basic configuration', 'ordinary words stay')
})

t.test('redacting JSON-encoded text keeps it valid JSON (a value stops before a backslash)', async (t) => {
  const text = JSON.stringify({
    curl: 'curl -H "Authorization: Bearer mat_abcdefghijklmnop" http://127.0.0.1/x',
    variable: 'curl -H "Authorization: Bearer $MAS_ADMIN_TOKEN" http://127.0.0.1/x',
    query: 'GET /x?access_token=abcdefgh"y',
  })
  const out = redact(text, [])
  t.doesNotThrow(() => JSON.parse(out), 'still JSON')
  t.notMatch(out, /mat_abcdefghijklmnop|abcdefgh"/, 'the values are gone')
  t.match(out, /Bearer \$MAS_ADMIN_TOKEN/, 'a shell variable naming the token stays')
})

t.test('the quick pass: text with none of the patterns is returned as it is, any case of them is still scanned', async (t) => {
  const plain = 'GET /api/admin/v1/users?page[first]=10 → 200 in 3 ms'
  t.equal(redact(plain, ['zzzz']), plain)
  t.equal(redact('ACCESS_TOKEN=abcdefgh'), `ACCESS_TOKEN=${REDACTED}`)
  t.equal(redact('AUTHORIZATION = BEARER abcdefgh'), `AUTHORIZATION = BEARER ${REDACTED}`)
  t.equal(redact('bEaReR abcdefgh'), `bEaReR ${REDACTED}`)
  t.equal(redact('x syr_abcdefgh12 y'), `x ${REDACTED} y`)
  // the patterns are looked for after the known secrets are replaced, as before
  t.equal(redact('Bearer abcdefgh-known', ['abcdefgh-known']), `Bearer ${REDACTED}`)
})
