// `admin-conformance plan-upgrade`: exit codes, --json shape, text output, and --hs-url against small
// node:http servers on 127.0.0.1 (answering, failing, refusing, hanging). Most cases call `run` in-process
// with collecting streams; a few go through the real binary as a child process (started asynchronously,
// so the servers in this process keep answering) to prove the wiring and that the process ends by itself.
import t from 'tap'
import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { ServerReadError, fetchServerVersion, run, serverVersionUrl } from '../../../scripts/plan-upgrade/index.ts'
import { UsageError } from '../../../scripts/common/index.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BIN = `${ROOT}bin/admin-conformance.mjs`

interface Run {
  code: number | null
  signal: string | null
  stdout: string
  stderr: string
}

async function cli(args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await run(args, {
    out: (s) => {
      stdout += s
    },
    err: (s) => {
      stderr += s
    },
  })
  return { code, signal: null, stdout, stderr }
}

function bin(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // The kill timer only bounds a broken run; no assertion depends on timing.
    execFile(process.execPath, [BIN, 'plan-upgrade', ...args], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string; signal?: string }) | null
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stdout, stderr })
    })
  })
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

t.test('--help prints usage and exits 0', async (t) => {
  const r = await bin(['--help'])
  t.equal(r.code, 0)
  t.match(r.stdout, /usage: admin-conformance plan-upgrade/)
  t.match(r.stdout, /--hs-url/)
  t.match(r.stdout, /--table/)
  t.equal(r.stderr, '')
})

t.test('--json prints one object with the plan', async (t) => {
  const r = await bin(['--from', 'v1.90.0', '--to', '1.100.0', '--json'])
  t.equal(r.code, 0, r.stderr)
  const plan = JSON.parse(r.stdout)
  t.match(plan, {
    from: 'v1.90.0',
    to: 'v1.100.0',
    table: 'complete',
    rollbackFloor: 'v1.96.0',
    canRollBackToFrom: false,
    steps: ['v1.97.0', 'v1.100.0'],
    fromSource: { kind: 'argument' },
  })
  t.type(plan.canRollBackToFrom, 'boolean')
  t.ok(Array.isArray(plan.changes) && plan.changes.length === 3)
  for (const c of plan.changes) {
    t.type(c.version, 'string')
    t.type(c.change, 'string')
    t.ok(Array.isArray(c.actions) && c.actions.length > 0)
    t.match(c.version, /^v\d+\.\d+\.\d+$/)
    t.match(c, { source: /^(interface|synapse)$/, cite: /\S/ }, 'each change names its source')
  }
  t.same(
    plan.changes.map((c: { version: string }) => c.version),
    ['v1.93.0', 'v1.94.0', 'v1.100.0'],
  )
  t.ok(Array.isArray(plan.reminders) && plan.reminders.length > 0)
  t.ok(Array.isArray(plan.stepDetails))
})

