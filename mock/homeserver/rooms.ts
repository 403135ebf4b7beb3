// The rooms admin API as admin UIs call it (synapse/rest/admin/rooms.py and users.py, read in Debian's
// matrix-synapse 1.160.0): the room list (ListRoomRestServlet: from, limit, order_by, dir, search_term;
// offset pagination with the real total_rooms, next_batch and prev_batch), one room (RoomRestServlet),
// its joined members and its current state, and whether a user is a server admin (UserAdminServlet).
// Every servlet checks the admin first, then its parameters in the real order.
// Ordering follows the SQL of get_rooms_paginate: the column, then room_id, both in one direction;
// strings compare by code unit (SQLite's BINARY collation, which the recorded probes ran on) and NULL
// sorts as the smallest value, as SQLite does.
import { hasDeviation } from '../../lib/deviations.ts'
import { hsError, type Ctx, type Reply, type Route } from '../core/context.ts'
import type { HomeserverStore, HsEvent, HsRoom } from '../store/homeserver/index.ts'
import type { Authenticator } from './framework/auth.ts'
import { beyondSql, parseInteger, parseString } from './framework/parse.ts'
import { eventJsonShape, hsHas } from './framework/version.ts'
import { clientEvent } from './room-context.ts'

export const ROOM_ERRORS = {
  roomNotFound: 'Room not found',
  searchEmpty: 'search_term cannot be an empty string',
  notLocal: 'Only local users can be admins of this homeserver',
} as const

/** RoomSortOrder: each value with its column and whether ascending is its forward direction. */
export const ORDER_BY = {
  alphabetical: ['name', true],
  size: ['joined_members', false],
  name: ['name', true],
  canonical_alias: ['canonical_alias', true],
  joined_members: ['joined_members', false],
  joined_local_members: ['joined_local_members', false],
  version: ['version', false],
  creator: ['creator', true],
  encryption: ['encryption', true],
  federatable: ['federatable', true],
  public: ['public', true],
  join_rules: ['join_rules', true],
  guest_access: ['guest_access', true],
  history_visibility: ['history_visibility', true],
  state_events: ['state_events', false],
} as const satisfies Record<string, readonly [string, boolean]>

type Listed = Record<string, string | number | boolean | null>

/** The room's row of room_stats_state, room_stats_current and rooms, as the list shows it. */
export function roomStats(store: HomeserverStore, room: HsRoom, version: string): Listed & { avatar: string | null; topic: string | null } {
  const state = store.currentState(room.roomId)
  const content = (type: string): Record<string, unknown> | undefined => state.find((e) => e.type === type && e.stateKey === '')?.content
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
  const suffix = `:${store.serverName}`
  const members = [...room.members.keys()]
  return {
    room_id: room.roomId,
    name: str(content('m.room.name')?.name),
    canonical_alias: str(content('m.room.canonical_alias')?.alias),
    joined_members: members.length,
    joined_local_members: members.filter((m) => m.endsWith(suffix)).length,
    version,
    creator: room.creator,
    encryption: str(content('m.room.encryption')?.algorithm),
    federatable: content('m.room.create')?.['m.federate'] !== false,
    // The mock publishes no room to the directory.
    public: false,
    join_rules: str(content('m.room.join_rules')?.join_rule),
    guest_access: str(content('m.room.guest_access')?.guest_access),
    history_visibility: str(content('m.room.history_visibility')?.history_visibility),
    state_events: state.length,
    room_type: str(content('m.room.create')?.type),
    avatar: str(content('m.room.avatar')?.url),
    topic: str(content('m.room.topic')?.topic),
  }
}

/** SQL LIKE, case-insensitive for ASCII as SQLite's: `%` any run, `_` any one character. */
function like(pattern: string, text: string): boolean {
  const re = pattern
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/%/g, '.*')
    .replace(/_/g, '.')
  return new RegExp(`^${re}$`, 'is').test(text)
}

function compare(a: string | number | boolean | null, b: string | number | boolean | null): number {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  return a < b ? -1 : 1
}

const DIRECTIONS = ['b', 'f'] as const

