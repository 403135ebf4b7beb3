// The mock's event context (mock/homeserver/room-context.ts) against what the real servlet does: the
// limit split (floor(limit/2) before, newest first; the rest after, oldest first), the state at the last
// event returned, the client format with the legacy user_id, the filter, every error in its release's
// words, and the admin check before anything. Facts from Debian's matrix-synapse 1.160.0, asked directly.
import t from 'tap'
import { ADMIN_TOKEN, USER_TOKEN, createRoom, hsErr, send, startHs, valid } from './helpers.ts'

const hs = await startHs()
t.teardown(() => hs.close())
const room = await createRoom(hs, USER_TOKEN, { visibility: 'public', name: 'context room' })
const sent: string[] = []
for (let i = 0; i < 7; i++) sent.push(await send(hs, USER_TOKEN, room, { msgtype: 'm.text', body: `message ${i}` }))
const mid = sent[3]!
const ctxPath = (r: string, e: string, q = '') => `${hs.admin}/rooms/${encodeURIComponent(r)}/context/${encodeURIComponent(e)}${q}`
const get = (q: string, token: string | null = ADMIN_TOKEN, e = mid, r = room) => hs.req('GET', ctxPath(r, e, q), { token })

t.test('limit splits as the real handler: floor(limit/2) before, newest first; the rest after, oldest first', async (t) => {
  for (const [limit, before, after] of [
    [1, 0, 1],
    [2, 1, 1],
    [5, 2, 3],
    [0, 0, 0],
  ] as const) {
    const res = await get(`?limit=${limit}`)
    t.equal(res.status, 200, `limit=${limit}`)
    valid(t, 'homeserver/room-context#Context', res.body, `limit=${limit}`)
    t.equal(res.body.event.event_id, mid)
    t.same(
      res.body.events_before.map((e: { event_id: string }) => e.event_id),
      sent.slice(3 - before, 3).reverse(),
      `limit=${limit}: ${before} before, newest first`,
    )
    t.same(
      res.body.events_after.map((e: { event_id: string }) => e.event_id),
      sent.slice(4, 4 + after),
      `limit=${limit}: ${after} after, oldest first`,
    )
  }
  const dflt = await get('')
  t.same(
    [dflt.body.events_before.length, dflt.body.events_after.length],
    [5, 3],
    'the default limit 10: 5 before (the room’s creation events beyond the 3 messages), the 3 messages after',
  )
  const edge = await get('?limit=10', ADMIN_TOKEN, sent[6]!)
  t.same(edge.body.events_after, [], 'nothing after the last event')
})

t.test('the client format, as the admin API serialises it', async (t) => {
  const res = await get('?limit=2')
  const ev = res.body.event
  t.same(Object.keys(ev), ['age', 'content', 'event_id', 'origin_server_ts', 'room_id', 'sender', 'type', 'unsigned', 'user_id'])
  t.equal(ev.user_id, ev.sender, 'the legacy user_id is the sender')
  t.same(ev.unsigned, { age: ev.age })
  t.same(ev.content, { msgtype: 'm.text', body: 'message 3' })
  const state = res.body.state as { type: string; state_key: string; event_id: string }[]
  t.ok(
    state.every((s) => typeof s.state_key === 'string'),
    'state events carry state_key',
  )
  t.same(state.map((s) => s.type).sort(), [
    'm.room.create',
    'm.room.history_visibility',
    'm.room.join_rules',
    'm.room.member',
    'm.room.name',
    'm.room.power_levels',
  ])
  t.match(res.body.start, /^t\d+-\d+_/)
  t.match(res.body.end, /^t\d+-\d+_/)
})

t.test('the state is the state at the last event returned, not the current one', async (t) => {
  const before = await get('?limit=0', ADMIN_TOKEN, sent[0]!)
  // A member joins after the window: the state at sent[0] does not hold them.
  const other = await hs.req('POST', `/_matrix/client/v3/rooms/${encodeURIComponent(room)}/join`, { token: ADMIN_TOKEN, body: {} })
  t.equal(other.status, 200)
  const again = await get('?limit=0', ADMIN_TOKEN, sent[0]!)
  t.same(again.body.state.length, before.body.state.length, 'a later join is not in the state at an earlier event')
  const late = await get('?limit=0', ADMIN_TOKEN, await send(hs, USER_TOKEN, room))
  t.equal(late.body.state.filter((s: { type: string }) => s.type === 'm.room.member').length, 2, 'it is at a later event')
})

