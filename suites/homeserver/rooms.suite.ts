// The rooms admin API as admin UIs call it (area B, beyond the interface): GET <prefix>/admin/v1/rooms
// (limit=0 for the count, pages, order_by, dir, search_term), one room, its members, its state, and
// GET <prefix>/admin/v1/users/{user}/admin. Read-only: the rooms are the target's own; a target with no
// room skips the checks that need one, with that reason.
import type { Test } from '../lib/check.ts'
import {
  check,
  hs,
  hsClient,
  skip,
  target,
  expectOk,
  expectHsError,
  expectSchema,
  diag,
  memo,
  setDefaultRule,
  setRule,
  requireSynapseFeature,
  hsFeatureRule,
  underDeviation,
} from '../lib/suite.ts'

setDefaultRule('Synapse docs/admin_api/rooms.md, List Room API and Room Details API (synapse/rest/admin/rooms.py)')

const PATH = `${target.hs?.prefix ?? '/_synapse'}/admin/v1`
const LIST = 'homeserver/rooms#List'
/** The largest list fetched whole; a bigger server is walked by its first pages only. */
const WHOLE = 500

interface Room {
  room_id: string
  name: string | null
  canonical_alias: string | null
  joined_members: number
  state_events: number
}
interface List {
  offset: number
  rooms: Room[]
  total_rooms: number
  next_batch?: number
  prev_batch?: number
}

const listPath = (q: Record<string, string | number>) =>
  `GET ${PATH}/rooms?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`

async function listed(t: Test, q: Record<string, string | number>): Promise<List | undefined> {
  const res = await hs('GET', '/rooms', { query: q })
  return expectOk<List>(t, res, listPath(q), { schema: LIST })
}

/** How many rooms the target has, as limit=0 tells it. */
const total = (): Promise<number | undefined> =>
  memo('rooms-total', async () => {
    const res = await hs('GET', '/rooms', { query: { limit: 0 } })
    return res.status === 200 ? (res.json as List | undefined)?.total_rooms : undefined
  })

/** The room with the most members. Its listing is not asserted here (the list's own checks do): a check that cannot get one skips. */
async function aRoom(): Promise<Room> {
  const res = await hs('GET', '/rooms', { query: { limit: 1, order_by: 'joined_members' } })
  if (res.status !== 200) skip(`the room list answered ${res.status}, so no room to read (the list's own checks say why)`)
  const room = (res.json as Partial<List> | undefined)?.rooms?.[0]
  if (!room || typeof room.room_id !== 'string') skip('the target has no room')
  return room
}

const roomPath = (id: string, sub = '') => `/rooms/${encodeURIComponent(id)}${sub}`

/** What the counts of a room are, as GET rooms/{id} shows them (undefined when it does not answer 200). */
async function counts(id: string): Promise<string | undefined> {
  const res = await hs('GET', roomPath(id))
  const r = res.status === 200 ? (res.json as Partial<Room> | undefined) : undefined
  return r ? `${r.joined_members}/${r.state_events}` : undefined
}

/**
 * `read`, between two looks at the room's counts that agree: a live target (other users, other
 * suites of this run writing) may join or change the room between the listing and the read, and the
 * comparison would blame the target for it. Up to three tries, then the check skips with that reason.
 */
async function settled<T>(room: Room, read: (room: Room) => Promise<T>): Promise<T> {
  let seen = room
  for (let i = 0; i < 3; i++) {
    const before = i === 0 ? `${room.joined_members}/${room.state_events}` : await counts(room.room_id)
    const value = await read(seen)
    const after = await counts(room.room_id)
    if (before !== undefined && before === after) return value
    if (after === undefined) return value
    const [joined, state] = after.split('/').map(Number)
    seen = { ...room, joined_members: joined!, state_events: state! }
  }
  skip(`the room ${JSON.stringify(room.room_id)} changed during each of three reads (the target is being written to)`)
}

check('rooms: limit=0, as admin UIs count rooms → no room, the real total_rooms, next_batch 0 while rooms exist', ['hs'], async (t) => {
  const body = await listed(t, { limit: 0 })
  if (!body) return
  t.same(body.rooms, [], 'no room on the page')
  t.equal(body.offset, 0, 'offset is from')
  t.equal(body.next_batch, body.total_rooms > 0 ? 0 : undefined, 'next_batch is from + limit = 0 while 0 < total_rooms', {
    total_rooms: body.total_rooms,
    next_batch: body.next_batch,
  })
})

check('rooms: pages of 3 → the same total_rooms on every page, next_batch and prev_batch as from ± limit', ['hs'], async (t) => {
  const n = await total()
  if (n === undefined) skip('the room count (limit=0) did not answer')
  if (n === 0) skip('the target has no room')
  const froms = [...new Set([0, 3, Math.max(0, n - 2)])].filter((f) => f < n).slice(0, 3)
  for (const from of froms) {
    const body = await listed(t, { limit: 3, from })
    if (!body) return
    t.equal(body.total_rooms, n, `from=${from}: total_rooms counts every room, not the page`)
    t.equal(body.rooms.length, Math.min(3, n - from), `from=${from}: min(limit, total - from) rooms`)
    t.equal(body.next_batch, from + 3 < n ? from + 3 : undefined, `from=${from}: next_batch`)
    t.equal(body.prev_batch, from > 0 ? Math.max(0, from - 3) : undefined, `from=${from}: prev_batch`)
  }
})