async function list(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const o = ctx.options
  const q = ctx.query
  const rules = { negative: !hsHas(o, 'negative-integer-generic-message'), quoted: !hsHas(o, 'integer-message-unquoted-name') }
  const from = parseInteger(q, 'from', 0, ctx.faults.has('rooms-negative-from-accepted') ? { ...rules, negative: true } : rules)
  if (!from.ok) return from.reply
  const limit = parseInteger(q, 'limit', 100, rules)
  if (!limit.ok) return limit.reply
  const orderBy = parseString(q, 'order_by', Object.keys(ORDER_BY))
  if (!orderBy.ok) return orderBy.reply
  // parse_string with encoding utf-8: any text, but not an empty one.
  const search = q.get('search_term')
  if (search === '') return hsError(400, 'M_INVALID_PARAM', ROOM_ERRORS.searchEmpty)
  const dir = parseString(q, 'dir', hsHas(o, 'dir-error-enum-message') ? DIRECTIONS : undefined)
  if (!dir.ok) return dir.reply
  if (dir.value !== undefined && !(DIRECTIONS as readonly string[]).includes(dir.value))
    return hsError(400, 'M_INVALID_PARAM', `Unknown direction: ${dir.value}`)
  // Past 64 bits from and limit overflow when bound to LIMIT ? OFFSET ? (SQLite): a known defect of the
  // claimed release (lib/data/deviations.json), reproduced unless --no-deviations.
  if (beyondSql(q.get('from')) || beyondSql(q.get('limit'))) {
    const defect = o.deviations !== false && hasDeviation(o.hsVersion, 'room-listing-overflow-500')
    if (defect || ctx.faults.has('rooms-listing-overflow-500')) return hsError(500, 'M_UNKNOWN', 'Internal server error')
  }
  const store = ctx.world.hs
  const version = eventJsonShape(o).roomVersion
  // Rooms without a room_stats_state row are not listed (the query joins it).
  let rows = [...store.rooms.values()].filter((r) => r.stats).map((r) => roomStats(store, r, version))
  if (search !== null) {
    const term = search.toLowerCase()
    rows = rows.filter(
      (r) =>
        (r.name !== null && like(`%${term}%`, String(r.name))) ||
        (r.canonical_alias !== null && like(`#%${term}%:%`, String(r.canonical_alias))) ||
        r.room_id === search,
    )
  }
  const [column, forwardAsc] = ORDER_BY[(orderBy.value ?? 'name') as keyof typeof ORDER_BY]
  const asc = dir.value === 'b' && !ctx.faults.has('rooms-dir-ignored') ? !forwardAsc : forwardAsc
  rows.sort((a, b) => {
    const c = compare(a[column] ?? null, b[column] ?? null) || compare(a.room_id ?? null, b.room_id ?? null)
    return asc ? c : -c
  })
  ctx.log.queries += 2
  const total = rows.length
  const start = Math.max(0, from.value)
  // A negative limit (accepted before v1.106.0) is SQLite's LIMIT -1: no limit.
  const n = limit.value < 0 || (limit.value === 0 && ctx.faults.has('rooms-limit-zero-all')) ? total : limit.value
  const page = rows.slice(start, start + n).map(({ avatar: _a, topic: _t, ...r }) => {
    if (!hsHas(o, 'admin-room-type')) delete r.room_type
    return r
  })
  ctx.log.fetched += page.length
  const body: Record<string, unknown> = {
    offset: from.value,
    rooms: page,
    total_rooms: ctx.faults.has('rooms-total-is-page') ? page.length : total,
  }
  if (from.value + limit.value < total) body.next_batch = from.value + limit.value
  if (from.value > 0) body.prev_batch = from.value > limit.value ? from.value - limit.value : 0
  return { status: 200, body }
}

/** The room, or the real 404 (the servlets look the room up before anything else about it). */
function roomOf(ctx: Ctx): HsRoom | Reply {
  const room = ctx.world.hs.rooms.get(ctx.params.roomId ?? '')
  ctx.log.queries += 1
  return room ?? hsError(404, 'M_NOT_FOUND', ROOM_ERRORS.roomNotFound)
}
const isReply = (x: HsRoom | Reply): x is Reply => 'status' in x

