// The state journal's file format and its lifecycle, in process: torn tails cut at every byte are
// dropped (never replayed half), damage before the last record is an error naming its offset, a
// journal of another world is refused with what differs (secrets never shown), replay is exact, and
// reset / seed start a new journal.
import t from 'tap'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { MAGIC, decodeJournal, encodeRecord, JournalCorruptError } from '../../mock/store/journal/codec.ts'
import { startTestMock, API } from './admin/helpers.ts'

const records = [{ kind: 'header' }, { t: 'a', n: 1 }, { t: 'b', text: 'é∑ unicode' }, { t: 'c', list: [1, 2, 3] }]
const file = Buffer.concat([MAGIC, ...records.map((r) => encodeRecord(r))])
const lastStart = file.length - encodeRecord(records[3]).length

t.test('a torn last record is dropped, whatever byte the crash stopped at', async (t) => {
  t.same(
    decodeJournal(file).records.map((r) => r.value),
    records,
    'a whole file decodes to its records',
  )
  for (let cut = lastStart; cut < file.length; cut++) {
    const d = decodeJournal(file.subarray(0, cut))
    if (d.records.length !== 3 || d.validLength !== lastStart || (cut > lastStart && !d.torn)) {
      t.fail(`cut at ${cut}: ${d.records.length} records, valid ${d.validLength}, torn ${JSON.stringify(d.torn)}`)
      return
    }
  }
  t.pass(`cut at each of ${file.length - lastStart} bytes of the last record: 3 records kept, the tail reported torn`)
  const zeros = decodeJournal(Buffer.concat([file, Buffer.alloc(4096)]))
  t.equal(zeros.records.length, 4)
  t.match(
    zeros.torn,
    { offset: file.length, reason: 'zero-filled tail' },
    'zeros past the data (a file system extending the file) are a torn tail',
  )
  const flipped = Buffer.from(file)
  flipped[file.length - 2] = flipped[file.length - 2]! ^ 0xff
  t.match(decodeJournal(flipped).torn, { offset: lastStart, reason: /checksum/ }, 'a damaged last record is dropped, not replayed')
})

t.test('damage before the last record is an error naming its offset', async (t) => {
  const second = MAGIC.length + encodeRecord(records[0]).length
  const bad = Buffer.from(file)
  bad[second + 10] = bad[second + 10]! ^ 0x01
  t.throws(() => decodeJournal(bad), new JournalCorruptError(second, 'checksum mismatch'))
  const badLength = Buffer.from(file)
  badLength.writeUInt32LE(0xfffffff0, second)
  t.throws(() => decodeJournal(badLength), { message: `corrupt record at byte offset ${second}: impossible record length 4294967280` })
  t.throws(() => decodeJournal(Buffer.from('not a journal at all')), { message: /bad magic/ })
  t.throws(() => encodeRecord({ big: 1n }), TypeError, 'what cannot be serialised fails before anything is written')
})

