// Benchmark of the harness at any size (decision 0004): a read-only run, as against a real deployment
// (`run --mas-url/--hs-url`), against a separately started `admin-conformance mock` seeded with
// 1k, 10k, 100k and 1M sessions (100 → 100k event reports). For each size: wall time, requests (from the
// run's JSON report), the peak RSS of the run (the runner and every suite process, summed, sampled from
// /proc), passes, failures and skips.
//
//   npx tsx bench/sizes.ts [--sizes 1000,10000,100000,1000000] [--jobs N] [--rounds N]
//
// Each size runs `--rounds` times (default 2) against the same mock, and its fastest run counts (peak RSS:
// the largest of them): a mock just seeded with a million sessions is still collecting the garbage of its
// seeding during the first run, which is the target's noise, not the harness's cost.
// Targets: time at the largest size ≤ 2× the time at the smallest, requests at the largest size ≤ 1.1× those
// at the size below it (a small world is read whole, a large one in windows), RSS ≤ 256 MiB,
// 0 failures and no extra skips at any size. Exits non-zero when one is missed. Seeding 1M sessions
// takes a while and much of the mock's memory: run it when the machine is calm.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { RunReport } from '../scripts/run/index.ts'
import { QUICK, reportFigure } from './figures.ts'
import { BIN, startMock } from './mock-process.ts'
import { sampleTreeRss } from './tree-rss.ts'

const MiB = 1024 * 1024
const TOKENS = {
  MAS_ADMIN_TOKEN: 'mat_benchsizesadmin0000000000',
  MAS_USER_TOKEN: 'mat_benchsizesuser00000000000',
  HS_ADMIN_TOKEN: 'syt_benchsizesadmin0000000000',
  HS_USER_TOKEN: 'syt_benchsizesuser00000000000',
}

export interface SizeResult {
  sessions: number
  reports: number
  seedS: number
  wallS: number
  requests: number
  peakMiB: number
  pass: number
  fail: number
  skip: number
  exitCode: number
  byArea: Record<string, number>
}

async function runOnce(
  url: string,
  jobs: number | undefined,
): Promise<{ wallS: number; peak: number; report: RunReport; exitCode: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-bench-sizes-'))
  const out = path.join(dir, 'report.json')
  const args = [
    BIN,
    'run',
    '--mas-url',
    url,
    '--hs-url',
    url,
    '--reporter',
    'json',
    '--output',
    out,
    ...(jobs ? ['--jobs', String(jobs)] : []),
  ]
  const t0 = performance.now()
  const child = spawn(process.execPath, args, { stdio: 'ignore', env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TOKENS } })
  const rss = sampleTreeRss(child.pid!, 100)
  const exitCode = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)))
  const peak = rss.stop()
  const wallS = (performance.now() - t0) / 1000
  const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
  rmSync(dir, { recursive: true, force: true })
  return { wallS, peak, report, exitCode }
}

