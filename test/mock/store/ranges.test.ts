// The range index's load sorts by the bits of each value (mock/store/ordered-indexes.ts): the same
// order as a comparison sort by (value, id), for every kind of value a range may hold.
import t from 'tap'
import { RangeIndex } from '../../../mock/store/ordered-indexes.ts'

interface Item {
  id: string
  v: number | null
}

const byComparison = (items: Item[]) =>
  items
    .filter((i) => i.v !== null)
    .sort((a, b) => (a.v! !== b.v! ? a.v! - b.v! : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((i) => i.id)

const rebuilt = (items: Item[]) => {
  const r = new RangeIndex<Item>({ value: (i) => i.v })
  r.rebuild(items)
  return r
}

const idOf = (i: number) => `I${String(i).padStart(6, '0')}`

t.test('values of every sign and size, ties, nulls: the order of a comparison sort by (value, id)', async (t) => {
  const special = [
    0,
    -0,
    1,
    -1,
    0.5,
    -0.5,
    2 ** 52,
    -(2 ** 52),
    1767603060000000,
    1751000000000000,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    1e300,
    -1e300,
    5e-324,
  ]
  let x = 12345
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31), x / 2 ** 31)
  const items: Item[] = []
  for (let i = 0; i < 5000; i++) {
    const roll = rnd()
    const v =
      roll < 0.1
        ? null
        : roll < 0.3
          ? special[Math.floor(rnd() * special.length)]!
          : roll < 0.6
            ? 1.7e15 + Math.floor(rnd() * 1.5e13)
            : Math.floor(rnd() * 20) - 10
    items.push({ id: idOf(i), v })
  }
  const r = rebuilt(items)
  const want = byComparison(items)
  t.equal(r.sorted.length, want.length, 'every item with a value, none without')
  t.same(
    r.sorted.map((i) => i.id),
    want,
    'same order',
  )
  t.same(
    r.values,
    r.sorted.map((i) => i.v),
    "each entry's value beside it",
  )
})

t.test('no items, one, all equal, all null', async (t) => {
  t.same(rebuilt([]).sorted, [])
  t.same(rebuilt([{ id: 'A', v: 3 }]).values, [3])
  const same = Array.from({ length: 100 }, (_, i) => ({ id: idOf(i), v: 7 }))
  t.same(
    rebuilt(same).sorted.map((i) => i.id),
    same.map((i) => i.id),
    'equal values keep the id order',
  )
  t.same(
    rebuilt([
      { id: 'A', v: null },
      { id: 'B', v: null },
    ]).sorted,
    [],
  )
})

t.test('after a rebuild, add and remove keep the order', async (t) => {
  const items = Array.from({ length: 50 }, (_, i) => ({ id: idOf(i), v: (i * 37) % 11 }))
  const r = rebuilt(items)
  const extra = { id: idOf(25) + 'x', v: 4 }
  r.add(extra)
  t.same(
    r.sorted.map((i) => i.id),
    byComparison([...items, extra]),
  )
  r.remove(items[3]!, items[3]!.v)
  t.same(
    r.sorted.map((i) => i.id),
    byComparison([...items.filter((_, i) => i !== 3), extra]),
  )
})
