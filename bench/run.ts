// Benchmark of `admin-conformance run` (decision 0004):
//
//   npx tsx bench/run.ts [--runs N] [--target-seconds S] [--target-ratio R] [--jobs N]   (default 5 rounds)
//
// In one invocation: (1) the full run (`run`, every area, against the bundled mock) as a user runs it,
// the CLI in its own process, recording every HTTP request the run sends (bench/record-requests.mjs,
// preloaded into the CLI and its suite workers: method, URL, headers, body); (2) a bare client replaying
// those requests one after another with undici from a plain node process (bench/replay.mjs) against a
// bundled mock with the same options and tokens, started for each replay in a process of its own (as cold
// as the run's own mock; `admin-conformance mock`). Prints wall time, CPU (the whole process
// tree), the requests, and the ratio run / bare replay. Targets: ≤ 5 s wall and ≤ 5×. Each round is a
// run and its replay side by side; the verdict takes the median wall time and the median round's ratio.
// Exits non-zero when a target is missed or the run fails.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import type { RunReport } from '../scripts/run/index.ts'
import { startMock as startMockProcess } from './mock-process.ts'
import { QUICK, reportFigure } from './figures.ts'

const BIN = fileURLToPath(new URL('../bin/admin-conformance.mjs', import.meta.url))
const RECORDER = new URL('./record-requests.mjs', import.meta.url).href
const REPLAY = fileURLToPath(new URL('./replay.mjs', import.meta.url))

interface Recorded {
  at: number
  method: string
  origin: string
  path: string
  headers: [string, string][]
  body: string | null
  status: number | null
}

export interface RunBenchResult {
  wallMs: number
  cpuMs: number
  exitCode: number
  report: RunReport
  requests: Recorded[]
}

