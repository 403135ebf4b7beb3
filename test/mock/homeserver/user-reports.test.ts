// The user-report admin API of the mock and the client call that files a report (MSC4260), against
// what the real Synapse 1.160.0 answered (reference/real-synapse.md and the lead's probe fixtures):
// a fixture of 12 reports filed through the client API, with ties in received_ts broken by id.
import t from 'tap'
import { ADMIN_TOKEN, USER_TOKEN, hsErr, startHs, valid, whoami, type Hs, type Res } from './helpers.ts'
import { seedHomeserver } from '../../../mock/seed/homeserver/index.ts'
import { mockOptions } from '../../../mock/core/options.ts'

const KEYS = ['id', 'received_ts', 'target_user_id', 'user_id', 'reason']
const BAD_ID = 'The report_id parameter must be a string representing a positive integer.'

const hs = await startHs()
t.teardown(() => hs.close())
const base = `${hs.admin}/user_reports`
const list = (query = '') => hs.req('GET', `${base}${query}`, { token: ADMIN_TOKEN })
const ids = (res: Res) => (res.body.user_reports as { id: number }[]).map((r) => r.id)
const file = (h: Hs, token: string | null, userId: string, body: unknown, version = 'v3') =>
  h.req('POST', `/_matrix/client/${version}/users/${encodeURIComponent(userId)}/report`, { token, body })

const adminId = await whoami(hs, ADMIN_TOKEN)
const userId = await whoami(hs, USER_TOKEN)
const others = [...hs.mock.world().hs.users.keys()].filter((u) => u !== adminId && u !== userId).slice(0, 3)
// 12 reports: the user reports the admin and three others (three rounds), the admin reports the user.
const reasons = ['spam', '', 'héllo ☃ unicode', 'it\'s "quoted"\nand two lines']
for (let round = 0; round < 3; round++) {
  for (const [token, target, reason] of [
    [USER_TOKEN, adminId, reasons[round]!],
    [USER_TOKEN, others[round]!, reasons[3]!],
    [ADMIN_TOKEN, userId, `round ${round}`],
    [USER_TOKEN, others[0]!, 'again'],
  ] as const) {
    const res = await file(hs, token, target, { reason })
    if (res.status !== 200) throw new Error(`file: ${res.status} ${res.text}`)
  }
}

t.test('listing: 12 reports with exactly the five keys, ids from 2, newest first', async (t) => {
  const res = await list()
  t.equal(res.status, 200)
  valid(t, 'homeserver/user-report#List', res.body)
  t.equal(res.body.total, 12)
  t.notOk('next_token' in res.body, 'no next_token')
  for (const item of res.body.user_reports) t.same(Object.keys(item), KEYS, 'the real key order')
  // Filed in order within the same clock: dir=b is by received_ts then id, descending.
  t.same(
    ids(res),
    Array.from({ length: 12 }, (_, i) => 13 - i),
  )
  t.same(
    ids(await list('?dir=f')),
    Array.from({ length: 12 }, (_, i) => i + 2),
  )
  const first = res.body.user_reports.at(-1)
  t.same(
    { target: first.target_user_id, reporter: first.user_id, reason: first.reason },
    { target: adminId, reporter: userId, reason: 'spam' },
  )
  t.ok(
    res.body.user_reports.some((r: { reason: string }) => r.reason === ''),
    'a blank reason is kept as ""',
  )
  t.ok(
    res.body.user_reports.some((r: { reason: string }) => r.reason === 'héllo ☃ unicode'),
    'non-ASCII kept',
  )
})

t.test('next_token at the edges, as the real server computes it', async (t) => {
  const cases: [string, number, number | undefined][] = [
    ['?limit=12', 12, undefined],
    ['?limit=11', 11, 11],
    ['?limit=0', 0, 0],
    ['?from=11', 1, undefined],
    ['?from=12', 0, undefined],
    ['?from=50', 0, undefined],
    ['?from=4&limit=4', 4, 8],
    ['?from=8&limit=4', 4, undefined],
  ]
  for (const [q, n, next] of cases) {
    const res = await list(q)
    t.equal(res.body.total, 12, `${q}: total`)
    t.equal(res.body.user_reports.length, n, `${q}: ${n} items`)
    t.equal(res.body.next_token, next, `${q}: next_token ${next ?? 'absent'}`)
  }
})

