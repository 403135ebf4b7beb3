// The fault registry: names are one union built from the catalogs (a misspelt name fails `tsc`, which
// checks this file), every catalog is in FAULTS once, and names from users are checked at run time.
import t from 'tap'
import { FAULTS, Faults, isFaultName, UnknownFaultError, type FaultName } from '../../../mock/faults/registry.ts'
import * as catalogs from '../../../mock/faults/catalogs.ts'

t.test('a misspelt fault name does not type-check', async (t) => {
  const f = new Faults(['reports-dir-ignored'])
  // @ts-expect-error 'no-such' is not a FaultName: tsc fails here if has() accepted any string
  t.equal(f.has('no-such'), false)
  const known: FaultName = 'reports-dir-ignored'
  t.equal(f.has(known), true)
})

t.test('FAULTS is every catalog, each name once', async (t) => {
  const fromCatalogs = Object.values(catalogs)
    .flat()
    .map((f) => f.name)
  t.same(
    FAULTS.map((f) => f.name),
    fromCatalogs,
  )
  t.equal(new Set(fromCatalogs).size, fromCatalogs.length, 'no name twice')
  t.ok(Object.keys(catalogs).length >= 3, 'core, admin and homeserver catalogs')
  t.ok(FAULTS.length > 50, `${FAULTS.length} faults`)
})

t.test('names from users are checked at run time', async (t) => {
  t.ok(isFaultName('log-drops-requester'))
  t.notOk(isFaultName('log-drops-requestor'))
  t.throws(() => new Faults(['log-drops-requestor']), { name: 'UnknownFaultError', message: /unknown fault 'log-drops-requestor'/ })
  t.ok(new UnknownFaultError('x') instanceof Error)
  const f = new Faults()
  f.enable('log-drops-requester')
  t.same(f.list(), ['log-drops-requester'])
  f.disable('log-drops-requester')
  t.same(f.list(), [])
})
