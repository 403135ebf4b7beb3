// The JavaScript requester table stays linear on a hostile log: requesters that share all but a
// few characters (the ones a hash over a few positions would have read) cost a few probes each,
// counted rather than timed.
import t from 'tap'
import { KeyIndex, RequesterTable, hashOf } from '../../../scripts/audit-log/key-index.ts'

// Same length, same middle and end; only the first six characters differ.
const SUFFIX = 'x'.repeat(20) + '(01JZ8Y9F3QW2ERTYUIOPASDFGH)'
const hostile = (i: number) => `user:${i.toString(36).padStart(6, '0')}${SUFFIX}`

function probesFor(n: number): { probes: number; table: KeyIndex } {
  const table = new RequesterTable()
  for (let i = 0; i < n; i++) table.index(hostile(i))
  // Each key again: the lookups of a log that repeats its requesters.
  for (let i = 0; i < n; i++) table.index(hostile(i))
  return { probes: table.probes, table }
}

t.test('requesters sharing all but a prefix: a few probes per lookup, growing linearly', async (t) => {
  const small = probesFor(10_000)
  const big = probesFor(40_000)
  t.equal(small.table.keys.length, 10_000, 'every requester kept apart')
  t.equal(big.table.keys.length, 40_000, 'every requester kept apart')
  const perLookupSmall = small.probes / 20_000
  const perLookupBig = big.probes / 80_000
  // Linear probing at a load of at most one half averages under 2.5 probes on a miss.
  t.ok(perLookupSmall < 4, `${perLookupSmall.toFixed(2)} probes per lookup at 10,000 requesters`)
  t.ok(perLookupBig < 4, `${perLookupBig.toFixed(2)} probes per lookup at 40,000 requesters`)
  // Four times the keys, about four times the probes (quadratic would be sixteen).
  const ratio = big.probes / small.probes
  t.ok(ratio > 3 && ratio < 5.5, `40,000 vs 10,000 requesters: ${ratio.toFixed(2)}× the probes`)
})

t.test('the same key gives its index back; different keys of one length hash apart', async (t) => {
  const table = new KeyIndex()
  const a = table.index('user:01JZ8Y9F3QW2ERTYUIOPASDFGH(alice)')
  const b = table.index('user:01JZ8Y9F3QW2ERTYUIOPASDFGH(alicf)')
  t.not(a, b)
  // A slice of a bigger text is the same key as the flat string.
  const text = 'xx user:01JZ8Y9F3QW2ERTYUIOPASDFGH(alice) yy'
  t.equal(table.index(text.slice(3, text.length - 3)), a)
  t.equal(table.index(''), 2, 'the empty key is a key')
  t.equal(table.index(''), 2)
  const seen = new Set<number>()
  for (let i = 0; i < 1000; i++) seen.add(hashOf(hostile(i)))
  t.ok(seen.size > 990, `${seen.size} distinct hashes of 1,000 hostile keys`)
})
