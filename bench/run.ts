// Benchmark of `admin-conformance run` (issue 4's speed target):
//
//   npx tsx bench/run.ts [--runs N] [--target-seconds S] [--jobs N]
//
// Times the full run of areas A and B (`run --area admin,reports`) against the bundled mock, as a user
// runs it (the CLI in its own process), prints the wall time per suite file and in all, and the CPU
// time the run used. Target: under 20 s wall on a 2-core machine. With several runs the best one
// counts (the others show the noise of the machine). Exits non-zero when the target is missed or
// the run fails.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import type { RunReport } from '../scripts/run/main.ts'

const BIN = fileURLToPath(new URL('../bin/admin-conformance.mjs', import.meta.url))

export interface RunBenchResult {
  wallMs: number
  cpuMs: number
  exitCode: number
  report: RunReport
}

/** One run of the CLI; wall time from spawn to exit, CPU time of the whole process tree. */
export async function timeRun(jobs?: number): Promise<RunBenchResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-bench-run-'))
  const out = path.join(dir, 'report.json')
  const args = [BIN, 'run', '--area', 'admin,reports', '--reporter', 'json', '--output', out]
  if (jobs) args.push('--jobs', String(jobs))
  const started = performance.now()
  const child = spawn(process.execPath, args, { stdio: 'ignore' })
  const status = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)))
  const wallMs = performance.now() - started
  const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
  rmSync(dir, { recursive: true, force: true })
  return { wallMs, cpuMs: childrenCpuMs(), exitCode: status, report }
}

/**
 * The floor under any run: tap running as many trivial TypeScript test files as the run has suite
 * files, set up as the run sets it up (tsx loader, no coverage, same jobs). What the run takes beyond
 * it is the suites' own work.
 */
export async function timeTapFloor(files: number, jobs?: number): Promise<{ wallMs: number; cpuMs: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-bench-floor-'))
  const require = createRequire(import.meta.url)
  const tapPkg = require.resolve('tap/package.json')
  symlinkSync(path.resolve(path.dirname(tapPkg), '..'), path.join(dir, 'node_modules'), 'dir')
  writeFileSync(path.join(dir, '.taprc'), `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${pathToFileURL(require.resolve('tsx')).href}"\n`)
  const names: string[] = []
  for (let i = 0; i < files; i++) {
    const name = `floor${i}.test.ts`
    writeFileSync(path.join(dir, name), "import t from 'tap'\nconst n: number = 1\nt.test('trivial', async (t) => t.equal(n, 1))\n")
    names.push(name)
  }
  const bin = path.join(path.dirname(tapPkg), (require(tapPkg) as { bin: Record<string, string> }).bin.tap!)
  const args = [bin, '-R', 'tap', '--disable-coverage', '--jobs', String(jobs ?? availableParallelism()), ...names]
  childrenCpuMs()
  const started = performance.now()
  const child = spawn(process.execPath, args, { cwd: dir, stdio: 'ignore' })
  await new Promise<void>((resolve) => child.on('close', () => resolve()))
  const wallMs = performance.now() - started
  const cpuMs = childrenCpuMs()
  rmSync(dir, { recursive: true, force: true })
  return { wallMs, cpuMs }
}

let lastChildrenCpu = 0
/**
 * CPU (user + system) of the finished children of this process since the last call: the CLI and every
 * process it waited for (tap, the suite files). Linux only (/proc); NaN elsewhere.
 */
function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // fields[13], fields[14]: cutime, cstime (clock ticks of waited-for children)
    const ticks = Number(fields[13]) + Number(fields[14])
    const ms = (ticks * 1000) / 100
    const delta = ms - lastChildrenCpu
    lastChildrenCpu = ms
    return delta
  } catch {
    return Number.NaN
  }
}

function s(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { runs: { type: 'string' }, 'target-seconds': { type: 'string' }, jobs: { type: 'string' } },
    strict: true,
  })
  const runs = Math.max(1, Number(values.runs ?? 1))
  const targetMs = Number(values['target-seconds'] ?? 20) * 1000
  const jobs = values.jobs ? Number(values.jobs) : undefined
  const [l1] = loadavg()
  process.stdout.write(`run benchmark: areas admin,reports against the bundled mock; ${availableParallelism()} CPUs, load average ${l1!.toFixed(1)}\n`)
  childrenCpuMs()
  let best: RunBenchResult | undefined
  for (let i = 0; i < runs; i++) {
    const r = await timeRun(jobs)
    process.stdout.write(`  run ${i + 1}: ${s(r.wallMs)} wall, ${s(r.cpuMs)} CPU, exit ${r.exitCode}, ${r.report.counts.pass} passed, ${r.report.counts.fail} failed, ${r.report.counts.skip} skipped\n`)
    if (!best || r.wallMs < best.wallMs) best = r
  }
  const b = best!
  process.stdout.write('\ntime per suite (best run):\n')
  for (const suite of b.report.suites) process.stdout.write(`  ${suite.file.padEnd(44)} ${s(suite.durationMs).padStart(7)}  ${suite.checks.length} checks\n`)
  const floor = await timeTapFloor(b.report.suites.length, jobs)
  process.stdout.write(`\ntap floor (${b.report.suites.length} trivial test files, same set-up): ${s(floor.wallMs)} wall, ${s(floor.cpuMs)} CPU\n`)
  const ok = b.wallMs < targetMs && b.exitCode === 0
  process.stdout.write(`\nfull run: ${s(b.wallMs)} wall (target < ${s(targetMs)}), ${s(b.cpuMs)} CPU: ${ok ? 'ok' : b.exitCode !== 0 ? 'the run failed' : 'TOO SLOW'}\n`)
  return ok ? 0 : 1
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main()
}
