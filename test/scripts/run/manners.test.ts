// run's production manners (decision 0004): --rate, --max-requests (a budget shared by the suite processes),
// --max-response-size, and the summary's request counts and slowest endpoints.
import t from 'tap'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { countingProxy, mockWith, runCaptured, tokenEnv } from './helpers.ts'
import { hostileServer } from './hostile.ts'

const mock = await mockWith()
t.teardown(() => mock.close())
const env = tokenEnv(mock)
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

t.test('usage errors name the flag and what it takes', async (t) => {
  for (const [argv, re] of [
    [['--rate', '0'], /--rate must be a positive number of requests per second/],
    [['--rate', 'fast'], /--rate must be/],
    [['--max-requests', '1.5'], /--max-requests must be a positive whole number/],
    [['--max-response-size', '10'], /--max-response-size must be a size from 1KiB to 1GiB.*got '10'/],
    [['--max-response-size', '4XB'], /--max-response-size must be a size/],
  ] as [string[], RegExp][]) {
    const r = await runCaptured(argv)
    t.equal(r.exitCode, 2, `${argv.join(' ')}: exit 2`)
    t.match(r.stderr, re, `${argv.join(' ')}: the message`)
  }
  const help = await runCaptured(['--help'])
  t.match(help.stdout, /--rate N[\s\S]*--max-requests N[\s\S]*--max-response-size S/, 'the help lists the three flags')
})

t.test('the budget file counts exactly across processes', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-budget-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'budget')
  const code = `const { SharedBudget } = await import(${JSON.stringify(path.join(ROOT, 'lib/http-limits.ts'))}); const b = new SharedBudget(${JSON.stringify(file)}, 100); let n = 0; for (let i = 0; i < 60; i++) if (b.take()) n++; process.stdout.write(String(n))`
  const one = () =>
    new Promise<number>((resolve) => {
      const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT })
      let out = ''
      c.stdout.on('data', (d) => (out += d))
      c.on('close', () => resolve(Number(out)))
    })
  const granted = await Promise.all([one(), one(), one()])
  t.equal(
    granted.reduce((a, b) => a + b, 0),
    100,
    `three processes asking 60 each were granted exactly 100 (${granted.join(' + ')})`,
  )
})

t.test('--max-requests: the run stops at the budget, says where, and is not a pass', async (t) => {
  const proxy = await countingProxy(mock.url)
  t.teardown(() => proxy.close())
  const r = await runCaptured(['--hs-url', proxy.url, '--area', 'reports', '--max-requests', '25', '--jobs', '2', '--reporter', 'json'], {
    HS_ADMIN_TOKEN: env.HS_ADMIN_TOKEN,
    HS_USER_TOKEN: env.HS_USER_TOKEN,
  })
  t.equal(r.exitCode, 1, 'exit 1: nothing after the budget was proved', { err: r.stderr.slice(-1500) })
  const report = r.result.report!
  t.equal(report.requests?.total, 25, 'the suites sent exactly the budget')
  t.equal(report.requests?.budget?.limit, 25)
  t.match(
    report.problems.join('\n'),
    /the request budget \(--max-requests 25\) was spent at check "[^"]+" \(GET http:\/\/127\.0\.0\.1:\d+\/\S+ was not sent\)/,
    'the verdict names the check and the request',
  )
  t.match(r.stderr, /not a pass: the request budget \(--max-requests 25\) was spent at check/, 'the summary says so')
  t.ok(
    report.skipReasons.some((s) => /the request budget \(--max-requests 25\) was spent/.test(s.reason)),
    'the checks it stopped are skipped with the reason',
  )
  const seen = Object.values(proxy.counts).reduce((a, b) => a + b, 0)
  t.ok(seen >= 25 && seen <= 25 + 3, `the target saw the budget plus the preflight's requests (${seen})`)
})

