// Large values in a check's comparisons (suites/lib/bounded.ts): compared in full, shown shortened, so
// that tap never formats a listing of megabytes a target sent.
import t from 'tap'
import { isLarge, shortened, SIZE_LIMIT } from '../../../suites/lib/bounded.ts'

t.test('isLarge: by the size of the value, looking at no more than about the limit', async (t) => {
  t.notOk(isLarge([]), 'an empty array')
  t.notOk(isLarge({ a: 'x'.repeat(1000), b: [1, 2, 3] }), 'a small object')
  t.ok(isLarge('x'.repeat(SIZE_LIMIT + 1)), 'a long string')
  t.ok(isLarge(Array.from({ length: 10_000 }, (_, i) => ({ id: i, reason: 'r'.repeat(20) }))), 'a long array of small items')
  t.ok(isLarge({ deep: { deeper: Array.from({ length: 5000 }, () => 'abcdefghijklmnop') } }), 'a large value nested')
  // a million-item array: the answer comes from its first part only
  const huge = new Array(1_000_000).fill('x')
  t.ok(isLarge(huge), 'a million items')
})

t.test('shortened: strings, arrays and objects cut, saying what was left out', async (t) => {
  const s = shortened('y'.repeat(5000)) as string
  t.ok(s.length < 2200, 'a long string is cut')
  t.match(s, /… \(2952 more characters\)$/)
  const a = shortened(Array.from({ length: 100 }, (_, i) => i)) as unknown[]
  t.equal(a.length, 21, 'an array keeps 20 items and a note')
  t.equal(a[20], '… 80 more items (100 in all)')
  const o = shortened(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]))) as Record<string, unknown>
  t.equal(Object.keys(o).length, 41, 'an object keeps 40 keys and a note')
  t.equal(o['…'], '10 more keys (50 in all)')
  t.same(shortened({ a: [1, 'b', null] }), { a: [1, 'b', null] }, 'a small value is left as it is')
  let deep: unknown = 'end'
  for (let i = 0; i < 20; i++) deep = [deep]
  t.ok(JSON.stringify(shortened(deep)).length < 100, 'depth is bounded')
})
