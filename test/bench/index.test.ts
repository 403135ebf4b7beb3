// `npm run bench`: the figure protocol, the table with the last recorded figures and the words for a
// figure more than 15% worse, --record, and (the part CI relies on so that no benchmark rots) a real
// `--quick` run of every benchmark that must finish and print its table with every figure.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { BENCHES, lastRecorded, recorded, table } from '../../bench/index.ts'
import { FIGURE_MARK, parseFigures, worseBy, type Figure } from '../../bench/figures.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))
const fig = (id: string, value: number, better: 'higher' | 'lower', goal?: number): Figure => ({
  id,
  label: id,
  value,
  unit: '×',
  better,
  ...(goal === undefined ? {} : { goal }),
})

t.test("figure lines are found among a benchmark's own lines; malformed ones are left out", async (t) => {
  const out = [
    'some text',
    `${FIGURE_MARK}${JSON.stringify(fig('a.b', 0.5, 'higher'))}`,
    `${FIGURE_MARK}{not json`,
    `${FIGURE_MARK}${JSON.stringify({ id: 'x', value: 'NaN', better: 'up' })}`,
    'more',
  ].join('\n')
  t.same(
    parseFigures(out).map((f) => f.id),
    ['a.b'],
  )
})

t.test("worse is by the figure's direction", async (t) => {
  t.equal(worseBy({ better: 'higher' }, 0.34, 0.45).toFixed(2), '0.24', 'a ratio that should rise and fell')
  t.ok(worseBy({ better: 'higher' }, 0.6, 0.45) < 0, 'a rise is better')
  t.equal(worseBy({ better: 'lower' }, 5.5, 4.4).toFixed(2), '0.25', 'a time that should fall and rose')
  t.ok(worseBy({ better: 'lower' }, 3, 4.4) < 0)
})

t.test('the table: last recorded, change, goal, and WORSE in words past 15%', async (t) => {
  const last = new Map([
    ['m.t', { value: 0.45, date: '2026-11-22' }],
    ['r.r', { value: 4.4, date: '2026-11-25' }],
  ])
  const { text, worse } = table([fig('m.t', 0.34, 'higher', 0.5), fig('r.r', 4.6, 'lower', 4), fig('new.one', 1, 'lower')], last, false)
  t.match(text, /0\.34× .*0\.45× \(2026-11-22\)\s+worse 24%\s+≥ 0\.50× MISSED\s+WORSE by 24% than 0\.45×/)
  t.match(text, /4\.60× .*4\.40× \(2026-11-25\)\s+worse 5%\s+≤ 4\.00× MISSED\s*$/m, 'worse by 5%: within the 15%, no words')
  t.match(text, /new\.one.*—/, 'a figure with no record shows a dash')
  t.same(worse, ['m.t: WORSE by 24% than 0.45× (2026-11-22)'])
  const quick = table([fig('m.t', 0.1, 'higher', 0.5)], last, true)
  t.same(quick.worse, [], 'quick figures are never compared')
  t.notMatch(quick.text, /MISSED|WORSE/)
})

t.test('--record writes the table that the next run reads', async (t) => {
  const doc = '# Diary\n\nintro\n\n## Older\n\ntext\n'
  const once = recorded(doc, [fig('a.b', 0.51, 'higher'), fig('c.d', 3.25, 'lower')], '2026-11-26')
  t.match(once, /^# Diary\n\nintro\n\n## Last recorded figures\n/, 'added before the first section')
  t.match(once, /## Older\n\ntext\n$/, 'the rest is kept')
  t.same(
    [...lastRecorded(once)],
    [
      ['a.b', { value: 0.51, date: '2026-11-26' }],
      ['c.d', { value: 3.25, date: '2026-11-26' }],
    ],
  )
  const twice = recorded(once, [fig('a.b', 0.6, 'higher')], '2026-11-27')
  t.same([...lastRecorded(twice)], [['a.b', { value: 0.6, date: '2026-11-27' }]], 'replaced, not appended')
  t.equal(twice.split('## Last recorded figures').length, 2)
})

t.test('docs/benchmarks.md records a last figure for every figure the benchmarks report', async (t) => {
  const last = lastRecorded(readFileSync(`${root}docs/benchmarks.md`, 'utf8'))
  t.ok(last.size >= 10, `${last.size} figures recorded`)
})

t.test('npm run bench -- --quick runs every benchmark and prints one table', async (t) => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/index.ts', '--quick'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 900_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  t.equal(r.status, 0, 'exit 0: every benchmark ran and reported', { stdout: r.stdout.slice(-4000), stderr: r.stderr.slice(-2000) })
  const at = r.stdout.indexOf('=== every figure')
  t.ok(at >= 0, 'the table is printed')
  const tableText = r.stdout.slice(at)
  const last = lastRecorded(readFileSync(`${root}docs/benchmarks.md`, 'utf8'))
  for (const id of last.keys()) t.match(tableText, `(${id})`, `the table has ${id}`)
  for (const name of Object.keys(BENCHES))
    t.match(r.stdout, new RegExp(`ran\\s+${name}\\s+[1-9]\\d* figure`), `${name} ran and reported figures`)
  t.notOk(r.stdout.includes(FIGURE_MARK), 'figure lines are not shown raw')
})
