// The homeserver's own login (a release before delegation to the auth service): which tags get it, the
// options it allows and refuses, and the CLI flags that go with it. No engine needed; the flow itself
// against the real Synapse 1.67.0 is in synapse.test.ts.
import t from 'tap'
import { parseDeployArgs } from '../../../scripts/deploy/main.ts'
import { checkOptions, effectiveDelegation, ownLogin } from '../../../scripts/deploy/options.ts'
import { delegationMode } from '../../../scripts/deploy/versions.ts'

const SYN = 'admin-conformance/synapse:1.67.0'

t.test('delegation by homeserver release: none before 1.86.0 (experimental MSC3861 support arrived then)', async (t) => {
  t.equal(delegationMode('1.67.0'), 'none')
  t.equal(delegationMode('v1.85.9'), 'none')
  t.equal(delegationMode('v1.86.0'), 'msc3861')
  t.equal(delegationMode('v1.135.2'), 'msc3861')
  t.equal(delegationMode('v1.136.0'), 'stable')
  t.equal(delegationMode('local'), 'stable', 'a tag that names no release is the newest')
})

t.test('own login: options', async (t) => {
  t.equal(ownLogin({ hsImage: SYN }), true)
  t.equal(ownLogin({ hsImage: 'x/synapse:v1.100.0' }), false)
  t.equal(ownLogin({ hsImage: 'x/synapse:latest', delegation: 'none' }), true, '--delegation none forces it')
  t.equal(ownLogin({ hsImage: 'x/mock:1.67.0', standIn: true }), false, 'the stand-in always delegates')
  t.equal(effectiveDelegation({ hsImage: 'x/mock:1.67.0', standIn: true }, 'y'), 'stable')
  t.doesNotThrow(() => checkOptions({ hsImage: SYN, skipDb: true }), 'SQLite: no database container needed')
  const refused = (() => {
    try {
      checkOptions({ hsImage: SYN, masImage: 'x/mas:1.0.0' })
    } catch (e) {
      return e as { kind?: string; message?: string }
    }
  })()
  t.equal(refused?.kind, 'usage', 'an auth service cannot be wired to it: a usage error')
  t.match(refused?.message, /predates delegation to the auth service \(Synapse before 1\.86\.0\)/)
  t.throws(() => checkOptions({ hsImage: 'x/mock:1', standIn: true, delegation: 'none' }), /needs a real homeserver image/)
  t.throws(() => checkOptions({ hsImage: 'x/synapse:v1.100.0', skipDb: true }), /the auth service needs PostgreSQL/)
  t.throws(() => checkOptions({ writes: 'sometimes' as 'on' }), /unknown writes mode 'sometimes' \(on, off, both\)/)
})

t.test('own login: CLI flags', async (t) => {
  const o = parseDeployArgs(['--hs-image', SYN, '--skip-db', '--writes', 'both', '--area', 'reports'])
  t.match(o, { hsImage: SYN, skipDb: true, writes: 'both', areas: ['reports'] })
  t.match(parseDeployArgs(['--hs-tag', '1.67.0', '--delegation', 'none']), {
    hsImage: 'docker.io/matrixdotorg/synapse:1.67.0',
    delegation: 'none',
  })
  t.throws(
    () => parseDeployArgs(['--hs-image', 'x/synapse:v1.120.0', '--skip-db']),
    /--skip-db only works with --stand-in or --mock-image, or a homeserver with its own login/,
  )
  t.throws(() => parseDeployArgs(['--writes', 'maybe']), /--writes: unknown value 'maybe' \(one of: on, off, both\)/)
})
