// lib/versions.ts as the one version parser: image tags (deploy) read through parseVersionTag, and the
// claim plan-upgrade's default table rests on: the real project's rollback rows agree with the interface
// document's wherever the document has a row.
import t from 'tap'
import { compareVersions, formatVersion, parseVersion, parseVersionTag, rollbackFloor, rollbackTable } from '../../../lib/versions.ts'

t.test('parseVersionTag reads image tags leniently', async (t) => {
  t.same(parseVersionTag('v1.136.0'), { major: 1, minor: 136, patch: 0 })
  t.same(parseVersionTag('1.135.2-debug'), { major: 1, minor: 135, patch: 2 })
  t.same(parseVersionTag('1.20'), { major: 1, minor: 20, patch: 0 })
  t.same(parseVersionTag(' v0.16.1+build '), { major: 0, minor: 16, patch: 1 })
  for (const tag of ['latest', 'main', 'develop', 'sha-abc123', '', 'v1', '1.x.0', '01.2.3'])
    t.equal(parseVersionTag(tag), undefined, JSON.stringify(tag))
  t.same(parseVersionTag('1.2.3'), parseVersion('1.2.3'), 'the same Version shape as parseVersion')
})

t.test('the reference rows agree with the interface rows wherever the interface has one', async (t) => {
  const iface = rollbackTable({ table: 'interface' })
  for (const row of iface.rows) {
    for (const v of [row.from, row.to!]) {
      const a = rollbackFloor(v, { table: 'interface' })
      const b = rollbackFloor(v, { table: 'reference' })
      t.ok(
        a.kind === 'floor' && b.kind === 'floor' && compareVersions(a.floor, b.floor) === 0,
        `${formatVersion(v)}: same floor in both tables`,
      )
    }
  }
  const last = iface.rows.at(-1)!
  const after = rollbackFloor('v1.110.0', { table: 'reference' })
  t.ok(last.to && compareVersions('v1.110.0', last.to) > 0)
  t.match(after, { kind: 'floor' })
  t.equal(after.kind === 'floor' ? formatVersion(after.floor) : '', 'v1.100.0')
})
