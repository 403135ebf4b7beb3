// Benchmark of `audit-log` on hostile input: is it linear when lines are long or missing?
//
//   tsx bench/audit-log-hostile.ts [--sizes 0.5,1,2] [--runs N]
//
// For each size (GiB) it makes a file of NULs without a newline (a log after a crash: a sparse file,
// so that the disk is not the measure) and times the command's audit of it in this process with the
// default number of threads (worker threads from 128 MiB) and with --jobs 1. Then a file with one
// request line of about 7 MB of one-letter reason words between two canonical lines, with each
// engine. Then requesters that share all but a prefix, at two counts, with each engine (time per
// line should not grow with their number). Prints seconds (best of --runs) and MiB/s, and exits 1 when any audit takes more than
// 5 s per GiB (each worker read on to the end of the file before: 19 s per GiB at 0.5 GiB, 44 s per
// GiB at 2 GiB, growing with the size), or does not finish as expected. Worker start-up (bundling
// included) is a fixed cost of a few tenths of a second, so small sizes show fewer MiB/s.

import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { QUICK, reportFigure } from './figures.ts'
import { auditFile, defaultJobs } from '../scripts/audit-log/index.ts'

const GOOD =
  '2026-06-18T09:00:01.234000Z  INFO http.server.response GET-1 - "GET /api/admin/v1/compat-sessions HTTP/1.1" 200 OK "python-requests/2.32.3" [polls: 3, cpu: 0.4ms, db: 1.2ms, elapsed: 2.5ms, queries: 2, fetched: 1] client.address=10.0.0.7\n'
const GIB = 1024 ** 3

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: QUICK ? '0.0625,0.125' : '0.5,1,2' }, runs: { type: 'string', default: QUICK ? '1' : '2' } },
})
const sizes = values.sizes.split(',').map(Number)
const runs = Math.max(1, Number(values.runs))
const dir = mkdtempSync(path.join(tmpdir(), 'bench-audit-hostile-'))
let ok = true

async function best(fn: () => Promise<void>): Promise<number> {
  let min = Infinity
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    min = Math.min(min, (performance.now() - t0) / 1000)
  }
  return min
}

try {
  const perGib: Record<string, number[]> = { default: [], one: [] }
  for (const gib of sizes) {
    const bytes = Math.round(gib * GIB)
    const file = path.join(dir, `nul-${gib}.log`)
    const fd = openSync(file, 'w')
    ftruncateSync(fd, bytes)
    closeSync(fd)
    for (const [name, jobs] of [
      ['default', undefined],
      ['one', 1],
    ] as const) {
      const s = await best(async () => {
        const r = await auditFile(file, jobs === undefined ? {} : { jobs })
        if (r.lines !== 1 || r.malformedCount !== 1) {
          ok = false
          process.stdout.write(`  unexpected result: ${r.lines} lines, ${r.malformedCount} malformed\n`)
        }
      })
      perGib[name]!.push(s / gib)
      const threads = jobs ?? defaultJobs(bytes)
      process.stdout.write(
        `NULs, no newline, ${gib} GiB, ${threads} thread(s)${jobs === undefined ? ' (default)' : ''}: ${s.toFixed(2)} s, ${(bytes / 2 ** 20 / s).toFixed(0)} MiB/s\n`,
      )
    }
    rmSync(file)
  }
  for (const [name, list] of Object.entries(perGib)) {
    const worst = Math.max(...list)
    if (worst > 5) ok = false
    process.stdout.write(
      `${name === 'default' ? 'default threads' : 'one thread'}: seconds per GiB from ${Math.min(...list).toFixed(2)} to ${worst.toFixed(2)} (target ≤ 5): ${worst <= 5 ? 'met' : 'NOT met'}\n`,
    )
    // Linear: the seconds per GiB at the largest size against the smallest (1 when time grows with size alone).
    if (name === 'one' && list.length > 1)
      reportFigure({
        id: 'audit-log-hostile.growth',
        label: `audit-log on NULs without newlines: s/GiB at ${sizes.at(-1)} GiB vs at ${sizes[0]} GiB`,
        value: list.at(-1)! / list[0]!,
        unit: '×',
        detail: `${list.at(-1)!.toFixed(2)} vs ${list[0]!.toFixed(2)} s/GiB, one thread`,
        better: 'lower',
        goal: 1.5,
      })
    if (name === 'one')
      reportFigure({
        id: 'audit-log-hostile.per-gib',
        label: 'audit-log on NULs without newlines, one thread: seconds per GiB (worst size)',
        value: worst,
        unit: ' s',
        better: 'lower',
        goal: 5,
      })
  }
  const words = path.join(dir, 'words.log')
  writeFileSync(words, GOOD + GOOD.replace(' 200 OK "', ` 200 ${'a '.repeat(3_500_000)}"`) + GOOD)
  for (const engine of ['wasm', 'js'] as const) {
    const s = await best(async () => {
      const r = await auditFile(words, { engine, jobs: 1 })
      if (r.requests !== 3) {
        ok = false
        process.stdout.write(`  unexpected result: ${r.requests} requests\n`)
      }
    })
    process.stdout.write(`one request line of 7 MB of words, --engine ${engine}: ${s.toFixed(2)} s\n`)
  }
  // Requesters that share all but their first characters (length, middle and end alike): a table
  // hashing a few positions put them all in one probe chain, quadratic in their number.
  const shared = (i: number) =>
    GOOD.replace(
      ' client.address',
      ` requester=user:${i.toString(36).padStart(6, '0')}${'X'.repeat(20)}(alice-${'a'.repeat(24)}) client.address`,
    )
  const counts = QUICK ? [10_000, 40_000] : [50_000, 200_000]
  for (const engine of ['wasm', 'js'] as const) {
    const perLine: number[] = []
    for (const n of counts) {
      const file = path.join(dir, `shared-${n}.log`)
      writeFileSync(file, Array.from({ length: n }, (_, i) => shared(i)).join(''))
      const s = await best(async () => {
        const r = await auditFile(file, { engine, jobs: 1 })
        if (r.requests !== n) {
          ok = false
          process.stdout.write(`  unexpected result: ${r.requests} requests\n`)
        }
      })
      perLine.push(s / n)
      process.stdout.write(`${n} requesters sharing all but a prefix, --engine ${engine}: ${s.toFixed(2)} s\n`)
      rmSync(file)
    }
    const growth = perLine[1]! / perLine[0]!
    // Four times the requesters: about the same time per line when linear, four times when quadratic.
    if (growth > 2) ok = false
    reportFigure({
      id: `audit-log-hostile.shared-prefix-${engine}`,
      label: `audit-log, --engine ${engine}, requesters sharing a prefix: time per line at ${counts[1]} vs ${counts[0]}`,
      value: growth,
      unit: '×',
      better: 'lower',
      goal: 1.5,
    })
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.stdout.write(ok ? 'audit-log is linear on hostile input: met\n' : 'audit-log on hostile input: NOT met\n')
process.exit(ok ? 0 : 1)
