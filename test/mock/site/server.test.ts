// server_version, background updates (idle and running through the control API), configurable
// prefixes, routing misses, body limits, the request log, and no 5xx on hostile input.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseLine } from '../../../lib/requestlog.ts'
import { ADMIN_TOKEN, USER_TOKEN, hsErr, startHs, valid } from '../homeserver/helpers.ts'

t.test('server_version', async (t) => {
  const hs = await startHs({ hsVersion: '1.99.0 (b=develop, abcdef123)' })
  t.teardown(() => hs.close())
  const res = await hs.req('GET', `${hs.admin}/server_version`)
  t.equal(res.status, 200)
  t.same(res.body, { server_version: '1.99.0 (b=develop, abcdef123)' }, 'exactly one key')
  valid(t, 'homeserver/server-version', res.body)
  hsErr(t, await hs.req('POST', `${hs.admin}/server_version`, { body: {} }), 405, 'M_UNRECOGNIZED')
})

t.test('background updates: idle, running, idle again', async (t) => {
  const hs = await startHs()
  t.teardown(() => hs.close())
  const status = () => hs.req('GET', `${hs.admin}/background_updates/status`, { token: ADMIN_TOKEN })
  let res = await status()
  t.equal(res.status, 200)
  t.same(res.body, { enabled: true, current_updates: {} })
  valid(t, 'homeserver/background-updates#Status', res.body)
  const started = await hs.req('POST', '/_mock/background-updates', {
    body: { name: 'event_stream_ordering_bigint', total_item_count: 50 },
  })
  t.equal(started.status, 200)
  res = await status()
  valid(t, 'homeserver/background-updates#Status', res.body)
  t.same(Object.keys(res.body.current_updates), ['master'])
  t.equal(res.body.current_updates.master.name, 'event_stream_ordering_bigint')
  t.equal(res.body.current_updates.master.total_item_count, 50)
  // Just started (0 items), as a real fresh database shows: no duration yet, average null.
  await hs.req('POST', '/_mock/background-updates', { body: { name: 'redactions_recheck', total_item_count: 0 } })
  res = await status()
  valid(t, 'homeserver/background-updates#Status', res.body)
  t.same(res.body.current_updates, {
    master: { name: 'redactions_recheck', total_item_count: 0, total_duration_ms: 0, average_items_per_ms: null },
  })
  t.equal((await hs.req('DELETE', '/_mock/background-updates')).status, 200)
  t.same((await status()).body.current_updates, {})
  hsErr(t, await hs.req('GET', `${hs.admin}/background_updates/status`, { token: USER_TOKEN }), 403, 'M_FORBIDDEN')

  // Pausing and resuming.
  const enabled = `${hs.admin}/background_updates/enabled`
  t.same((await hs.req('GET', enabled, { token: ADMIN_TOKEN })).body, { enabled: true })
  t.same((await hs.req('POST', enabled, { token: ADMIN_TOKEN, body: { enabled: false } })).body, { enabled: false })
  t.equal((await status()).body.enabled, false)
  hsErr(
    t,
    await hs.req('POST', enabled, { token: ADMIN_TOKEN, body: { enabled: 'no' } }),
    400,
    'M_UNKNOWN',
    "'enabled' parameter must be a boolean",
  )
  t.same((await hs.req('POST', enabled, { token: ADMIN_TOKEN, body: {} })).body, { enabled: true }, 'default true')
})

t.test('prefixes are configurable; the default ones then 404', async (t) => {
  const hs = await startHs({ hsPrefix: '/_hs', clientPrefix: '/_compat', reports: 3 })
  t.teardown(() => hs.close())
  t.equal(hs.reports, '/_hs/admin/v1/event_reports')
  const res = await hs.req('GET', hs.reports, { token: ADMIN_TOKEN })
  t.equal(res.body.total, 3)
  t.equal((await hs.req('GET', '/_compat/client/v3/account/whoami', { token: USER_TOKEN })).status, 200)
  t.equal((await hs.req('GET', '/_synapse/admin/v1/event_reports', { token: ADMIN_TOKEN })).status, 404)
  hsErr(t, await hs.req('GET', '/_compat/client/v3/nope', { token: ADMIN_TOKEN }), 404, 'M_UNRECOGNIZED', 'Unrecognized request')
})

