// `plan-upgrade --snapshot`: which tabled changes a deployment will meet, judged from its snapshot.
import t from 'tap'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { run } from '../../../scripts/plan-upgrade/index.ts'
import { DIR, NEWEST, snapshotOf } from '../snapshot/helpers.ts'

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await run(args, {
    out: (s) => {
      out += s
    },
    err: (s) => {
      err += s
    },
  })
  return { code, out, err }
}

t.test('a Synapse 1.67.0 deployment with reports, upgraded to the newest release', async (t) => {
  const s = await snapshotOf({ hsVersion: '1.67.0', masVersion: 'v1.4.0', reports: 20 })
  const r = await cli(['--snapshot', s.file, '--to', NEWEST.hs, '--mas-to', NEWEST.mas, '--json'])
  t.equal(r.code, 0, r.err)
  const doc = JSON.parse(r.out)
  t.equal(doc.from, 'v1.67.0', '--from comes from the snapshot')
  const [hs, mas] = doc.snapshot.encounters
  const met = (id: string) => hs.met.find((e: { id: string }) => e.id.includes(id))
  t.match(
    met('event-report-delete').evidence.join('\n'),
    /holds data there: GET \/_synapse\/admin\/v1\/event_reports/,
    'it has reports the old release cannot delete',
  )
  t.match(met('server-version-python-version').evidence.join('\n'), /serves GET \/_synapse\/admin\/v1\/server_version/)
  t.ok(
    hs.unobservable.some((e: { id: string }) => /minimum-version/.test(e.id)),
    'runtime rows cannot be judged from a snapshot',
  )
  t.ok(
    mas.notMet.some(
      (e: { id: string; evidence: string[] }) => e.id.includes('personal-sessions') && /new with the upgrade/.test(e.evidence[0]!),
    ),
    'a route the deployment does not serve yet',
  )
  const text = await cli(['--snapshot', s.file, '--to', NEWEST.hs])
  t.match(text.out, /What this deployment will meet \(homeserver/)
})

t.test('a file that is not a snapshot is a usage error', async (t) => {
  const bad = path.join(DIR, 'plan-bad.json')
  writeFileSync(bad, '[]')
  const r = await cli(['--snapshot', bad, '--to', '1.100.0'])
  t.equal(r.code, 2)
  t.match(r.err, /--snapshot .*not a snapshot/)
})
