// Usage errors end with exit code 2 and a clear message, before anything is started or sent.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { runCaptured } from './helpers.ts'

const cases: [string, string[], RegExp, NodeJS.ProcessEnv?][] = [
  ['an unknown flag', ['--bogus'], /Unknown option '--bogus'/],
  ['a positional argument', ['http://x'], /positional/i],
  ['a URL that is not one', ['--mas-url', 'not a url'], /--mas-url: 'not a url' is not a URL/],
  ['a URL with another scheme', ['--hs-url', 'ftp://example.test'], /must be an http/],
  ['a URL from the environment', [], /MAS_URL: 'nope' is not a URL/, { MAS_URL: 'nope' }],
  ['an unknown area', ['--area', 'admin,bogus'], /unknown area 'bogus'/],
  ['an unknown reporter', ['--reporter', 'fancy'], /unknown reporter 'fancy'/],
  ['a token without its URL', ['--mas-token', 'mat_secret_value_1234567'], /without --mas-url/],
  ['a homeserver token without its URL', ['--hs-user-token', 'syt_secret_value_1234567'], /without --hs-url/],
  ['a bad prefix', ['--hs-url', 'http://127.0.0.1:1', '--hs-prefix', 'no-slash'], /--hs-prefix/],
  ['a bad --jobs', ['--jobs', '0'], /--jobs must be a number/],
  ['a bad --timeout', ['--timeout', 'soon'], /--timeout must be a number/],
  ['a bad --grep', ['--grep', '(unclosed'], /--grep .* is not a regular expression/],
  ['--mock-fault with a target', ['--mas-url', 'http://127.0.0.1:1', '--mock-fault', 'finish-twice-200'], /bundled mock only/],
  ['an unknown mock fault', ['--mock-fault', 'no-such-fault', '--area', 'admin'], /unknown fault 'no-such-fault'/],
  ['an output folder that does not exist', ['--output', '/nonexistent-dir/x.json'], /does not exist/],
]

for (const [what, argv, message, env] of cases) {
  t.test(what, async (t) => {
    const r = await runCaptured(argv, env)
    t.equal(r.exitCode, 2, 'exit code 2')
    t.match(r.stderr, message, 'a clear message')
    t.notMatch(r.stderr, /secret_value/, 'no token echoed')
  })
}

t.test('--help prints the options and exits 0', async (t) => {
  const r = await runCaptured(['--help'])
  t.equal(r.exitCode, 0)
  for (const flag of ['--mas-url', '--mas-token', '--hs-url', '--hs-token', '--mas-user-token', '--hs-user-token', '--hs-prefix', '--client-prefix', '--area', '--grep', '--reporter', '--output', '--allow-writes', '--log-file', '--timeout']) {
    t.match(r.stdout, flag, `documents ${flag}`)
  }
  t.match(r.stdout, /exit codes: 0 .*1 .*\n.*2 usage error, 3 preflight failed/s, 'documents the exit codes')
})

t.test('a --grep that selects nothing is a usage error', async (t) => {
  const r = await runCaptured(['--area', 'admin', '--grep', 'no check is called like this'])
  t.equal(r.exitCode, 2, 'exit code 2')
  t.match(r.stdout, /no check matched --grep/, 'says so')
})

t.test('the CLI passes the exit code on', async (t) => {
  const bin = fileURLToPath(new URL('../../../bin/admin-conformance.mjs', import.meta.url))
  const p = spawnSync(process.execPath, [bin, 'run', '--area', 'nowhere'], { encoding: 'utf8' })
  t.equal(p.status, 2, 'exit status 2')
  t.match(p.stderr, /unknown area 'nowhere'/)
})
