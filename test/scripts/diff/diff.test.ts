// `admin-conformance diff`: the mock claiming an old release snapshotted, then the newest: every change
// expected, none unexpected, every tabled change a snapshot can observe seen; a fault on the after side is
// unexpected and nothing else is; two snapshots of one mock diff to nothing; noise from a second "before"
// is left out; reporters escape what the target sent; exit codes. Across deployments (--across-deployments):
// two mocks of one release with different data differ in nothing a model can promise, a fault still
// shows, and a difference a known model gap covers is labelled so (the real Synapse against the mock:
// test/real-synapse/snapshot-diff.test.ts).
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
  const code = await run(
    args,
    {
      out: (s) => {
        out += s
      },
      err: (s) => {
        err += s
      },
    },
    env,
  )
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
  t.equal(
    r.explained.unexpected,
    0,
    render(r, 'terminal')
      .split('\n')
      .filter((l) => l.includes('UNEXPECTED'))
      .join('\n'),
  )
  t.ok(r.explained.expected > 10, `${r.explained.expected} expected changes`)
  const hs = r.explained.products.find((p) => p.product === 'hs')!
  t.equal(hs.before, '1.67.0')
  t.equal(hs.after, NEWEST.hs)
  const unseen = hs.rows.filter((x) => x.observable && !x.seen).map((x) => x.id)
  t.same(
    unseen.filter((id) => !READ_ONLY_BLIND.some((re) => re.test(id))),
    [],
    'every observable tabled change seen',
  )
  for (const id of [
    'server-version-python-version (until v1.94.0)',
    'event-report-delete (since v1.79.0)',
    'unrouted-404-405',
    'dir-error-enum-message',
    'event-sender-filter',
    'cors-expose-server',
    'integer-message-unquoted-name',
  ]) {
    t.ok(
      hs.rows.some((x) => x.id.includes(id) && x.seen),
      `seen: ${id}`,
    )
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
  t.equal(
    r.explained.unexpected,
    0,
    render(r, 'terminal')
      .split('\n')
      .filter((l) => l.includes('UNEXPECTED'))
      .join('\n'),
  )
  const mas = r.explained.products.find((p) => p.product === 'mas')!
  t.equal(mas.after, NEWEST.mas)
  t.same(
    mas.rows.filter((x) => x.observable && !x.seen).map((x) => x.id),
    [],
    'every observable tabled change seen',
  )
  t.ok(mas.rows.some((x) => x.id.includes('personal-sessions') && x.seen))
  t.ok(
    mas.rows.filter((x) => !x.observable).every((x) => /log-/.test(x.id)),
    'only the request-log rows are outside what a snapshot reads',
  )
})

