// Benchmark of the harness against hostile targets: one run (`run --mas-url/--hs-url`, one worker) against
// each server of test/fixtures/hostile/server.ts (a 4 MiB binary body, a gzip bomb, JSON 100,000 deep,
// listings whose next link is new on every 3.9 MB page, a total of 10^12, 4 MiB pages of tiny invalid
// items, a body that drips one byte every 5 s). For each: the peak RSS of the whole run's process tree (the
// runner and its worker, summed, sampled from /proc; and each process's own peak), wall time, exit code,
// crashed files, checks.
//
//   npx tsx bench/hostile.ts [KIND...] [--deadline S]
//
// The run command and the suites are built (or found built) before the first case, as the first run after
// a change of the sources does: the figure is the run's, not that one-off build's (an installed package
// never builds).
//
// Targets: every case ≤ 256 MiB and done within its deadline plus a minute; no suite file crashed (a
// worker dying of heap exhaustion is exactly what the bounds prevent), exit code 1 (the target is broken;
// not 2 or a crash). The runs pass `--deadline 120` (a run against slow-drip otherwise waits out the
// default deadline of a real target, 900 s); --deadline S changes it.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { RunReport } from '../scripts/run/index.ts'
import { HOSTILE_KINDS, hostileTarget, type HostileKind } from '../test/fixtures/hostile/server.ts'
import { sampleTreeRss } from './tree-rss.ts'
import { QUICK, reportFigure } from './figures.ts'
import { builtRunFile } from '../scripts/built-cli.mjs'
import { prepareSuites } from '../scripts/run/engine/suite-build.ts'

const BIN = fileURLToPath(new URL('../bin/admin-conformance.mjs', import.meta.url))
const MiB = 1024 * 1024
const LIMIT_MIB = 256

const { values, positionals } = parseArgs({
  options: { deadline: { type: 'string', default: QUICK ? '30' : '120' } },
  allowPositionals: true,
})
const deadlineS = Number(values.deadline)
// --quick: two cases that end by themselves, to prove the bench runs.
const kinds = (positionals.length ? positionals : QUICK ? ['huge-total', 'deep-json'] : [...HOSTILE_KINDS]) as HostileKind[]
for (const k of kinds) if (!HOSTILE_KINDS.includes(k)) throw new Error(`unknown kind ${k}; known: ${HOSTILE_KINDS.join(', ')}`)

interface Row {
  kind: HostileKind
  peakMiB: number
  /** each process's own peak (runner, worker, ...), largest first */
  ownMiB: number[]
  wallS: number
  exitCode: number
  crashed: string[]
  checks: number
  fail: number
  answered: number
}

async function one(kind: HostileKind, dir: string): Promise<Row> {
  const h = await hostileTarget(kind)
  const out = path.join(dir, `${kind}.json`)
  const t0 = performance.now()
  const child = spawn(
    process.execPath,
    [
      BIN,
      'run',
      '--mas-url',
      h.url,
      '--hs-url',
      h.url,
      '--jobs',
      '1',
      '--deadline',
      String(deadlineS),
      '--reporter',
      'json',
      '--output',
      out,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        MAS_ADMIN_TOKEN: 'mat_benchhostileadmin00000000',
        HS_ADMIN_TOKEN: 'syt_benchhostileadmin00000000',
      },
    },
  )
  const rss = sampleTreeRss(child.pid!, 50)
  // the bound the run promises, with a minute to spare: past it the case has failed
  const kill = setTimeout(() => child.kill('SIGKILL'), (deadlineS + 60) * 1000)
  const exitCode = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)))
  clearTimeout(kill)
  const peak = rss.stop()
  const own = rss.byProcess()
  const wallS = (performance.now() - t0) / 1000
  await h.close()
  let report: RunReport | undefined
  try {
    report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
  } catch {
    // no report: the run crashed or was killed (a failed case)
  }
  return {
    kind,
    peakMiB: peak / MiB,
    ownMiB: own.filter((b) => b > MiB).map((b) => b / MiB),
    wallS,
    exitCode,
    crashed: report?.suites.filter((s) => s.error && !/deadline/.test(s.error)).map((s) => `${s.file}: ${s.error}`) ?? ['(no report)'],
    checks: report?.counts.checks ?? 0,
    fail: report?.counts.fail ?? 0,
    answered: h.answered,
  }
}

const dir = mkdtempSync(path.join(tmpdir(), 'ac-bench-hostile-'))
const rows: Row[] = []
try {
  await builtRunFile()
  await prepareSuites(mkdtempSync(path.join(dir, 'build-')), {}, process.stderr)
  for (const kind of kinds) {
    const r = await one(kind, dir)
    rows.push(r)
    process.stdout.write(
      `${kind.padEnd(14)} peak ${r.peakMiB.toFixed(0).padStart(4)} MiB (per process ${r.ownMiB.map((m) => m.toFixed(0)).join('/')})  ${r.wallS.toFixed(1).padStart(6)} s  exit ${r.exitCode}  checks ${r.checks} (${r.fail} failed)  answers ${r.answered}${r.crashed.length ? `  CRASHED: ${r.crashed.join('; ')}` : ''}\n`,
    )
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.stdout.write(
  `\n| target | peak RSS (tree) | each process's own peak | wall | exit | checks (failed) | crashed files |\n|---|---|---|---|---|---|---|\n`,
)
for (const r of rows)
  process.stdout.write(
    `| ${r.kind} | ${r.peakMiB.toFixed(0)} MiB | ${r.ownMiB.map((m) => m.toFixed(0)).join(' / ')} MiB | ${r.wallS.toFixed(1)} s | ${r.exitCode} | ${r.checks} (${r.fail}) | ${r.crashed.length} |\n`,
  )
reportFigure({
  id: 'hostile.peak-rss',
  label: `runs against hostile targets (${rows.length} cases, one worker): the largest peak RSS of the process tree`,
  value: Math.max(...rows.map((r) => r.peakMiB)),
  unit: ' MiB',
  detail: rows.map((r) => `${r.kind} ${r.peakMiB.toFixed(0)}`).join(', '),
  better: 'lower',
  goal: LIMIT_MIB,
})
const missed = rows.filter((r) => r.peakMiB > LIMIT_MIB || r.wallS > deadlineS + 60 || r.crashed.length > 0 || r.exitCode !== 1)
process.stdout.write(
  missed.length
    ? `\nMISSED: ${missed.map((r) => r.kind).join(', ')} (≤ ${LIMIT_MIB} MiB, ≤ deadline + 60 s, no crash, exit 1)\n`
    : `\nmet: every case ≤ ${LIMIT_MIB} MiB, within its deadline, no crash, exit 1\n`,
)
process.exit(missed.length ? 1 : 0)
