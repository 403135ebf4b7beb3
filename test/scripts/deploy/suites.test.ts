// scripts/deploy/suites.ts without Docker: the run engine started through its one entry (RUNNER_COMMAND,
// not bin/) against the bundled mock in this process, with tokens in the environment; the JSON report's
// counts; an abort stops the child.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions, randomToken } from '../../../mock/core/options.ts'
import { Redactor } from '../../../lib/redact.ts'
import { RUNNER_COMMAND, runArea } from '../../../scripts/deploy/suites.ts'

const tokens = { masAdmin: randomToken('mat_'), masUser: randomToken('mat_'), hsAdmin: randomToken('syt_'), hsUser: randomToken('syt_') }

t.test('the runner entry is the engine, not bin/', async (t) => {
  t.notMatch(RUNNER_COMMAND.join(' '), /bin\/admin-conformance/)
  t.match(RUNNER_COMMAND.at(-1), /scripts\/deploy\/runner-child\.ts$/)
})

t.test('runArea runs an area against a target and reads its report; tokens never printed', async (t) => {
  const mock = await startMock(
    mockOptions(
      {
        host: '127.0.0.1',
        port: 0,
        logFile: null,
        adminToken: tokens.masAdmin,
        userToken: tokens.masUser,
        hsAdminToken: tokens.hsAdmin,
        hsUserToken: tokens.hsUser,
      },
      {},
    ),
  )
  t.teardown(() => mock.close())
  const dir = mkdtempSync(join(tmpdir(), 'deploy-suites-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const lines: string[] = []
  const redactor = new Redactor(Object.values(tokens))
  const r = await runArea({
    area: 'reports',
    masUrl: `${mock.url}/`,
    homeserverUrl: `${mock.url}/`,
    allowWrites: true,
    tokens,
    reportFile: join(dir, 'reports.json'),
    timeoutMs: 300_000,
    redactor,
    out: (l) => lines.push(l),
  })
  t.equal(r.exitCode, 0, lines.slice(-20).join('\n'))
  t.equal(r.reportFile, join(dir, 'reports.json'))
  t.ok(JSON.parse(readFileSync(r.reportFile!, 'utf8')), 'a JSON report was written')
  t.ok(
    lines.every((l) => l.startsWith('  [reports] ')),
    'every line is tagged with its area',
  )
  for (const tok of Object.values(tokens)) t.notOk(lines.join('\n').includes(tok), 'no token in the output')
})

t.test('an abort stops the runner child', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'deploy-suites-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const ac = new AbortController()
  // A command that would run for a minute: only the abort can end it in time.
  const started = Date.now()
  setTimeout(() => ac.abort('test'), 300)
  await t.rejects(
    runArea({
      area: 'admin',
      masUrl: 'http://127.0.0.1:1/',
      homeserverUrl: 'http://127.0.0.1:1/',
      allowWrites: true,
      tokens,
      reportFile: join(dir, 'r.json'),
      timeoutMs: 60_000,
      redactor: new Redactor(),
      out: () => {},
      signal: ac.signal,
      command: [process.execPath, '-e', 'setTimeout(() => {}, 60000)', '--'],
    }),
    { kind: 'interrupted', message: /interrupted \(test\)/ },
  )
  t.ok(Date.now() - started < 10_000, 'ended soon after the abort')
})