check('rooms: dir=b lists the exact reverse of dir=f (order_by=name, room_id breaking ties)', ['hs'], async (t) => {
  const n = await total()
  if (n === undefined || n < 2) skip('the target has fewer than 2 rooms')
  // a large target: the last k rooms forwards against the first k backwards (the cost does not grow)
  const k = Math.min(n, WHOLE)
  const f = await listed(t, { ...(n > k ? { from: n - k } : {}), limit: k, order_by: 'name' })
  const b = await listed(t, { limit: k, order_by: 'name', dir: 'b' })
  if (!f || !b) return
  t.same(
    b.rooms.map((r) => r.room_id),
    f.rooms.map((r) => r.room_id).reverse(),
    n > k ? `the first ${k} rooms backwards are the last ${k} forwards, reversed` : 'the backward list is the forward one reversed',
  )
  const names = f.rooms.map((r) => r.name).filter((x): x is string => x !== null)
  t.ok(
    names.every((x, i) => i === 0 || names[i - 1]! <= x),
    'names ascend forwards',
    { names: names.slice(0, 20) },
  )
})

check('rooms: search_term with a room id → exactly that room, total_rooms 1', ['hs'], async (t) => {
  const room = await aRoom()
  const body = await listed(t, { search_term: room.room_id })
  if (!body) return
  t.same([body.total_rooms, body.rooms.map((r) => r.room_id)], [1, [room.room_id]], 'the one room', {
    total_rooms: body.total_rooms,
    rooms: body.rooms.map((r) => r.room_id),
  })
})

check('rooms: one room → 200 matching the schema, as the list shows it', ['hs'], async (t) => {
  const listedRoom = await aRoom()
  // the list again after the read: a room that changed meanwhile is compared with its new listing
  let room = listedRoom
  const res = await settled(listedRoom, async () => {
    const one = await hs('GET', roomPath(listedRoom.room_id))
    const again = await hs('GET', '/rooms', { query: { search_term: listedRoom.room_id } })
    room = (again.json as Partial<List> | undefined)?.rooms?.find?.((r) => r.room_id === listedRoom.room_id) ?? listedRoom
    return one
  })
  const body = expectOk<Room>(t, res, `GET ${PATH}${roomPath(room.room_id)}`, { schema: 'homeserver/rooms#Room' })
  if (!body) return
  t.same(
    [body.room_id, body.joined_members, body.state_events],
    [room.room_id, room.joined_members, room.state_events],
    'room_id, joined_members and state_events as listed',
    diag(res),
  )
})

check('rooms: its members → the joined members, total their number, as joined_members counts them', ['hs'], async (t) => {
  let room = await aRoom()
  const res = await settled(room, async (now) => ((room = now), hs('GET', roomPath(room.room_id, '/members'))))
  const body = expectOk<{ members: string[]; total: number }>(t, res, `GET ${PATH}${roomPath(room.room_id, '/members')}`, {
    schema: 'homeserver/rooms#Members',
  })
  if (!body) return
  t.equal(body.total, body.members.length, 'total is the number of members listed', diag(res))
  t.equal(body.total, room.joined_members, 'as many as joined_members', diag(res))
})

check('rooms: its state → the current state events, m.room.create among them, as many as state_events', ['hs'], async (t) => {
  let room = await aRoom()
  const res = await settled(room, async (now) => ((room = now), hs('GET', roomPath(room.room_id, '/state'))))
  const body = expectOk<{ state: { type: string; state_key: string; room_id: string }[] }>(
    t,
    res,
    `GET ${PATH}${roomPath(room.room_id, '/state')}`,
    { schema: 'homeserver/rooms#State' },
  )
  if (!body) return
  t.ok(
    body.state.some((e) => e.type === 'm.room.create' && e.state_key === ''),
    'm.room.create is in the state',
    diag(res),
  )
  t.ok(
    body.state.every((e) => e.room_id === room.room_id),
    'every event is in the room',
    diag(res),
  )
  t.equal(body.state.length, room.state_events, 'as many as state_events', diag(res))
})

check('rooms: an unknown room → 404 M_NOT_FOUND "Room not found" for the room, its members and its state', ['hs'], async (t) => {
  const server = (await whoami())?.split(':').slice(1).join(':') || 'example.invalid'
  const id = `!admin-conformance-no-such-room:${server}`
  for (const sub of ['', '/members', '/state'])
    expectHsError(t, await hs('GET', roomPath(id, sub)), 404, 'M_NOT_FOUND', `GET ${PATH}${roomPath(id, sub)}`, 'Room not found')
})