t.test('a fault on the after side is unexpected, and nothing else is', async (t) => {
  const before = await snapshotOf({})
  const after = await snapshotOf({ faults: ['reports-dir-message'] })
  const r = diffSnapshots(before.snap, after.snap, { before: 'before', after: 'after' })
  t.equal(r.explained.expected, 0)
  t.ok(r.explained.unexpected > 0)
  const probes = r.explained.operations.flatMap((o) => o.probes)
  t.same(
    [...new Set(probes.map((p) => p.key))],
    ['hs GET /_synapse/admin/v1/event_reports?dir=bogus [admin]'],
    'only the bad-dir answer changed',
  )
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

t.test('across deployments: different data of one release is no difference; a fault is', async (t) => {
  const a = await snapshotOf({ seed: 1, sessions: 300, reports: 40 })
  const b = await snapshotOf({ seed: 7, sessions: 300, reports: 40 })
  const plain = diffSnapshots(a.snap, b.snap, { before: 'a', after: 'b' })
  t.ok(plain.explained.unexpected > 20, `value by value, other data is ${plain.explained.unexpected} unexpected changes`)
  const across = diffSnapshots(a.snap, b.snap, { before: 'a', after: 'b' }, undefined, 'across-deployments')
  t.equal(across.explained.expected + across.explained.unexpected + across.explained.knownGaps, 0, render(across, 'terminal'))
  const res = await cli([a.file, b.file, '--across-deployments'])
  t.equal(res.code, 0, res.out)
  t.match(res.out, /no difference a model can promise/)
  t.match(res.out, /compared across deployments/)
  // an error text is what a model promises: a fault that changes one is unexpected, and nothing else is
  const faulty = await snapshotOf({ seed: 7, sessions: 300, reports: 40, faults: ['reports-dir-message'] })
  const f = diffSnapshots(a.snap, faulty.snap, { before: 'a', after: 'b' }, undefined, 'across-deployments')
  const probes = f.explained.operations.flatMap((o) => o.probes)
  t.same(
    [...new Set(probes.map((p) => p.key))],
    ['hs GET /_synapse/admin/v1/event_reports?dir=bogus [admin]'],
    'only the bad-dir answer differs',
  )
  t.ok(f.explained.unexpected > 0 && f.explained.knownGaps === 0)
  const fr = await cli([a.file, faulty.file, '--across-deployments'])
  t.equal(fr.code, 1)
  t.match(fr.out, /UNEXPECTED GET \/_synapse\/admin\/v1\/event_reports\?dir=bogus/)
})

t.test('across deployments: a difference a known model gap covers is labelled so, with its reason', async (t) => {
  const base = await snapshotOf({ sessions: 30, reports: 10 })
  const real = structuredClone(base.snap) as Snapshot
  // what a real server without an auth service and with other unstable features answers (lib/data/model-gaps.json)
  const versions = real.probes['hs GET /_matrix/client/versions [none]']!
  versions.body!['$.unstable_features.org.example.msc9999'] = 'boolean:true'
  versions.headers!['cache-control'] = 'public, max-age=600, s-maxage=3600, stale-while-revalidate=600'
  const wk = real.probes['hs GET /.well-known/matrix/client [none]']!
  wk.status = 404
  wk.body = { '$.errcode': 'string:"M_NOT_FOUND"', '$.error': 'string:".well-known not available"' }
  // and one difference no gap covers
  real.probes['hs GET /_synapse/admin/v1/server_version [none]']!.body!['$.extra'] = 'string:"x"'
  const r = diffSnapshots(real, base.snap, { before: 'real', after: 'mock' }, undefined, 'across-deployments')
  const changes = r.explained.operations.flatMap((o) => o.probes.flatMap((p) => p.changes.map((c) => ({ op: o.operation, c }))))
  t.same([...new Set(changes.filter(({ c }) => c.gap).map(({ c }) => c.gap!.id))].sort(), [
    'client-versions-cache-control',
    'client-versions-fixed-features',
    'discovery-well-known-delegated',
  ])
  t.same(
    changes.filter(({ c }) => !c.gap).map(({ op, c }) => `${op} ${c.aspect}`),
    ['GET /_synapse/admin/v1/server_version body:$.extra'],
    'the other difference is unexpected',
  )
  t.equal(r.explained.unexpected, 1)
  t.equal(r.explained.knownGaps, changes.length - 1)
  const gapRows = r.explained.gaps.filter((g) => g.product === 'hs')
  t.ok(gapRows.length >= 3 && gapRows.filter((g) => g.seen).length === 3, 'the report lists the gaps of the release, three seen')
  const text = render(r, 'terminal')
  t.match(text, /known gap {2}\d+ difference\(s\): discovery-well-known-delegated \(configuration\)/)
  t.match(text, /UNEXPECTED GET \/_synapse\/admin\/v1\/server_version \[none\]: field removed \$\.extra/)
  t.match(render(r, 'markdown'), /known model gap: client-versions-fixed-features \(model\)/)
  t.match(render(r, 'html'), /class="gap"/)
  // one deployment with itself: no gap applies, each of these is unexpected
  const same = diffSnapshots(real, base.snap, { before: 'real', after: 'mock' })
  t.equal(same.explained.knownGaps, 0)
  t.ok(same.explained.unexpected >= changes.length)
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
  const help = await cli(['--help'])
  t.equal(help.code, 0)
  t.match(help.out, /--across-deployments/)
  t.match(help.out, /lib\/data\/model-gaps\.json/)
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

t.test('every known model gap names an operation a snapshot reads, or a method the model lacks on a path it serves', async (t) => {
  const { MODEL_GAPS } = await import('../../../lib/model-gaps.ts')
  const { snapshotPlan } = await import('../../../scripts/snapshot/plan.ts')
  const { allOperations } = await import('../../../scripts/explore/generate.ts')
  const ops = new Set(snapshotPlan({ mas: true, hs: true }).map((p) => `${p.api === 'mas' ? 'mas' : 'synapse'} ${p.operation}`))
  const modelled = allOperations().map((o) => ({ product: o.api === 'mas' ? 'mas' : 'synapse', method: o.method, template: o.template }))
  for (const g of MODEL_GAPS) {
    const [method, template] = g.operation.split(' ')
    // explore meets the second kind: it sends a path's other methods (lib/data/model-gaps.json skips these)
    const unmodelledMethod =
      modelled.some((o) => o.product === g.product && o.template === template) &&
      !modelled.some((o) => o.product === g.product && o.template === template && o.method === method)
    t.ok(ops.has(`${g.product} ${g.operation}`) || (unmodelledMethod && g.aspects.includes('*')), `${g.id}: ${g.operation}`)
  }
})
