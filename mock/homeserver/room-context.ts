// GET /_synapse/admin/v1/rooms/<room_id>/context/<event_id>: the events around a reported event, the call
// every report consumer makes before it acts on a report (the moderation bots fetch `?limit=1`). As the
// real servlet (synapse/rest/admin/rooms.py RoomEventContextServlet, since v1.28.0) checks: the admin, then
// `limit` (parse_integer, default 10), then `filter` (a JSON object); limit is split as the room context
// handler splits it: floor(limit / 2) events before, the rest after. Events are in the client format.
import { hsError, type Ctx, type Reply, type Route } from '../core/context.ts'
import type { HomeserverStore, HsEvent } from '../store/homeserver/index.ts'
import type { Authenticator } from './framework/auth.ts'
import { parseInteger } from './framework/parse.ts'
import { eventJsonShape, hsHas } from './framework/version.ts'

export const CONTEXT_ERRORS = {
  eventNotFound: 'Event not found.',
  /** an event asked for in another room than its own: the real handler's lookup of its position fails with this row error */
  roomNotFound: 'No row found (events)',
  filterNotJson: 'Query parameter filter must be a valid JSON object',
} as const

/** An event as the client API serialises it (and the admin context API, with the legacy `user_id`). */
export function clientEvent(ev: HsEvent, now: number, content: Record<string, unknown> = ev.content): Record<string, unknown> {
  const age = Math.max(0, now - ev.originServerTs)
  const out: Record<string, unknown> = {
    age,
    content,
    event_id: ev.eventId,
    origin_server_ts: ev.originServerTs,
    room_id: ev.roomId,
    sender: ev.sender,
  }
  if (ev.stateKey !== undefined) out.state_key = ev.stateKey
  out.type = ev.type
  out.unsigned = { age }
  out.user_id = ev.sender
  return out
}

interface EventFilter {
  types?: string[]
  not_types?: string[]
  senders?: string[]
  not_senders?: string[]
}

/** A type pattern of the filter API: `*` matches any run of characters. */
function typeMatches(pattern: string, type: string): boolean {
  if (!pattern.includes('*')) return pattern === type
  return new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(type)
}

/** The room-event fields of a filter that decide which events are listed; the others do not narrow here. */
function keepFor(f: EventFilter): (ev: HsEvent) => boolean {
  const list = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined)
  const types = list(f.types)
  const notTypes = list(f.not_types) ?? []
  const senders = list(f.senders)
  const notSenders = list(f.not_senders) ?? []
  return (ev) =>
    (types === undefined || types.some((p) => typeMatches(p, ev.type))) &&
    !notTypes.some((p) => typeMatches(p, ev.type)) &&
    (senders === undefined || senders.includes(ev.sender)) &&
    !notSenders.includes(ev.sender)
}

/** A stream token in the real shape (`t<topological>-<stream>_…`); opaque to every client. */
const token = (depth: number) => `t${depth}-${depth}_0_0_0_0_0_0_0_0_0`

async function context(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const o = ctx.options
  const limit = parseInteger(ctx.query, 'limit', 10, {
    negative: !hsHas(o, 'negative-integer-generic-message'),
    quoted: !hsHas(o, 'integer-message-unquoted-name'),
  })
  if (!limit.ok) return limit.reply
  let filter: EventFilter = {}
  const rawFilter = ctx.query.get('filter')
  // Present, even empty, the value is decoded (an empty one fails); a decoded value Python holds false
  // (null, 0, "", [], {}) is no filter.
  if (rawFilter !== null) {
    let parsed: unknown
    let decoded = true
    try {
      parsed = JSON.parse(rawFilter)
    } catch {
      decoded = false
    }
    const falsy = parsed === null || parsed === false || parsed === 0 || parsed === '' || (Array.isArray(parsed) && parsed.length === 0)
    if (decoded && falsy) parsed = {}
    if (!decoded || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      // Before v1.106.0 the decode error was not caught: the real server answered 500.
      if (!hsHas(o, 'query-json-not-json')) return hsError(500, 'M_UNKNOWN', 'Internal server error')
      return hsError(400, 'M_NOT_JSON', CONTEXT_ERRORS.filterNotJson)
    }
    filter = parsed as EventFilter
  }
  const store: HomeserverStore = ctx.world.hs
  const roomId = ctx.params.roomId ?? ''
  const eventId = ctx.params.eventId ?? ''
  ctx.log.queries += 2
  // The real handler fetches the event first ("Event not found."), then its position in the room asked
  // for, whose lookup fails with a row error when the event is in another room.
  const known = store.events.get(eventId)
  if (!known) return hsError(404, 'M_NOT_FOUND', CONTEXT_ERRORS.eventNotFound)
  if (known.roomId !== roomId) return hsError(404, 'M_UNKNOWN', CONTEXT_ERRORS.roomNotFound)
  // A negative limit (accepted before v1.106.0) asks for nothing on either side.
  const n = Math.max(0, limit.value)
  const before = Math.floor(n / 2)
  const after = ctx.faults.has('context-ignores-limit') ? n + 10 : n - before
  const found = store.eventContext(roomId, eventId, before, after, keepFor(filter))
  if (!found) return hsError(404, 'M_NOT_FOUND', CONTEXT_ERRORS.eventNotFound)
  const now = Date.now()
  const shape = eventJsonShape(o)
  const client = (e: HsEvent) => clientEvent(e, now, store.contentAs(e, shape))
  const event = ctx.faults.has('context-wrong-event') ? (found.after[0] ?? found.before[0] ?? found.event) : found.event
  ctx.log.fetched += 1 + found.before.length + found.after.length
  return {
    status: 200,
    body: {
      events_before: found.before.map(client),
      event: client(event),
      events_after: found.after.map(client),
      state: ctx.faults.has('context-no-state') ? [] : found.state.map(client),
      start: token(found.startDepth),
      end: token(found.endDepth),
    },
  }
}

// `:roomId?` and `:eventId?` also match an empty segment, as the real `[^/]*` does.
export function roomContextRoutes(adminBase: string, auth: Authenticator): Route[] {
  return [{ method: 'GET', pattern: `${adminBase}/rooms/:roomId?/context/:eventId?`, area: 'hs', handler: (ctx) => context(ctx, auth) }]
}
