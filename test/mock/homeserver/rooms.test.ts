// The mock's rooms admin API (mock/homeserver/rooms.ts) against what the real servlets do: the list's
// offset pagination with the real total_rooms (limit=0 as admin UIs ask it), order_by and dir, the
// search, one room, its members and state, whether a user is a server admin, every error in the real
// words, and the admin check before anything. Facts from Debian's matrix-synapse 1.160.0.
import t from 'tap'
import { ADMIN_TOKEN, USER_TOKEN, createRoom, hsErr, startHs, valid, whoami } from './helpers.ts'

const hs = await startHs()
t.teardown(() => hs.close())
const named = await createRoom(hs, USER_TOKEN, { visibility: 'public', name: 'Zebra crossing', room_alias_name: 'zebra_talk' })
const rooms = (q: string, token: string | null = ADMIN_TOKEN) => hs.req('GET', `${hs.admin}/rooms${q}`, { token })
const all = (await rooms('?limit=1000')).body
const total: number = all.total_rooms

t.test('the list: every room, the real total, the schema', async (t) => {
  valid(t, 'homeserver/rooms#List', all)
  t.ok(total >= 7, `${total} rooms: the seeded ones and the one created here`)
  t.equal(all.rooms.length, total)
  t.same([all.offset, all.next_batch, all.prev_batch], [0, undefined, undefined], 'one page: neither next_batch nor prev_batch')
  const mine = all.rooms.find((r: { room_id: string }) => r.room_id === named)
  t.match(mine, {
    name: 'Zebra crossing',
    canonical_alias: `#zebra_talk:${hs.mock.options.serverName}`,
    joined_members: 1,
    joined_local_members: 1,
    join_rules: 'public',
    history_visibility: 'shared',
    encryption: null,
    federatable: true,
    room_type: null,
  })
})

t.test('limit=0 answers no room but the total, and next_batch 0', async (t) => {
  const res = await rooms('?limit=0')
  t.equal(res.status, 200)
  t.same(res.body, { offset: 0, rooms: [], total_rooms: total, next_batch: 0 })
})

t.test('pages: from and limit, next_batch and prev_batch as the servlet computes them', async (t) => {
  const seen: string[] = []
  for (let from = 0; from < total; from += 3) {
    const res = await rooms(`?limit=3&from=${from}`)
    valid(t, 'homeserver/rooms#List', res.body)
    t.equal(res.body.total_rooms, total)
    t.equal(res.body.next_batch, from + 3 < total ? from + 3 : undefined, `from=${from}: next_batch`)
    t.equal(res.body.prev_batch, from > 0 ? Math.max(0, from - 3) : undefined, `from=${from}: prev_batch`)
    seen.push(...res.body.rooms.map((r: { room_id: string }) => r.room_id))
  }
  t.same(
    seen,
    all.rooms.map((r: { room_id: string }) => r.room_id),
    'the pages together are the whole list, in order',
  )
  const far = await rooms('?from=1000&limit=5')
  t.same(far.body, { offset: 1000, rooms: [], total_rooms: total, prev_batch: 995 })
})

t.test('order_by and dir: name ascending forwards, joined_members descending; dir=b reverses, room_id breaks ties', async (t) => {
  const ids = (b: { rooms: { room_id: string }[] }) => b.rooms.map((r) => r.room_id)
  const byName = (await rooms('?order_by=name&limit=1000')).body
  const names = byName.rooms.map((r: { name: string | null }) => r.name)
  const nonNull = names.filter((n: string | null) => n !== null)
  t.same(nonNull, [...nonNull].sort(), 'names ascending')
  t.ok(
    names.indexOf(null) < 0 || names.lastIndexOf(null) < names.findIndex((n: string | null) => n !== null),
    'rooms without a name first, as SQLite orders NULL',
  )
  t.same(ids((await rooms('?order_by=name&dir=b&limit=1000')).body), ids(byName).reverse(), 'dir=b is the exact reverse')
  t.same(ids(byName), ids(all), 'name is the default order')
  const bySize = (await rooms('?order_by=joined_members&limit=1000')).body.rooms.map((r: { joined_members: number }) => r.joined_members)
  t.same(
    bySize,
    [...bySize].sort((a: number, b: number) => b - a),
    'joined_members descending forwards',
  )
  t.same(
    ids((await rooms('?order_by=size&limit=1000')).body),
    ids((await rooms('?order_by=joined_members&limit=1000')).body),
    'size is joined_members',
  )
})

t.test('search_term: name substring case-insensitively, alias localpart substring, room id exactly', async (t) => {
  const only = async (q: string) => (await rooms(q)).body
  t.same(
    (await only('?search_term=zEbRa%20c')).rooms.map((r: { room_id: string }) => r.room_id),
    [named],
    'the name, in any case',
  )
  t.same(
    (await only('?search_term=bra_ta')).rooms.map((r: { room_id: string }) => r.room_id),
    [named],
    'the alias localpart',
  )
  const byId = await only(`?search_term=${encodeURIComponent(named)}`)
  t.same([byId.total_rooms, byId.rooms[0]?.room_id], [1, named], 'the room id, with total_rooms of the search')
  t.same(
    (await only(`?search_term=${encodeURIComponent(named.slice(0, 5))}`)).rooms.filter((r: { room_id: string }) => r.room_id === named),
    [],
    'part of a room id matches nothing',
  )
  t.equal((await only('?search_term=no-such-room-anywhere')).total_rooms, 0)
})