t.test('the filter narrows the neighbours (types, not_types, senders), never the event', async (t) => {
  const only = await get(`?limit=20&filter=${encodeURIComponent(JSON.stringify({ types: ['m.room.member'] }))}`)
  t.equal(only.body.event.event_id, mid)
  t.ok(
    [...only.body.events_before, ...only.body.events_after].every((e: { type: string }) => e.type === 'm.room.member'),
    'types',
  )
  const not = await get(`?limit=20&filter=${encodeURIComponent(JSON.stringify({ not_types: ['m.room.*'] }))}`)
  t.same(
    [...not.body.events_before, ...not.body.events_after].filter((e: { type: string }) => e.type.startsWith('m.room.')),
    [],
    'not_types with a wildcard',
  )
  const nobody = await get(`?limit=4&filter=${encodeURIComponent(JSON.stringify({ senders: ['@nobody:example.test'] }))}`)
  t.same([nobody.body.events_before, nobody.body.events_after], [[], []], 'senders')
})

t.test("errors, in the release's words, after the admin check", async (t) => {
  hsErr(t, await get('?limit=abc'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be an integer')
  hsErr(t, await get('?limit=-1'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be a positive integer.')
  hsErr(t, await get('?filter=notjson'), 400, 'M_NOT_JSON', 'Query parameter filter must be a valid JSON object')
  hsErr(t, await get('?filter=%5B1%5D'), 400, 'M_NOT_JSON', 'Query parameter filter must be a valid JSON object')
  hsErr(t, await get('?limit=1', ADMIN_TOKEN, '$nope:example.test'), 404, 'M_NOT_FOUND', 'Event not found.')
  hsErr(t, await get('?limit=1', ADMIN_TOKEN, mid, '!nope:example.test'), 404, 'M_UNKNOWN', 'No row found (events)')
  hsErr(t, await get('?limit=1', ADMIN_TOKEN, '$nope:example.test', '!nope:example.test'), 404, 'M_NOT_FOUND', 'Event not found.')
  hsErr(t, await get('?limit=abc', null), 401, 'M_MISSING_TOKEN')
  hsErr(t, await get('?limit=abc', USER_TOKEN), 403, 'M_FORBIDDEN', 'You are not a server admin')
})

t.test('older releases: quoted names, negative limits and undecodable filters as they were', async (t) => {
  const old = await startHs({ hsVersion: '1.100.0' })
  t.teardown(() => old.close())
  const r = await createRoom(old, USER_TOKEN)
  const e = await send(old, USER_TOKEN, r)
  const g = (q: string) =>
    old.req('GET', `${old.admin}/rooms/${encodeURIComponent(r)}/context/${encodeURIComponent(e)}${q}`, { token: ADMIN_TOKEN })
  hsErr(t, await g('?limit=abc'), 400, 'M_INVALID_PARAM', "Query parameter 'limit' must be an integer")
  t.equal((await g('?limit=-4')).status, 200, 'a negative limit passed the parser before v1.106.0')
  hsErr(t, await g('?filter=notjson'), 500, 'M_UNKNOWN', 'Internal server error')
  const older = await startHs({ hsVersion: '1.27.0' })
  t.teardown(() => older.close())
  t.not(
    (await older.req('GET', `${older.admin}/rooms/${encodeURIComponent(r)}/context/${encodeURIComponent(e)}`, { token: ADMIN_TOKEN }))
      .status,
    200,
    'no such route before v1.28.0',
  )
})

t.test("a message sent right after a room's creation is not older than the room's first events", async (t) => {
  // createRoom stamps its first events one millisecond apart; a message within those milliseconds
  // took the clock's time and sat after a newer event (the deploy flow's flaky context check)
  const r = await createRoom(hs, USER_TOKEN, { visibility: 'public', name: 'a room made now' })
  const ev = await send(hs, USER_TOKEN, r, { msgtype: 'm.text', body: 'at once' })
  const res = await get('?limit=20', ADMIN_TOKEN, ev, r)
  t.equal(res.status, 200)
  const ts = res.body.event.origin_server_ts as number
  const before = res.body.events_before.map((e: { origin_server_ts: number }) => e.origin_server_ts) as number[]
  t.ok(before.length >= 4, `${before.length} events before it`)
  t.ok(
    before.every((x, i) => x <= ts && (i === 0 || before[i - 1]! >= x)),
    'every event before it is as old or older, newest first',
    { before, ts },
  )
})
