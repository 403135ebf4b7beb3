// `admin-conformance diff`: the mock claiming an old release snapshotted, then the newest: every change
// expected, none unexpected, every tabled change a snapshot can observe seen; a fault on the after side is
// unexpected and nothing else is; two snapshots of one mock diff to nothing; noise from a second "before"
// is left out; reporters escape what the target sent; exit codes.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import { diffSnapshots, render, run } from '../../../scripts/diff/main.ts'
import type { Snapshot } from '../../../scripts/snapshot/format.ts'
import { DIR, NEWEST, envOf, newPolicyData, snapshotMock, snapshotOf } from '../snapshot/helpers.ts'

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await run(args, { out: (s) => { out += s }, err: (s) => { err += s } }, env)
  return { code, out, err }
}

/**
 * Tabled rows about an operation a snapshot reads, which a read-only snapshot of a default deployment
 * still cannot witness: the version string override needs the deployment's environment, and the v1.80.0
 * change concerns reporting an event the reporter cannot see (a write with a user's token).
 */
const READ_ONLY_BLIND = [/version-string-override/, /homeserver-changes\.json: v1\.80\.0 /]

t.test('homeserver 1.67.0 → the newest release: every change expected and every observable tabled change seen', async (t) => {
  const before = await snapshotOf({ hsVersion: '1.67.0' })
  const after = await snapshotOf({})
  const r = diffSnapshots(before.snap, after.snap, { before: 'before', after: 'after' })
  t.equal(r.explained.unexpected, 0, render(r, 'terminal').split('\n').filter((l) => l.includes('UNEXPECTED')).join('\n'))
  t.ok(r.explained.expected > 10, `${r.explained.expected} expected changes`)
  const hs = r.explained.products.find((p) => p.product === 'hs')!
  t.equal(hs.before, '1.67.0')
  t.equal(hs.after, NEWEST.hs)
  const unseen = hs.rows.filter((x) => x.observable && !x.seen).map((x) => x.id)
  t.same(unseen.filter((id) => !READ_ONLY_BLIND.some((re) => re.test(id))), [], 'every observable tabled change seen')
  for (const id of ['server-version-python-version (until v1.94.0)', 'event-report-delete (since v1.79.0)', 'unrouted-404-405', 'dir-error-enum-message', 'event-sender-filter', 'cors-expose-server', 'integer-message-unquoted-name']) {
    t.ok(hs.rows.some((x) => x.id.includes(id) && x.seen), `seen: ${id}`)
  }
  const sv = r.explained.operations.find((o) => o.operation === 'GET /_synapse/admin/v1/server_version')!
  const removed = sv.probes.flatMap((p) => p.changes).find((c) => c.kind === 'field-removed' && c.aspect === 'body:$.python_version')!
  t.ok(removed?.expected, 'python_version removed')
  t.match(removed.rows[0]!.event, /removed in v1\.94\.0/)
  const del = r.explained.operations.find((o) => o.operation === 'DELETE /_synapse/admin/v1/event_reports/{report_id}')!
  t.equal(del.probes[0]!.changes[0]!.kind, 'route-gained')
  const cli1 = await cli([before.file, after.file])
  t.equal(cli1.code, 0, 'exit 0 when every change is expected')
})

t.test('auth service v1.4.0 → the newest release: every change expected and every observable tabled change seen', async (t) => {
  const before = await snapshotOf({ masVersion: 'v1.4.0' })
  const after = await snapshotOf({})
  const r = diffSnapshots(before.snap, after.snap, { before: 'before', after: 'after' })
  t.equal(r.explained.unexpected, 0, render(r, 'terminal').split('\n').filter((l) => l.includes('UNEXPECTED')).join('\n'))
  const mas = r.explained.products.find((p) => p.product === 'mas')!
  t.equal(mas.after, NEWEST.mas)
  t.same(mas.rows.filter((x) => x.observable && !x.seen).map((x) => x.id), [], 'every observable tabled change seen')
  t.ok(mas.rows.some((x) => x.id.includes('personal-sessions') && x.seen))
  t.ok(mas.rows.filter((x) => !x.observable).every((x) => /log-/.test(x.id)), 'only the request-log rows are outside what a snapshot reads')
})

