// The snapshot's bound at the sizes the proof names: a mock seeded with 1,000,000 sessions (100,000 event
// reports) gives a snapshot as small as one of 1,000 sessions (100 reports): the same probes, the same
// number of requests, every probe answered, the file size within 3%. How fast, as a ratio of the two
// times, is measured by bench/snapshot.ts (a timed assertion would fail on a loaded machine). Seeding the
// large mock takes about a minute and 1.3 GB here.
import t from 'tap'
import { snapshotOf } from './helpers.ts'

t.test('1,000,000 sessions: the same requests and the same size as 1,000', async (t) => {
  const small = await snapshotOf({ sessions: 1_000, reports: 100 })
  t.equal(small.code, 0, small.stderr)
  const big = await snapshotOf({ sessions: 1_000_000, reports: 100_000 })
  t.equal(big.code, 0, big.stderr)
  t.same(Object.keys(big.snap.probes), Object.keys(small.snap.probes), 'the same probes')
  t.equal(big.snap.requests, small.snap.requests, `the same number of requests (${small.snap.requests})`)
  t.equal(Object.values(big.snap.probes).filter((p) => p.status === undefined).length, 0, 'every probe answered at 1,000,000 sessions')
  const ratio = big.text.length / small.text.length
  t.ok(Math.abs(ratio - 1) <= 0.03, `file size ${big.text.length} against ${small.text.length} bytes: ${ratio.toFixed(3)}×, within 3%`)
})