t.test('errors of the list in the real words, after the admin check', async (t) => {
  hsErr(t, await rooms('?search_term='), 400, 'M_INVALID_PARAM', 'search_term cannot be an empty string')
  hsErr(t, await rooms('?dir=x'), 400, 'M_INVALID_PARAM', "Query parameter 'dir' must be one of ['b', 'f']")
  hsErr(t, await rooms('?limit=abc'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be an integer')
  hsErr(t, await rooms('?limit=-1'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be a positive integer.')
  const bad = await rooms('?order_by=bogus')
  hsErr(t, bad, 400, 'M_INVALID_PARAM')
  t.match(bad.body.error, /^Query parameter 'order_by' must be one of \['alphabetical', 'size', 'name', /)
  hsErr(t, await rooms('?dir=x', null), 401, 'M_MISSING_TOKEN')
  hsErr(t, await rooms('?dir=x', USER_TOKEN), 403, 'M_FORBIDDEN', 'You are not a server admin')
})

t.test('one room, its members and its state', async (t) => {
  const path = `${hs.admin}/rooms/${encodeURIComponent(named)}`
  const one = await hs.req('GET', path, { token: ADMIN_TOKEN })
  t.equal(one.status, 200)
  valid(t, 'homeserver/rooms#Room', one.body)
  t.match(one.body, {
    room_id: named,
    name: 'Zebra crossing',
    joined_members: 1,
    avatar: null,
    topic: null,
    joined_local_devices: 1,
    forgotten: false,
    tombstoned: false,
    replacement_room: null,
  })
  const members = await hs.req('GET', `${path}/members`, { token: ADMIN_TOKEN })
  valid(t, 'homeserver/rooms#Members', members.body)
  t.same(members.body, { members: [await whoami(hs, USER_TOKEN)], total: 1 })
  const state = await hs.req('GET', `${path}/state`, { token: ADMIN_TOKEN })
  valid(t, 'homeserver/rooms#State', state.body)
  const types = state.body.state.map((e: { type: string }) => e.type).sort()
  t.same(types, [
    'm.room.canonical_alias',
    'm.room.create',
    'm.room.history_visibility',
    'm.room.join_rules',
    'm.room.member',
    'm.room.name',
    'm.room.power_levels',
  ])
  t.equal(one.body.state_events, types.length, 'state_events counts the current state')
  const named2 = await hs.req('GET', `${path}/state?type=m.room.name`, { token: ADMIN_TOKEN })
  t.same(
    named2.body.state.map((e: { content: unknown }) => e.content),
    [{ name: 'Zebra crossing' }],
    'type narrows to one event type',
  )
  for (const sub of ['', '/members', '/state']) {
    hsErr(
      t,
      await hs.req('GET', `${hs.admin}/rooms/!nowhere%3Aexample.invalid${sub}`, { token: ADMIN_TOKEN }),
      404,
      'M_NOT_FOUND',
      'Room not found',
    )
    hsErr(
      t,
      await hs.req('GET', `${hs.admin}/rooms/!nowhere%3Aexample.invalid${sub}`, { token: USER_TOKEN }),
      403,
      'M_FORBIDDEN',
      'You are not a server admin',
    )
  }
})

t.test(
  'the room details follow the claimed release: room_type from v1.64.0, forgotten from v1.66.0, tombstoned from v1.153.0',
  async (t) => {
    const old = await startHs({ hsVersion: '1.65.0' })
    t.teardown(() => old.close())
    const r = await createRoom(old, USER_TOKEN)
    const one = await old.req('GET', `${old.admin}/rooms/${encodeURIComponent(r)}`, { token: ADMIN_TOKEN })
    t.ok(
      'room_type' in one.body && !('forgotten' in one.body) && !('tombstoned' in one.body),
      '1.65.0: room_type, no forgotten, no tombstoned',
    )
    const list = await old.req('GET', `${old.admin}/rooms?limit=1`, { token: ADMIN_TOKEN })
    t.ok('room_type' in list.body.rooms[0])
    const older = await startHs({ hsVersion: '1.60.0' })
    t.teardown(() => older.close())
    const l2 = await older.req('GET', `${older.admin}/rooms?limit=1`, { token: ADMIN_TOKEN })
    t.notOk('room_type' in l2.body.rooms[0], '1.60.0: no room_type')
    valid(t, 'homeserver/rooms#List', l2.body)
  },
)

t.test('whether a user is a server admin', async (t) => {
  const server = hs.mock.options.serverName
  const admin = (u: string, token = ADMIN_TOKEN) => hs.req('GET', `${hs.admin}/users/${encodeURIComponent(u)}/admin`, { token })
  t.same((await admin(await whoami(hs, ADMIN_TOKEN))).body, { admin: true })
  t.same((await admin(await whoami(hs, USER_TOKEN))).body, { admin: false })
  t.same((await admin(`@nobody-here:${server}`)).body, { admin: false }, 'an unknown local user is no admin')
  hsErr(t, await admin('@someone:example.invalid'), 400, 'M_UNKNOWN', 'Only local users can be admins of this homeserver')
  hsErr(t, await admin('nobody'), 400, 'M_INVALID_PARAM', "Expected UserID string to start with '@'")
  hsErr(t, await admin('@nobody'), 400, 'M_INVALID_PARAM', "Expected UserID of the form '@localname:domain'")
  hsErr(t, await admin('@nobody', USER_TOKEN), 403, 'M_FORBIDDEN', 'You are not a server admin')
})
