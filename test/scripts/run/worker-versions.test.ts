// Each suite worker has its own bundled mock (decision 0004), and each gets the versions the preflight
// found: the version suites assert that the target reports what the run's header printed, whichever
// worker runs them (the runner once gave them to its own target only, so a version suite on the second
// worker asserted nothing of it).
import t from 'tap'
import { runCaptured } from './helpers.ts'

const SAME = 'the same version as the preflight printed in the header'

for (let round = 1; round <= 3; round++) {
  t.test(`round ${round}: both version suites compare with the header, on either worker`, async (t) => {
    const r = await runCaptured(['--grep', 'matches the run header', '--jobs', '2', '--reporter', 'tap'])
    t.equal(r.exitCode, 0, 'exit code 0', { stderr: r.stderr.slice(-2000) })
    const lines = r.stdout.split('\n').filter((l) => l.includes(SAME))
    t.equal(lines.length, 2, 'one such assertion from each product', { lines })
    t.ok(
      lines.every((l) => /^\s*ok \d+/.test(l)),
      'both hold',
    )
  })
}
