// POST /_matrix/client/(r0|v3|unstable)/rooms/{roomId}/report/{eventId}: any authenticated user
// files a report against an event they can see. Checks in the real servlet's order: auth, JSON
// object body, reason, score, then the event, as the claimed release does it: before v1.78.0 the
// event is not looked up at all (a report on an unknown event or room is stored); v1.78.0 and
// v1.79.0 answer 404 for an unknown event and 403 for one the reporter cannot see; since v1.80.0
// both are 404.
import { hsError, type Ctx, type Reply, type Route } from '../../core/context.ts'
import type { Authenticator } from '../framework/auth.ts'
import { isJsonInteger, parseJsonObject } from '../framework/parse.ts'
import { hsHas } from '../framework/version.ts'

const NOT_FOUND = "Unable to report event: it does not exist or you aren't able to see it."

async function report(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.authenticate(ctx)
  if (!who.ok) return who.reply
  const parsed = parseJsonObject(ctx.body)
  if (!parsed.ok) return parsed.reply
  const { value: body, text } = parsed.value
  if ('reason' in body && typeof body.reason !== 'string') return hsError(400, 'M_BAD_JSON', "Param 'reason' must be a string")
  // Python `type(score) is int`: true, 1.0 and "1" all fail; the raw text tells 1 from 1.0.
  if ('score' in body && !isJsonInteger(text, 'score') && !ctx.faults.has('client-report-score-string-accepted')) {
    return hsError(400, 'M_BAD_JSON', "Param 'score' must be an integer")
  }
  const roomId = ctx.params.roomId ?? ''
  const eventId = ctx.params.eventId ?? ''
  const store = ctx.world.hs
  const event = store.events.get(eventId)
  const room = store.rooms.get(roomId)
  if (hsHas(ctx.options, 'report-unknown-event-404')) {
    if (!event || !room || event.roomId !== roomId) return hsError(404, 'M_NOT_FOUND', NOT_FOUND)
    // Not a member of the room: the event is there but hidden from this user.
    if (!room.members.has(who.user.userId)) {
      if (hsHas(ctx.options, 'report-event-not-visible-404')) return hsError(404, 'M_NOT_FOUND', NOT_FOUND)
      return hsError(403, 'M_FORBIDDEN', "You don't have permission to access that event.")
    }
  }
  store.addReport({ roomId, eventId, userId: who.user.userId, content: body, receivedTs: ctx.now().getTime() })
  ctx.log.queries += 2
  return { status: 200, body: {} }
}

export function clientReportRoutes(clientBase: string, auth: Authenticator): Route[] {
  // Empty ids reach the handler (the real pattern is `[^/]*`) and get the 404.
  return ['r0', 'v3', 'unstable'].map((v) => ({
    method: 'POST',
    pattern: `${clientBase}/${v}/rooms/:roomId?/report/:eventId?`,
    area: 'hs' as const,
    handler: (ctx: Ctx) => report(ctx, auth),
  }))
}
