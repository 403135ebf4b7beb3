// Unit tests of the area A store and its parsing helpers: the ordered collection against a brute
// force model, token format and checksum, policy-data merge, ULID/date/number parsing, timestamps.
import t from 'tap'
import { OrderedCollection, type Query } from '../../../mock/store/ordered.ts'
import { checkTokenFormat, generateToken, mergePolicyData, parseScope, tokenCrc } from '../../../mock/store/mas/index.ts'
import { parseDateTime, parseStruct, groupPairs, formatDateFilter, maxUlidAt, minUlidAt } from '../../../mock/admin/framework/query.ts'
import { parseUlid } from '../../../mock/mas-http/ulid.ts'
import { fmtTime } from '../../../mock/admin/framework/resource.ts'
import { parseJsonText, JsonSyntaxError } from '../../../mock/mas-http/body.ts'

interface Item {
  id: string
  user: string
  status: string
  tags: string
  v: number | null
}

function rng(seed: number) {
  let a = seed
  return () => {
    a = (a * 48271) % 2147483647
    return a / 2147483647
  }
}

t.test('ordered collection pages and counts match a brute-force model', async (t) => {
  const r = rng(7)
  const mk = (i: number): Item => ({
    id: String(100000 + i * 3).padStart(26, '0'),
    user: `u${Math.floor(r() * 7)}`,
    status: r() < 0.3 ? 'finished' : 'active',
    tags: ['a', 'b', 'c'].filter(() => r() < 0.5).join(' '),
    v: r() < 0.2 ? null : Math.floor(r() * 1000),
  })
  const items = Array.from({ length: 400 }, (_, i) => mk(i))
  const c = new OrderedCollection<Item, 'user' | 'status' | 'tag', 'v'>({
    indexes: {
      user: { keys: (i) => i.user },
      status: { keys: (i) => i.status },
      tag: { keys: (i) => (i.tags ? i.tags.split(' ') : null) },
    },
    ranges: { v: { value: (i) => i.v } },
  })
  c.load(items.slice(0, 300))
  for (const it of items.slice(300)) c.insert(it) // inserts after load
  // move some between buckets and ranges
  for (const it of items.filter((_, i) => i % 11 === 0))
    c.update(it, (x) => {
      x.status = x.status === 'active' ? 'finished' : 'active'
      x.v = x.v === null ? 5 : null
    })
  const queries: Query<Item, 'user' | 'status' | 'tag', 'v'>[] = [
    {},
    { in: [{ index: 'user', keys: ['u1'] }] },
    { in: [{ index: 'user', keys: ['u1', 'u3', 'nobody'] }] },
    {
      in: [
        { index: 'user', keys: ['u2'] },
        { index: 'status', keys: ['active'] },
      ],
    },
    {
      in: [
        { index: 'tag', keys: ['a'] },
        { index: 'tag', keys: ['b'] },
      ],
    },
    { in: [{ index: 'tag', keys: ['a', 'c'] }] },
    { range: [{ index: 'v', gt: 100, lt: 130 }] },
    { range: [{ index: 'v', lt: 500 }], in: [{ index: 'status', keys: ['finished'] }] },
    { after: { id: items[50]!.id, inclusive: false }, before: { id: items[350]!.id, inclusive: true } },
    { in: [{ index: 'user', keys: ['u4'] }], after: { id: items[100]!.id, inclusive: true } },
    { where: (i) => i.id.endsWith('3') },
  ]
  const has = (q: Query<Item, 'user' | 'status' | 'tag', 'v'>, i: Item) => {
    if (q.after && (i.id < q.after.id || (!q.after.inclusive && i.id === q.after.id))) return false
    if (q.before && (i.id > q.before.id || (!q.before.inclusive && i.id === q.before.id))) return false
    for (const cond of q.in ?? []) {
      const own = cond.index === 'tag' ? (i.tags ? i.tags.split(' ') : []) : [cond.index === 'user' ? i.user : i.status]
      if (!cond.keys.some((k) => own.includes(k))) return false
    }
    for (const rg of q.range ?? [])
      if (i.v === null || (rg.gt !== undefined && !(i.v > rg.gt)) || (rg.lt !== undefined && !(i.v < rg.lt))) return false
    return q.where ? q.where(i) : true
  }
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : 1))
  for (const [n, q] of queries.entries()) {
    const expected = sorted.filter((i) => has(q, i)).map((i) => i.id)
    t.equal(c.count(q).count, expected.length, `count of query ${n}`)
    for (const size of [1, 7, 1000]) {
      const fwd = c.page(q, 'forward', size)
      t.same(
        fwd.items.map((i) => i.id),
        expected.slice(0, size),
        `first ${size} of query ${n}`,
      )
      t.equal(fwd.more, expected.length > size, `more after first ${size} of query ${n}`)
      const back = c.page(q, 'backward', size)
      t.same(
        back.items.map((i) => i.id),
        expected.slice(Math.max(0, expected.length - size)),
        `last ${size} of query ${n}`,
      )
      t.equal(back.more, expected.length > size, `more before last ${size} of query ${n}`)
    }
  }
  t.equal(c.get(items[17]!.id), items[17])
  t.equal(c.get('nope'), undefined)
  t.throws(() => c.insert(items[0]!), /duplicate/)
})