t.test('--rate: the requests of the run are spread at the rate', async (t) => {
  const times: number[] = []
  const up = new URL(mock.url)
  const server = createServer((req, res) => {
    times.push(performance.now())
    const fwd = httpRequest(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } },
      (x) => {
        res.writeHead(x.statusCode ?? 502, x.headers)
        x.pipe(res)
      },
    )
    req.pipe(fwd)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => (server.closeAllConnections(), new Promise<void>((resolve) => server.close(() => resolve()))))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const r = await runCaptured(
    ['--hs-url', url, '--area', 'reports', '--grep', 'invalid', '--rate', '5', '--jobs', '1', '--reporter', 'json'],
    { HS_ADMIN_TOKEN: env.HS_ADMIN_TOKEN, HS_USER_TOKEN: env.HS_USER_TOKEN },
  )
  t.equal(r.exitCode, 0, 'the run passes', { err: r.stderr.slice(-1500) })
  const n = r.result.report!.requests!.total
  const suite = times.slice(times.length - n)
  t.ok(n >= 6, `enough requests to measure (${n})`)
  // One process at a time (--jobs 1), each paced at 5/s: the requests leave on slots 200 ms apart. What
  // the server sees adds the way there (a request sent late to its slot brings the next one closer), so
  // any 6 in a row span at least a second less one request's lateness, and the whole run at least its slots.
  let tightest = Infinity
  for (let i = 0; i + 5 < suite.length; i++) tightest = Math.min(tightest, suite[i + 5]! - suite[i]!)
  const gaps = suite.slice(1).map((x, i) => Math.round(x - suite[i]!))
  t.ok(tightest >= 800, `6 consecutive requests never took less than 0.8 s (tightest ${tightest.toFixed(0)} ms)`, { gaps })
  t.ok(suite.at(-1)! - suite[0]! >= (n - 1) * 200 * 0.95, `the ${n} requests span at least their ${n - 1} slots of 200 ms`, { gaps })
})

t.test('--max-response-size: a larger answer fails its check, naming the target, the request and the size', async (t) => {
  const h = await hostileServer(1024 * 1024)
  t.teardown(() => h.close())
  const r = await runCaptured(
    ['--hs-url', h.url, '--area', 'reports', '--grep', 'GET the listing', '--max-response-size', '64KiB', '--reporter', 'json'],
    { HS_ADMIN_TOKEN: 'syt_hostile_admin', HS_USER_TOKEN: 'syt_hostile_user' },
  )
  t.equal(r.exitCode, 1, 'exit 1', { err: r.stderr.slice(-1500) })
  const fails = r.result
    .report!.suites.flatMap((s) => s.checks)
    .filter((c) => c.outcome === 'fail')
    .flatMap((c) => c.failures.map((f) => f.name))
  const url = h.url.replace(/[.:/]/g, (c) => `\\${c}`)
  t.match(
    fails.join('\n'),
    new RegExp(
      `the answer was too large \\(--max-response-size\\): GET ${url}/_synapse/admin/v1/event_reports: the response is larger than the cap of 64 KiB \\(65536 bytes\\): (the server announced 1048576 bytes|stopped after reading \\d+ bytes)`,
    ),
    'the failure names the target URL, the request and the size',
  )
})

t.test('the summary shows requests per area and the slowest endpoints (templated)', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-manners-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = path.join(dir, 'r.md')
  const r = await runCaptured(
    ['--hs-url', mock.url, '--area', 'reports', '--grep', 'single report|unknown report', '--reporter', 'markdown', '--output', out],
    { HS_ADMIN_TOKEN: env.HS_ADMIN_TOKEN },
  )
  t.equal(r.exitCode, 0, 'passes', { err: r.stderr.slice(-1500) })
  t.match(
    r.stdout,
    /requests: \d+ sent \(reports \d+\)\nslowest endpoints \(median, max, count\):\n {2}GET \/_synapse\/admin\/v1\/event_reports/,
    'the terminal summary',
  )
  t.match(
    r.stdout,
    /GET \/_synapse\/admin\/v1\/event_reports\/\{id\}\s+\d+\.\d ms\s+\d+\.\d ms\s+× \d+/,
    'ids are templated, with median, max and count',
  )
  t.match(
    readFileSync(out, 'utf8'),
    /## Requests\n\n\d+ sent \(reports \d+\)[\s\S]*\| `GET \/_synapse\/admin\/v1\/event_reports/,
    'the markdown report has the part',
  )
})