t.test('walking next_token reproduces the listing in both directions', async (t) => {
  for (const dir of ['b', 'f']) {
    const full = ids(await list(`?dir=${dir}`))
    for (const size of [1, 5, 12]) {
      const walked: number[] = []
      let from: number | undefined = 0
      while (from !== undefined) {
        const res = await list(`?dir=${dir}&limit=${size}&from=${from}`)
        walked.push(...ids(res))
        from = res.body.next_token
      }
      t.same(walked, full, `dir=${dir} limit=${size}`)
    }
  }
})

t.test('filters: SQL LIKE substrings on the reporter and the target, together', async (t) => {
  let res = await list(`?user_id=${encodeURIComponent(adminId)}`)
  t.equal(res.body.total, 3, 'the admin filed three')
  res = await list(`?target_user_id=${encodeURIComponent(others[0]!)}`)
  t.equal(res.body.total, 4, 'three "again" and one of the first round')
  res = await list(`?target_user_id=${encodeURIComponent(others[0]!)}&user_id=${encodeURIComponent(userId)}`)
  t.equal(res.body.total, 4)
  res = await list(`?target_user_id=${encodeURIComponent(adminId.slice(0, 3))}`)
  t.ok(
    res.body.user_reports.every((r: { target_user_id: string }) => r.target_user_id.includes(adminId.slice(0, 3))),
    'a substring of the target',
  )
  t.equal((await list('?user_id=%25')).body.total, 12, '% matches every reporter (unescaped wildcard)')
  t.equal((await list('?user_id=')).body.total, 12, 'an empty filter is ignored')
  t.equal((await list('?target_user_id=@nobody:nowhere')).body.total, 0)
  hsErr(t, await list('?user_id=%C3%A9'), 400, 'M_UNKNOWN', "Query parameter 'user_id' must be ascii")
  hsErr(t, await list('?target_user_id=%C3%A9'), 400, 'M_UNKNOWN', "Query parameter 'target_user_id' must be ascii")
})

