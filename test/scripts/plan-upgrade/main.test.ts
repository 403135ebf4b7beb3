// `admin-conformance plan-upgrade`: exit codes, --json shape, text output, and --hs-url against small
// node:http servers on 127.0.0.1 (answering, failing, refusing, hanging). Most cases call `run` in-process
// with collecting streams; a few go through the real binary as a child process (started asynchronously,
// so the servers in this process keep answering) to prove the wiring and that the process ends by itself.
import t from 'tap'
import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { ServerReadError, fetchServerVersion, run, serverVersionUrl } from '../../../scripts/plan-upgrade/main.ts'
import { VersionError } from '../../../lib/versions.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BIN = `${ROOT}bin/admin-conformance.mjs`

interface Run { code: number | null; signal: string | null; stdout: string; stderr: string }

async function cli(args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await run(args, { out: (s) => { stdout += s }, err: (s) => { stderr += s } })
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
    table: 'interface',
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
  }
  t.same(plan.changes.map((c: { version: string }) => c.version), ['v1.93.0', 'v1.94.0', 'v1.100.0'])
  t.ok(Array.isArray(plan.reminders) && plan.reminders.length > 0)
  t.ok(Array.isArray(plan.stepDetails))
})

t.test('--json beyond the interface table and with --table reference', async (t) => {
  const d = JSON.parse((await cli(['--from', '1.95.0', '--to', '1.110.0', '--json'])).stdout)
  t.equal(d.rollbackFloor, null)
  t.equal(d.canRollBackToFrom, null)
  t.match(d.beyondTable, { lastRow: { to: 'v1.102.0' }, reference: { rollbackFloor: 'v1.100.0', label: /reference table/ } })
  const r = JSON.parse((await cli(['--from', '1.95.0', '--to', '1.110.0', '--json', '--table', 'reference'])).stdout)
  t.match(r, { table: 'reference', rollbackFloor: 'v1.100.0', canRollBackToFrom: false, beyondTable: null })
  const same = JSON.parse((await cli(['--from', '1.98.0', '--to', '1.98.0', '--json'])).stdout)
  t.same(same.changes, [])
  t.same(same.steps, [])
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
  const b = await cli(['--from', '1.95.0', '--to', '1.110.0'])
  t.match(b.stdout, /beyond the interface document's rollback table/)
  t.match(b.stdout, /\[reference table .*not the default/)
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
    [['--from', '1.0.0', '--to', '1.5.0', '--table', 'blog'], /--table must be one of interface, reference/],
    [['--from', '1.0.0', '--to', '1.5.0', '--frm', '1'], /Unknown option '--frm'/],
    [['--from', '1.0.0', '--to', '1.5.0', 'extra'], /positional/i],
    [['--to', '1.5.0', '--hs-url', 'not a url'], /is not a URL/],
    [['--to', '1.5.0', '--hs-url', 'ftp://127.0.0.1/'], /http or https/],
    [['--to', '1.5.0', '--hs-url', 'http://127.0.0.1:1', '--timeout', '0'], /--timeout must be/],
    [['--to', '1.5.0', '--hs-url', 'http://127.0.0.1:1', '--hs-prefix', 'nope'], /must start with '\/'/],
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
    from: 'v1.98.0', to: 'v1.100.0', rollbackFloor: 'v1.96.0', canRollBackToFrom: true,
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
    t.equal(f.code, 1, `exit 1 for ${prefix}`)
    t.match(f.stderr, new RegExp(`could not read the homeserver version from http://127\\.0\\.0\\.1:${port}${prefix}/admin/v1/server_version`))
    t.match(f.stderr, msg)
    t.equal(f.stdout, '')
  }
  // A reversed range found only after reading the server is still bad input.
  const rev = await cli(['--hs-url', base, '--to', '1.90.0'])
  t.equal(rev.code, 2)
  t.match(rev.stderr, /reversed range/)
})

t.test('--hs-url against a refusing server fails with exit 1 naming the URL', async (t) => {
  const probe = http.createServer()
  const port = await listen(probe)
  await close(probe) // nothing listens there now
  const r = await bin(['--hs-url', `http://127.0.0.1:${port}`, '--to', '1.100.0', '--timeout', '2000'])
  t.equal(r.code, 1)
  t.match(r.stderr, new RegExp(`could not read the homeserver version from http://127\\.0\\.0\\.1:${port}/_synapse/admin/v1/server_version: connection refused`))
  t.equal(r.signal, null, 'the CLI ended by itself')
})

t.test('--hs-url against a hanging server gives up after --timeout', async (t) => {
  const server = http.createServer(() => { /* accept, never answer */ })
  const port = await listen(server)
  t.teardown(() => close(server))
  const r = await bin(['--hs-url', `http://127.0.0.1:${port}`, '--to', '1.100.0', '--timeout', '300'])
  t.equal(r.code, 1)
  t.equal(r.signal, null, 'the CLI ended by itself, not by the test harness kill')
  t.match(r.stderr, /could not read the homeserver version from http:\/\/127\.0\.0\.1:\d+\/_synapse\/admin\/v1\/server_version: no (response|complete answer) within 300 ms/)
})

t.test('fetchServerVersion in-process: errors and redaction', async (t) => {
  const probe = http.createServer()
  const port = await listen(probe)
  await close(probe)
  await t.rejects(fetchServerVersion(`http://admin:s3cret@127.0.0.1:${port}`, { timeoutMs: 2000 }), ServerReadError)
  try {
    await fetchServerVersion(`http://admin:s3cret@127.0.0.1:${port}`, { timeoutMs: 2000 })
  } catch (e) {
    t.notMatch((e as Error).message, /s3cret/, 'credentials in the URL are not shown')
    t.match((e as Error).message, /connection refused/)
  }
  t.throws(() => serverVersionUrl('127.0.0.1:8008', '/_synapse'), VersionError)
  t.equal(serverVersionUrl('http://h:8008/a/b/?x=1#f', '/_synapse').href, 'http://h:8008/a/b/_synapse/admin/v1/server_version')
  t.equal(serverVersionUrl('https://h', '').href, 'https://h/admin/v1/server_version')

  const big = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ server_version: '1.98.0', pad: 'x'.repeat(100_000) }))
  })
  const bigPort = await listen(big)
  t.teardown(() => close(big))
  await t.rejects(fetchServerVersion(`http://127.0.0.1:${bigPort}`, { timeoutMs: 2000 }), /larger than/)
})
