// Usage errors end with exit code 2 and a clear message, before anything is started or sent.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { runCaptured } from './helpers.ts'

const cases: [string, string[], RegExp, NodeJS.ProcessEnv?][] = [
  ['an unknown flag', ['--bogus'], /unknown option '--bogus'/],
  ['a misspelt flag', ['--reportr', 'json'], /unknown option '--reportr'; did you mean '--reporter'\?/],
  ['a positional argument', ['http://x'], /unexpected argument/i],
  ['a URL that is not one', ['--mas-url', 'not a url'], /--mas-url: 'not a url' is not a URL/],
  ['a URL with another scheme', ['--hs-url', 'ftp://example.test'], /must be an http/],
  ['a URL from the environment', [], /MAS_URL: 'nope' is not a URL/, { MAS_URL: 'nope' }],
  ['an unknown area', ['--area', 'admin,bogus'], /--area: unknown value 'bogus'.*one of: admin, reports, log, upgrade/],
  ['a misspelt area', ['--area', 'admn'], /--area: unknown value 'admn'; did you mean 'admin'\?/],
  ['an unknown reporter', ['--reporter', 'fancy'], /--reporter: unknown value 'fancy'/],
  ['a misspelt reporter', ['--reporter', 'htm'], /did you mean 'html'\?/],
  ['a negative --timeout', ['--timeout', '-1'], /--timeout must be a positive number of seconds/],
  ['an output that is a folder', ['--output', '/tmp'], /--output: \/tmp is a folder/],
  [
    'the html reporter for the fault matrix',
    ['--fault-matrix', '--reporter', 'html', '--output', '/tmp/x.html'],
    /html describes a run, not a fault matrix/,
  ],
  ['a token without its URL', ['--mas-token', 'mat_secret_value_1234567'], /without --mas-url/],
  ['a homeserver token without its URL', ['--hs-user-token', 'syt_secret_value_1234567'], /without --hs-url/],
  ['a bad prefix', ['--hs-url', 'http://127.0.0.1:1', '--hs-prefix', 'no-slash'], /--hs-prefix/],
  ['a bad --jobs', ['--jobs', '0'], /--jobs must be a positive whole number/],
  ['a bad --timeout', ['--timeout', 'soon'], /--timeout must be a positive number of seconds/],
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
    t.match(r.stderr, /^admin-conformance run: /, 'the common prefix')
    t.notMatch(r.stderr, /secret_value/, 'no token echoed')
  })
}

t.test('--help prints the options and exits 0', async (t) => {
  const r = await runCaptured(['--help'])
  t.equal(r.exitCode, 0)
  for (const flag of [
    '--mas-url',
    '--mas-token',
    '--hs-url',
    '--hs-token',
    '--mas-user-token',
    '--hs-user-token',
    '--hs-prefix',
    '--client-prefix',
    '--area',
    '--grep',
    '--reporter',
    '--output',
    '--allow-writes',
    '--log-file',
    '--timeout',
  ]) {
    t.match(r.stdout, flag, `documents ${flag}`)
  }
  t.match(
    r.stdout,
    /exit codes: 0 .*\n\s+1 a check failed, or nothing was proved.*\n\s+2 usage error\n\s+3 a target .*\n\s+130 interrupted/s,
    'documents the exit codes',
  )
  for (const flag of ['--allow-partial', '--strict', 'html']) t.match(r.stdout, flag, `documents ${flag}`)
})

t.test('a --grep that selects nothing is a usage error, and fast once the check names are known', async (t) => {
  const r = await runCaptured(['--area', 'admin', '--grep', 'no check is called like this'])
  t.equal(r.exitCode, 2, 'exit code 2')
  t.match(r.stdout + r.stderr, /no check matched --grep/, 'says so')
  // The run above saw every admin check's name: the next miss is told before any suite process starts.
  const t0 = performance.now()
  const again = await runCaptured(['--area', 'admin', '--grep', 'nor like this'])
  const ms = performance.now() - t0
  t.equal(again.exitCode, 2, 'exit code 2 again')
  t.match(
    again.stderr,
    /no check matched --grep nor like this \(none of the \d+ checks of admin\)/,
    'says so, with how many checks it looked at',
  )
  t.notMatch(again.stdout, /running \d+ suite file/, 'no suite file was started')
  t.ok(ms < 3000, `told in ${Math.round(ms)} ms`)
  const hit = await runCaptured(['--area', 'admin', '--grep', '^version: '])
  t.equal(hit.exitCode, 0, 'a pattern that matches a known check still runs it', { out: hit.stdout.slice(-1500) })
  t.match(hit.stdout, /\d+ passed, 0 failed/)
})

t.test('the CLI passes the exit code on', async (t) => {
  const bin = fileURLToPath(new URL('../../../bin/admin-conformance.mjs', import.meta.url))
  const p = spawnSync(process.execPath, [bin, 'run', '--area', 'nowhere'], { encoding: 'utf8' })
  t.equal(p.status, 2, 'exit status 2')
  t.match(p.stderr, /--area: unknown value 'nowhere'/)
})
