// lib/target.ts: the target travels to the suites through the environment, tokens apart from the rest.
import t from 'tap'
import { loadTarget, targetEnv, knownTokens, normaliseBaseUrl, normalisePrefix, TargetError, TARGET_ENV, type Target } from '../../lib/target.ts'

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