/** One run of the CLI, its requests recorded; wall time from spawn to exit, CPU of the whole process tree. */
export async function timeRun(jobs?: number): Promise<RunBenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-bench-run-'))
  const out = path.join(dir, 'report.json')
  const args = [BIN, 'run', '--reporter', 'json', '--output', out]
  if (jobs) args.push('--jobs', String(jobs))
  const env = { ...process.env, AC_BENCH_RECORD: dir, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${RECORDER}`.trim() }
  childrenCpuMs()
  const started = performance.now()
  const child = spawn(process.execPath, args, { stdio: 'ignore', env })
  const status = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)))
  const wallMs = performance.now() - started
  const cpuMs = childrenCpuMs()
  const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
  const requests = readdirSync(dir)
    .filter((f) => /^\d+\.json$/.test(f))
    .flatMap((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Recorded[])
    .sort((a, b) => a.at - b.at)
  rmSync(dir, { recursive: true, force: true })
  return { wallMs, cpuMs, exitCode: status, report, requests }
}

/** The run's bearer tokens by kind: the most used `mat_` one is the admin token, the other the user's (same for `syt_`). */
function tokensOf(requests: Recorded[]): { adminToken?: string; userToken?: string; hsAdminToken?: string; hsUserToken?: string } {
  const counts = new Map<string, number>()
  for (const r of requests) {
    const auth = r.headers.find(([k]) => k.toLowerCase() === 'authorization')?.[1]
    const m = auth && /^Bearer (\S+)$/.exec(auth)
    if (m) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1)
  }
  const ranked = (prefix: string) =>
    [...counts]
      .filter(([t]) => t.startsWith(prefix))
      .sort((a, b) => b[1] - a[1])
      .map(([t]) => t)
  const [adminToken, userToken] = ranked('mat_')
  const [hsAdminToken, hsUserToken] = ranked('syt_')
  return Object.fromEntries(Object.entries({ adminToken, userToken, hsAdminToken, hsUserToken }).filter(([, v]) => v !== undefined))
}

export interface ReplayResult {
  requests: number
  wallMs: number
  processWallMs: number
  cpuMs: number
  /** CPU of the replay's mock (its own process) while the replay ran: the replay's server side */
  mockCpuMs: number
  sameStatus: number
}

/**
 * The bare client: the run's requests, in order, against a fresh bundled mock with the run's tokens, in a
 * process of its own started for this replay: as cold as the run's own mock. (Kept in this process
 * across rounds, the mock was warmed by the replays before: from the first round to the fifth its CPU
 * fell from 1.0-1.2 s to 0.4 s and the replay from 1.3-1.6 s to 0.75-0.9 s, and the rounds were no
 * longer the same experiment.)
 */
export async function replay(requests: Recorded[]): Promise<ReplayResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-bench-replay-'))
  const t = tokensOf(requests)
  const tokens = {
    MAS_ADMIN_TOKEN: t.adminToken,
    MAS_USER_TOKEN: t.userToken,
    HS_ADMIN_TOKEN: t.hsAdminToken,
    HS_USER_TOKEN: t.hsUserToken,
  }
  const mock = await startMockProcess(undefined, undefined, tokens, path.join(dir, 'mock.log'))
  try {
    const file = path.join(dir, 'requests.json')
    writeFileSync(file, JSON.stringify(requests))
    childrenCpuMs()
    const mockBefore = processCpuMs(mock.child.pid)
    const started = performance.now()
    const child = spawn(process.execPath, [REPLAY, file, mock.url], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    await new Promise<void>((resolve) => child.on('close', () => resolve()))
    const processWallMs = performance.now() - started
    const mockCpuMs = processCpuMs(mock.child.pid) - mockBefore
    const r = JSON.parse(out) as { requests: number; wallMs: number; sameStatus: number }
    return { ...r, processWallMs, cpuMs: childrenCpuMs(), mockCpuMs }
  } finally {
    mock.child.kill()
    await new Promise((resolve) => (mock.child.exitCode !== null ? resolve(undefined) : mock.child.once('exit', resolve)))
    childrenCpuMs()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** CPU (user + system, every thread) of a running process so far. Linux only (/proc); NaN elsewhere. */
function processCpuMs(pid: number | undefined): number {
  // utime, stime: the process's own clock ticks
  return statTicksMs(`/proc/${pid}/stat`, 11, 12)
}

/** Two fields of a /proc stat file (after the command's name), clock ticks summed, in ms; NaN when unreadable. */
function statTicksMs(file: string, a: number, b: number): number {
  try {
    const stat = readFileSync(file, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[a]) + Number(fields[b])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

let lastChildrenCpu = 0
/**
 * CPU (user + system) of the finished children of this process since the last call: the CLI and every
 * process it waited for (the suite workers, esbuild). Linux only (/proc); NaN elsewhere.
 */
function childrenCpuMs(): number {
  // cutime, cstime: clock ticks of waited-for children
  const ms = statTicksMs('/proc/self/stat', 13, 14)
  const delta = ms - lastChildrenCpu
  lastChildrenCpu = ms
  return delta
}

function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y)
  return a.length % 2 ? a[(a.length - 1) / 2]! : (a[a.length / 2 - 1]! + a[a.length / 2]!) / 2
}

function s(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string' },
      'target-seconds': { type: 'string' },
      'target-ratio': { type: 'string' },
      jobs: { type: 'string' },
    },
    strict: true,
  })
  const runs = Math.max(1, Number(values.runs ?? (QUICK ? 1 : 5)))
  const targetMs = Number(values['target-seconds'] ?? 5) * 1000
  const targetRatio = Number(values['target-ratio'] ?? 5)
  const jobs = values.jobs ? Number(values.jobs) : undefined
  process.stdout.write(
    `run benchmark: every area against the bundled mock; ${availableParallelism()} CPUs, load average ${loadavg()[0]!.toFixed(1)}\n`,
  )
  // Each round is a run and, right after it, the bare replay of that run's requests: the machine's speed
  // drifts within minutes, so the two halves of a ratio are measured side by side. The verdict takes the
  // median round (by ratio), so that one lucky or unlucky round decides nothing.
  // The CPU ratio is the same comparison in CPU time, both sides whole (the run's process tree, its two
  // mocks included; the replay's client and its mock): on a loaded machine wall time measures the
  // scheduler as much as the work, CPU time much less.
  const rounds: { run: RunBenchResult; bare: ReplayResult; ratio: number; cpuRatio: number }[] = []
  for (let i = 0; i < runs; i++) {
    const r = await timeRun(jobs)
    const bare = await replay(r.requests)
    const c = r.report.counts
    const ratio = r.wallMs / bare.wallMs
    const cpuRatio = r.cpuMs / (bare.cpuMs + bare.mockCpuMs)
    rounds.push({ run: r, bare, ratio, cpuRatio })
    process.stdout.write(
      `  round ${i + 1}: run ${s(r.wallMs)} wall, ${s(r.cpuMs)} CPU, exit ${r.exitCode}, ${r.requests.length} requests, ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped; ` +
        `bare replay ${s(bare.wallMs)} (${s(bare.processWallMs)} with the process, ${s(bare.cpuMs)} CPU, its mock ${s(bare.mockCpuMs)} CPU, ${bare.sameStatus} of ${bare.requests} same status): ${ratio.toFixed(1)}×, CPU ${cpuRatio.toFixed(1)}×\n`,
    )
  }
  const byRatio = [...rounds].sort((a, b) => a.ratio - b.ratio)
  const med = byRatio[Math.floor((byRatio.length - 1) / 2)]!
  const medianWall = median(rounds.map((r) => r.run.wallMs))
  const { run: b, bare } = med
  process.stdout.write('\ntime per suite file (the median round):\n')
  for (const suite of b.report.suites)
    process.stdout.write(`  ${suite.file.padEnd(50)} ${s(suite.durationMs).padStart(7)}  ${suite.checks.length} checks\n`)
  const fast = medianWall <= targetMs
  const near = med.ratio <= targetRatio
  const failed = rounds.some((r) => r.run.exitCode !== 0)
  const ok = fast && near && !failed
  process.stdout.write(
    `\nmedian of ${runs} rounds: full run ${s(medianWall)} wall (target ≤ ${s(targetMs)}) ${fast ? 'ok' : 'TOO SLOW'}; ` +
      `ratio ${med.ratio.toFixed(1)}× (target ≤ ${targetRatio}×) ${near ? 'ok' : 'TOO SLOW'}: that round's run ${s(b.wallMs)} (${s(b.cpuMs)} CPU, ${b.requests.length} requests) against its bare replay, one request after another (undici, plain node), ${s(bare.wallMs)}; ` +
      `best ${byRatio[0]!.ratio.toFixed(1)}×, worst ${byRatio.at(-1)!.ratio.toFixed(1)}×; in CPU time ${median(rounds.map((r) => r.cpuRatio)).toFixed(1)}× (median; run ${s(median(rounds.map((r) => r.run.cpuMs)))}); load average now ${loadavg()[0]!.toFixed(1)}${failed ? '; A RUN FAILED' : ''}\n`,
  )
  reportFigure({
    id: 'run.vs-replay',
    label: 'full default run vs a bare replay of its own requests',
    value: med.ratio,
    unit: '×',
    detail: `${s(b.wallMs)} vs ${s(bare.wallMs)}, median of ${runs}`,
    better: 'lower',
    goal: 4,
  })
  reportFigure({
    id: 'run.wall',
    label: 'full default run, wall time (npm start)',
    value: medianWall / 1000,
    unit: ' s',
    detail: `${b.requests.length} requests`,
    better: 'lower',
    goal: targetMs / 1000,
  })
  return ok ? 0 : 1
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main()
}
