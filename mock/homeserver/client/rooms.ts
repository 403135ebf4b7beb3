// The slice of the client API that fixtures need to file reports through public APIs:
// versions, whoami, createRoom, join and send (idempotent per transaction id).
import { randomBytes } from 'node:crypto'
import { hsError, type Ctx, type Reply, type Route } from '../../core/context.ts'
import type { JoinRule } from '../../store/homeserver/index.ts'
import type { Authenticator } from '../framework/auth.ts'
import { parseJsonObject } from '../framework/parse.ts'

const VERSIONS = {
  versions: [
    'r0.0.1',
    'r0.1.0',
    'r0.2.0',
    'r0.3.0',
    'r0.4.0',
    'r0.5.0',
    'r0.6.0',
    'r0.6.1',
    'v1.1',
    'v1.2',
    'v1.3',
    'v1.4',
    'v1.5',
    'v1.6',
    'v1.7',
    'v1.8',
    'v1.9',
    'v1.10',
    'v1.11',
    'v1.12',
  ],
  unstable_features: {
    'org.matrix.label_based_filtering': true,
    'org.matrix.e2e_cross_signing': true,
    'org.matrix.msc2432': true,
    'uk.half-shot.msc2666.query_mutual_rooms': false,
    'io.element.e2ee_forced.public': false,
    'io.element.e2ee_forced.private': false,
    'io.element.e2ee_forced.trusted_private': false,
    'org.matrix.msc3026.busy_presence': false,
    'org.matrix.msc2285.stable': true,
    'org.matrix.msc3827.stable': true,
    'org.matrix.msc3881': false,
    'org.matrix.msc3882': false,
    'org.matrix.msc3912': false,
    'org.matrix.msc3981': true,
    'org.matrix.msc3391': false,
    'org.matrix.msc4069': false,
    'org.matrix.msc4028': false,
    'org.matrix.msc4108': false,
    'org.matrix.msc4140': false,
    'org.matrix.simplified_msc3575': false,
    'org.matrix.msc4151': true,
    'org.matrix.msc4155': false,
    'org.matrix.msc4306': false,
  },
}

const ROOM_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

function newRoomId(serverName: string): string {
  const bytes = randomBytes(18)
  let s = '!'
  for (const b of bytes) s += ROOM_LETTERS[b % ROOM_LETTERS.length]
  return `${s}:${serverName}`
}

