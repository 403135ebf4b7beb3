// `npm run bench [-- NAME...] [--quick] [--record]`: runs each benchmark in its own process, one after
// the other (they measure throughput on the same 2 cores, so they must not overlap), then prints one
// table of every figure: its value (a ratio against a baseline of the same run where there is one), the
// last recorded value from docs/benchmarks.md, the change, and in words any figure more than 15% worse.
// --quick runs each at a small size to prove it still runs (its figures are not compared); --record
// writes this run's figures into docs/benchmarks.md as the new last recorded ones.
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseFigures, worseBy, WORSE_THRESHOLD, type Figure } from './figures.ts'

export const BENCHES: Record<string, string> = {
  'mock-admin': 'area A mock: seeding memory and time, last/first page ratio, req/s vs bare node:http',
  'mock-homeserver': 'area B mock: filtered listing p99 with 100,000 reports, total without a scan',
  'mock-state': 'mock --state: write throughput with the fsync-ed journal vs in memory',
  'audit-log': 'audit-log lines/s vs grep -c on 1,000,000 lines; WebAssembly vs JavaScript engine',
  'audit-log-hostile': 'audit-log on NUL files without newlines and a 7 MB request line: time grows linearly',
  run: 'full run against the bundled mock vs a bare replay of its own requests (wall, CPU, ratio)',
  sizes: 'read-only run against the mock at 1k..1M sessions: time, requests, peak RSS, outcomes',
  snapshot: 'snapshot of the mock at 1,000 vs 1,000,000 sessions: requests, file size, time',
  hostile: 'one-worker runs against hostile targets (huge, compressed, deep, endless, slow answers): peak tree RSS, wall time',
}

const DOC = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url))
const HEADING = '## Last recorded figures'

/** The last recorded figures: the table under HEADING in docs/benchmarks.md, `| \`id\` | label | value | unit | date |`. */
export function lastRecorded(text: string): Map<string, { value: number; date: string }> {
  const out = new Map<string, { value: number; date: string }>()
  const at = text.indexOf(HEADING)
  if (at < 0) return out
  for (const line of text.slice(at).split('\n').slice(1)) {
    if (line.startsWith('## ')) break
    const m = /^\|\s*`([^`]+)`\s*\|[^|]*\|\s*([-0-9.]+)\s*\|[^|]*\|\s*([^|]*?)\s*\|/.exec(line)
    if (m) out.set(m[1]!, { value: Number(m[2]), date: m[3]! })
  }
  return out
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2)
}

/** The table rows and the figures more than 15% worse than their last record. */
export function table(
  figures: Figure[],
  last: Map<string, { value: number; date: string }>,
  quick: boolean,
): { text: string; worse: string[] } {
  const rows: string[][] = [['figure', 'now', 'last recorded', 'change', 'goal', '']]
  const worse: string[] = []
  for (const f of figures) {
    const l = last.get(f.id)
    let change = ''
    let note = ''
    if (l && !quick) {
      const w = worseBy(f, f.value, l.value)
      change = `${w > 0 ? 'worse' : 'better'} ${(Math.abs(w) * 100).toFixed(0)}%`
      if (w > WORSE_THRESHOLD) {
        note = `WORSE by ${(w * 100).toFixed(0)}% than ${fmt(l.value)}${f.unit} (${l.date})`
        worse.push(`${f.id}: ${note}`)
      }
    }
    const goal =
      f.goal === undefined || quick
        ? ''
        : `${f.better === 'higher' ? '≥' : '≤'} ${fmt(f.goal)}${f.unit}${(f.better === 'higher' ? f.value >= f.goal : f.value <= f.goal) ? ' met' : ' MISSED'}`
    rows.push([
      `${f.label} (${f.id})`,
      `${fmt(f.value)}${f.unit}${f.detail ? ` — ${f.detail}` : ''}`,
      l ? `${fmt(l.value)}${f.unit} (${l.date})` : '—',
      change,
      goal,
      note,
    ])
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  const text = rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
  return { text, worse }
}

/** docs/benchmarks.md with the table under HEADING replaced by these figures (added when missing). */
export function recorded(text: string, figures: Figure[], date: string): string {
  const lines = [
    HEADING,
    '',
    'Written by `npm run bench -- --record`; read by `npm run bench` to compare each figure with its last value.',
    '',
    '| id | figure | value | unit | date |',
    '|---|---|---|---|---|',
    ...figures.map((f) => `| \`${f.id}\` | ${f.label.replace(/\|/g, '/')} | ${fmt(f.value)} | ${f.unit.trim()} | ${date} |`),
    '',
  ]
  const at = text.indexOf(HEADING)
  if (at < 0) {
    const first = text.indexOf('\n## ')
    return first < 0
      ? `${text.trimEnd()}\n\n${lines.join('\n')}`
      : `${text.slice(0, first + 1)}${lines.join('\n')}\n${text.slice(first + 1)}`
  }
  const next = text.indexOf('\n## ', at + HEADING.length)
  return `${text.slice(0, at)}${lines.join('\n')}${next < 0 ? '' : text.slice(next)}`
}

