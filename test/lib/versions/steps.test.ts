// The stepping plan (lib/versions.ts planSteps / stepsBetween / planUpgrade().stepDetails). Expected plans
// are written out from the rule in lib/data/README.md ("Steps") and the tables of spec/interface.md and
// reference §4.1; a brute-force search then checks that no other choice of steps keeps more rollbacks open.
import t from 'tap'
import {
  VersionError,
  compareVersions,
  formatVersion,
  planSteps,
  planUpgrade,
  rollbackFloor,
  parseVersion,
  rollbackTable,
  stepsBetween,
  type PlanStep,
  type TableName,
  type Version,
} from '../../../lib/versions.ts'

// 'version kind floor can' — kind: E = from-range-end, R = range-end, T = target; can: y / n / ? (unknown).
// A hop marked n! is one no plan can make reversible (rollbackPossibleAtAll false).
type Row = [from: string, to: string, table: TableName, steps: string[]]
const KIND = { E: 'from-range-end', R: 'range-end', T: 'target' } as const

const cases: Row[] = [
  // The case that motivated the rule: every hop reversible (the first-version rule left v1.53.0 → v1.48.0 impossible).
  ['v1.40.0', 'v1.53.0', 'interface', ['v1.47.1 R v1.38.0 y', 'v1.51.0 R v1.39.0 y', 'v1.53.0 T v1.49.0 y']],
  ['v1.90.0', 'v1.100.0', 'interface', ['v1.97.0 R v1.90.0 y', 'v1.100.0 T v1.96.0 y']],
  ['v1.90.0', 'v1.98.0', 'interface', ['v1.97.0 R v1.90.0 y', 'v1.98.0 T v1.96.0 y']],
  // Same range, and from == to.
  ['v1.92.0', 'v1.95.0', 'interface', ['v1.95.0 T v1.90.0 y']],
  ['v1.90.0', 'v1.90.0', 'interface', []],
  // Adjacent ranges: last of one → first of the next.
  ['v1.91.2', 'v1.92.0', 'interface', ['v1.92.0 T v1.90.0 y']],
  ['v1.2.1', 'v1.3.0', 'interface', ['v1.3.0 T v1.3.0 n!']],
  ['v1.47.1', 'v1.48.0', 'interface', ['v1.48.0 T v1.39.0 y']],
  // from's own range end: added only when it turns the first hop reversible.
  ['v1.30.0', 'v1.46.0', 'interface', ['v1.44.0 E v1.26.0 y', 'v1.46.0 T v1.38.0 y']],
  ['v1.38.0', 'v1.46.0', 'interface', ['v1.46.0 T v1.38.0 y']], // floor == from: already reversible
  ['v1.37.0', 'v1.46.0', 'interface', ['v1.44.0 E v1.26.0 y', 'v1.46.0 T v1.38.0 y']], // just below the floor
  ['v1.70.0', 'v1.85.0', 'interface', ['v1.82.0 E v1.68.0 y', 'v1.84.1 R v1.77.0 y', 'v1.85.0 T v1.83.0 y']],
  ['v1.77.0', 'v1.85.0', 'interface', ['v1.84.1 R v1.77.0 y', 'v1.85.0 T v1.83.0 y']],
  ['v1.0.0', 'v1.8.0', 'interface', ['v1.8.0 T v1.3.0 n!']], // next floor after from's range: no helping step
  ['v1.52.0', 'v1.60.0', 'interface', ['v1.57.1 E v1.49.0 y', 'v1.60.0 T v1.57.0 y']],
  ['v1.57.0', 'v1.60.0', 'interface', ['v1.60.0 T v1.57.0 y']],
  // Long paths.
  [
    'v1.0.0',
    'v1.102.0',
    'interface',
    [
      'v1.8.0 R v1.3.0 n!',
      'v1.12.4 R v1.9.0 n!',
      'v1.25.0 R v1.13.0 n!',
      'v1.44.0 R v1.26.0 n!',
      'v1.47.1 R v1.38.0 y',
      'v1.51.0 R v1.39.0 y',
      'v1.57.1 R v1.49.0 y',
      'v1.61.1 R v1.57.0 y',
      'v1.63.1 R v1.61.0 y',
      'v1.69.0 R v1.62.0 y',
      'v1.82.0 R v1.68.0 y',
      'v1.84.1 R v1.77.0 y',
      'v1.91.2 R v1.83.0 y',
      'v1.97.0 R v1.90.0 y',
      'v1.102.0 T v1.96.0 y',
    ],
  ],
  [
    'v1.26.0',
    'v1.70.0',
    'interface',
    [
      'v1.44.0 E v1.26.0 y',
      'v1.47.1 R v1.38.0 y',
      'v1.51.0 R v1.39.0 y',
      'v1.57.1 R v1.49.0 y',
      'v1.61.1 R v1.57.0 y',
      'v1.63.1 R v1.61.0 y',
      'v1.69.0 R v1.62.0 y',
      'v1.70.0 T v1.68.0 y',
    ],
  ],
  [
    'v1.0.0',
    'v1.157.1',
    'reference',
    [
      'v1.8.0 R v1.3.0 n!',
      'v1.12.4 R v1.9.0 n!',
      'v1.25.0 R v1.13.0 n!',
      'v1.44.0 R v1.26.0 n!',
      'v1.47.1 R v1.38.0 y',
      'v1.51.0 R v1.39.0 y',
      'v1.57.1 R v1.49.0 y',
      'v1.61.1 R v1.57.0 y',
      'v1.63.1 R v1.61.0 y',
      'v1.69.0 R v1.62.0 y',
      'v1.82.0 R v1.68.0 y',
      'v1.84.1 R v1.77.0 y',
      'v1.91.2 R v1.83.0 y',
      'v1.97.0 R v1.90.0 y',
      'v1.105.0 R v1.96.0 y',
      'v1.157.1 T v1.100.0 y',
    ],
  ],
  // Beyond the interface table (default mode): its last version v1.102.0 is the last known step, the
  // target's floor is unknown. With the reference table the v1.98.0 range ends at v1.105.0 and the last
  // range is open-ended, so the target stands for it.
  ['v1.90.0', 'v1.120.0', 'interface', ['v1.97.0 R v1.90.0 y', 'v1.102.0 R v1.96.0 y', 'v1.120.0 T - ?']],
  ['v1.90.0', 'v1.120.0', 'reference', ['v1.97.0 R v1.90.0 y', 'v1.105.0 R v1.96.0 y', 'v1.120.0 T v1.100.0 y']],
  ['v1.97.0', 'v1.110.0', 'interface', ['v1.102.0 R v1.96.0 y', 'v1.110.0 T - ?']],
  ['v1.97.0', 'v1.110.0', 'reference', ['v1.105.0 R v1.96.0 y', 'v1.110.0 T v1.100.0 y']],
  ['v1.99.0', 'v1.110.0', 'interface', ['v1.102.0 E v1.96.0 y', 'v1.110.0 T - ?']], // next floor unknown: the newest known version is the best bet
  ['v1.99.0', 'v1.110.0', 'reference', ['v1.105.0 E v1.96.0 y', 'v1.110.0 T v1.100.0 y']],
  ['v1.100.0', 'v1.110.0', 'reference', ['v1.110.0 T v1.100.0 y']],
  ['v1.99.0', 'v1.105.1', 'reference', ['v1.105.0 E v1.96.0 y', 'v1.105.1 T v1.100.0 y']],
  ['v1.102.0', 'v1.110.0', 'interface', ['v1.110.0 T - ?']],
  ['v1.103.0', 'v1.104.0', 'interface', ['v1.104.0 T - ?']],
  ['v1.105.1', 'v1.157.1', 'reference', ['v1.157.1 T v1.100.0 y']],
]