async function createRoom(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.authenticate(ctx)
  if (!who.ok) return who.reply
  const parsed = parseJsonObject(ctx.body)
  if (!parsed.ok) return parsed.reply
  const body = parsed.value.value
  const store = ctx.world.hs
  if (body.name !== undefined && typeof body.name !== 'string') return hsError(400, 'M_BAD_JSON', "Param 'name' must be a string")
  let alias: string | null = null
  if (body.room_alias_name !== undefined) {
    if (typeof body.room_alias_name !== 'string') return hsError(400, 'M_BAD_JSON', "Param 'room_alias_name' must be a string")
    const local = body.room_alias_name
    if (local.includes(':')) {
      return hsError(
        400,
        'M_UNKNOWN',
        "':' is not permitted in the room alias name. Please note this expects a local part — 'wombat', not '#wombat:example.com'.",
      )
    }
    if (local === '' || /[\s#]/.test(local)) return hsError(400, 'M_INVALID_PARAM', 'Invalid characters in room alias')
    alias = `#${local}:${store.serverName}`
    if (store.aliases.has(alias)) return hsError(400, 'M_ROOM_IN_USE', 'Room alias already taken')
  }
  // Default join rule follows the preset, and the preset the visibility, as in the spec.
  const preset = typeof body.preset === 'string' ? body.preset : body.visibility === 'public' ? 'public_chat' : 'private_chat'
  const joinRule: JoinRule = preset === 'public_chat' ? 'public' : 'invite'
  const room = store.createRoom(newRoomId(store.serverName), who.user.userId, {
    name: typeof body.name === 'string' && body.name !== '' ? body.name : null,
    alias,
    joinRule,
    ts: ctx.now().getTime(),
  })
  ctx.log.queries += 6
  return { status: 200, body: alias ? { room_id: room.roomId, room_alias: alias } : { room_id: room.roomId } }
}

async function join(ctx: Ctx, auth: Authenticator, target: string): Promise<Reply> {
  const who = await auth.authenticate(ctx)
  if (!who.ok) return who.reply
  if (ctx.body.length > 0) {
    const parsed = parseJsonObject(ctx.body)
    if (!parsed.ok) return parsed.reply
  }
  const store = ctx.world.hs
  let roomId = target
  if (target.startsWith('#')) {
    const found = store.aliases.get(target)
    if (!found) return hsError(404, 'M_NOT_FOUND', `Room alias ${target} not found`)
    roomId = found
  } else if (!target.startsWith('!')) {
    return hsError(400, 'M_UNKNOWN', `${target} was not legal room ID or room alias`)
  }
  const room = store.rooms.get(roomId)
  if (!room) return hsError(404, 'M_UNKNOWN', "Can't join remote room because no servers that are in the room have been provided.")
  if (!room.members.has(who.user.userId) && room.joinRule !== 'public') {
    return hsError(403, 'M_FORBIDDEN', 'You are not invited to this room.')
  }
  store.join(room, who.user.userId, ctx.now().getTime())
  ctx.log.queries += 3
  return { status: 200, body: { room_id: roomId } }
}

async function send(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.authenticate(ctx)
  if (!who.ok) return who.reply
  const parsed = parseJsonObject(ctx.body)
  if (!parsed.ok) return parsed.reply
  const store = ctx.world.hs
  const roomId = ctx.params.roomId!
  const type = ctx.params.eventType!
  const key = `${who.user.userId}|${who.deviceId ?? ''}|${roomId}|${type}|${ctx.params.txnId!}`
  const seen = store.txns.get(key)
  if (seen) return { status: 200, body: { event_id: seen } }
  const room = store.rooms.get(roomId)
  if (!room || !room.members.has(who.user.userId)) return hsError(403, 'M_FORBIDDEN', `User ${who.user.userId} not in room ${roomId}`)
  const ev = store.appendEvent(room, who.user.userId, type, parsed.value.value, ctx.now().getTime())
  store.txns.set(key, ev.eventId)
  ctx.log.queries += 3
  return { status: 200, body: { event_id: ev.eventId } }
}

export function clientRoutes(clientBase: string, auth: Authenticator): Route[] {
  const area = 'hs' as const
  const routes: Route[] = [{ method: 'GET', pattern: `${clientBase}/versions`, area, handler: () => ({ status: 200, body: VERSIONS }) }]
  for (const v of ['r0', 'v3']) {
    const base = `${clientBase}/${v}`
    routes.push(
      {
        method: 'GET',
        pattern: `${base}/account/whoami`,
        area,
        handler: async (ctx) => {
          const who = await auth.authenticate(ctx)
          if (!who.ok) return who.reply
          const body: Record<string, unknown> = { user_id: who.user.userId, is_guest: false }
          if (who.deviceId) body.device_id = who.deviceId
          return { status: 200, body }
        },
      },
      { method: 'POST', pattern: `${base}/createRoom`, area, handler: (ctx) => createRoom(ctx, auth) },
      { method: 'POST', pattern: `${base}/rooms/:roomId/join`, area, handler: (ctx) => join(ctx, auth, ctx.params.roomId!) },
      { method: 'POST', pattern: `${base}/join/:target`, area, handler: (ctx) => join(ctx, auth, ctx.params.target!) },
      { method: 'PUT', pattern: `${base}/rooms/:roomId/send/:eventType/:txnId`, area, handler: (ctx) => send(ctx, auth) },
    )
  }
  return routes
}