t.test('a fault on the after side is unexpected, and nothing else is', async (t) => {
  const before = await snapshotOf({})
  const after = await snapshotOf({ faults: ['reports-dir-message'] })
  const r = diffSnapshots(before.snap, after.snap, { before: 'before', after: 'after' })
  t.equal(r.explained.expected, 0)
  t.ok(r.explained.unexpected > 0)
  const probes = r.explained.operations.flatMap((o) => o.probes)
  t.same([...new Set(probes.map((p) => p.key))], ['hs GET /_synapse/admin/v1/event_reports?dir=bogus [admin]'], 'only the bad-dir answer changed')
  const res = await cli([before.file, after.file])
  t.equal(res.code, 1, 'exit 1 on an unexpected change')
  t.match(res.out, /UNEXPECTED GET \/_synapse\/admin\/v1\/event_reports\?dir=bogus/)
})

t.test('two snapshots of one mock diff to nothing; a moved listing is noise with --before2', async (t) => {
  const m = await startMock(mockOptions({ port: 0, logFile: null, sessions: 90, reports: 20 }, {}))
  t.teardown(() => m.close())
  const a = await snapshotMock(m)
  const b = await snapshotMock(m)
  const same = await cli([a.file, b.file])
  t.equal(same.code, 0)
  t.match(same.out, /no change beyond the noise/)
  // the deployment moves by itself between the snapshots (new policy data twice)
  t.equal(await newPolicyData(m.url, m.options.adminToken), 201)
  const b2 = await snapshotMock(m)
  t.equal(await newPolicyData(m.url, m.options.adminToken), 201)
  const c = await snapshotMock(m)
  t.equal((await cli([a.file, c.file])).code, 1, 'without the noise, moved data is an unexpected change')
  const withNoise = await cli([a.file, c.file, '--before2', b2.file])
  t.equal(withNoise.code, 0, withNoise.out)
  t.match(withNoise.out, /change\(s\) left out/)
  // a live AFTER: the same mock read by the target options
  const live = await cli([c.file, '--mas-url', m.url, '--hs-url', m.url], envOf(m))
  t.equal(live.code, 0, live.out + live.err)
})

t.test('reporters escape what the target sent', async (t) => {
  const base = await snapshotOf({ sessions: 30, reports: 5 })
  const hostile = structuredClone(base.snap) as Snapshot
  const key = 'hs GET /_synapse/admin/v1/event_reports?dir=bogus [admin]'
  hostile.probes[key]!.body!['$.error'] = 'string:"<script>alert(1)</script>\u001b[31m|`"'
  const r = diffSnapshots(base.snap, hostile, { before: 'a', after: 'b' })
  t.equal(r.explained.unexpected, 1)
  const html = render(r, 'html')
  t.notOk(html.includes('<script>alert'), 'html escaped')
  t.ok(html.includes('&lt;script&gt;'))
  t.notOk(render(r, 'terminal').includes('\u001b'), 'no raw control byte on the terminal')
  t.notOk(render(r, 'markdown').includes('\u001b'))
  const json = JSON.parse(render(r, 'json'))
  t.equal(json.explained.unexpected, 1)
  const file = path.join(DIR, 'hostile.json')
  writeFileSync(file, JSON.stringify(hostile))
  const out = path.join(DIR, 'report.md')
  const res = await cli([base.file, file, '--output', out])
  t.equal(res.code, 1)
})

t.test('exit codes: usage 2, unreachable 3', async (t) => {
  t.equal((await cli([])).code, 2, 'no BEFORE')
  t.equal((await cli([path.join(DIR, 'missing.json'), path.join(DIR, 'missing.json')])).code, 2, 'a missing file')
  const notSnap = path.join(DIR, 'not-a-snapshot.json')
  writeFileSync(notSnap, '{"format":"other"}')
  const r = await cli([notSnap, notSnap])
  t.equal(r.code, 2)
  t.match(r.err, /not a snapshot/)
  const s = await snapshotOf({ sessions: 30, reports: 5 })
  t.equal((await cli([s.file])).code, 2, 'no AFTER and no target')
  t.equal((await cli([s.file, s.file, '--hs-url', 'http://127.0.0.1:9'])).code, 2, 'AFTER twice')
  t.equal((await cli([s.file, '--reporter', 'htm'])).code, 2, 'a misspelt reporter')
  t.equal((await cli([s.file, '--hs-url', 'http://127.0.0.1:9'])).code, 3, 'a live AFTER that does not answer')
})