function shownStep(s: PlanStep): string {
  const kind = Object.entries(KIND).find(([, k]) => k === s.kind)?.[0] ?? s.kind
  const can = s.canRollBackToPrevious === null ? '?' : s.canRollBackToPrevious ? 'y' : s.rollbackPossibleAtAll === false ? 'n!' : 'n'
  return `${s.version} ${kind} ${s.rollbackFloor ?? '-'} ${can}`
}

t.test('planSteps: the last version of each range crossed, table-driven', async (t) => {
  for (const [from, to, table, want] of cases) {
    const got = planSteps(from, to, { table })
    t.same(got.map(shownStep), want, `${from} → ${to} (${table})`)
    t.same(
      stepsBetween(from, to, { table }),
      want.map((w) => w.split(' ')[0]),
      `stepsBetween ${from} → ${to} (${table})`,
    )
    // `previous` chains from `from` through the steps.
    if (got.length > 0)
      t.same(
        got.map((s) => s.previous),
        [from, ...got.slice(0, -1).map((s) => s.version)],
        `previous chain ${from} → ${to}`,
      )
  }
})

t.test('planUpgrade carries the same steps and details', async (t) => {
  for (const [from, to, table, want] of cases) {
    const p = planUpgrade(from, to, { table })
    t.same(
      p.steps,
      want.map((w) => w.split(' ')[0]),
      `${from} → ${to} (${table})`,
    )
    t.same(p.stepDetails.map(shownStep), want)
  }
  const p = planUpgrade('v1.40.0', 'v1.53.0')
  t.match(p.stepDetails[0], {
    version: 'v1.47.1',
    kind: 'range-end',
    range: { from: 'v1.45.0', to: 'v1.47.1', floor: 'v1.38.0', source: 'interface' },
    rollbackFloor: 'v1.38.0',
    previous: 'v1.40.0',
    canRollBackToPrevious: true,
    rollbackPossibleAtAll: true,
  })
  t.equal(p.canRollBackToFrom, false, 'the whole upgrade still cannot be rolled back to v1.40.0 (floor v1.49.0)')
  const b = planUpgrade('v1.90.0', 'v1.120.0')
  t.same(b.beyondTable?.reference?.steps, ['v1.97.0', 'v1.105.0', 'v1.120.0'])
  t.match(b.warnings.join('\n'), /with the reference table the steps would be v1\.97\.0, v1\.105\.0, v1\.120\.0/)
  t.match(b.stepDetails.at(-1), {
    version: 'v1.120.0',
    kind: 'target',
    range: null,
    rollbackFloor: null,
    canRollBackToPrevious: null,
    rollbackPossibleAtAll: null,
  })
})

