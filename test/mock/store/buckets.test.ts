// The bucket index keeps a bucket of one item as the item itself (mock/store/ordered-indexes.ts):
// every way into and out of that form gives the same lists, sizes and pages as arrays did.
import t from 'tap'
import { OrderedCollection } from '../../../mock/store/ordered.ts'

interface Item {
  id: string
  tags: string[]
}

const make = () => new OrderedCollection<Item, 'tag'>({ indexes: { tag: { keys: (i) => i.tags } } })
const ids = (c: OrderedCollection<Item, 'tag'>, tag: string) =>
  c.page({ in: [{ index: 'tag', keys: [tag] }] }, 'forward', 100).items.map((i) => i.id)

t.test('one item, two, back to one, none', async (t) => {
  const c = make()
  const b: Item = { id: 'B', tags: ['x'] }
  c.insert(b)
  t.same([c.bucketSize('tag', 'x'), c.bucketLast('tag', 'x')?.id, ids(c, 'x')], [1, 'B', ['B']], 'a bucket of one')
  const a: Item = { id: 'A', tags: ['x'] }
  c.insert(a)
  t.same([c.bucketSize('tag', 'x'), c.bucketLast('tag', 'x')?.id, ids(c, 'x')], [2, 'B', ['A', 'B']], 'an older item goes first')
  c.update(b, (i) => (i.tags = ['y']))
  t.same([c.bucketSize('tag', 'x'), ids(c, 'x'), ids(c, 'y')], [1, ['A'], ['B']], 'moved out: one left, one in a new bucket')
  c.update(a, (i) => (i.tags = []))
  t.same([c.bucketSize('tag', 'x'), c.bucketLast('tag', 'x'), ids(c, 'x')], [0, undefined, []], 'emptied')
  t.equal(c.count({ in: [{ index: 'tag', keys: ['x', 'y'] }] }).count, 1, 'a union over an empty and a one-item bucket')
})

t.test('a load after a load: one-item buckets grow, new keys keep their first-seen order', async (t) => {
  const c = make()
  c.load([
    { id: 'A', tags: ['x', 'solo'] },
    { id: 'B', tags: ['y'] },
    { id: 'C', tags: ['y'] },
  ])
  t.same([ids(c, 'x'), ids(c, 'solo'), ids(c, 'y')], [['A'], ['A'], ['B', 'C']])
  c.load([
    { id: 'D', tags: ['x', 'z'] },
    { id: 'E', tags: ['y', 'x'] },
  ])
  t.same([ids(c, 'x'), ids(c, 'solo'), ids(c, 'y'), ids(c, 'z')], [['A', 'D', 'E'], ['A'], ['B', 'C', 'E'], ['D']])
  t.same([c.bucketSize('tag', 'x'), c.bucketSize('tag', 'z'), c.bucketLast('tag', 'y')?.id], [3, 1, 'E'], 'sizes and the newest item')
  t.same(
    c.page({ in: [{ index: 'tag', keys: ['z', 'solo'] }] }, 'backward', 10).items.map((i) => i.id),
    ['A', 'D'],
    'a union of two one-item buckets, read backwards',
  )
})
