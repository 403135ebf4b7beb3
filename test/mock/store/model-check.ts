// The checking side of the store's model-based tests: each family's listings, counts and page
// boundaries through the mock's HTTP API against a brute-force filter of the full data (./model.ts).
// Not a test file (tap lists it as "no tests found").
import fc from 'fast-check'
import { API, type TestMock } from '../admin/helpers.ts'
import { bruteForce, type Family, type Filter } from './model.ts'

/** walks one filtered listing in one direction; returns a description of the first disagreement, or '' */
async function walkOne(
  tm: TestMock,
  base: string,
  size: number,
  expected: readonly string[],
  dir: 'forward' | 'backward',
): Promise<string> {
  const [first, cursorKey] = dir === 'forward' ? ['first', 'after'] : ['last', 'before']
  const seen: string[] = []
  for (let cursor: string | undefined, n = 0; n <= expected.length + 1; n++) {
    const r = await tm.get(`${base}page[${first}]=${size}${cursor ? `&page[${cursorKey}]=${cursor}` : ''}`)
    if (r.status !== 200) return `${r.status} on ${base}: ${r.text}`
    const ids: string[] = r.body.data.map((d: { id: string }) => d.id)
    if (r.body.meta.count !== expected.length) return `${dir} page ${n}: meta.count ${r.body.meta.count}, brute force ${expected.length}`
    if (ids.length > size) return `${dir} page ${n} holds ${ids.length} > ${size}`
    if (dir === 'forward') seen.push(...ids)
    else seen.unshift(...ids)
    if (ids.length < size || seen.length >= expected.length) break
    cursor = dir === 'forward' ? ids[ids.length - 1] : ids[0]
  }
  return seen.join() === expected.join() ? '' : `${dir} walk ${JSON.stringify(seen)} != brute force ${JSON.stringify(expected)}`
}

/** walks one filtered listing both ways; returns a description of the first disagreement, or '' */
async function walk(tm: TestMock, path: string, filters: readonly Filter[], size: number, expected: readonly string[]): Promise<string> {
  const q = filters.map((f) => f.pair).join('&')
  const base = `${API}/${path}?${q}${q ? '&' : ''}`
  return (await walkOne(tm, base, size, expected, 'forward')) || walkOne(tm, base, size, expected, 'backward')
}

/** checks every family's filters alone (counts) and one drawn combination (both walks); '' when all agree */
export async function check(tm: TestMock, families: readonly Family[], draws: readonly number[]): Promise<string> {
  let d = 0
  const pick = (n: number) => (n <= 0 ? 0 : draws[d++ % draws.length]! % n)
  const mas = tm.world().mas
  for (const family of families) {
    const all = family.filters(mas, pick)
    const items = family.items(mas)
    for (const f of all) {
      const r = await tm.get(`${API}/${family.name}?${f.pair}&count=only`)
      const want = bruteForce(items, [f]).length
      if (r.status !== 200 || r.body.meta.count !== want)
        return `${family.name} ${f.pair}: count ${r.status} ${r.body?.meta?.count}, brute force ${want}`
    }
    const combo: Filter[] = []
    for (let n = pick(4); n > 0; n--) {
      const f = all[pick(all.length)]!
      // a filter key may appear once (the service refuses a repeated one)
      if (!combo.some((c) => c.pair.split('=')[0] === f.pair.split('=')[0])) combo.push(f)
    }
    const size = 1 + pick(6)
    const problem = await walk(tm, family.name, combo, size, bruteForce(items, combo))
    if (problem) return `${family.name} [${combo.map((f) => f.pair).join(' & ')}] size ${size}: ${problem}`
  }
  return ''
}

export interface Sequences<Op> {
  families: readonly Family[]
  /** one write through the API: its status (0 when there was nothing to write to) */
  apply: (tm: TestMock, op: Op) => Promise<number>
  op: fc.Arbitrary<Op>
  runs: number
  minSteps: number
  maxSteps: number
  seed: number
}

/**
 * fast-check over drawn sequences of writes: each run starts from a reset world, checked first;
 * after every write (never a 5xx) every family is checked again. Returns what ran, for the report.
 */
export async function runSequences<Op>(
  tm: TestMock,
  s: Sequences<Op>,
): Promise<{ runs: number; steps: number; statuses: Map<number, number>; seconds: number }> {
  const stats = { runs: 0, steps: 0, statuses: new Map<number, number>(), seconds: 0 }
  const started = Date.now()
  /** a step: one write, then the draws that choose the checks' filters, combination and page size */
  const step = fc.record({ op: s.op, draws: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }) })
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: s.minSteps, maxLength: s.maxSteps }), async (steps) => {
      stats.runs++
      const reset = await tm.req('POST', '/_mock/reset')
      if (reset.status !== 200) throw new Error(`reset: ${reset.status}`)
      const first = await check(tm, s.families, steps[0]!.draws)
      if (first) throw new Error(`seeded world: ${first}`)
      for (const [n, { op, draws }] of steps.entries()) {
        const status = await s.apply(tm, op)
        stats.steps++
        stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1)
        if (status >= 500) throw new Error(`after step ${n} (${JSON.stringify(op)}): ${status}`)
        const problem = await check(tm, s.families, draws)
        if (problem) throw new Error(`after step ${n} (${JSON.stringify(op)} → ${status}): ${problem}`)
      }
    }),
    // no shrinking by default: each shrink step replays a sequence over HTTP (STORE_PROPERTY_SHRINK=1 to shrink)
    { numRuns: s.runs, seed: s.seed, endOnFailure: process.env.STORE_PROPERTY_SHRINK !== '1' },
  )
  stats.seconds = (Date.now() - started) / 1000
  return stats
}