t.test('invalid input', async (t) => {
  t.throws(() => stepsBetween('v1.2.0', 'v1.1.0'), /reversed/)
  t.throws(() => planSteps('v1.12.5', 'v1.40.0'), { name: 'VersionError', message: /unknown rollback range for from v1\.12\.5/ })
  t.throws(() => planSteps('v1.40.0', 'v1.47.5'), { name: 'VersionError', message: /unknown rollback range for to v1\.47\.5/ })
  t.throws(() => planSteps('v0.99.0', 'v1.3.0'), /older than the first rollback range/)
  t.throws(() => planSteps('1.2.3rc1', 'v1.3.0'), VersionError)
  t.throws(() => planSteps('v1.0.0', 'v1.3.0', { table: 'blog' as TableName }), /unknown rollback table/)
})

// ---------------------------------------------------------------------------------------------------
// Properties over many pairs, and a brute-force check that no other plan keeps more rollbacks open.

// Thousands of plans are compared: parse each version string once.
const parsed = new Map<string, Version>()
const ver = (s: string): Version => {
  let v = parsed.get(s)
  if (!v) parsed.set(s, (v = parseVersion(s)))
  return v
}
const lt = (a: string, b: string) => compareVersions(ver(a), ver(b)) < 0
const le = (a: string, b: string) => compareVersions(ver(a), ver(b)) <= 0

