// `admin-conformance mock`: the shared CLI conventions (exit 2 with did-you-mean, fault names one per line,
// negative numbers), and a start/stop in-process.
import t from 'tap'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { run } from '../../../scripts/mock/main.ts'
import { FAULTS } from '../../../mock/faults/registry.ts'

const BIN = fileURLToPath(new URL('../../../bin/admin-conformance.mjs', import.meta.url))

function collect() {
  const io = { stdout: '', stderr: '', out: (s: string) => void (io.stdout += s), err: (s: string) => void (io.stderr += s) }
  return io
}

t.test('an unknown fault: exit 2, the closest name, every name on its own line', async (t) => {
  const io = collect()
  t.equal(await run(['--fault', 'pagination-of-by-one'], io), 2)
  const lines = io.stderr.split('\n')
  t.equal(lines[0], "admin-conformance mock: --fault: unknown fault 'pagination-of-by-one'; did you mean 'pagination-off-by-one'?")
  for (const f of FAULTS) t.ok(lines.includes(`  ${f.name}`), f.name)
  t.notOk(
    lines.some((l) => l.includes(', log-')),
    'no comma-separated list',
  )
  t.match(io.stderr, /run 'admin-conformance mock --help' for usage/)
})

t.test('the real binary: --fault no-such exits 2', async (t) => {
  const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [BIN, 'mock', '--fault', 'no-such', '--port', '0'], { timeout: 60_000 }, (_e, _o, stderr) =>
      resolve({ code: child.exitCode, stderr }),
    )
  })
  t.equal(r.code, 2)
  t.match(
    r.stderr,
    /^admin-conformance mock: --fault: unknown fault 'no-such'\nknown faults \(\d+; --list-faults describes them\):\n( {2}[a-z0-9-]+\n)+/,
  )
  t.match(r.stderr, /\n {2}log-level-ignores-status\n/, 'every name on its own line (one of them)')
})

t.test('numbers, choices and unknown options', async (t) => {
  const cases: [string[], RegExp][] = [
    [['--sessions', '-5'], /--sessions must be a positive whole number \(0 to 2000000\), got '-5'/],
    [['--port', '70000'], /--port must be a positive whole number \(0 to 65535\)/],
    [['--max-body', '0'], /--max-body must be a positive whole number/],
    [['--log-format', 'v120'], /--log-format: unknown value 'v120'; did you mean 'v1.20'\?/],
    [['--sesions', '5'], /unknown option '--sesions'; did you mean '--sessions'\?/],
    [['--hs-prefix', 'nope'], /--hs-prefix: 'nope' must look like \/_synapse/],
    [
      ['--admin-client-id', 'admin-client', '--port', '0'],
      /--admin-client-id \(or MOCK_ADMIN_CLIENT_ID\) must be a ULID, .*; got "admin-client"/,
    ],
    [
      ['--hs-delegate-client-id', '01J00000000000000000ADM1NU', '--port', '0'],
      /--hs-delegate-client-id \(or MOCK_HS_DELEGATE_CLIENT_ID\) must be a ULID/,
    ],
    [['--allowed-host', 'http://evil.example/'], /--allowed-host: 'http:\/\/evil.example\/' is not a host name or address/],
  ]
  for (const [argv, re] of cases) {
    const io = collect()
    t.equal(await run(argv, io), 2, argv.join(' '))
    t.match(io.stderr, re)
    t.notMatch(io.stderr, /ambiguous/)
  }
})

t.test('starts, prints its URL, stops', async (t) => {
  const io = collect()
  let stop!: () => void
  const stopped = new Promise<void>((r) => (stop = r))
  const done = run(['--port', '0', '--quiet', '--sessions', '3', '--reports', '1', '--log-file', 'none'], io, stopped)
  for (let i = 0; i < 100 && !io.stdout; i++) await new Promise((r) => setTimeout(r, 50))
  t.match(io.stdout, /^http:\/\/127\.0\.0\.1:\d+\n$/)
  const res = await fetch(io.stdout.trim() + '/_mock/info', { headers: { 'x-admin-conformance': '1' } })
  t.equal(res.status, 200)
  await res.arrayBuffer()
  const bare = await fetch(io.stdout.trim() + '/_mock/info')
  t.equal(bare.status, 403, 'the control API wants its header')
  await bare.arrayBuffer()
  stop()
  t.equal(await done, 0)
})

