// The seed's ULID generator (mock/seed/mas/random.ts) must give ulidx's monotonic ids draw for draw:
// the seeded worlds were made with ulidx, and the same seed must keep giving the same ids.
import t from 'tap'
import { monotonicFactory } from 'ulidx'
import { monotonicUlid } from '../../../mock/seed/mas/random.ts'
import { seededRandom } from '../../../mock/seed/random.ts'

t.test('same ids as ulidx for the same PRNG, same-millisecond and earlier times included', async (t) => {
  const ours = monotonicUlid(seededRandom(42, 7))
  const theirs = monotonicFactory(seededRandom(42, 7))
  const times: number[] = []
  let ms = 1_700_000_000_000
  for (let i = 0; i < 20_000; i++) {
    const r = i % 7
    ms += r === 0 ? 0 : r === 1 ? -3 : r * 13
    times.push(ms)
  }
  let differ = 0
  let firstDiff = ''
  for (const at of times) {
    const a = ours(at)
    const b = theirs(at)
    if (a !== b && differ++ === 0) firstDiff = `${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`
  }
  t.equal(differ, 0, `all ${times.length} ids equal${firstDiff ? `; first difference ${firstDiff}` : ''}`)
})

t.test('a carry through the random part, as ulidx increments it', async (t) => {
  // random parts of `0ZZZZZZZZZZZZZZY`: characters are drawn last-first
  const draws = () => {
    let n = 0
    return () => {
      const k = n++ % 16
      return k === 0 ? 30.5 / 32 : k === 15 ? 0.5 / 32 : 31.5 / 32
    }
  }
  const ours = monotonicUlid(draws())
  const theirs = monotonicFactory(draws())
  const got = [ours(5), ours(5), ours(5), ours(4)]
  t.same(got, [theirs(5), theirs(5), theirs(5), theirs(4)], JSON.stringify(got))
  t.match(got[2]!, /10{15}$/, 'the carry ran through the random part')
})