for (const table of ['interface', 'reference'] as const) {
  const rows = rollbackTable({ table }).rows.map((r) => ({
    from: formatVersion(r.from),
    to: r.to ? formatVersion(r.to) : null,
    floor: formatVersion(r.floor),
  }))
  // Versions of a range worth trying: its first and last, and every floor that falls inside it.
  const inRow = (i: number, v: string) => le(rows[i]!.from, v) && (rows[i]!.to === null || le(v, rows[i]!.to!))
  const candidates = rows.map((r, i) =>
    [...new Set([r.from, ...(r.to ? [r.to] : []), ...rows.map((x) => x.floor).filter((f) => inRow(i, f))])].sort(compareVersions),
  )
  const probe = [...new Set(candidates.flat().concat(table === 'interface' ? ['v1.103.0', 'v1.120.0'] : ['v1.120.0', 'v1.200.0']))].sort(
    compareVersions,
  )
  const rowIdx = new Map<string, number>()
  const rowOf = (v: string): number => {
    if (!rowIdx.has(v)) {
      const i = rows.findIndex((_, j) => inRow(j, v))
      rowIdx.set(v, i === -1 ? rows.length : i)
    }
    return rowIdx.get(v)!
  }
  const floors = new Map<string, string | null>()
  const floorOf = (v: string): string | null => {
    if (!floors.has(v)) {
      const r = rollbackFloor(ver(v), { table })
      floors.set(v, r.kind === 'floor' ? formatVersion(r.floor) : null)
    }
    return floors.get(v)!
  }
  const reversible = (prev: string, next: string) => {
    const f = floorOf(next)
    return f !== null && le(f, prev)
  }

  t.test(`properties of every plan (${table} table)`, async (t) => {
    let pairs = 0
    let bad = 0
    const fail = (msg: string, extra: object) => {
      bad++
      if (bad <= 5) t.fail(msg, extra)
    }
    for (const from of probe) {
      for (const to of probe) {
        if (lt(to, from)) continue
        pairs++
        const steps = planSteps(from, to, { table })
        const vs = steps.map((s) => s.version)
        if (from === to) {
          if (steps.length) fail('from == to gives no steps', { from, vs })
          continue
        }
        if (vs.at(-1) !== to) fail('the last step is to', { from, to, vs })
        if (![from, ...vs].every((v, i, a) => i === 0 || lt(a[i - 1]!, v))) fail('steps ascend strictly from from', { from, to, vs })
        const ra = rowOf(from)
        const rb = rowOf(to)
        // Exactly one step in every range crossed, and it is that range's last version.
        for (let i = ra + 1; i < rb; i++) {
          const here = vs.filter((v) => rowOf(v) === i)
          if (here.length !== 1 || here[0] !== rows[i]!.to)
            fail('one step per range crossed: its last version', { from, to, range: rows[i], here })
        }
        if (vs.filter((v) => rowOf(v) === ra).length > 1) fail("at most one step in from's range", { from, to, vs })
        for (const s of steps) {
          if (s.canRollBackToPrevious !== null && s.canRollBackToPrevious !== reversible(s.previous, s.version))
            fail('canRollBackToPrevious is floor(step) <= previous', { from, to, s })
          if (s.canRollBackToPrevious !== s.rollbackPossibleAtAll) fail('every hop that any plan could make reversible is', { from, to, s })
        }
      }
    }
    t.equal(bad, 0, `${pairs} pairs checked`)
  })

  t.test(`brute force: no other one-step-per-range plan leaves fewer hops irreversible (${table} table)`, async (t) => {
    let compared = 0
    let pairs = 0
    const worse: object[] = []
    for (const from of probe) {
      for (const to of probe) {
        if (!lt(from, to)) continue
        const ra = rowOf(from)
        const rb = rowOf(to)
        // candidates^k plans: the long paths are covered by the property test above. A target beyond the
        // interface table has an unknown floor, so "reversible" cannot be scored; the table cases cover it.
        if (rb - ra > 7 || rb === rows.length) continue
        pairs++
        // from's range: no step, or any candidate after from; then one candidate per range crossed; then to.
        let plans: string[][] = [[]]
        if (ra < rb) for (const c of candidates[ra]!.filter((c) => lt(from, c))) plans.push([c])
        for (let i = ra + 1; i < rb; i++) plans = plans.flatMap((p) => candidates[i]!.map((c) => [...p, c]))
        plans = plans.map((p) => [...p, to])
        // Fewest hops that cannot be rolled back first; then fewest steps (a step must buy a rollback).
        const irreversible = (p: string[]) => p.filter((v, i) => !reversible(i === 0 ? from : p[i - 1]!, v)).length
        const key = (p: string[]) => irreversible(p) * 1000 + p.length
        const best = Math.min(...plans.map(key))
        const ours = stepsBetween(from, to, { table })
        compared += plans.length
        if (key(ours) !== best) worse.push({ from, to, ours, better: plans.find((p) => key(p) === best) })
      }
    }
    t.same(worse.slice(0, 5), [], `${pairs} pairs: the plan is optimal against ${compared} alternatives`)
    t.ok(compared > 1000, `${compared} alternative plans compared`)
  })
}

t.test('the data agrees with the README: floors never decrease, so the last version is always the best predecessor', async (t) => {
  for (const table of ['interface', 'reference'] as const) {
    const rows = rollbackTable({ table }).rows
    for (let i = 1; i < rows.length; i++) {
      t.ok(compareVersions(rows[i - 1]!.floor, rows[i]!.floor) <= 0, `${table}: floor of row ${i} is not older than the row before`)
    }
  }
})
