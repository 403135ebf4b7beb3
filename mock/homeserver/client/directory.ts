// Room alias resolution (synapse/rest/client/directory.py ClientDirectoryServer, read in Debian's
// matrix-synapse 1.160.0), no authentication: GET {client}/v3|r0/directory/room/{alias} answers
// {room_id, servers} with this server first; an alias that does not parse is 400 M_INVALID_PARAM
// "Room alias invalid", a local one not known 404 M_NOT_FOUND "Room alias <alias> not found". A remote
// alias would be asked over federation, which the mock does not speak: the real server's answer when
// the other server cannot be reached (502 "Failed to fetch alias").
import { hsError, type Ctx, type Reply, type Route } from '../../core/context.ts'

/** parse_and_validate_server_name: a DNS name, IPv4 or bracketed IPv6 literal, and an optional port. */
const SERVER_NAME = /^(\[[0-9A-Fa-f:.]+\]|[0-9A-Za-z.-]+)(:[0-9]{1,5})?$/

/** RoomAlias.is_valid: `#`, a localpart, `:`, a valid server name. */
export function isValidAlias(alias: string): boolean {
  if (!alias.startsWith('#')) return false
  const colon = alias.indexOf(':')
  return colon > 0 && SERVER_NAME.test(alias.slice(colon + 1))
}

function resolve(ctx: Ctx): Reply {
  const alias = ctx.params.alias ?? ''
  if (!isValidAlias(alias)) return hsError(400, 'M_INVALID_PARAM', 'Room alias invalid')
  const store = ctx.world.hs
  if (alias.slice(alias.indexOf(':') + 1) !== store.serverName) return hsError(502, 'M_UNKNOWN', 'Failed to fetch alias')
  ctx.log.queries += 1
  const roomId = store.aliases.get(alias)
  if (!roomId || ctx.faults.has('alias-unknown')) return hsError(404, 'M_NOT_FOUND', `Room alias ${alias} not found`)
  // The servers of the joined members, this one first.
  const room = store.rooms.get(roomId)
  const servers = new Set([store.serverName])
  for (const m of room?.members.keys() ?? []) servers.add(m.slice(m.indexOf(':') + 1))
  return { status: 200, body: { room_id: roomId, servers: [...servers] } }
}

// `:alias?` also matches an empty segment, as the real `[^/]*` does.
export function directoryRoutes(clientBase: string): Route[] {
  return ['r0', 'v3'].map((v) => ({
    method: 'GET',
    pattern: `${clientBase}/${v}/directory/room/:alias?`,
    area: 'hs' as const,
    handler: resolve,
  }))
}
