// The client API slice: filing reports with the real validation, and the calls fixtures need
// (versions, whoami, createRoom, join, send).
import t from 'tap'
import { ADMIN_TOKEN, USER_TOKEN, createRoom, hsErr, report, send, startHs, valid, whoami } from '../helpers.ts'

const hs = await startHs()
t.teardown(() => hs.close())
const userId = await whoami(hs, USER_TOKEN)
const room = await createRoom(hs, USER_TOKEN, { visibility: 'public', name: 'Fixture room' })
const eventId = await send(hs, USER_TOKEN, room)
const NOT_FOUND = "Unable to report event: it does not exist or you aren't able to see it."
const reportUrl = (v = 'v3', r = room, e = eventId) => `/_matrix/client/${v}/rooms/${encodeURIComponent(r)}/report/${encodeURIComponent(e)}`
const newest = async () => (await hs.req('GET', `${hs.reports}?limit=1`, { token: ADMIN_TOKEN })).body.event_reports[0]

t.test('versions needs no token', async (t) => {
  const res = await hs.req('GET', '/_matrix/client/versions')
  t.equal(res.status, 200)
  t.ok(res.body.versions.includes('v1.1') && res.body.versions.includes('r0.6.1'))
  t.type(res.body.unstable_features, 'object')
})

t.test('valid report bodies: 200 {} and a new report stamped now', async (t) => {
  const bodies: [Record<string, unknown>, number | null, string | null][] = [
    [{ reason: 'this makes me sad', score: -100 }, -100, 'this makes me sad'],
    [{ score: 0 }, 0, null],
    [{ reason: 'this makes me sad' }, null, 'this makes me sad'],
    [{}, null, null],
    [{ reason: '' }, null, ''],
    [{ score: 42, extra: { kept: true } }, 42, null],
  ]
  for (const [body, score, reason] of bodies) {
    const before = Date.now()
    const res = await report(hs, USER_TOKEN, room, eventId, body)
    t.equal(res.status, 200, JSON.stringify(body))
    t.same(res.body, {})
    valid(t, 'homeserver/client-report#Response', res.body)
    const item = await newest()
    t.equal(item.score, score, 'score as listed')
    t.equal(item.reason, reason, 'reason as listed')
    t.equal(item.user_id, userId)
    t.equal(item.event_id, eventId)
    t.equal(item.name, 'Fixture room')
    t.equal(item.canonical_alias, null)
    t.ok(item.received_ts >= before && item.received_ts <= Date.now(), 'received_ts is now')
  }
  // The score is not range-checked, and any JSON integer is an int to the real server.
  for (const raw of ['{"score": 100000000000000000000}', '{"score": -0}', '{"score":5,"score":7}']) {
    const res = await hs.req('POST', reportUrl(), { token: USER_TOKEN, raw, headers: { 'content-type': 'application/json' } })
    t.equal(res.status, 200, raw)
  }
  t.equal((await newest()).score, 7, 'the last of repeated keys wins')
})

t.test('invalid report bodies: 400 M_BAD_JSON / M_NOT_JSON', async (t) => {
  const reason = "Param 'reason' must be a string"
  const score = "Param 'score' must be an integer"
  const cases: [unknown, string][] = [
    [{ reason: 10, score: 'string' }, reason],
    [{ reason: 0, score: '' }, reason],
    [{ reason: null, score: null }, reason],
    [{ reason: ['a'] }, reason],
    [{ score: 'string' }, score],
    [{ score: null }, score],
    [{ score: true }, score],
    [{ score: 1.5 }, score],
    [{ score: '-100' }, score],
  ]
  for (const [body, message] of cases) hsErr(t, await report(hs, USER_TOKEN, room, eventId, body), 400, 'M_BAD_JSON', message)
  // Floats that JSON.parse would turn into integers are still floats to the real server.
  for (const raw of ['{"score": 1.0}', '{"score": 1e2}', '{"score": -100.0}', '{"score":1E0}', '{"reason":"x","score":0.0}']) {
    hsErr(t, await hs.req('POST', reportUrl(), { token: USER_TOKEN, raw }), 400, 'M_BAD_JSON', score)
  }
  for (const raw of ['', 'not json', '{"reason":', 'NaN', '{"score": NaN}', Buffer.from([0x7b, 0xff, 0x7d])]) {
    hsErr(t, await hs.req('POST', reportUrl(), { token: USER_TOKEN, raw }), 400, 'M_NOT_JSON', 'Content not JSON.')
  }
  for (const raw of ['[]', '"text"', '42', 'null', '[{"score":1}]']) {
    hsErr(t, await hs.req('POST', reportUrl(), { token: USER_TOKEN, raw }), 400, 'M_BAD_JSON', 'Content must be a JSON object.')
  }
  // The body is validated before the event is looked up.
  hsErr(t, await report(hs, USER_TOKEN, room, '$missing', { score: 'x' }), 400, 'M_BAD_JSON', score)
})

t.test('events that do not exist or cannot be seen: 404', async (t) => {
  const otherRoom = await createRoom(hs, ADMIN_TOKEN, { preset: 'private_chat' })
  const hidden = await send(hs, ADMIN_TOKEN, otherRoom)
  const cases: [string, string, string][] = [
    ['unknown event', room, '$nope'],
    ['unknown room', '!nope:example.test', eventId],
    ['event of another room', otherRoom, eventId],
    ['room of the event, user not in it', otherRoom, hidden],
    ['event id of another room given with this room', room, hidden],
    ['empty event id', room, ''],
  ]
  for (const [what, r, e] of cases) {
    const res = await hs.req('POST', reportUrl('v3', r, e), { token: USER_TOKEN, body: {} })
    hsErr(t, res, 404, 'M_NOT_FOUND', NOT_FOUND)
    t.comment(what)
  }
  // The admin, a member of that room, can report there.
  t.equal((await report(hs, ADMIN_TOKEN, otherRoom, hidden, {})).status, 200)
})

