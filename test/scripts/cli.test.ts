// The entry point: unknown commands are usage errors (exit 2) with "did you mean", help and version exit 0.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const bin = fileURLToPath(new URL('../../bin/admin-conformance.mjs', import.meta.url))
const cli = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' })

t.test('a misspelt command', async (t) => {
  const p = cli('runn')
  t.equal(p.status, 2, 'exit 2')
  t.match(p.stderr, /^admin-conformance: unknown command 'runn'; did you mean 'run'\?/)
  const q = cli('frobnicate')
  t.equal(q.status, 2)
  t.notMatch(q.stderr, /did you mean/, 'no wild guess')
  t.equal(cli('toString').status, 2, 'no inherited names')
})

t.test('no command: the usage on stderr, exit 2; --help and --version exit 0', async (t) => {
  const none = cli()
  t.equal(none.status, 2)
  t.match(none.stderr, /usage: admin-conformance <command>/)
  t.equal(cli('--help').status, 0)
  t.match(cli('--version').stdout, /^\d+\.\d+\.\d+\n$/)
})
