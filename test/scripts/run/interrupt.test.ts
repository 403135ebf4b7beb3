// An interrupted run (Ctrl-C, SIGTERM) stops its suites, says "interrupted", exits 130, and still reports
// the files that finished; the files it stopped or never started are "not run", not failures.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RunReport } from '../../../scripts/run/index.ts'

const bin = fileURLToPath(new URL('../../../bin/admin-conformance.mjs', import.meta.url))

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  t.test(`${signal} after the first file`, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-interrupt-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const out = path.join(dir, 'report.json')
    const child = spawn(process.execPath, [bin, 'run', '--area', 'admin', '--jobs', '1', '--reporter', 'json', '--output', out], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let sent = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      if (!sent && /\n {2}ok {3}suites\//.test(stdout)) {
        sent = true
        child.kill(signal)
      }
    })
    child.stderr.resume()
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
    t.ok(sent, `${signal} was sent after a file finished`)
    t.equal(code, 130, 'exit code 130')
    t.match(stdout, /interrupted/, 'says interrupted')
    const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
    t.equal(report.interrupted, true, 'the report says interrupted')
    t.equal(report.exitCode, 130)
    const done = report.suites.filter((s) => !s.notRun)
    const notRun = report.suites.filter((s) => s.notRun)
    t.ok(
      done.length >= 1 && done.every((s) => s.ok && s.checks.length > 0),
      `the finished files are kept with their checks (${done.map((s) => s.file).join(', ')})`,
    )
    t.ok(notRun.length >= 1, `the rest are not run (${notRun.length})`)
    t.equal(report.counts.fail, 0, 'no check counted as failed')
    t.same(
      report.suites.filter((s) => s.error),
      [],
      'no file counted as crashed',
    )
    t.same(report.problems, [], 'an interruption is no "nothing proved" problem either')
  })
}