t.test('--auto-approve: a seeded user, or exit 2 naming the closest; then /authorize answers with the code', async (t) => {
  const bad = collect()
  t.equal(
    await run(
      ['--port', '0', '--quiet', '--sessions', '3', '--reports', '1', '--log-file', 'none', '--auto-approve', 'nobody-at-all'],
      bad,
    ),
    2,
  )
  t.match(bad.stderr, /^admin-conformance mock: --auto-approve: no user 'nobody-at-all' in the seeded world/)
  t.equal(await run(['--auto-approve', ''], collect()), 2, 'an empty name')
  // the seeded world of seed 1 (the default): take its first user from a mock of the same seed
  const { startMock } = await import('../../../mock/site/server.ts')
  const { mockOptions } = await import('../../../mock/core/options.ts')
  const probe = await startMock(mockOptions({ port: 0, sessions: 3, reports: 1, logFile: null }, {}))
  const username = probe.world().mas.users.all()[0]!.username
  await probe.close()
  const io = collect()
  let stop!: () => void
  const stopped = new Promise<void>((r) => (stop = r))
  const done = run(
    ['--port', '0', '--quiet', '--sessions', '3', '--reports', '1', '--log-file', 'none', '--auto-approve', username],
    io,
    stopped,
  )
  for (let i = 0; i < 100 && !io.stdout; i++) await new Promise((r) => setTimeout(r, 50))
  const base = io.stdout.trim()
  const reg = await fetch(`${base}/oauth2/registration`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_uri: 'https://ui.example.com/',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'none',
    }),
  })
  const { client_id } = (await reg.json()) as { client_id: string }
  const r = await fetch(
    `${base}/authorize?response_type=code&client_id=${client_id}&redirect_uri=${encodeURIComponent('http://127.0.0.1/cb')}&scope=openid&state=x`,
    { redirect: 'manual' },
  )
  t.equal(r.status, 303)
  t.match(r.headers.get('location'), /^http:\/\/127\.0\.0\.1\/cb\?state=x&code=[A-Za-z0-9]{32}#$/)
  await r.arrayBuffer()
  stop()
  t.equal(await done, 0)
})

t.test('--homeserver-url with its secret (given or in a file); the secret is never printed', async (t) => {
  const { homeserverLink } = await import('../../../scripts/mock/main.ts')
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs')
  const { join } = await import('node:path')
  const { tmpdir } = await import('node:os')
  const dir = mkdtempSync(join(tmpdir(), 'ac-hs-secret-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'secret')
  writeFileSync(file, '  s3cret-from-file\n')
  t.same(
    homeserverLink({ 'homeserver-url': 'http://127.0.0.1:8008', 'homeserver-secret-file': file }, {}),
    { homeserverUrl: 'http://127.0.0.1:8008', homeserverSecret: 's3cret-from-file' },
    'whitespace dropped as Synapse drops it',
  )
  t.same(homeserverLink({}, { MOCK_HOMESERVER_URL: 'http://127.0.0.1:8008', MOCK_HOMESERVER_SECRET: 'env-secret' }), {
    homeserverUrl: 'http://127.0.0.1:8008',
    homeserverSecret: 'env-secret',
  })
  t.throws(() => homeserverLink({ 'homeserver-url': 'http://127.0.0.1:8008' }, {}), /needs --homeserver-secret/)
  t.throws(() => homeserverLink({ 'homeserver-url': 'ftp://x', 'homeserver-secret': 's' }, {}), /http\(s\) URL/)
  t.throws(() => homeserverLink({ 'homeserver-secret': 'a', 'homeserver-secret-file': file }, {}), /cannot both be given/)
  t.throws(() => homeserverLink({ 'homeserver-secret-file': join(dir, 'missing') }, {}), /ENOENT/)
  const io = collect()
  let stop!: () => void
  const stopped = new Promise<void>((r) => (stop = r))
  const running = run(['--port', '0', '--homeserver-url', 'http://127.0.0.1:9', '--homeserver-secret', 'do-not-print-me'], io, stopped)
  while (!io.stdout.includes('stop with Ctrl-C')) await new Promise((r) => setTimeout(r, 20))
  stop()
  t.equal(await running, 0)
  t.match(io.stdout, /homeserver link: +http:\/\/127\.0\.0\.1:9/)
  t.notOk(io.stdout.includes('do-not-print-me') || io.stderr.includes('do-not-print-me'), 'the secret is not printed')
})
