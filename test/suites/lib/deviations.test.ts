// The known deviations (lib/data/deviations.json) validate against their schema, and hasDeviation()
// covers the releases each names; an unknown version is the newest release.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { DEVIATIONS, deviationRange, hasDeviation } from '../../../lib/deviations.ts'
import { SYNAPSE_FEATURES, synapseHas } from '../../../lib/versions.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const json = (rel: string): any => JSON.parse(readFileSync(ROOT + rel, 'utf8'))

t.test('the data validates against its schema, which rejects broken rows', async (t) => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true })
  const validate = ajv.compile(json('schemas/versions/deviations.json'))
  const data = json('lib/data/deviations.json')
  t.ok(validate(data), JSON.stringify(validate.errors))
  const broken = structuredClone(data)
  delete broken.deviations['policy-data-get-returns-latest'].since
  t.notOk(validate(broken), 'a deviation needs since or until')
  const bad = structuredClone(data)
  bad.deviations['policy-data-get-returns-latest'].since = '1.22'
  t.notOk(validate(bad), 'versions are vX.Y.Z')
})

t.test('known defects of the real homeserver: kind defect, with their reproduction', async (t) => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true })
  const validate = ajv.compile(json('schemas/versions/deviations.json'))
  const data = json('lib/data/deviations.json')
  const noRepro = structuredClone(data)
  delete noRepro.deviations['event-report-id-overflow-500'].reproduction
  t.notOk(validate(noRepro), 'a defect needs its reproduction')
  for (const id of ['event-report-id-overflow-500', 'event-report-listing-overflow-500'] as const) {
    const d = DEVIATIONS[id]
    t.equal(d.product, 'synapse')
    t.equal(d.kind, 'defect', `${id} is a defect of the real server`)
    t.match(d.reproduction, { request: /99999999999999999999999/, answer: /^500 .*M_UNKNOWN/ })
    t.ok(hasDeviation('1.160.0', id), `${id}: 1.160.0 has it`)
    t.ok(hasDeviation('1.67.0', id), `${id}: 1.67.0 has it`)
    t.notOk(hasDeviation('1.66.0', id), `${id}: not claimed before the oldest release examined`)
    t.match(deviationRange(id), /v1\.67\.0 to v1\.160\.0 \(the newest examined\)/)
  }
  t.same(
    DEVIATIONS['event-report-id-overflow-500'].reproduction?.observedIn.map((v) => `${v.major}.${v.minor}.${v.patch}`),
    ['1.67.0', '1.160.0'],
  )
  t.equal(DEVIATIONS['policy-data-get-returns-latest'].kind, 'deviation', 'without kind: a deviation')
})

t.test('policy-data-get-returns-latest', async (t) => {
  const id = 'policy-data-get-returns-latest'
  t.equal(DEVIATIONS[id].product, 'mas')
  t.ok(hasDeviation('v1.22.0', id), 'v1.22.0 has it')
  t.ok(hasDeviation('v0.15.0', id), 'since v0.15.0 (when the policy-data routes appeared; the handler fetches the latest there already)')
  t.notOk(hasDeviation('v0.14.0', id), 'not before')
  t.ok(hasDeviation(undefined, id), 'an unknown version is taken as the newest: it has it (no release fixes it)')
  t.ok(hasDeviation('v1.22.0-12-gabcdef', id), 'an unparsable version likewise')
  t.match(deviationRange(id), /v0\.15\.0 to v1\.22\.0 \(the newest examined\)/)
})

t.test('the homeserver release facts the suites read', async (t) => {
  t.equal(synapseHas('1.67.0', 'dir-error-enum-message'), false, '1.67.0: "Unknown direction: <value>"')
  t.equal(synapseHas('1.77.0', 'dir-error-enum-message'), true)
  t.equal(synapseHas('1.77.0', 'unrouted-404-405'), false, 'unrouted requests answer 400 before v1.78.0')
  t.equal(synapseHas('1.78.0', 'unrouted-404-405'), true)
  t.equal(synapseHas('1.78.0', 'event-report-delete'), false, 'DELETE of a report since v1.79.0')
  t.ok(SYNAPSE_FEATURES['unrouted-404-405'].section.length > 0)
})
