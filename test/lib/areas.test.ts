// lib/areas.ts: the one table of areas, and the area of a suite file from its path.
import t from 'tap'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { AREAS, AREA_NAMES, areaOfPath, isArea, suiteDirOfPath } from '../../lib/areas.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

t.test('every area has its suite folder', async (t) => {
  t.same(AREA_NAMES, ['admin', 'reports', 'log', 'upgrade'])
  for (const a of AREA_NAMES) t.ok(existsSync(ROOT + AREAS[a].dir), `${a}: ${AREAS[a].dir} exists`)
  t.ok(isArea('log'))
  t.notOk(isArea('toString'), 'no inherited names')
})

t.test('the area of a path: relative, absolute, through a symlinked copy', async (t) => {
  t.equal(areaOfPath('suites/homeserver/auth.suite.ts'), 'reports')
  t.equal(areaOfPath('/tmp/admin-conformance-run-x/suites/admin/version.suite.ts'), 'admin')
  t.equal(areaOfPath('/home/u/suites/project/suites/requestlog/x.suite.ts'), 'log', 'the last suites/ folder decides')
  t.equal(areaOfPath('C:\\p\\suites\\upgrade\\pre-upgrade.suite.ts'), 'upgrade')
  t.equal(areaOfPath('test/x.test.ts'), undefined)
  t.equal(suiteDirOfPath('/x/suites/admin/listing/walk.ts'), 'suites/admin')
})
