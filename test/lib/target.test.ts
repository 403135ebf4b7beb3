// lib/target.ts: the target travels to the suites through the environment, tokens apart from the rest.
import t from 'tap'
import {
  loadTarget,
  loadTargets,
  targetEnv,
  targetsEnv,
  knownTokens,
  leftoverComment,
  normaliseBaseUrl,
  normalisePrefix,
  TargetError,
  DEVIATION_PREFIX,
  STRICT_ENV,
  TARGET_ENV,
  TARGETS_ENV,
  type Target,
} from '../../lib/target.ts'

const target: Target = {
  mas: { url: 'http://127.0.0.1:1', adminToken: 'mat_admin_token_value', userToken: 'mat_user_token_value' },
  hs: { url: 'http://127.0.0.1:2', adminToken: 'syt_admin_token_value', prefix: '/_synapse', clientPrefix: '/_matrix' },
  allowWrites: false,
  isMock: false,
  runId: 'r1',
  userAgent: 'admin-conformance/0 run/r1',
  timeouts: { connectMs: 1000, requestMs: 2000 },
  versions: { mas: 'v1.22.0', hs: '1.157.1' },
}

t.test('round trip through the environment', async (t) => {
  const env = targetEnv(target)
  t.notMatch(env[TARGET_ENV]!, /token_value/, 'AC_TARGET holds no token')
  const back = loadTarget(env)
  t.same(back, { ...target, hs: { ...target.hs!, userToken: undefined } }, 'the same target comes back')
  t.same(knownTokens(back).sort(), ['mat_admin_token_value', 'mat_user_token_value', 'syt_admin_token_value'])
})

t.test('the introspection client of a run travels like a token: its secret in its own variable', async (t) => {
  const withClient: Target = {
    ...target,
    mas: { ...target.mas!, introspection: { clientId: '01JCLIENT', clientSecret: 'client_secret_value' } },
  }
  const env = targetEnv(withClient)
  t.notMatch(env[TARGET_ENV]!, /client_secret_value/, 'AC_TARGET holds no secret')
  t.match(env[TARGET_ENV]!, /01JCLIENT/, 'the client id is plain')
  t.same(loadTarget(env).mas?.introspection, { clientId: '01JCLIENT', clientSecret: 'client_secret_value' })
  t.ok(knownTokens(loadTarget(env)).includes('client_secret_value'), 'the secret is redacted like a token')
  const noSecret = { ...env }
  delete noSecret.AC_MAS_INTROSPECTION_SECRET
  t.equal(loadTarget(noSecret).mas?.introspection, undefined, 'an id without its secret is no client')
})

t.test('without AC_TARGET the run command variables are read, read-only', async (t) => {
  const back = loadTarget({ MAS_URL: 'http://127.0.0.1:9/', MAS_ADMIN_TOKEN: 'mat_x_y_z_123' })
  t.equal(back.mas?.url, 'http://127.0.0.1:9')
  t.equal(back.mas?.adminToken, 'mat_x_y_z_123')
  t.equal(back.allowWrites, false)
  t.equal(back.hs, undefined)
})

t.test('bad input', async (t) => {
  t.throws(() => loadTarget({ [TARGET_ENV]: '{' }), TargetError)
  t.throws(() => normaliseBaseUrl('localhost:8080', '--mas-url'), /must be an http/)
  t.throws(() => normaliseBaseUrl('http://u:p@h', '--mas-url'), /credentials/)
  t.equal(normaliseBaseUrl('http://h:1/base/', 'x'), 'http://h:1/base')
  t.equal(normalisePrefix('/_synapse/', 'x'), '/_synapse')
  t.throws(() => normalisePrefix('_synapse', '--hs-prefix'), /--hs-prefix/)
})

t.test('the fault matrix codec: several targets, each for some suite folders, tokens apart', async (t) => {
  const env = {
    ...targetEnv(target),
    ...targetsEnv([
      { label: 'clean', dirs: [], target },
      { label: 'fault-a', dirs: ['suites/admin'], target: { ...target, mas: { url: 'http://127.0.0.1:3' } } },
    ]),
  }
  t.notMatch(env[TARGETS_ENV]!, /token_value/, 'AC_TARGETS holds no token')
  const admin = loadTargets('suites/admin', env)!
  t.same(
    admin.map((x) => [x.label, x.target.mas?.url]),
    [
      ['clean', 'http://127.0.0.1:1'],
      ['fault-a', 'http://127.0.0.1:3'],
    ],
  )
  t.equal(admin[1]!.target.mas?.adminToken, 'mat_admin_token_value', 'each target gets the shared tokens from their own variables')
  t.same(
    loadTargets('suites/homeserver', env)!.map((x) => x.label),
    ['clean'],
    'a folder gets only the targets for it',
  )
  t.equal(loadTargets('suites/admin', {}), undefined, 'no AC_TARGETS: no matrix')
  t.throws(() => loadTargets('suites/admin', { [TARGETS_ENV]: '{}' }), /must be a JSON array/)
})

t.test('the suites-to-runner conventions', async (t) => {
  t.equal(STRICT_ENV, 'AC_STRICT')
  t.equal(DEVIATION_PREFIX, 'deviation: ')
  t.equal(
    leftoverComment({ target: 'hs', kind: 'event report', id: '3', reason: 'r' }),
    'ac-leftover {"target":"hs","kind":"event report","id":"3","reason":"r"}',
  )
})
