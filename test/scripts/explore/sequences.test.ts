// Stateful sequences (scripts/explore/sequences.ts) on the bundled mock: none differs on the clean mock;
// a write fault (deactivate also locks) is found, shrunk to its shortest sequence, the target's answer
// and the model's shown.
import t from 'tap'
import { startMockSide, startModel } from '../../../scripts/explore/model.ts'
import { exploreSequences, runSequence, sequenceText, stepLine } from '../../../scripts/explore/sequences.ts'

const versions = { mas: 'v1.22.0', hs: '1.160.0' }
const prefixes = { hsPrefix: '/_synapse', clientPrefix: '/_matrix' }

async function against(fault: string | undefined) {
  const model = await startModel(versions, prefixes, 'admin-conformance-explore-test')
  const target = await startMockSide({
    versions,
    prefixes,
    userAgent: 'admin-conformance-explore-test',
    faults: fault ? [fault] : [],
    deviations: false,
  })
  t.teardown(async () => {
    await target.close()
    await model.close()
  })
  return { target: target.side, model: model.model, strict: model.strict }
}

t.test('the clean mock: no sequence differs', async (t) => {
  const sides = await against(undefined)
  const r = await exploreSequences(sides, { seed: 1, runs: 40, tag: 'seq-clean', apis: { mas: true, hs: true } })
  t.ok(r.runs >= 20, `${r.runs} sequences run`)
  t.equal(r.finding, undefined, r.finding ? sequenceText(r.finding) : 'none differs')
})

t.test('a write fault: the shortest sequence that shows it', async (t) => {
  const sides = await against('users-deactivate-locks')
  const r = await exploreSequences(sides, { seed: 1, runs: 60, tag: 'seq-fault', apis: { mas: true, hs: false } })
  t.ok(r.finding, 'found')
  const f = r.finding!
  t.same(
    f.steps.map((s) => stepLine(s)),
    ['create user u' + (f.steps[0] as { user: number }).user, 'deactivate u' + (f.steps[0] as { user: number }).user],
    'shrunk to create, deactivate',
  )
  t.match(f.target, /"locked":true/, 'the target locks on deactivate')
  t.match(f.model, /"locked":false/, 'the model does not')
  t.match(f.request, /^POST \/api\/admin\/v1\/users\/[0-9A-Z]{26}\/deactivate$/)
  // the finding's steps run again on fresh users give the same difference
  const again = await runSequence(sides, f.steps, 'seq-replay')
  t.equal(again?.at, 1, 'the steps alone show it again')
})