t.test('routing misses, removed legacy prefixes, body limits', async (t) => {
  const hs = await startHs({ maxBody: 4096 })
  t.teardown(() => hs.close())
  hsErr(t, await hs.req('GET', '/_synapse/admin/v1/nope', { token: ADMIN_TOKEN }), 404, 'M_UNRECOGNIZED', 'Unrecognized request')
  hsErr(t, await hs.req('GET', '/_synapse/admin/v1/event_reports/1/extra', { token: ADMIN_TOKEN }), 404, 'M_UNRECOGNIZED')
  // The admin API left the client prefixes in v1.24.0.
  for (const p of [
    '/_matrix/client/r0/admin/event_reports',
    '/_matrix/client/unstable/admin/event_reports',
    '/_matrix/client/r0/admin/server_version',
  ]) {
    hsErr(t, await hs.req('GET', p, { token: ADMIN_TOKEN }), 404, 'M_UNRECOGNIZED')
  }
  const wrong = await hs.req('PUT', hs.reports, { token: ADMIN_TOKEN, body: {} })
  hsErr(t, wrong, 405, 'M_UNRECOGNIZED')
  hsErr(t, await hs.req('POST', `${hs.reports}/2`, { token: ADMIN_TOKEN, body: {} }), 405, 'M_UNRECOGNIZED')
  const big = await hs.req('POST', '/_matrix/client/v3/rooms/!a:example.test/report/$b', {
    token: USER_TOKEN,
    raw: JSON.stringify({ reason: 'x'.repeat(5000) }),
  })
  t.equal(big.status, 413)
  t.equal(big.body.errcode, 'M_TOO_LARGE')
})

t.test('hostile input never gets a 5xx', async (t) => {
  // Without the known defects of the claimed release (ids past 64 bits answer 500 there, as the real
  // server does; test/mock/homeserver/versions.test.ts): the mock's own code never fails.
  const hs = await startHs({ reports: 20, deviations: false })
  t.teardown(() => hs.close())
  const junk = ['%', '%ZZ', '%00', '%C3', '..', '%2F', '\u00e9', '~', '%E2%80%AE', '9'.repeat(400), '-'.repeat(3), '+', '_', '%20', '٣']
  const paths: string[] = []
  for (const j of junk) {
    paths.push(
      `${hs.reports}/${j}`,
      `${hs.reports}?from=${j}`,
      `${hs.reports}?limit=${j}`,
      `${hs.reports}?dir=${j}`,
      `${hs.reports}?user_id=${j}&room_id=${j}&event_sender_user_id=${j}`,
    )
    paths.push(`/_matrix/client/v3/rooms/${j}/report/${j}`, `${hs.admin}/${j}`)
  }
  let worst = 0
  for (const p of paths) {
    for (const method of ['GET', 'DELETE', 'POST']) {
      // Raw escapes (also malformed ones) go out as they are; other non-ASCII is percent-encoded.
      const path = p.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c))
      const res = await hs.req(method, path, { token: ADMIN_TOKEN, raw: method === 'POST' ? '{"score":' : undefined })
      worst = Math.max(worst, res.status)
      if (res.status >= 500) t.fail(`${method} ${path} → ${res.status} ${res.text}`)
    }
  }
  t.ok(worst < 500, `worst status ${worst}`)
})

t.test('each homeserver request writes one request-log line, without a requester', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const logFile = join(dir, 'mock.log')
  const hs = await startHs({ logFile, reports: 5 })
  const sent: [string, string, number][] = []
  for (const [method, path, token] of [
    ['GET', `${hs.reports}?limit=2&access_token=${ADMIN_TOKEN}`, undefined],
    ['GET', `${hs.reports}/2`, ADMIN_TOKEN],
    ['GET', `${hs.reports}`, undefined],
    ['GET', `${hs.admin}/server_version`, undefined],
    ['DELETE', `${hs.reports}/999`, ADMIN_TOKEN],
  ] as [string, string, string | undefined][]) {
    const res = await hs.req(method, path, { token })
    sent.push([method, path.split('?')[0]!, res.status])
  }
  await hs.close()
  const text = readFileSync(logFile, 'utf8')
  t.notOk(text.includes(ADMIN_TOKEN), 'no token in the log')
  const lines = text.split('\n').filter((l) => l.includes('http.server.response'))
  t.equal(lines.length, sent.length)
  lines.forEach((line, i) => {
    const parsed = parseLine(line)
    if (parsed.kind !== 'response') {
      t.fail(`not a response line: ${line}`)
      return
    }
    const rec = parsed.line
    const [method, path, status] = sent[i]!
    t.equal(rec.method, method)
    t.equal(rec.path, path, 'path without query string')
    t.equal(rec.status, status)
    t.equal(rec.requester, undefined, 'no requester on homeserver paths')
  })
})
