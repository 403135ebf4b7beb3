// The preflight: a target that refuses connections, never answers, rejects the token, or has no admin
// API at the prefix ends the run with exit code 3 and a message naming the target and the problem.
import t from 'tap'
import { mockWith, refusingPort, runCaptured, silentServer, tokenEnv } from './helpers.ts'

t.test('a refused connection', async (t) => {
  const port = await refusingPort()
  const url = `http://127.0.0.1:${port}`
  const r = await runCaptured(['--mas-url', url, '--area', 'admin'], { MAS_ADMIN_TOKEN: 'mat_' + 'x'.repeat(30) + '_abcdef' })
  t.equal(r.exitCode, 3, 'exit code 3')
  t.match(r.stderr, `auth service at ${url}`, 'names the target')
  t.match(r.stderr, /connection refused/, 'names the problem')
})

t.test('a server that accepts and never answers fails within 30 s', { timeout: 45_000 }, async (t) => {
  // The default timeouts: the preflight must give up on its own, well before the subtest's limit.
  const s = await silentServer()
  t.teardown(() => s.close())
  const r = await runCaptured(['--hs-url', s.url, '--area', 'reports'], { HS_ADMIN_TOKEN: 'syt_' + 'y'.repeat(30) })
  t.equal(r.exitCode, 3, 'exit code 3')
  t.match(r.stderr, `homeserver at ${s.url}`, 'names the target')
  t.match(r.stderr, /no complete answer within/, 'says it did not answer')
})

t.test('rejected tokens and a wrong prefix', async (t) => {
  const mock = await mockWith()
  t.teardown(() => mock.close())
  const env = tokenEnv(mock)
  const badMas = await runCaptured(['--mas-url', mock.url, '--area', 'admin'], {
    ...env,
    MAS_ADMIN_TOKEN: 'mat_' + 'z'.repeat(30) + '_abcdef',
  })
  t.equal(badMas.exitCode, 3, 'a bad auth service token: exit code 3')
  t.match(badMas.stderr, /auth service at .*: the admin token was rejected \(401/, 'says the admin token was rejected')

  const notAdmin = await runCaptured(['--hs-url', mock.url, '--area', 'reports'], { ...env, HS_ADMIN_TOKEN: mock.options.hsUserToken })
  t.equal(notAdmin.exitCode, 3, 'a non-admin homeserver token as the admin token: exit code 3')
  t.match(notAdmin.stderr, /homeserver at .*: the token is not a server admin's \(403/, "says the token is not an admin's")

  const badHs = await runCaptured(['--hs-url', mock.url, '--area', 'reports'], { ...env, HS_ADMIN_TOKEN: 'syt_' + 'q'.repeat(30) })
  t.equal(badHs.exitCode, 3, 'an unknown homeserver token: exit code 3')
  t.match(badHs.stderr, /the admin token was rejected \(401/, 'says the token was rejected')

  const prefix = await runCaptured(['--hs-url', mock.url, '--hs-prefix', '/_nope', '--area', 'reports'], env)
  t.equal(prefix.exitCode, 3, 'a wrong admin prefix: exit code 3')
  t.match(prefix.stderr, /check --hs-prefix/, 'points at --hs-prefix')

  for (const r of [badMas, notAdmin, badHs, prefix]) {
    for (const tok of Object.values(env)) t.notOk(`${r.stdout}${r.stderr}`.includes(String(tok)), 'no token in the output')
  }
})
