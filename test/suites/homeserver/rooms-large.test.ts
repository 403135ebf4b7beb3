// The rooms checks on a target with more rooms than they read whole: dir=b against dir=f compares the
// last rooms forwards with the first backwards, so it proves the order at any size instead of skipping,
// and still catches a server that ignores dir.
import t from 'tap'
import { mockWith, runCaptured, tokenEnv } from '../../scripts/run/helpers.ts'

for (const fault of [undefined, 'rooms-dir-ignored']) {
  t.test(`more than 500 rooms${fault ? `, ${fault}` : ''}: dir=b against dir=f ${fault ? 'fails' : 'passes'}`, async (t) => {
    const mock = await mockWith({ reports: 100_000, ...(fault ? { faults: [fault] } : {}) })
    t.teardown(() => mock.close())
    t.ok(mock.world().hs.rooms.size > 500, `${mock.world().hs.rooms.size} rooms`)
    const r = await runCaptured(
      ['--hs-url', mock.url, '--area', 'reports', '--grep', '^rooms: dir=b lists the exact reverse', '--reporter', 'json'],
      tokenEnv(mock),
    )
    const rep = r.result.report!
    t.equal(rep.counts.skip, 0, 'not skipped', { counts: rep.counts })
    if (fault) {
      t.equal(rep.counts.fail, 1, 'the fault is caught', { counts: rep.counts })
      t.match(JSON.stringify(rep), /the first 500 rooms backwards are the last 500 forwards/, 'compared as windows')
    } else t.equal(rep.counts.pass, 1, 'passes (it was skipped above 500 rooms)', { counts: rep.counts, out: r.stderr.slice(-2000) })
  })
}
