// The checking side of the store's model-based tests: each family's listings, counts and page
// boundaries through the mock's HTTP API against a brute-force filter of the full data (./model.ts).
// Not a test file (tap lists it as "no tests found").
import { API, type TestMock } from '../admin/helpers.ts'
import { bruteForce, type Family, type Filter } from './model.ts'

/** walks one filtered listing both ways; returns a description of the first disagreement, or '' */
async function walk(tm: TestMock, path: string, filters: readonly Filter[], size: number, expected: readonly string[]): Promise<string> {
  const q = filters.map((f) => f.pair).join('&')
  const base = `${API}/${path}?${q}${q ? '&' : ''}`
  const forward: string[] = []
  for (let cursor: string | undefined, n = 0; n <= expected.length + 1; n++) {
    const r = await tm.get(`${base}page[first]=${size}${cursor ? `&page[after]=${cursor}` : ''}`)
    if (r.status !== 200) return `${r.status} on ${base}: ${r.text}`
    const ids: string[] = r.body.data.map((d: { id: string }) => d.id)
    if (r.body.meta.count !== expected.length) return `forward page ${n}: meta.count ${r.body.meta.count}, brute force ${expected.length}`
    if (ids.length > size) return `forward page ${n} holds ${ids.length} > ${size}`
    forward.push(...ids)
    if (ids.length < size || forward.length >= expected.length) break
    cursor = ids[ids.length - 1]
  }
  if (forward.join() !== expected.join()) return `forward walk ${JSON.stringify(forward)} != brute force ${JSON.stringify(expected)}`
  const backward: string[] = []
  for (let cursor: string | undefined, n = 0; n <= expected.length + 1; n++) {
    const r = await tm.get(`${base}page[last]=${size}${cursor ? `&page[before]=${cursor}` : ''}`)
    if (r.status !== 200) return `${r.status} on ${base}: ${r.text}`
    const ids: string[] = r.body.data.map((d: { id: string }) => d.id)
    if (r.body.meta.count !== expected.length) return `backward page ${n}: meta.count ${r.body.meta.count}, brute force ${expected.length}`
    if (ids.length > size) return `backward page ${n} holds ${ids.length} > ${size}`
    backward.unshift(...ids)
    if (ids.length < size || backward.length >= expected.length) break
    cursor = ids[0]
  }
  if (backward.join() !== expected.join()) return `backward walk ${JSON.stringify(backward)} != brute force ${JSON.stringify(expected)}`
  return ''
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
      if (r.status !== 200 || r.body.meta.count !== want) return `${family.name} ${f.pair}: count ${r.status} ${r.body?.meta?.count}, brute force ${want}`
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