t.test('--json: the complete table by default, each row with its source; --table interface and reference', async (t) => {
  const d = JSON.parse((await cli(['--from', '1.100.0', '--to', '1.110.0', '--json'])).stdout)
  t.match(d, { table: 'complete', rollbackFloor: 'v1.100.0', canRollBackToFrom: true, beyondTable: null, steps: ['v1.110.0'] })
  t.match(d.targetRange, {
    from: 'v1.105.1',
    to: null,
    floor: 'v1.100.0',
    source: 'synapse',
    cite: /^Synapse docs\/upgrade\.md, "Rolling back to older versions"/,
  })
  const old = JSON.parse((await cli(['--from', '1.40.0', '--to', '1.53.0', '--json'])).stdout)
  t.match(
    old.targetRange,
    { source: 'interface', cite: /^interface document.*lib\/data\/rollback-ranges\.json/ },
    'rows the interface document has cite it',
  )
  const ext = JSON.parse((await cli(['--from', '1.90.0', '--to', '1.104.0', '--json'])).stdout)
  t.match(ext.targetRange, {
    from: 'v1.98.0',
    to: 'v1.105.0',
    floor: 'v1.96.0',
    source: 'interface',
    cite: /v1\.98\.0–v1\.102\.0; extended to v1\.105\.0 by Synapse docs\/upgrade\.md/,
  })
  const i = JSON.parse((await cli(['--from', '1.95.0', '--to', '1.110.0', '--json', '--table', 'interface'])).stdout)
  t.equal(i.rollbackFloor, null)
  t.equal(i.canRollBackToFrom, null)
  t.match(i.beyondTable, { lastRow: { to: 'v1.102.0' }, reference: { rollbackFloor: 'v1.100.0', range: { source: 'synapse' } } })
  const r = JSON.parse((await cli(['--from', '1.95.0', '--to', '1.110.0', '--json', '--table', 'reference'])).stdout)
  t.match(r, { table: 'reference', rollbackFloor: 'v1.100.0', canRollBackToFrom: false, beyondTable: null })
  const same = JSON.parse((await cli(['--from', '1.98.0', '--to', '1.98.0', '--json'])).stdout)
  t.same(same.changes, [])
  t.same(same.steps, [])
  t.equal(same.upToDate, true)
  t.equal(same.rollbackFloor, 'v1.96.0')
  for (const out of [d, old, ext, i, r])
    t.notMatch(JSON.stringify(out), /(?<![\w/])reference\/|spec\/interface\.md|§/, 'no file outside the repository is cited')
})