t.test('single-condition counts do not scan', async (t) => {
  const c = new OrderedCollection<{ id: string; k: string }, 'k'>({ indexes: { k: { keys: (i) => i.k } } })
  c.load(Array.from({ length: 1000 }, (_, i) => ({ id: String(i).padStart(26, '0'), k: i % 2 ? 'odd' : 'even' })))
  const r = c.count({ in: [{ index: 'k', keys: ['odd'] }], after: { id: String(100).padStart(26, '0'), inclusive: false } })
  t.equal(r.count, 450)
  t.equal(r.scanned, 0)
})

t.test('token format and checksum', async (t) => {
  for (const p of ['mat', 'mpt', 'mct'] as const) {
    const tok = generateToken(p)
    t.match(tok, new RegExp(`^${p}_[A-Za-z0-9]{30}_[A-Za-z0-9]{6}$`))
    t.ok(checkTokenFormat(tok).ok, `${p} token passes the format check`)
  }
  t.same(checkTokenFormat('nope'), { ok: false, error: 'invalid token format' })
  t.same(checkTokenFormat('xyz_' + 'a'.repeat(30) + '_000000'), { ok: false, error: 'unknown token prefix "xyz"' })
  const base = 'mat_' + 'b'.repeat(30)
  t.same(checkTokenFormat(`${base}_000000`), { ok: false, error: `invalid crc "000000", expected "${tokenCrc(base)}"` })
  t.same(checkTokenFormat('syt_anything'), { ok: true, type: 'compat-access' })
  t.equal(tokenCrc(base).length, 6)
})

t.test('policy data merge', async (t) => {
  t.same(mergePolicyData({ a: [1], b: { c: 1 } }, { a: [2], b: { d: 2 }, e: null }), {
    ok: true,
    value: { a: [1, 2], b: { c: 1, d: 2 }, e: null },
  })
  t.same(mergePolicyData({ s: 'x' }, 42), { ok: false, error: 'Cannot merge a number into a object' })
  t.same(mergePolicyData({ s: 'x' }, { s: 1 }), { ok: false, error: 'Cannot merge a number into a string' })
  t.same(mergePolicyData({ s: 'x' }, { s: null }), { ok: true, value: { s: null } })
  t.same(mergePolicyData({ s: null }, { s: [1] }), { ok: true, value: { s: [1] } })
})

t.test('scope parsing', async (t) => {
  t.same(parseScope('urn:mas:admin openid openid'), ['openid', 'urn:mas:admin'])
  t.equal(parseScope(''), null)
  t.equal(parseScope('a  b'), null)
  t.equal(parseScope('invalid\nscope'), null)
  t.equal(parseScope('a"b'), null)
})