t.test('restart: exact replay, torn tail dropped with a warning, another world refused, reset starts anew', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-journal-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const opts = {
    seed: 3,
    sessions: 60,
    reports: 10,
    stateDir: dir,
    hsAdminToken: 'syt_hs_admin',
    hsUserToken: 'syt_hs_user',
    adminClientSecret: 'journal-test-secret',
  }
  const a = await startTestMock(t, opts)
  const actor = (await a.all(`${API}/compat-sessions?filter[status]=active`))[0].attributes.user_id
  const created = await a.post(`${API}/personal-sessions`, {
    actor_user_id: actor,
    human_name: 'kept',
    scope: 'openid urn:mas:admin',
    expires_in: 86_400,
  })
  t.equal(created.status, 201)
  const id = created.body.data.id
  const regenerated = await a.post(`${API}/personal-sessions/${id}/regenerate`, { expires_in: 60 })
  t.equal(regenerated.status, 201)
  const token = regenerated.body.data.attributes.access_token
  t.equal((await a.post(`${API}/policy-data`, { data: { kept: true } })).status, 201)
  const listing = `${API}/personal-sessions?page[first]=100&filter[status]=active`
  const before = (await a.get(listing)).text
  const single = (await a.get(`${API}/personal-sessions/${id}`)).text
  const latest = (await a.get(`${API}/policy-data/latest`)).text
  const journal = path.join(dir, 'journal')
  const length = readFileSync(journal).length
  await a.close()

  // a crash mid-append: half a record at the end
  appendFileSync(
    journal,
    encodeRecord({ t: 'mas.policy', record: { id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', createdAt: 0, data: 'never acknowledged' } }).subarray(
      0,
      11,
    ),
  )
  const b = await startTestMock(t, { ...opts, adminToken: a.admin, userToken: a.user })
  t.equal((await b.get(listing)).text, before, 'the listing is byte-identical after the restart')
  t.equal((await b.get(`${API}/personal-sessions/${id}`)).text, single, 'so is the session')
  t.equal((await b.get(`${API}/policy-data/latest`)).text, latest, 'the half record was not replayed')
  t.equal((await b.get(`${API}/users/${actor}`, token)).status, 200, 'the regenerated token still works')
  const info = (await b.req('GET', '/_mock/info')).body
  t.match(
    info.state,
    { journalStartedBy: 'start', replayed: 3, tornTail: { offset: length, bytes: 11 } },
    'info shows the replay (create, regenerate, policy data) and the dropped tail',
  )
  t.equal(readFileSync(journal).length, length, 'the torn tail was cut off the file')
  const { events } = await b.log()
  t.ok(
    events.some((e) => e.level === 'WARN' && /torn last record at byte offset/.test(e.message)),
    'and a warning was logged',
  )

  // reset: a new journal for a new world
  const reset = (await b.req('POST', '/_mock/reset')).body
  t.match(reset.state, { journalStartedBy: 'reset', replayed: 0, records: 0 }, 'reset says it started a new journal')
  t.equal((await b.get(`${API}/personal-sessions/${id}`)).status, 404, 'the journaled writes are gone with the old world')
  await b.close()

  // another world: refused, with what differs, and no secret shown
  await t.rejects(startTestMock(t, { ...opts, seed: 4, adminToken: a.admin, userToken: a.user }), { message: /seed: journal 3, options 4/ })
  const refused = await startTestMock(t, { ...opts, adminToken: a.admin }).then(
    () => '',
    (e: Error) => e.message,
  )
  t.match(refused, /userToken: differs from the one the journal was written with/, 'a different token is refused')
  t.notOk(refused.includes(a.user) || refused.includes(opts.hsAdminToken), 'without showing a token')

  // damage in the middle: an error with the offset, nothing replayed
  const buf = readFileSync(journal)
  writeFileSync(
    journal,
    Buffer.concat([
      buf,
      encodeRecord({ t: 'world.set', target: 'jobs', key: 'length', value: 0 }),
      encodeRecord({ t: 'world.set', target: 'jobs', key: 'length', value: 0 }),
    ]),
  )
  const damaged = readFileSync(journal)
  damaged[buf.length + 9] = damaged[buf.length + 9]! ^ 0xff
  writeFileSync(journal, damaged)
  await t.rejects(startTestMock(t, { ...opts, adminToken: a.admin, userToken: a.user }), {
    message: new RegExp(`corrupt record at byte offset ${buf.length}: checksum mismatch`),
  })
  truncateSync(journal, buf.length)
})

t.test('every kind of write replays: rooms, events, transactions, reports, jobs, background updates, logins', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-journal-kinds-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const opts = {
    seed: 5,
    sessions: 60,
    reports: 10,
    stateDir: dir,
    hsAdminToken: 'syt_hs_admin',
    hsUserToken: 'syt_hs_user',
    adminClientSecret: 'kinds-secret',
  }
  const a = await startTestMock(t, opts)
  const hs = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' })
  const room = await a.req('POST', '/_matrix/client/v3/createRoom', {
    headers: hs('syt_hs_user'),
    body: JSON.stringify({ name: 'Journal', room_alias_name: 'journal' }),
  })
  t.equal(room.status, 200, 'room created')
  const roomId = room.body.room_id
  const sent = await a.req('PUT', `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/txn1`, {
    headers: hs('syt_hs_user'),
    body: JSON.stringify({ msgtype: 'm.text', body: 'hello' }),
  })
  t.equal(sent.status, 200, 'event sent')
  const report = await a.req(
    'POST',
    `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/report/${encodeURIComponent(sent.body.event_id)}`,
    { headers: hs('syt_hs_user'), body: JSON.stringify({ reason: 'journal', score: -50 }) },
  )
  t.equal(report.status, 200, 'event reported')
  t.equal(
    (
      await a.req('POST', '/_synapse/admin/v1/background_updates/enabled', {
        headers: hs('syt_hs_admin'),
        body: JSON.stringify({ enabled: false }),
      })
    ).status,
    200,
  )
  const compat = (await a.all(`${API}/compat-sessions?filter[status]=active`))[0]
  t.equal((await a.post(`${API}/compat-sessions/${compat.id}/finish`)).status, 200, 'a finish schedules a device-sync job')
  const user = a
    .world()
    .mas.users.all()
    .find((u) => u.password !== null && u.lockedAt === null && u.deactivatedAt === null)!
  const login = await a.post(
    '/_matrix/client/v3/login',
    { type: 'm.login.password', identifier: { type: 'm.id.user', user: user.username }, password: 'mock-password' },
    { token: null },
  )
  t.equal(login.status, 200, 'a compat login')
  const snapshot = async (m: typeof a) => [
    (await m.req('GET', '/_synapse/admin/v1/event_reports?limit=100', { headers: hs('syt_hs_admin') })).text,
    (
      await m.req(
        'GET',
        `/_synapse/admin/v1/event_reports/${(await m.req('GET', '/_synapse/admin/v1/event_reports?limit=1', { headers: hs('syt_hs_admin') })).body.event_reports[0].id}`,
        { headers: hs('syt_hs_admin') },
      )
    ).text,
    (await m.req('GET', '/_synapse/admin/v1/background_updates/enabled', { headers: hs('syt_hs_admin') })).text,
    (await m.req('GET', '/_mock/jobs')).text,
    (await m.get(`${API}/compat-sessions?page[last]=3`)).text,
  ]
  const before = await snapshot(a)
  t.match(before, [/"reason":"journal"/, /"body":"hello"/, /"enabled":false/, /sync-devices/, /.+/], 'the writes show before the restart')
  await a.close()
  const b = await startTestMock(t, { ...opts, adminToken: a.admin, userToken: a.user })
  t.same(await snapshot(b), before, 'reports, the reported event, background updates, jobs and compat sessions are as before')
  const again = await b.req('PUT', `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/txn1`, {
    headers: hs('syt_hs_user'),
    body: JSON.stringify({ msgtype: 'm.text', body: 'hello' }),
  })
  t.equal(again.body.event_id, sent.body.event_id, 'the transaction id still answers with the same event')
  t.equal(
    (await b.req('POST', '/_matrix/client/v3/logout', { headers: hs(login.body.access_token) })).status,
    200,
    'the compat login token still works',
  )
})