t.test('the case of the issue: --from v1.100.0 --to v1.110.0 answers v1.100.0 by default', async (t) => {
  const r = await cli(['--from', 'v1.100.0', '--to', 'v1.110.0'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /v1\.110\.0 is in the range v1\.105\.1 onward, which can be rolled back to v1\.100\.0 at the earliest\./)
  t.match(r.stdout, /Rollback to v1\.100\.0 after the upgrade: possible\./)
  t.match(r.stdout, /\[source: Synapse docs\/upgrade\.md/)
  t.notMatch(r.stdout, /not the default|--table reference|(?<![\w/])reference\/|§/)
})

t.test('--to equal to the running version: a clear answer', async (t) => {
  const r = await cli(['--from', '1.110.0', '--to', 'v1.110.0'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /Nothing to upgrade: v1\.110\.0 is the version running now\./)
  t.match(r.stdout, /can be rolled back to v1\.100\.0 at the earliest/)
  t.notMatch(r.stdout, /Steps|Reminder/)
})

t.test("the auth service's changes and upgrade notes", async (t) => {
  const r = await cli(['--mas-from', 'v0.14.0', '--mas-to', '1.20.0'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /^Auth service \(MAS\) v0\.14\.0 → v1\.20\.0\n/)
  t.match(r.stdout, /v0\.15\.0 {2}The policy-data endpoints/)
  t.match(r.stdout, /v0\.17\.0 {2}The user-registration-tokens endpoints.*\[matrix-authentication-service v0\.17\.0, docs\/api\/spec\.json/)
  t.match(r.stdout, /v1\.20\.0 {2}The requester field.*docs\/reference\/request-log\.md/)
  t.match(r.stdout, /matrix\.kind: synapse_legacy/, 'crossing v1.0.0')
  t.match(r.stdout, /github\.com\/element-hq\/matrix-authentication-service\/releases/)
  t.ok(r.stdout.indexOf('    v1.4.0') < r.stdout.indexOf('    v1.20.0'), 'oldest first')
  const later = await cli(['--mas-from', 'v1.4.0', '--mas-to', '1.5.0', '--json'])
  t.same(
    JSON.parse(later.stdout).mas.changes.map((c: { version: string }) => c.version),
    ['v1.5.0'],
  )
  t.notMatch(later.stdout, /synapse_legacy/)
  const both = await cli(['--from', '1.100.0', '--to', '1.110.0', '--mas-from', '1.20.0', '--mas-to', '1.20.0'])
  t.match(both.stdout, /Upgrade plan v1\.100\.0 → v1\.110\.0[\s\S]*Auth service \(MAS\) v1\.20\.0 → v1\.20\.0\n {2}Nothing to upgrade/)
  t.notMatch(r.stdout + both.stdout, /(?<![\w/])reference\/|§/)
  for (const [args, msg] of [
    [['--mas-from', '1.0.0'], /--mas-from and --mas-to go together/],
    [['--mas-from', '1.5.0', '--mas-to', '1.4.0'], /reversed range: --mas-from v1\.5\.0/],
    [['--mas-from', '1.5', '--mas-to', '1.6.0'], /--mas-from: "1\.5" has 2 numbers/],
  ] as [string[], RegExp][]) {
    const bad = await cli(args)
    t.equal(bad.code, 2, JSON.stringify(args))
    t.match(bad.stderr, msg)
  }
})

t.test('text output has the floor, changes, steps and the reminder', async (t) => {
  const r = await cli(['--from', '1.40.0', '--to', '1.53.0'])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stdout, /v1\.53\.0 is in the range v1\.52\.0–v1\.57\.1, which can be rolled back to v1\.49\.0 at the earliest/)
  t.match(r.stdout, /Rollback to v1\.40\.0 after the upgrade: NOT possible/)
  t.match(r.stdout, /v1\.42\.0 .*purge_room/)
  t.match(r.stdout, /endpoint-removed: POST \/_synapse\/admin\/v1\/<room_id>\/delete/)
  t.match(r.stdout, /1\. v1\.47\.1 +range v1\.45\.0–v1\.47\.1, floor v1\.38\.0; rollback to v1\.40\.0 possible/)
  t.match(r.stdout, /2\. v1\.51\.0 +range v1\.48\.0–v1\.51\.0, floor v1\.39\.0; rollback to v1\.47\.1 possible/)
  t.match(r.stdout, /3\. v1\.53\.0 +\(target\) range v1\.52\.0–v1\.57\.1, floor v1\.49\.0; rollback to v1\.51\.0 possible/)
  const long = await cli(['--from', '1.0.0', '--to', '1.13.0'])
  t.match(long.stdout, /1\. v1\.8\.0 +range v1\.3\.0–v1\.8\.0, floor v1\.3\.0; rollback to v1\.0\.0 NOT possible \(no plan avoids this/)
  t.match(r.stdout, /background updates have finished/)
  t.ok(r.stdout.indexOf('v1.42.0') < r.stdout.indexOf('v1.47.0'), 'oldest first')
  const b = await cli(['--from', '1.95.0', '--to', '1.110.0', '--table', 'interface'])
  t.match(b.stdout, /beyond the interface document's rollback table/)
  t.match(b.stdout, /The default table \(--table complete\) answers: v1\.110\.0 is in v1\.105\.1 onward → v1\.100\.0/)
})

t.test('bad input exits 2 with a message on stderr', async (t) => {
  const cases: [string[], RegExp][] = [
    [['--from', '1.2.3rc1', '--to', '1.5.0'], /--from: "1\.2\.3rc1" is a release candidate/],
    [['--from', '1.2', '--to', '1.5.0'], /--from: "1\.2" has 2 numbers/],
    [['--from', 'v1.2.3.4', '--to', '1.5.0'], /has 4 numbers/],
    [['--from', '', '--to', '1.5.0'], /empty version/],
    [['--from', 'garbage', '--to', '1.5.0'], /is not a version/],
    [['--from', '1.0.0', '--to', 'v9'], /--to: "v9" has 1 number/],
    [['--from', '1.50.0', '--to', '1.40.0'], /reversed range/],
    [['--from', '1.12.5', '--to', '1.40.0'], /unknown rollback range for from v1\.12\.5/],
    [['--from', '1.0.0', '--to', '1.47.9'], /unknown rollback range for to v1\.47\.9/],
    [['--to', '1.5.0'], /--from <version> or --hs-url <url> is required/],
    [['--from', '1.0.0'], /--to <version> is required/],
    [['--from', '1.0.0', '--to', '1.5.0', '--hs-url', 'http://127.0.0.1:1'], /either --from or --hs-url/],
    [['--from', '1.0.0', '--to', '1.5.0', '--table', 'blog'], /--table: unknown value 'blog' \(one of: complete, interface, reference\)/],
    [['--from', '1.0.0', '--to', '1.5.0', '--table', 'interfac'], /did you mean 'interface'\?/],
    [['--from', '1.0.0', '--to', '1.5.0', '--frm', '1'], /unknown option '--frm'; did you mean '--from'\?/],
    [['--from', '1.0.0', '--to', '1.5.0', 'extra'], /unexpected argument 'extra'/],
    [['--to', '1.5.0', '--hs-url', 'not a url'], /is not a URL/],
    [['--to', '1.5.0', '--hs-url', 'ftp://127.0.0.1/'], /http or https/],
    [['--to', '1.5.0', '--hs-url', 'http://127.0.0.1:1', '--timeout', '0'], /--timeout must be a positive number of seconds/],
    [
      ['--to', '1.5.0', '--hs-url', 'http://127.0.0.1:1', '--timeout', '-1'],
      /^admin-conformance plan-upgrade: --timeout must be a positive number of seconds \(up to 3600\), got '-1'\n/,
    ],
    [['--to', '1.5.0', '--hs-url', 'http://127.0.0.1:1', '--hs-prefix', 'nope'], /--hs-prefix: 'nope' must look like \/_synapse/],
    [['--from', '1.0.0', '--to', '1.5.0', '--hs-prefix', '/x'], /--hs-prefix only applies with --hs-url/],
  ]
  for (const [args, msg] of cases) {
    const r = await cli(args)
    t.equal(r.code, 2, `exit 2 for ${JSON.stringify(args)}`)
    t.match(r.stderr, msg, JSON.stringify(args))
    t.equal(r.stdout, '', 'nothing on stdout')
  }
  const real = await bin(['--from', '1.2.3rc1', '--to', '1.5.0'])
  t.equal(real.code, 2, 'the binary exits 2 too')
  t.match(real.stderr, /release candidate/)
})

t.test('--hs-url reads --from from server_version', async (t) => {
  const seen: string[] = []
  const answers: Record<string, [number, string]> = {
    '/_synapse/admin/v1/server_version': [200, JSON.stringify({ server_version: '1.98.0 (b=develop, abcdef1)' })],
    '/custom/admin/v1/server_version': [200, JSON.stringify({ server_version: '1.92.0' })],
    '/base/_synapse/admin/v1/server_version': [200, JSON.stringify({ server_version: '1.85.0' })],
    '/rc/admin/v1/server_version': [200, JSON.stringify({ server_version: '1.99.0rc1 (b=develop, abcdef1)' })],
    '/err/admin/v1/server_version': [500, JSON.stringify({ errcode: 'M_UNKNOWN', error: 'Internal server error' })],
    '/text/admin/v1/server_version': [200, 'OK'],
    '/nokey/admin/v1/server_version': [200, JSON.stringify({ python_version: '3.11' })],
  }
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} auth=${req.headers.authorization ?? '-'}`)
    const [status, body] = answers[req.url ?? ''] ?? [404, JSON.stringify({ errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' })]
    res.writeHead(status, { 'content-type': 'application/json' }).end(body)
  })
  const port = await listen(server)
  t.teardown(() => close(server))
  const base = `http://127.0.0.1:${port}`

  const r = await cli(['--hs-url', base, '--to', '1.100.0', '--json'])
  t.equal(r.code, 0, r.stderr)
  const plan = JSON.parse(r.stdout)
  t.match(plan, {
    from: 'v1.98.0',
    to: 'v1.100.0',
    rollbackFloor: 'v1.96.0',
    canRollBackToFrom: true,
    fromSource: { kind: 'homeserver', url: `${base}/_synapse/admin/v1/server_version`, serverVersion: '1.98.0 (b=develop, abcdef1)' },
  })
  t.ok(seen.includes('GET /_synapse/admin/v1/server_version auth=-'), 'GET without authentication')

  const c = await cli(['--hs-url', `${base}/`, '--hs-prefix', '/custom/', '--to', '1.100.0', '--json'])
  t.equal(c.code, 0, c.stderr)
  t.equal(JSON.parse(c.stdout).from, 'v1.92.0', 'custom prefix')
  const b = await cli(['--hs-url', `${base}/base`, '--to', '1.100.0', '--json'])
  t.equal(JSON.parse(b.stdout).from, 'v1.85.0', 'a base path in --hs-url is kept')

  const text = await cli(['--hs-url', base, '--to', '1.100.0'])
  t.match(text.stdout, /Running version v1\.98\.0 read from http:\/\/127\.0\.0\.1:\d+\/_synapse\/admin\/v1\/server_version/)

  const fails: [string, RegExp][] = [
    ['/rc', /release candidate.*pass --from explicitly/],
    ['/err', /HTTP status 500/],
    ['/text', /not JSON/],
    ['/nokey', /no string "server_version"/],
    ['/missing', /HTTP status 404/],
  ]
  for (const [prefix, msg] of fails) {
    const f = await cli(['--hs-url', base, '--hs-prefix', prefix, '--to', '1.100.0'])
    t.equal(f.code, 3, `exit 3 (target rejected) for ${prefix}`)
    t.match(
      f.stderr,
      new RegExp(`could not read the homeserver version from http://127\\.0\\.0\\.1:${port}${prefix}/admin/v1/server_version`),
    )
    t.match(f.stderr, msg)
    t.equal(f.stdout, '')
  }
  // A reversed range found only after reading the server is still bad input.
  const rev = await cli(['--hs-url', base, '--to', '1.90.0'])
  t.equal(rev.code, 2)
  t.match(rev.stderr, /reversed range/)
})

t.test('--hs-url against a refusing server fails with exit 3 naming the URL', async (t) => {
  const probe = http.createServer()
  const port = await listen(probe)
  await close(probe) // nothing listens there now
  const r = await bin(['--hs-url', `http://127.0.0.1:${port}`, '--to', '1.100.0', '--timeout', '2'])
  t.equal(r.code, 3, 'target unreachable: exit 3')
  t.match(
    r.stderr,
    new RegExp(
      `^admin-conformance plan-upgrade: could not read the homeserver version from http://127\\.0\\.0\\.1:${port}/_synapse/admin/v1/server_version: connection refused`,
    ),
  )
  t.equal(r.signal, null, 'the CLI ended by itself')
})

t.test('--hs-url against a hanging server gives up after --timeout (seconds)', async (t) => {
  const server = http.createServer(() => {
    /* accept, never answer */
  })
  const port = await listen(server)
  t.teardown(() => close(server))
  const r = await bin(['--hs-url', `http://127.0.0.1:${port}`, '--to', '1.100.0', '--timeout', '0.3'])
  t.equal(r.code, 3)
  t.equal(r.signal, null, 'the CLI ended by itself, not by the test harness kill')
  t.match(
    r.stderr,
    /could not read the homeserver version from http:\/\/127\.0\.0\.1:\d+\/_synapse\/admin\/v1\/server_version: no (response|complete answer) within 300 ms/,
  )
})

t.test('fetchServerVersion in-process: errors and redaction', async (t) => {
  const probe = http.createServer()
  const port = await listen(probe)
  await close(probe)
  await t.rejects(fetchServerVersion(`http://admin:s3cret@127.0.0.1:${port}`, { timeoutS: 2 }), ServerReadError)
  try {
    await fetchServerVersion(`http://admin:s3cret@127.0.0.1:${port}`, { timeoutS: 2 })
  } catch (e) {
    t.notMatch((e as Error).message, /s3cret/, 'credentials in the URL are not shown')
    t.match((e as Error).message, /connection refused/)
  }
  t.throws(() => serverVersionUrl('127.0.0.1:8008', '/_synapse'), UsageError)
  t.equal(serverVersionUrl('http://h:8008/a/b/?x=1#f', '/_synapse').href, 'http://h:8008/a/b/_synapse/admin/v1/server_version')
  t.throws(() => serverVersionUrl('https://h', ''), UsageError, 'one prefix rule (lib/target.ts): a prefix is /_name')

  const big = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ server_version: '1.98.0', pad: 'x'.repeat(100_000) }))
  })
  const bigPort = await listen(big)
  t.teardown(() => close(big))
  await t.rejects(fetchServerVersion(`http://127.0.0.1:${bigPort}`, { timeoutS: 2 }), /larger than/)
})
