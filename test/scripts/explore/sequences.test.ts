// Stateful sequences (scripts/explore/sequences.ts) on the bundled mock: none differs on the clean mock,
// every family's steps run there; write faults (deactivate also locks; a second revoke accepted; the old
// token kept after a regenerate; a usage limit not updated; a deleted filed report kept) are found,
// shrunk to their shortest sequence, the target's answer and the model's shown.
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
  const r = await exploreSequences(sides, { seed: 1, runs: 25, tag: 'seq-clean', apis: { mas: true, hs: true } })
  t.ok(r.runs >= 15, `${r.runs} sequences run`)
  t.equal(r.finding, undefined, r.finding ? sequenceText(r.finding) : 'none differs')
})

t.test('the clean mock: the new families run, and none differs', async (t) => {
  const sides = await against(undefined)
  const r = await exploreSequences(sides, {
    seed: 2,
    runs: 25,
    tag: 'seq-clean-new',
    apis: { mas: true, hs: true },
    families: ['sessions', 'admin-writes', 'reports'],
  })
  t.equal(r.finding, undefined, r.finding ? sequenceText(r.finding) : 'none differs')
  for (const op of [
    'personal',
    'finish',
    'regtoken',
    'email',
    'link',
    'file-report event_reports',
    'file-report user_reports',
    'filed event_reports',
  ])
    t.ok((r.ran[op] ?? 0) > 0, `${op}: ${r.ran[op] ?? 0} steps run on every side`)
})

const faultCases: [string, 'sessions' | 'admin-writes' | 'reports', RegExp][] = [
  ['revoke-twice-200', 'sessions', /; revoke personal session p\d \(twice\)$/],
  ['regenerate-keeps-old-token', 'sessions', /; regenerate personal session p\d$/],
  ['registration-tokens-update-ignores-limit', 'admin-writes', /; update registration token t\d/],
  // the deleted report, read again or still listed when a report of the same reason is filed
  ['reports-delete-keeps-report', 'reports', /delete the filed event_reports r(\d); .*(the filed event_reports|report) r\1\b/],
]
for (const [fault, family, last] of faultCases)
  t.test(`a write fault found by the new steps: ${fault}`, async (t) => {
    const sides = await against(fault)
    const hs = family === 'reports'
    const r = await exploreSequences(sides, { seed: 1, runs: 40, tag: `seq-${fault}`, apis: { mas: !hs, hs }, families: [family] })
    t.ok(r.finding, 'found')
    if (!r.finding) return
    const lines = r.finding.steps.map((s) => stepLine(s))
    t.match(lines.join('; '), last, `shrunk to: ${lines.join('; ')}`)
    t.ok(lines.length <= 4, `${lines.length} steps`)
    t.not(r.finding.target, r.finding.model, `target ${r.finding.target}, model ${r.finding.model}`)
    for (const tok of [sides.target.mas?.adminToken, sides.model.mas?.adminToken])
      t.notOk(sequenceText(r.finding).includes(tok!), 'no token in the finding')
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

t.test('the command: the shortest sequence saved, replayed against the faulty mock and the clean one', async (t) => {
  const { run } = await import('../../../scripts/explore/main.ts')
  const { mkdtempSync, rmSync, existsSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), 'ac-explore-seq-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const go = async (argv: string[]) => {
    let out = ''
    let err = ''
    const code = await run(argv, { out: (x) => void (out += x), err: (x) => void (err += x) }, {})
    return { code, out, err }
  }
  const fault = ['--mock-fault', 'users-set-admin-ignored', '--allow-writes']
  const first = await go([...fault, '--area', 'admin', '--random', '0', '--sequences', '60', '--save-cases', dir])
  t.equal(first.code, 1, 'the fault fails the command')
  t.match(first.out, /^1\. create user u\d\n2\. set-admin u\d {2}← POST /m, 'shrunk to create, set-admin')
  const file = join(dir, 'sequence.json')
  t.ok(existsSync(file), 'the sequence saved')
  const again = await go([...fault, '--replay', file])
  t.equal(again.code, 1, 'replayed: it differs again')
  t.match(again.out, /differs from the model again/)
  const clean = await go(['--allow-writes', '--replay', file])
  t.equal(clean.code, 0, 'against the clean mock it agrees')
  const noWrites = await go(['--replay', file])
  t.equal(noWrites.code, 2, 'a sequence replayed needs --allow-writes')
})
