// The known model gaps (lib/data/model-gaps.json): the file validates against its schema, the schema
// rejects a gap without a reason, and a gap covers exactly the aspects its patterns name, at the releases
// it concerns.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { MODEL_GAPS, gapAppliesAt, gapFor, type ModelGap } from '../../lib/model-gaps.ts'
import { parseVersion } from '../../lib/versions.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const schema = JSON.parse(readFileSync(`${ROOT}schemas/versions/model-gaps.json`, 'utf8'))
const data = JSON.parse(readFileSync(`${ROOT}lib/data/model-gaps.json`, 'utf8'))
const validate = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true }).compile(schema)

t.test('the data validates; a gap without a reason or with an unknown cause does not', async (t) => {
  t.ok(validate(data), JSON.stringify(validate.errors))
  t.equal(data.$schema, '../../schemas/versions/model-gaps.json')
  const first = Object.keys(data.gaps)[0]!
  const noReason = structuredClone(data)
  delete noReason.gaps[first].reason
  t.notOk(validate(noReason), 'no reason')
  const badCause = structuredClone(data)
  badCause.gaps[first].cause = 'luck'
  t.notOk(validate(badCause), 'unknown cause')
  t.ok(
    MODEL_GAPS.length >= 1 && MODEL_GAPS.every((g) => g.reason.length > 20 && g.observedIn.length > 0),
    'each gap has its reason and a release it was seen against',
  )
})

t.test('a gap covers its operation and aspect patterns, at the releases it concerns', async (t) => {
  const g: ModelGap = {
    id: 'x',
    product: 'synapse',
    cause: 'model',
    operation: 'GET /_matrix/client/versions',
    aspects: ['body:$.unstable_features.*', 'header:cache-control'],
    since: parseVersion('v1.100.0'),
    until: parseVersion('v1.200.0'),
    observedIn: [],
    reason: 'a reason long enough to say why',
  }
  t.equal(gapFor([g], 'synapse', 'GET /_matrix/client/versions', 'body:$.unstable_features.org.matrix.msc4151')?.id, 'x')
  t.equal(gapFor([g], 'synapse', 'GET /_matrix/client/versions', 'header:cache-control')?.id, 'x')
  t.equal(gapFor([g], 'synapse', 'GET /_matrix/client/versions', 'body:$.versions[]'), undefined, 'another field')
  t.equal(gapFor([g], 'synapse', 'GET /_matrix/client/versions', 'header:cache-control-x'), undefined, 'a pattern matches whole')
  t.equal(gapFor([g], 'mas', 'GET /_matrix/client/versions', 'header:cache-control'), undefined, 'another product')
  t.equal(gapFor([g], 'synapse', 'GET /_synapse/admin/v1/server_version', 'header:cache-control'), undefined, 'another operation')
  t.ok(gapAppliesAt(g, '1.160.0'))
  t.notOk(gapAppliesAt(g, '1.99.0'), 'before since')
  t.notOk(gapAppliesAt(g, '1.200.0'), 'from until')
  t.ok(gapAppliesAt(g, undefined), 'an unknown release: it may apply')
})
