// The event-report checks on bounded windows (decision 0004): with a window of 10 (AC_WINDOW), a target with
// 40 reports and one with 400 both pass every check, and the checks send about as many requests to each.
// (The fault matrix with AC_WINDOW=10 shows the windowed checks still catch every fault.)
import t from 'tap'
import { mockWith, runCaptured, tokenEnv } from '../../scripts/run/helpers.ts'

async function runAgainst(reports: number): Promise<{ code: number; requests: number; pass: number; skip: number; out: string }> {
  const mock = await mockWith({ reports })
  try {
    const r = await runCaptured(['--hs-url', mock.url, '--area', 'reports', '--allow-writes', '--reporter', 'json'], {
      ...tokenEnv(mock),
      AC_WINDOW: '10',
    })
    const rep = r.result.report!
    return {
      code: r.exitCode,
      requests: rep.requests?.byArea.reports ?? 0,
      pass: rep.counts.pass,
      skip: rep.counts.skip,
      out: r.stderr.slice(-3000),
    }
  } finally {
    await mock.close()
  }
}

t.test('a window of 10: 40 and 400 reports, every check passes, requests within 10%', async (t) => {
  const small = await runAgainst(40)
  const large = await runAgainst(400)
  t.equal(small.code, 0, '40 reports: the run passes', { out: small.out })
  t.equal(large.code, 0, '400 reports: the run passes', { out: large.out })
  t.equal(large.pass, small.pass, `as many checks pass (${small.pass})`)
  t.equal(large.skip, small.skip, 'no extra skips')
  t.ok(
    Math.abs(large.requests - small.requests) <= 0.1 * small.requests,
    `requests: ${small.requests} with 40 reports, ${large.requests} with 400 (within 10%)`,
  )
})