function runBench(name: string, quick: boolean): Promise<{ status: number; output: string; seconds: number }> {
  const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url))
  const t0 = Date.now()
  return new Promise((resolve) => {
    const child = spawn(tsx, [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...(quick ? { AC_BENCH_QUICK: '1' } : {}) },
    })
    let output = ''
    child.stdout.on('data', (b: Buffer) => {
      const s = b.toString()
      output += s
      // The figure lines are for the table below; everything else is the benchmark's own account.
      process.stdout.write(
        s
          .split('\n')
          .filter((l) => !l.startsWith('##bench-figure '))
          .join('\n'),
      )
    })
    child.on('close', (code) => resolve({ status: code ?? 1, output, seconds: (Date.now() - t0) / 1000 }))
  })
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      `usage: npm run bench [-- NAME...] [--quick] [--record]\n\n${Object.entries(BENCHES)
        .map(([n, d]) => `  ${n.padEnd(16)} ${d}`)
        .join(
          '\n',
        )}\n\n  --quick    each benchmark at a small size (a few minutes in all): proves it runs; figures not compared\n  --record   write this run's figures to docs/benchmarks.md as the last recorded ones\n`,
    )
    return 0
  }
  const quick = argv.includes('--quick')
  const record = argv.includes('--record')
  const flags = argv.filter((a) => a.startsWith('-'))
  const badFlag = flags.find((f) => !['--quick', '--record'].includes(f))
  if (badFlag) {
    process.stderr.write(`bench: unknown option ${badFlag} (--quick, --record, --help)\n`)
    return 2
  }
  if (quick && record) {
    process.stderr.write('bench: --record takes full-size figures only; drop --quick\n')
    return 2
  }
  const wanted = argv.filter((a) => !a.startsWith('-'))
  const unknown = wanted.filter((w) => !(w in BENCHES))
  if (unknown.length) {
    process.stderr.write(`bench: unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}\n`)
    return 2
  }
  const names = wanted.length ? wanted : Object.keys(BENCHES)
  const figures: Figure[] = []
  const ran: { name: string; status: number; seconds: number; figures: number }[] = []
  for (const name of names) {
    process.stdout.write(`\n=== ${name}${quick ? ' (quick)' : ''}: ${BENCHES[name]}\n`)
    const r = await runBench(name, quick)
    const got = parseFigures(r.output)
    figures.push(...got)
    ran.push({ name, status: r.status, seconds: r.seconds, figures: got.length })
  }
  const last = lastRecorded(readFileSync(DOC, 'utf8'))
  const { text, worse } = table(figures, last, quick)
  process.stdout.write(`\n=== every figure${quick ? ' (quick sizes: not compared with the last recorded ones)' : ''}\n${text}\n`)
  process.stdout.write('\n=== benchmarks\n')
  for (const r of ran) {
    const state = r.figures === 0 ? 'NO FIGURE' : quick ? (r.status === 2 ? 'CRASHED' : 'ran') : r.status === 0 ? 'met' : 'MISSED'
    process.stdout.write(`  ${state.padEnd(9)}  ${r.name.padEnd(16)} ${r.figures} figure(s), ${r.seconds.toFixed(1)} s\n`)
  }
  if (worse.length)
    process.stdout.write(
      `\n${worse.length} figure(s) more than ${WORSE_THRESHOLD * 100}% worse than last recorded:\n${worse.map((w) => `  ${w}`).join('\n')}\n`,
    )
  if (record) {
    writeFileSync(DOC, recorded(readFileSync(DOC, 'utf8'), figures, new Date().toISOString().slice(0, 10)))
    process.stdout.write(`\nrecorded ${figures.length} figures in docs/benchmarks.md\n`)
  }
  // Quick: the verdict is that every benchmark ran and reported; full: that every target held too.
  if (ran.some((r) => r.figures === 0 || r.status === 2)) return 1
  return quick || ran.every((r) => r.status === 0) ? 0 : 1
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main(process.argv.slice(2))
