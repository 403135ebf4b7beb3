// Against a real auth service with writes allowed, the runner registers the run's one introspection
// client before any suite starts (scripts/run/target/introspection.ts). Regression of a flake: with
// suite files side by side (--jobs 2), a client registered by a write suite mid-run appeared under the
// oauth2-clients walks and failed them on a healthy target. Here the run passes, leaves exactly one
// client behind (listed once, by the runner), and never prints the client's secret.
import t from 'tap'
import { mkdtempSync, rmSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { RunReport } from '../../../../scripts/run/index.ts'
import { mockWith, runCaptured, tokenEnv } from '../helpers.ts'

const mock = await mockWith()
t.teardown(() => mock.close())
const dir = mkdtempSync(path.join(tmpdir(), 'ac-introspection-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const out = path.join(dir, 'report.json')
const clientsBefore = new Set(
  mock
    .world()
    .mas.clients.all()
    .map((c) => c.id),
)

const r = await runCaptured(
  ['--mas-url', mock.url, '--area', 'admin', '--allow-writes', '--jobs', '2', '--reporter', 'json', '--output', out],
  tokenEnv(mock),
)
const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport
const added = [...mock.world().mas.clients.all()].filter((c) => !clientsBefore.has(c.id))

t.equal(r.exitCode, 0, 'the admin area passes with writes and two files side by side', {
  failed: report.suites.filter((s) => !s.ok).map((s) => s.file),
  stdout: r.stdout.slice(-3000),
})
t.equal(added.length, 1, 'the run registered exactly one client at the target', { added: added.map((c) => c.name) })
const client = added[0]!
t.match(client.name ?? '', new RegExp(report.runId), 'the client is named after the run')
const listed = report.leftovers.filter((l) => l.kind === 'oauth2-client')
t.same(
  listed.map((l) => [l.id, l.file]),
  [[client.id, '(runner)']],
  'the summary lists it once, as left by the runner',
)
t.ok(client.secret && client.secret.length >= 8, 'the client has a secret')
t.notOk(r.stdout.includes(client.secret!) || r.stderr.includes(client.secret!), 'its secret appears in no output')
t.notOk(readFileSync(out, 'utf8').includes(client.secret!), 'nor in the report')