check('rooms: errors of the list → 400 M_INVALID_PARAM in the real words', ['hs'], async (t) => {
  expectHsError(
    t,
    await hs('GET', '/rooms', { query: { search_term: '' } }),
    400,
    'M_INVALID_PARAM',
    listPath({ search_term: '' }),
    'search_term cannot be an empty string',
  )
  expectHsError(
    t,
    await hs('GET', '/rooms', { query: { order_by: 'bogus' } }),
    400,
    'M_INVALID_PARAM',
    listPath({ order_by: 'bogus' }),
    /^Query parameter 'order_by' must be one of \['alphabetical', 'size', 'name', /,
  )
})

// A negative from is refused before anything is listed (the generic integer parser since v1.106.0).
check('rooms: from=-1 → 400 M_INVALID_PARAM "Query parameter from must be a positive integer."', ['hs'], async (t) => {
  setRule(await hsFeatureRule('negative-integer-generic-message'))
  // (before it, the room list's negative from has no pinned answer)
  await requireSynapseFeature(t, 'negative-integer-generic-message')
  const queries: Record<string, string>[] = [{ from: '-1' }, { from: '-1', limit: '-1' }, { from: '-1', limit: '99999999999999999999' }]
  for (const query of queries)
    expectHsError(
      t,
      await hs('GET', '/rooms', { query }),
      400,
      'M_INVALID_PARAM',
      listPath(query),
      'Query parameter from must be a positive integer.',
    )
})

// Integers past 64 bits: a listing (nothing that far) or a 400, never a server error. The real homeserver
// on SQLite answers 500 (a known defect, lib/data/deviations.json).
check('rooms: from or limit beyond 64 bits → 200 or 400, never a 5xx', ['hs'], async (t) => {
  for (const name of ['from', 'limit']) {
    const res = await hs('GET', '/rooms', { query: { [name]: '99999999999999999999' } })
    const clear = res.status === 200 || res.status === 400
    await underDeviation(
      'room-listing-overflow-500',
      () =>
        void t.ok(clear, `GET ${listPath({ [name]: '99999999999999999999' })}: status 200 or 400`, {
          found: res.status,
          expected: 'status 200 or 400',
        }),
    )
    if (res.status === 400) expectSchema(t, 'homeserver/error', res.json, `${name}=99999999999999999999: error body`, res)
  }
})

const whoami = (): Promise<string | undefined> =>
  memo('hs-admin-whoami', async () => {
    const res = await hsClient('GET', '/account/whoami')
    return res.status === 200 ? (res.json as { user_id?: string } | undefined)?.user_id : undefined
  })

check(
  'users/{user}/admin: the admin token’s own user → {"admin": true} (a homeserver token); a remote user → 400',
  ['hs'],
  async (t) => {
    const me = await whoami()
    if (!me) skip('whoami did not answer for the admin token')
    const path = `/users/${encodeURIComponent(me)}/admin`
    const body = expectOk<{ admin: boolean }>(t, await hs('GET', path), `GET ${PATH}${path}`, { schema: 'homeserver/rooms#UserAdmin' })
    // A homeserver token reaches the admin API only when its user is a server admin. An auth-service
    // token (OAuth 2.0 `mat_`, compat `mct_`, personal `mpt_`: delegated) gets admin rights from its
    // scope or the user's admin flag there: the flag this route reads stays false for its user
    // (provisioning never sets it), so then only the shape is held.
    const delegated = /^(?:mat|mct|mpt)_/.test(target.hs?.adminToken ?? '')
    if (body && !delegated) t.equal(body.admin, true, 'the admin is a server admin')
    const remote = '/users/%40someone%3Aexample.invalid/admin'
    expectHsError(t, await hs('GET', remote), 400, 'M_UNKNOWN', `GET ${PATH}${remote}`, 'Only local users can be admins of this homeserver')
  },
  {
    rule: 'Synapse docs/admin_api/user_admin_api.md, Get whether a user is a server administrator or not (synapse/rest/admin/users.py UserAdminServlet)',
  },
)

check(
  'rooms: no token → 401 M_MISSING_TOKEN; a non-admin → 403 M_FORBIDDEN, on the list and users/{user}/admin',
  ['hs', 'hs-user'],
  async (t) => {
    expectHsError(t, await hs('GET', '/rooms', { as: 'none' }), 401, 'M_MISSING_TOKEN', `GET ${PATH}/rooms without a token`)
    expectHsError(
      t,
      await hs('GET', '/rooms', { as: 'user' }),
      403,
      'M_FORBIDDEN',
      `GET ${PATH}/rooms as a non-admin`,
      'You are not a server admin',
    )
    expectHsError(
      t,
      await hs('GET', '/users/%40someone%3Aexample.invalid/admin', { as: 'user' }),
      403,
      'M_FORBIDDEN',
      `GET ${PATH}/users/…/admin as a non-admin`,
      'You are not a server admin',
    )
  },
)