async function details(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const room = roomOf(ctx)
  if (isReply(room)) {
    if (ctx.faults.has('room-unknown-200')) return { status: 200, body: { room_id: ctx.params.roomId ?? '', name: null } }
    return room
  }
  const o = ctx.options
  const store = ctx.world.hs
  const s = roomStats(store, room, eventJsonShape(o).roomVersion)
  // attr.asdict of RoomStats: the fields of LargestRoomStats, then its own, then what the servlet adds.
  const body: Record<string, unknown> = {
    room_id: s.room_id,
    name: s.name,
    canonical_alias: s.canonical_alias,
    joined_members: s.joined_members,
    join_rules: s.join_rules,
    guest_access: s.guest_access,
    history_visibility: s.history_visibility,
    state_events: s.state_events,
    avatar: s.avatar,
    topic: s.topic,
    room_type: s.room_type,
    joined_local_members: s.joined_local_members,
    version: s.version,
    creator: s.creator,
    encryption: s.encryption,
    federatable: s.federatable,
    public: s.public,
  }
  if (!room.stats)
    for (const k of [
      'name',
      'canonical_alias',
      'join_rules',
      'guest_access',
      'history_visibility',
      'avatar',
      'topic',
      'room_type',
      'encryption',
    ])
      body[k] = null
  if (!hsHas(o, 'admin-room-type')) delete body.room_type
  const members = new Set(room.members.keys())
  const devices = new Set(
    store
      .allTokens()
      .filter(([, t]) => members.has(t.userId))
      .map(([, t]) => `${t.userId}\u0000${t.deviceId}`),
  )
  body.joined_local_devices = devices.size
  if (hsHas(o, 'admin-room-forgotten')) body.forgotten = false
  if (hsHas(o, 'admin-room-tombstone')) {
    const tomb = store.currentState(room.roomId).find((e) => e.type === 'm.room.tombstone' && e.stateKey === '')
    body.tombstoned = tomb !== undefined
    body.replacement_room = tomb?.content.replacement_room ?? null
  }
  return { status: 200, body }
}

async function members(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const room = roomOf(ctx)
  if (isReply(room)) return room
  const ids = [...room.members.keys()]
  return { status: 200, body: { members: ids, total: ctx.faults.has('room-members-total-off') ? ids.length + 1 : ids.length } }
}

async function state(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const room = roomOf(ctx)
  if (isReply(room)) return room
  const store = ctx.world.hs
  // `type` narrows to one event type (parse_string: ASCII only).
  const type = parseString(ctx.query, 'type')
  if (!type.ok) return type.reply
  let events: HsEvent[] = store.currentState(room.roomId)
  if (type.value) events = events.filter((e) => e.type === type.value)
  const now = Date.now()
  const shape = eventJsonShape(ctx.options)
  ctx.log.fetched += events.length
  return { status: 200, body: { state: events.map((e) => clientEvent(e, now, store.contentAs(e, shape))) } }
}

async function userAdmin(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const userId = ctx.params.userId ?? ''
  // UserID.from_string, then is_mine.
  if (!userId.startsWith('@')) return hsError(400, 'M_INVALID_PARAM', "Expected UserID string to start with '@'")
  const colon = userId.indexOf(':')
  if (colon < 0) return hsError(400, 'M_INVALID_PARAM', "Expected UserID of the form '@localname:domain'")
  const store = ctx.world.hs
  if (userId.slice(colon + 1) !== store.serverName) return hsError(400, 'M_UNKNOWN', ROOM_ERRORS.notLocal)
  ctx.log.queries += 1
  // An unknown local user is simply not an admin.
  const admin = store.users.get(userId)?.admin === true && !ctx.faults.has('user-admin-always-false')
  return { status: 200, body: { admin } }
}

// `:roomId?` and `:userId?` also match an empty segment, as the real `[^/]*` does.
export function roomRoutes(adminBase: string, auth: Authenticator): Route[] {
  const area = 'hs' as const
  return [
    { method: 'GET', pattern: `${adminBase}/rooms`, area, handler: (ctx) => list(ctx, auth) },
    { method: 'GET', pattern: `${adminBase}/rooms/:roomId?`, area, handler: (ctx) => details(ctx, auth) },
    { method: 'GET', pattern: `${adminBase}/rooms/:roomId?/members`, area, handler: (ctx) => members(ctx, auth) },
    { method: 'GET', pattern: `${adminBase}/rooms/:roomId?/state`, area, handler: (ctx) => state(ctx, auth) },
    { method: 'GET', pattern: `${adminBase}/users/:userId?/admin`, area, handler: (ctx) => userAdmin(ctx, auth) },
  ]
}
