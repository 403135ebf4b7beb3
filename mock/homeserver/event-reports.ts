// GET /_synapse/admin/v1/event_reports, GET and DELETE /_synapse/admin/v1/event_reports/<report_id>:
// the real servlets' order of checks (auth, then each parameter in turn), messages and arithmetic.
import { hsError, type Ctx, type Reply, type Route } from '../core/context.ts'
import type { EventReport, HomeserverStore } from '../store/homeserver.ts'
import type { Authenticator } from './framework/auth.ts'
import { parseInteger, parseString, pythonInt } from './framework/parse.ts'

const DIRECTIONS = ['b', 'f'] as const
const BAD_ID = 'The report_id parameter must be a string representing a positive integer.'

function listItem(ctx: Ctx, store: HomeserverStore, r: EventReport): Record<string, unknown> {
  const item: Record<string, unknown> = { ...store.item(r) }
  if (item.score === null && ctx.faults.has('reports-null-score-as-zero')) item.score = 0
  if (ctx.faults.has('reports-extra-key')) item.content = r.content
  return item
}

async function list(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const q = ctx.query
  const from = parseInteger(q, 'from', 0)
  if (!from.ok) return from.reply
  const negativeLimit = ctx.faults.has('reports-negative-limit-accepted')
  const limitParsed = parseInteger(q, 'limit', 100, negativeLimit)
  if (!limitParsed.ok) return limitParsed.reply
  const limit = limitParsed.value < 0 ? 100 : limitParsed.value
  const dir = parseString(q, 'dir', DIRECTIONS)
  if (!dir.ok) {
    const body = dir.reply.body as { errcode: string }
    if (body.errcode === 'M_INVALID_PARAM' && ctx.faults.has('reports-dir-message')) return hsError(400, 'M_INVALID_PARAM', `Unknown direction: ${q.get('dir')}`)
    return dir.reply
  }
  const userId = parseString(q, 'user_id')
  if (!userId.ok) return userId.reply
  const roomId = parseString(q, 'room_id')
  if (!roomId.ok) return roomId.reply
  const sender = parseString(q, 'event_sender_user_id')
  if (!sender.ok) return sender.reply

  const store = ctx.world.hs
  // Empty filters are ignored, as the real server tests them for truthiness.
  const page = store.listReports({
    from: from.value,
    limit,
    dir: ctx.faults.has('reports-dir-ignored') ? 'b' : (dir.value as 'b' | 'f' | undefined) ?? 'b',
    userId: userId.value || undefined,
    userMode: ctx.faults.has('reports-user-filter-exact') ? 'exact' : 'substring',
    roomId: roomId.value || undefined,
    roomMode: ctx.faults.has('reports-room-filter-exact') ? 'exact' : 'substring',
    eventSenderUserId: ctx.faults.has('reports-sender-filter-ignored') ? undefined : sender.value || undefined,
  })
  ctx.log.queries += 2 // the count and the page, as the real server runs them
  ctx.log.fetched += page.reports.length + page.scanned
  const total = ctx.faults.has('reports-total-ignores-filters') ? store.reportCount() : page.total
  const body: Record<string, unknown> = { event_reports: page.reports.map((r) => listItem(ctx, store, r)), total }
  if (from.value + limit < total || ctx.faults.has('reports-next-token-on-last-page')) {
    body.next_token = from.value + page.reports.length + (ctx.faults.has('reports-next-token-off-by-one') ? 1 : 0)
  }
  return { status: 200, body }
}

/** `int(report_id)` and the sign check of the detail servlet. */
function reportId(ctx: Ctx): { id: number } | { reply: Reply } {
  const id = pythonInt(ctx.params.report_id ?? '', 'str')
  if (id === null || id < 0) {
    if (id === null && ctx.faults.has('reports-invalid-id-404')) return { reply: notFound(ctx) }
    return { reply: hsError(400, 'M_INVALID_PARAM', BAD_ID) }
  }
  return { id }
}

function notFound(ctx: Ctx): Reply {
  if (ctx.faults.has('reports-not-found-500')) return hsError(500, 'M_UNKNOWN', 'Internal server error')
  return hsError(404, 'M_NOT_FOUND', 'Event report not found')
}

async function get(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const parsed = reportId(ctx)
  if ('reply' in parsed) return parsed.reply
  const store = ctx.world.hs
  ctx.log.queries += 1
  const found = store.getReport(parsed.id)
  if (!found) return notFound(ctx)
  ctx.log.fetched += 1
  const body: Record<string, unknown> = { ...store.item(found.report) }
  if (body.score === null && ctx.faults.has('reports-null-score-as-zero')) body.score = 0
  if (!ctx.faults.has('reports-missing-event-json')) body.event_json = store.eventJson(found.event)
  return { status: 200, body }
}

async function remove(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const parsed = reportId(ctx)
  if ('reply' in parsed) return parsed.reply
  // Any request body is ignored: admin UIs send the record they show.
  const store = ctx.world.hs
  ctx.log.queries += 1
  const deleted = ctx.faults.has('reports-delete-keeps-report') ? store.getReport(parsed.id) !== undefined : store.deleteReport(parsed.id)
  if (!deleted) return notFound(ctx)
  return { status: 200, body: {} }
}

export function eventReportRoutes(adminBase: string, auth: Authenticator): Route[] {
  const area = 'hs' as const
  return [
    { method: 'GET', pattern: `${adminBase}/event_reports`, area, handler: (ctx) => list(ctx, auth) },
    // `:report_id?` also matches the empty id (`/event_reports/`), which gets the 400 like the real `[^/]*`.
    { method: 'GET', pattern: `${adminBase}/event_reports/:report_id?`, area, handler: (ctx) => get(ctx, auth) },
    { method: 'DELETE', pattern: `${adminBase}/event_reports/:report_id?`, area, handler: (ctx) => remove(ctx, auth) },
  ]
}