t.test('r0, v3 and unstable paths', async (t) => {
  for (const v of ['r0', 'v3', 'unstable']) t.equal((await report(hs, USER_TOKEN, room, eventId, {}, v)).status, 200, v)
  hsErr(t, await report(hs, USER_TOKEN, room, eventId, {}, 'v1'), 404, 'M_UNRECOGNIZED', 'Unrecognized request')
  hsErr(t, await hs.req('GET', reportUrl(), { token: USER_TOKEN }), 405, 'M_UNRECOGNIZED')
})

t.test('createRoom', async (t) => {
  const res = await hs.req('POST', '/_matrix/client/v3/createRoom', {
    token: USER_TOKEN,
    body: { name: 'Aliased', room_alias_name: 'aliased', visibility: 'public' },
  })
  t.equal(res.status, 200)
  t.match(res.body.room_id, /^![A-Za-z]{18}:example\.test$/)
  t.equal(res.body.room_alias, '#aliased:example.test')
  const ev = await send(hs, USER_TOKEN, res.body.room_id)
  await report(hs, USER_TOKEN, res.body.room_id, ev, {})
  const item = await newest()
  t.equal(item.canonical_alias, '#aliased:example.test')
  t.equal(item.name, 'Aliased')
  hsErr(
    t,
    await hs.req('POST', '/_matrix/client/v3/createRoom', { token: USER_TOKEN, body: { room_alias_name: 'aliased' } }),
    400,
    'M_ROOM_IN_USE',
    'Room alias already taken',
  )
  hsErr(
    t,
    await hs.req('POST', '/_matrix/client/v3/createRoom', { token: USER_TOKEN, body: { room_alias_name: '#a:b' } }),
    400,
    'M_UNKNOWN',
  )
  hsErr(t, await hs.req('POST', '/_matrix/client/v3/createRoom', { token: USER_TOKEN, body: { name: 5 } }), 400, 'M_BAD_JSON')
  hsErr(t, await hs.req('POST', '/_matrix/client/v3/createRoom', { token: USER_TOKEN, raw: '' }), 400, 'M_NOT_JSON')
  hsErr(t, await hs.req('POST', '/_matrix/client/v3/createRoom', { token: USER_TOKEN, raw: '[]' }), 400, 'M_BAD_JSON')
  t.equal((await hs.req('POST', '/_matrix/client/r0/createRoom', { token: USER_TOKEN, body: {} })).status, 200, 'r0')
})

t.test('join and send', async (t) => {
  const priv = await createRoom(hs, USER_TOKEN, { preset: 'private_chat' })
  hsErr(
    t,
    await hs.req('POST', `/_matrix/client/v3/rooms/${encodeURIComponent(priv)}/join`, { token: ADMIN_TOKEN }),
    403,
    'M_FORBIDDEN',
    'You are not invited to this room.',
  )
  hsErr(
    t,
    await hs.req('PUT', `/_matrix/client/v3/rooms/${encodeURIComponent(priv)}/send/m.room.message/x1`, { token: ADMIN_TOKEN, body: {} }),
    403,
    'M_FORBIDDEN',
  )
  const pub = await createRoom(hs, USER_TOKEN, { visibility: 'public', room_alias_name: 'pub' })
  const joined = await hs.req('POST', `/_matrix/client/v3/join/${encodeURIComponent('#pub:example.test')}`, { token: ADMIN_TOKEN })
  t.same(joined.body, { room_id: pub }, 'join by alias, empty body')
  hsErr(
    t,
    await hs.req('POST', `/_matrix/client/v3/join/${encodeURIComponent('#nope:example.test')}`, { token: ADMIN_TOKEN }),
    404,
    'M_NOT_FOUND',
  )
  t.equal(
    (await hs.req('POST', `/_matrix/client/v3/rooms/${encodeURIComponent(pub)}/join`, { token: ADMIN_TOKEN, body: {} })).status,
    200,
    'joining twice is fine',
  )
  // send is idempotent per transaction id.
  const url = `/_matrix/client/v3/rooms/${encodeURIComponent(pub)}/send/m.room.message/same-txn`
  const a = await hs.req('PUT', url, { token: ADMIN_TOKEN, body: { msgtype: 'm.text', body: 'one' } })
  const b = await hs.req('PUT', url, { token: ADMIN_TOKEN, body: { msgtype: 'm.text', body: 'two' } })
  t.equal(a.status, 200)
  t.match(a.body.event_id, /^\$[A-Za-z0-9_-]{43}$/)
  t.equal(b.body.event_id, a.body.event_id, 'same txn, same event')
  const c = await hs.req('PUT', url, { token: USER_TOKEN, body: { msgtype: 'm.text', body: 'three' } })
  t.not(c.body.event_id, a.body.event_id, 'another user, another event')
  hsErr(t, await hs.req('PUT', url.replace('same-txn', 'bad'), { token: ADMIN_TOKEN, raw: 'x' }), 400, 'M_NOT_JSON')
})

t.test('whoami', async (t) => {
  const res = await hs.req('GET', '/_matrix/client/v3/account/whoami', { token: ADMIN_TOKEN })
  t.equal(res.body.user_id, '@admin:example.test')
  t.equal(res.body.is_guest, false)
  t.match(res.body.device_id, /^[A-Z]{10}$/)
})
