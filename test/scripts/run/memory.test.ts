// Bounded memory (decision 0004): a target that answers 200 MB bodies leaves the peak RSS of the whole run
// (the runner and every suite process, summed, sampled from /proc) under 256 MiB, and each such answer
// fails its check with the size cap's message instead of being read.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { hostileServer } from './hostile.ts'
import { sampleTreeRss } from '../../../bench/tree-rss.ts'
import type { RunReport } from '../../../scripts/run/index.ts'

const BIN = fileURLToPath(new URL('../../../bin/admin-conformance.mjs', import.meta.url))
const MiB = 1024 * 1024

/** One run against a server whose every answer past the preflight is `bytes` long: exit code, peak tree RSS, report. */
async function runAgainst(bytes: number, dir: string): Promise<{ code: number; peak: number; report: RunReport; huge: number }> {
  const h = await hostileServer(bytes)
  const out = path.join(dir, `report-${bytes}.json`)
  const child = spawn(
    process.execPath,
    [BIN, 'run', '--mas-url', h.url, '--hs-url', h.url, '--area', 'reports', '--reporter', 'json', '--output', out],
    {
      stdio: 'ignore',
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MAS_ADMIN_TOKEN: 'mat_hostile_admin', HS_ADMIN_TOKEN: 'syt_hostile_admin' },
    },
  )
  const rss = sampleTreeRss(child.pid!, 50)
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)))
  const peak = rss.stop()
  await h.close()
  return { code, peak, report: JSON.parse(readFileSync(out, 'utf8')) as RunReport, huge: h.huge }
}

t.test(
  '200 MB answers: the run holds no more than against small answers, every huge answer a named failure',
  { skip: process.platform !== 'linux' ? 'samples /proc' : false },
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-memory-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const small = await runAgainst(100, dir)
    const h = await runAgainst(200 * MiB, dir)
    const { code, peak, report } = h
    t.equal(code, 1, 'the run fails (the target is broken), it does not crash')
    t.ok(
      peak <= small.peak + 64 * MiB,
      `peak RSS of the runner and its suite processes: ${(peak / MiB).toFixed(0)} MiB with 200 MB answers, ${(small.peak / MiB).toFixed(0)} MiB with 100-byte answers (at most 64 MiB more)`,
    )
    // The absolute figure (the whole run under 256 MiB at the default --jobs 1) is measured by
    // bench/sizes.ts outside tap: a run spawned from inside a tap test was measured ~40 MiB heavier per
    // process than the same run spawned from a plain node process, so it is no fair reading of the target.
    t.comment(`peak RSS with 200 MB answers: ${(peak / MiB).toFixed(0)} MiB`)
    const failures = report.suites.flatMap((s) => s.checks).flatMap((c) => c.failures.map((f) => f.name))
    t.ok(h.huge > 5, `the target answered ${h.huge} requests with 200 MB`)
    t.ok(
      failures.some((f) =>
        /the answer was too large \(--max-response-size\): GET http:\/\/127\.0\.0\.1:\d+\/\S+: the response is larger than the cap of 4 MiB \(4194304 bytes\): the server announced 209715200 bytes/.test(
          f,
        ),
      ),
      'an announced 200 MB body is refused with its size',
    )
    t.ok(
      failures.some((f) => /the answer was too large \(--max-response-size\): .*stopped after reading \d+ bytes/.test(f)),
      'a streamed body is cut at the cap',
    )
    t.notOk(
      report.suites.some((s) => s.error),
      'no suite file crashed',
      { errors: report.suites.filter((s) => s.error).map((s) => `${s.file}: ${s.error}`) },
    )
  },
)