t.test('parameter errors, in the order from, limit, dir', async (t) => {
  hsErr(t, await list('?dir=x'), 400, 'M_INVALID_PARAM', "Query parameter 'dir' must be one of ['b', 'f']")
  hsErr(t, await list('?dir='), 400, 'M_INVALID_PARAM', "Query parameter 'dir' must be one of ['b', 'f']")
  hsErr(t, await list('?limit=-1'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be a positive integer.')
  hsErr(t, await list('?limit=1.5'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be an integer')
  hsErr(t, await list('?from=-1'), 400, 'M_INVALID_PARAM', 'Query parameter from must be a positive integer.')
  hsErr(t, await list('?from=abc&limit=-1&dir=x'), 400, 'M_INVALID_PARAM', 'Query parameter from must be an integer')
  hsErr(t, await list('?limit=-1&dir=x'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be a positive integer.')
})

t.test('single report, unknown and invalid ids, delete', async (t) => {
  const listed = (await list('?dir=f&limit=1')).body.user_reports[0]
  const one = await hs.req('GET', `${base}/2`, { token: ADMIN_TOKEN })
  t.equal(one.status, 200)
  valid(t, 'homeserver/user-report#UserReport', one.body)
  t.same(one.body, listed, 'the single response equals the listed item')
  for (const id of ['1', '999', '9223372036854775807'])
    hsErr(t, await hs.req('GET', `${base}/${id}`, { token: ADMIN_TOKEN }), 404, 'M_NOT_FOUND', 'User report not found')
  // Past 64 bits the real 1.160.0 answers 500 (a known defect, lib/data/deviations.json): the mock claiming
  // it reproduces that, and without the release's deviations answers the 404 of an unknown id.
  hsErr(t, await hs.req('GET', `${base}/9223372036854775808`, { token: ADMIN_TOKEN }), 500, 'M_UNKNOWN', 'Internal server error')
  const clean = await startHs({ deviations: false })
  hsErr(
    t,
    await clean.req('GET', `${clean.admin}/user_reports/9223372036854775808`, { token: ADMIN_TOKEN }),
    404,
    'M_NOT_FOUND',
    'User report not found',
  )
  await clean.close()
  for (const id of ['abc', '-1', '', '1.5'])
    hsErr(t, await hs.req('GET', `${base}/${id}`, { token: ADMIN_TOKEN }), 400, 'M_INVALID_PARAM', BAD_ID)
  const del = await hs.req('DELETE', `${base}/13`, { token: ADMIN_TOKEN })
  t.equal(del.status, 200)
  t.same(del.body, {})
  hsErr(t, await hs.req('GET', `${base}/13`, { token: ADMIN_TOKEN }), 404, 'M_NOT_FOUND', 'User report not found')
  hsErr(t, await hs.req('DELETE', `${base}/13`, { token: ADMIN_TOKEN }), 404, 'M_NOT_FOUND', 'User report not found')
  hsErr(t, await hs.req('DELETE', `${base}/abc`, { token: ADMIN_TOKEN }), 400, 'M_INVALID_PARAM', BAD_ID)
  t.equal((await list()).body.total, 11)
  // The id generator does not reuse the deleted id.
  t.equal((await file(hs, USER_TOKEN, adminId, { reason: 'after the delete' })).status, 200)
  t.equal(ids(await list('?limit=1'))[0], 14)
})

t.test('auth: before parameters, admin required on every route', async (t) => {
  for (const [method, path] of [
    ['GET', base],
    ['GET', `${base}/2`],
    ['DELETE', `${base}/2`],
    ['GET', `${base}?dir=x`],
  ] as const) {
    hsErr(t, await hs.req(method, path), 401, 'M_MISSING_TOKEN', 'Missing access token')
    hsErr(t, await hs.req(method, path, { token: USER_TOKEN }), 403, 'M_FORBIDDEN', 'You are not a server admin')
  }
})

t.test('the client call: refusals with the real messages, silent drops, unrouted prefixes', async (t) => {
  const before = (await list('?limit=0')).body.total
  hsErr(
    t,
    await file(hs, USER_TOKEN, adminId, {}),
    400,
    'M_MISSING_PARAM',
    '1 validation error for PostBody\nreason\n  Field required [type=missing, input_value={}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.14/v/missing',
  )
  hsErr(
    t,
    await file(hs, USER_TOKEN, adminId, { reason: 5 }),
    400,
    'M_BAD_JSON',
    '1 validation error for PostBody\nreason\n  Input should be a valid string [type=string_type, input_value=5, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.14/v/string_type',
  )
  hsErr(
    t,
    await file(hs, USER_TOKEN, adminId, { reason: null }),
    400,
    'M_BAD_JSON',
    '1 validation error for PostBody\nreason\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.14/v/string_type',
  )
  hsErr(
    t,
    await file(hs, USER_TOKEN, adminId, { reason: { a: "it's" } }),
    400,
    'M_BAD_JSON',
    "1 validation error for PostBody\nreason\n  Input should be a valid string [type=string_type, input_value={'a': \"it's\"}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.14/v/string_type",
  )
  hsErr(t, await file(hs, USER_TOKEN, adminId, { reason: 'x'.repeat(1001) }), 400, 'M_BAD_JSON', 'Reason must be less than 1000 characters')
  hsErr(t, await file(hs, USER_TOKEN, adminId, []), 400, 'M_BAD_JSON', 'Content must be a JSON object.')
  hsErr(
    t,
    await hs.req('POST', `/_matrix/client/v3/users/${encodeURIComponent(adminId)}/report`, { token: USER_TOKEN }),
    400,
    'M_NOT_JSON',
    'Content not JSON.',
  )
  hsErr(t, await file(hs, null, adminId, { reason: 'x' }), 401, 'M_MISSING_TOKEN', 'Missing access token')
  for (const v of ['r0', 'unstable'])
    hsErr(t, await file(hs, USER_TOKEN, adminId, { reason: 'x' }, v), 404, 'M_UNRECOGNIZED', 'Unrecognized request')
  t.equal((await list('?limit=0')).body.total, before, 'nothing stored by a refused call')
  // Code points count, not UTF-16 units: 1000 emoji are within the limit.
  t.equal((await file(hs, USER_TOKEN, adminId, { reason: '🙂'.repeat(1000) })).status, 200)
  for (const target of ['@nobody:example.test', '@x:other.invalid', 'nocolon', '']) {
    const res = await file(hs, USER_TOKEN, target, { reason: 'dropped' })
    t.equal(res.status, 200, `${target || '(empty)'}: 200`)
    t.same(res.body, {}, `${target || '(empty)'}: {}`)
  }
  t.equal((await list('?limit=0')).body.total, before + 1, 'only the report against a local, existing user was stored')
})

t.test('before v1.152.0 the admin paths are unrouted; before v1.133.0 the client call too', async (t) => {
  const old = await startHs({ hsVersion: '1.140.0' })
  t.teardown(() => old.close())
  hsErr(t, await old.req('GET', `${old.admin}/user_reports`, { token: ADMIN_TOKEN }), 404, 'M_UNRECOGNIZED', 'Unrecognized request')
  t.equal((await file(old, USER_TOKEN, await whoami(old, ADMIN_TOKEN), { reason: 'x' })).status, 200, 'v1.140.0 files user reports')
  const older = await startHs({ hsVersion: '1.130.0' })
  t.teardown(() => older.close())
  hsErr(t, await file(older, USER_TOKEN, await whoami(older, ADMIN_TOKEN), { reason: 'x' }), 404, 'M_UNRECOGNIZED', 'Unrecognized request')
})

t.test('the seed: deterministic, a third as many as the event reports (at least 12), varied reasons', async (t) => {
  const list = (seed: number, reports: number) =>
    seedHomeserver(mockOptions({ seed, reports })).listUserReports({ from: 0, limit: 1e6, dir: 'f' })
  const a = list(7, 300)
  t.same(list(7, 300), a, 'same seed, same reports')
  t.not(JSON.stringify(list(8, 300).reports), JSON.stringify(a.reports), 'another seed, other reports')
  t.equal(a.total, 100)
  t.equal(list(7, 10).total, 12)
  t.equal(list(7, 0).total, 0)
  t.ok(
    a.reports.every((r) => r.userId !== r.targetUserId),
    'nobody reports themselves',
  )
  t.ok(
    a.reports.some((r) => r.reason === ''),
    'some reasons are blank',
  )
  t.ok(
    a.reports.some((r) => /[^\x00-\x7f]/.test(r.reason)),
    'some reasons are not ASCII',
  )
  const perTarget = new Map<string, number>()
  for (const r of a.reports) perTarget.set(r.targetUserId, (perTarget.get(r.targetUserId) ?? 0) + 1)
  t.ok(
    Math.max(...perTarget.values()) >= (2 * a.total) / perTarget.size,
    'a few users draw many reports (the most reported has twice the mean)',
    { perTarget: [...perTarget.values()] },
  )
})

t.test('--state: filed and deleted user reports survive a restart, and the id generator goes on', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const path = await import('node:path')
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-user-reports-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const first = await startHs({
    stateDir: dir,
    reports: 10,
    adminToken: 'mas_admin_state_test',
    userToken: 'mas_user_state_test',
    adminClientSecret: 'state-test-secret',
  })
  const seeded = (await first.req('GET', `${first.admin}/user_reports?dir=f`, { token: ADMIN_TOKEN })).body
  const admin = await whoami(first, ADMIN_TOKEN)
  t.equal((await file(first, USER_TOKEN, admin, { reason: 'kept ☃' })).status, 200)
  const victim = seeded.user_reports[0].id
  t.equal((await first.req('DELETE', `${first.admin}/user_reports/${victim}`, { token: ADMIN_TOKEN })).status, 200)
  const before = (await first.req('GET', `${first.admin}/user_reports?dir=f`, { token: ADMIN_TOKEN })).body
  await first.close()
  const second = await startHs({
    stateDir: dir,
    reports: 10,
    adminToken: 'mas_admin_state_test',
    userToken: 'mas_user_state_test',
    adminClientSecret: 'state-test-secret',
  })
  t.teardown(() => second.close())
  const after = (await second.req('GET', `${second.admin}/user_reports?dir=f`, { token: ADMIN_TOKEN })).body
  t.same(after, before, 'the same listing after the restart')
  t.equal(after.total, seeded.total, 'one filed, one deleted')
  t.equal(after.user_reports.at(-1).reason, 'kept ☃')
  t.equal((await file(second, USER_TOKEN, admin, { reason: 'next' })).status, 200)
  const newest = (await second.req('GET', `${second.admin}/user_reports?limit=1`, { token: ADMIN_TOKEN })).body.user_reports[0]
  t.equal(newest.id, after.user_reports.at(-1).id + 1, 'the next id follows the replayed ones')
})