export async function measure(sessions: number, jobs?: number, rounds = 2): Promise<SizeResult & { wallsS: number[] }> {
  const reports = Math.max(100, Math.round(sessions / 10))
  const mock = await startMock(sessions, reports, TOKENS)
  try {
    const runs = []
    for (let i = 0; i < Math.max(1, rounds); i++) runs.push(await runOnce(mock.url, jobs))
    const best = runs.reduce((a, b) => (b.wallS < a.wallS ? b : a))
    // every round must have passed: the worst one speaks for the failures and the exit code
    const worst = runs.reduce((a, b) => (b.report.counts.fail > a.report.counts.fail || b.exitCode !== 0 ? b : a))
    const c = best.report.counts
    return {
      sessions,
      reports,
      seedS: mock.seedS,
      wallS: best.wallS,
      wallsS: runs.map((r) => r.wallS),
      requests: best.report.requests?.total ?? 0,
      peakMiB: Math.max(...runs.map((r) => r.peak)) / MiB,
      pass: c.pass,
      fail: worst.report.counts.fail,
      skip: Math.max(...runs.map((r) => r.report.counts.skip)),
      exitCode: worst.exitCode,
      byArea: best.report.requests?.byArea ?? {},
    }
  } finally {
    mock.child.kill('SIGTERM')
    await new Promise((resolve) => mock.child.once('exit', resolve))
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { sizes: { type: 'string' }, jobs: { type: 'string' }, rounds: { type: 'string' } } })
  const rounds = values.rounds ? Number(values.rounds) : QUICK ? 1 : 2
  const sizes = (values.sizes ?? (QUICK ? '1000,10000' : '1000,10000,100000,1000000')).split(',').map(Number)
  const jobs = values.jobs ? Number(values.jobs) : undefined
  const rows: SizeResult[] = []
  process.stdout.write(
    `sessions  reports  seed s  run s  requests  peak RSS  pass  fail  skip  exit  (each round's run s; requests by area)\n`,
  )
  for (const n of sizes) {
    const r = await measure(n, jobs, rounds)
    rows.push(r)
    process.stdout.write(
      `${String(r.sessions).padStart(8)}  ${String(r.reports).padStart(7)}  ${r.seedS.toFixed(1).padStart(6)}  ${r.wallS.toFixed(1).padStart(5)}  ${String(r.requests).padStart(8)}  ${r.peakMiB.toFixed(0).padStart(4)} MiB  ${String(r.pass).padStart(4)}  ${String(r.fail).padStart(4)}  ${String(r.skip).padStart(4)}  ${r.exitCode}  (${r.wallsS.map((w) => w.toFixed(1)).join(', ')}; ${Object.entries(
        r.byArea,
      )
        .map(([a, n]) => `${a} ${n}`)
        .join(', ')})\n`,
    )
  }
  const first = rows[0]!
  const last = rows.at(-1)!
  const prev = rows.at(-2) ?? first
  const targets: [string, boolean][] = [
    [`time at ${last.sessions} ≤ 2× time at ${first.sessions} (${(last.wallS / first.wallS).toFixed(2)}×)`, last.wallS <= 2 * first.wallS],
    // A small world is read whole where a large one is read in windows, so the requests grow from the
    // smallest size until the data outgrows the windows; what must not happen is growth past that point.
    [
      `requests stop growing: ≤ 1.1× from ${prev.sessions} to ${last.sessions} sessions (${rows.map((r) => r.requests).join(' → ')})`,
      last.requests <= 1.1 * prev.requests,
    ],
    [`peak RSS ≤ 256 MiB (max ${Math.max(...rows.map((r) => r.peakMiB)).toFixed(0)} MiB)`, rows.every((r) => r.peakMiB <= 256)],
    ['0 failures at every size', rows.every((r) => r.fail === 0)],
    [`no extra skips (${rows.map((r) => r.skip).join(', ')})`, rows.every((r) => r.skip <= first.skip)],
  ]
  for (const [what, ok] of targets) process.stdout.write(`  ${ok ? 'met   ' : 'MISSED'}  ${what}\n`)
  reportFigure({
    id: 'sizes.time-ratio',
    label: `read-only run at ${last.sessions.toLocaleString('en')} vs ${first.sessions.toLocaleString('en')} sessions`,
    value: last.wallS / first.wallS,
    unit: '×',
    detail: `${last.wallS.toFixed(1)} vs ${first.wallS.toFixed(1)} s`,
    better: 'lower',
    goal: 2,
  })
  reportFigure({
    id: 'sizes.peak-rss',
    label: 'read-only run, peak RSS of the process tree (one worker)',
    value: Math.max(...rows.map((r) => r.peakMiB)),
    unit: ' MiB',
    better: 'lower',
    goal: 256,
  })
  return targets.every(([, ok]) => ok) ? 0 : 1
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) process.exitCode = await main()