t.test('ULID, number and date parsing', async (t) => {
  t.same(parseUlid('01fshn9ag0mzaa6s4af7ctv32e'), { ok: true, value: '01FSHN9AG0MZAA6S4AF7CTV32E' })
  t.same(parseUlid('not-a-ulid'), { ok: false, error: 'invalid length' })
  t.same(parseUlid('01FSHN9AG0MZAA6S4AF7CTV32I'), { ok: false, error: 'invalid character' })
  t.same(parseUlid('01FSHN9AG0MZAA6S4AF7CTV3É'), { ok: false, error: 'invalid length' })
  t.same(parseUlid('Z1FSHN9AG0MZAA6S4AF7CTV32E'), { ok: true, value: '71FSHN9AG0MZAA6S4AF7CTV32E' }, 'bits above 128 are dropped')
  t.equal(minUlidAt(0), '0'.repeat(26))
  t.equal(maxUlidAt(-5), '0'.repeat(10) + 'Z'.repeat(16))

  const ok = (s: string) => {
    const r = parseDateTime(s)
    return r.ok ? r.value.micros : r.error
  }
  t.equal(ok('2022-01-16T14:40:00Z'), Date.UTC(2022, 0, 16, 14, 40) * 1000)
  t.equal(ok('2022-01-16t14:40:00.123456z'), Date.UTC(2022, 0, 16, 14, 40) * 1000 + 123456)
  t.equal(ok('2022-01-16 15:40:00+01:00'), Date.UTC(2022, 0, 16, 14, 40) * 1000)
  t.equal(ok('2022-01-16T14:40:00-0130'), Date.UTC(2022, 0, 16, 16, 10) * 1000)
  t.equal(ok('0099-01-01T00:00:00Z'), new Date('0099-01-01T00:00:00Z').getTime() * 1000, 'two-digit years are not 19xx')
  t.equal(ok('2022-01-16'), 'premature end of input')
  t.equal(ok('2022-01-16T14:40:00'), 'premature end of input')
  t.equal(ok('yesterday'), 'input contains invalid characters')
  t.equal(ok('2022-01-16T14:40:00Zjunk'), 'trailing input')
  t.equal(ok('2022-13-16T14:40:00Z'), 'input is out of range')
  t.equal(ok('2021-02-29T00:00:00Z'), 'input is out of range')
  t.equal(formatDateFilter({ micros: Date.UTC(2022, 0, 16, 14, 40, 5, 999) * 1000 + 1 }), '2022-01-16T14:40:05Z')

  const groups = groupPairs(new URLSearchParams('a=1&b=&a=2&x=y&n=0&m=%2B7&big=99999999999999999999'))
  t.same(parseStruct(groups, { a: { kind: 'nonzero' } }), { ok: false, message: 'a: unsupported value' })
  t.same(parseStruct(groups, { b: { kind: 'ulid' } }), { ok: true, values: {} }, 'empty counts as absent')
  t.same(parseStruct(groups, { n: { kind: 'nonzero' } }), { ok: false, message: 'n: invalid value: integer `0`, expected a nonzero usize' })
  t.same(parseStruct(groups, { m: { kind: 'nonzero' } }), { ok: true, values: { m: { digits: '7', value: 7 } } })
  t.same(parseStruct(groups, { big: { kind: 'nonzero' } }), { ok: false, message: 'big: number too large to fit in target type' })
  t.same(parseStruct(groups, { x: { kind: 'enum', values: ['p', 'q', 'r'] } }), {
    ok: false,
    message: 'x: unknown variant `y`, expected one of `p`, `q`, `r`',
  })
  t.same(parseStruct(groups, { x: { kind: 'bool' } }), { ok: false, message: 'x: provided string was not `true` or `false`' })
  t.same(parseStruct(groupPairs(new URLSearchParams('l=01FSHN9AG0MZAA6S4AF7CTV32E&l=bad')), { l: { kind: 'ulid[]' } }), {
    ok: false,
    message: 'l[1]: invalid length',
  })
})

t.test('timestamps print fractions only when non-zero', async (t) => {
  const s = Date.UTC(2022, 0, 16, 14, 40) * 1000
  t.equal(fmtTime(s), '2022-01-16T14:40:00Z')
  t.equal(fmtTime(s + 123000), '2022-01-16T14:40:00.123Z')
  t.equal(fmtTime(s + 911578), '2022-01-16T14:40:00.911578Z')
  t.equal(fmtTime(s + 5), '2022-01-16T14:40:00.000005Z')
})

t.test('JSON syntax errors carry serde_json wording and positions', async (t) => {
  const err = (s: string) => {
    try {
      parseJsonText(s)
      return 'ok'
    } catch (e) {
      return e instanceof JsonSyntaxError ? `${e.message}@${e.offset}${e.eof ? 'eof' : ''}` : String(e)
    }
  }
  t.equal(err(''), 'EOF while parsing a value@0eof')
  t.equal(err('{'), 'EOF while parsing an object@1eof')
  t.equal(err('{"a":1,}'), 'trailing comma@7')
  t.equal(err('[1 2]'), 'expected `,` or `]`@3')
  t.equal(err('{"a" 1}'), 'expected `:`@5')
  t.equal(err('{1:2}'), 'key must be a string@1')
  t.equal(err('{"a":1}x'), 'trailing characters@7')
  t.equal(err('x'), 'expected value@0')
  t.equal(err('['.repeat(200)), 'recursion limit exceeded@128')
  t.equal(err('{"a":[1,{"b":null}],"c":"\\u00e9"}'), 'ok')
})
