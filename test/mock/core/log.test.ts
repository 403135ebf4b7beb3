// The request log of area A, parsed back with lib/requestlog.ts: one response line per request,
// field by field; the WARN line before route errors and auth rejections (and none before
// pagination or path rejections); the INFO line of a scheduled device sync; the pre-v1.20 form.
import t from 'tap'
import { API, startTestMock } from '../admin/helpers.ts'

t.test('v1.20 lines', async (t) => {
  const tm = await startTestMock(t, { seed: 2, sessions: 60 })
  const mas = tm.world().mas
  const active = mas.compat.all().find((s) => s.finishedAt === null)!
  await tm.get(`${API}/compat-sessions?page[first]=3&filter[status]=active`, undefined, { 'user-agent': 'conformance "suite"/1.0' })
  await tm.get(`${API}/compat-sessions?page[first]=0`)
  await tm.get(`${API}/compat-sessions/nope`)
  await tm.get(`${API}/compat-sessions?filter[status]=bogus`)
  await tm.get(`${API}/compat-sessions?filter[user]=01FSHN9AG0MZAA6S4AF7CTV32E`)
  await tm.post(`${API}/compat-sessions/${active.id}/finish`)
  await tm.post(`${API}/compat-sessions/${active.id}/finish`)
  await tm.post(`${API}/policy-data`, { data: 42 })
  await tm.get(`${API}/version`, tm.user)
  const { responses, events } = await tm.log()
  t.equal(responses.length, 9, 'one line per request')
  const [list, page0, pathBad, filterBad, userMissing, finish, finishAgain, policyBad, noScope] = responses as [
    any,
    any,
    any,
    any,
    any,
    any,
    any,
    any,
    any,
  ]
  t.match(list, {
    level: 'INFO',
    method: 'GET',
    path: `${API}/compat-sessions`,
    httpVersion: '1.1',
    status: 200,
    reason: 'OK',
    userAgent: 'conformance "suite"/1.0',
    requester: { kind: 'oauth2-client', id: tm.mock.options.adminClientId },
    clientAddress: '127.0.0.1',
    format: 'v1.20',
  })
  t.ok(list.stats.queries > 0 && list.stats.fetched >= 3, 'store work shows in the stats')
  t.equal(list.graphqlOperationName, undefined)
  const eventsOf = (line: any) => events.filter((e) => e.requestId?.counter === line.requestId.counter)
  t.same(eventsOf(list), [])
  t.match(page0, { status: 400, reason: 'Bad Request', level: 'WARN' })
  t.same(eventsOf(page0), [], 'no event line for a pagination rejection')
  t.same(eventsOf(pathBad), [], 'no event line for a path rejection')
  const [fe] = eventsOf(filterBad)
  t.match(fe, { level: 'WARN', name: 'mas_handlers::admin::v1::compat_sessions::list:168' })
  t.match(
    fe!.message,
    /^Invalid filter parameters message\.sources=\[Failed to deserialize query string: filter\[status\]: unknown variant/,
  )
  t.match(eventsOf(userMissing)[0], { level: 'WARN', message: 'User ID 01FSHN9AG0MZAA6S4AF7CTV32E not found' })
  t.match(finish, { status: 200, method: 'POST', path: `${API}/compat-sessions/${active.id}/finish` })
  t.match(eventsOf(finish), [
    {
      level: 'INFO',
      name: 'mas_handlers::admin::v1::compat_sessions::finish:103',
      message: `Scheduling device sync job for user user.id=${active.userId}`,
    },
  ])
  t.match(eventsOf(finishAgain), [
    {
      level: 'WARN',
      name: 'mas_handlers::admin::v1::compat_sessions::finish:42',
      message: `Compatibility session with ID ${active.id} is already finished`,
    },
  ])
  t.match(
    eventsOf(policyBad)[0]!.message,
    'Failed to instanciate policy with the provided data message.sources=[invalid policy data, Cannot merge a number into a object]',
  )
  const tokenUser = mas.getUser(mas.oauth2.get(mas.lookupAccessToken(tm.user)!.sessionId)!.userId!)!
  t.same(noScope.requester, { kind: 'user', id: tokenUser.id, username: tokenUser.username })
  t.match(eventsOf(noScope), [{ name: 'mas_handlers::admin::call_context:85', message: 'Missing urn:mas:admin scope' }])
  // event lines come before their response line
  const raw = (await import('node:fs')).readFileSync(tm.logFile, 'utf8').split('\n')
  const idx = (s: string) => raw.findIndex((l) => l.includes(s))
  t.ok(idx('Missing urn:mas:admin scope') < idx(`GET-${noScope.requestId.counter} - "GET`))
})

t.test('pre-v1.20 lines have no fields', async (t) => {
  const tm = await startTestMock(t, { seed: 2, sessions: 6, logFormat: 'pre-v1.20' })
  await tm.get(`${API}/compat-sessions`)
  const { responses } = await tm.log()
  t.equal(responses.length, 1)
  t.match(responses[0], { format: 'pre-v1.20', status: 200 })
  t.equal(responses[0]!.requester, undefined)
  t.equal(responses[0]!.clientAddress, undefined)
  t.equal(responses[0]!.stats.queries, undefined)
})

t.test(
  'a log that can no longer be written stops the log, not the mock',
  { skip: process.platform !== 'linux' && 'needs /dev/full' },
  async (t) => {
    const { startMock } = await import('../../../mock/site/server.ts')
    const { mockOptions } = await import('../../../mock/core/options.ts')
    const said: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string | Uint8Array) => {
      said.push(String(chunk))
      return true
    }) as typeof process.stderr.write
    t.teardown(() => {
      process.stderr.write = write
    })
    // /dev/full fails every write with ENOSPC, like a full disk.
    const mock = await startMock(
      mockOptions({ port: 0, logFile: '/dev/full', adminToken: 'mat_full_disk_test', sessions: 5, reports: 0 }, {}),
    )
    t.teardown(() => mock.close())
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${mock.url}${API}/version`, { headers: { authorization: 'Bearer mat_full_disk_test' } })
      t.equal(r.status, 200, `request ${i + 1} answered`)
      await r.arrayBuffer()
      await new Promise((resolve) => setImmediate(resolve))
    }
    process.stderr.write = write
    const warnings = said.filter((s) => s.includes('request log can no longer be written'))
    t.equal(warnings.length, 1, 'said once on stderr')
    t.match(warnings[0], /ENOSPC/, 'with the reason')
  },
)
