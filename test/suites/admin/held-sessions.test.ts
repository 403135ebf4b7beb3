// Write checks never end a session behind a token the harness holds: two write runs of the finish checks
// in a row against one mock both pass, and afterwards the harness's tokens still authenticate (the
// non-admin token is refused for its scope, not as revoked).
import t from 'tap'
import { request } from 'undici'
import { run } from '../../../scripts/run/index.ts'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'

t.test('two write runs of the finish checks leave the harness logged in', async (t) => {
  const mock = await startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile: null }, {}))
  t.teardown(() => mock.close())
  const env = { ...process.env, MAS_ADMIN_TOKEN: mock.options.adminToken, MAS_USER_TOKEN: mock.options.userToken }
  for (const round of [1, 2]) {
    let out = ''
    const { exitCode, report } = await run(
      [
        '--mas-url',
        mock.url,
        '--area',
        'admin',
        '--grep',
        'finish',
        '--allow-writes',
        '--jobs',
        '2',
        '--reporter',
        'json',
        '--output',
        '/dev/null',
      ],
      {
        stdout: { write: (s: string) => void (out += s) },
        stderr: { write: (s: string) => void (out += s) },
        env,
      },
    )
    const finished = (report?.suites ?? []).flatMap((s) => s.checks).filter((c) => /finish an active session/.test(c.name))
    t.equal(exitCode, 0, `write run ${round} passes`, { out: out.slice(-2000) })
    t.ok(finished.length >= 2 && finished.every((c) => c.ok && !c.skip), `write run ${round}: the finish checks ran and passed`, {
      finished,
    })
  }
  const admin = await request(`${mock.url}/api/admin/v1/version`, { headers: { authorization: `Bearer ${mock.options.adminToken}` } })
  t.equal(admin.statusCode, 200, 'the admin token still works')
  await admin.body.text()
  const user = await request(`${mock.url}/api/admin/v1/version`, { headers: { authorization: `Bearer ${mock.options.userToken}` } })
  const body = await user.body.text()
  t.equal(user.statusCode, 401, 'the non-admin token is refused by the admin API')
  t.match(body, /urn:mas:admin/, 'for its scope')
  t.notMatch(body, /revoked|unknown/i, 'not because its session was ended')
})
