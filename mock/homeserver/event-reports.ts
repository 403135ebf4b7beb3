// GET /_synapse/admin/v1/event_reports, GET and DELETE /_synapse/admin/v1/event_reports/<report_id>:
// the real servlets' order of checks (auth, then each parameter in turn), messages and arithmetic, as
// the release the mock claims has them (DELETE is gated in routes.ts: v1.79.0).
import { hsError, type Ctx, type Reply, type Route } from '../core/context.ts'
import type { EventReport, HomeserverStore } from '../store/homeserver/index.ts'
import type { Authenticator } from './framework/auth.ts'
import { MAX_SQL_INTEGER, beyondSql, parseInteger, parseString, pythonBigInt } from './framework/parse.ts'
import { eventJsonShape, hsHas } from './framework/version.ts'
import { hasDeviation } from '../../lib/deviations.ts'

const DIRECTIONS = ['b', 'f'] as const
const BAD_ID = 'The report_id parameter must be a string representing a positive integer.'

function listItem(ctx: Ctx, store: HomeserverStore, r: EventReport): Record<string, unknown> {
  const item: Record<string, unknown> = { ...store.item(r) }
  if (item.score === null && ctx.faults.has('reports-null-score-as-zero')) item.score = 0
  if (ctx.faults.has('reports-extra-key')) item.content = r.content
  return item
}

const BAD_DIR_ENUM = "Query parameter 'dir' must be one of ['b', 'f']"
const badDirLegacy = (v: string) => `Unknown direction: ${v}`

/**
 * The servlet's checks in its release's order. Before v1.106.0 the parser lets negative numbers
 * through and the servlet rejects them after every parameter is parsed; before v1.77.0 `dir` is a
 * plain string, checked last; before v1.122.0 `event_sender_user_id` is not read at all.
 */
async function list(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.requireAdmin(ctx)
  if (!who.ok) return who.reply
  const q = ctx.query
  const o = ctx.options
  const signAtParse = hsHas(o, 'negative-integer-generic-message')
  const quoted = !hsHas(o, 'integer-message-unquoted-name')
  const enumDir = hsHas(o, 'dir-error-enum-message')
  const negativeLimit = ctx.faults.has('reports-negative-limit-accepted')
  const from = parseInteger(q, 'from', 0, { negative: !signAtParse, quoted })
  if (!from.ok) return from.reply
  const limitParsed = parseInteger(q, 'limit', 100, { negative: !signAtParse || negativeLimit, quoted })
  if (!limitParsed.ok) return limitParsed.reply
  const dir = parseString(q, 'dir', enumDir ? DIRECTIONS : undefined)
  if (!dir.ok) {
    const body = dir.reply.body as { errcode: string }
    if (body.errcode === 'M_INVALID_PARAM' && ctx.faults.has('reports-dir-message'))
      return hsError(400, 'M_INVALID_PARAM', badDirLegacy(q.get('dir') ?? ''))
    return dir.reply
  }
  const userId = parseString(q, 'user_id')
  if (!userId.ok) return userId.reply
  const roomId = parseString(q, 'room_id')
  if (!roomId.ok) return roomId.reply
  const sender = hsHas(o, 'event-sender-filter') ? parseString(q, 'event_sender_user_id') : { ok: true as const, value: undefined }
  if (!sender.ok) return sender.reply
  if (!signAtParse) {
    if (from.value < 0) return hsError(400, 'M_INVALID_PARAM', 'The start parameter must be a positive integer.')
    if (limitParsed.value < 0 && !negativeLimit) return hsError(400, 'M_INVALID_PARAM', 'The limit parameter must be a positive integer.')
  }
  if (!enumDir && dir.value !== undefined && !(DIRECTIONS as readonly string[]).includes(dir.value)) {
    // The fault answers the other release's text: a message other than the real one at every version.
    return hsError(400, 'M_INVALID_PARAM', ctx.faults.has('reports-dir-message') ? BAD_DIR_ENUM : badDirLegacy(dir.value))
  }
  const limit = limitParsed.value < 0 ? 100 : limitParsed.value
  // The real homeserver binds from and limit to LIMIT ? OFFSET ? and overflows past 64 bits: a known
  // defect of the claimed release (lib/data/deviations.json), reproduced unless --no-deviations.
  if (beyondSql(q.get('from')) || beyondSql(q.get('limit'))) {
    const defect = o.deviations !== false && hasDeviation(o.hsVersion, 'event-report-listing-overflow-500')
    if (defect || ctx.faults.has('reports-listing-overflow-500')) return hsError(500, 'M_UNKNOWN', 'Internal server error')
  }

  const store = ctx.world.hs
  // Empty filters are ignored, as the real server tests them for truthiness.
  const page = store.listReports({
    from: from.value,
    limit,
    dir: ctx.faults.has('reports-dir-ignored') ? 'b' : ((dir.value as 'b' | 'f' | undefined) ?? 'b'),
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

/**
 * `int(report_id)` and the sign check of the detail servlet. An id beyond 64 bits fails inside the
 * real server's query (500 on SQLite, recorded on 1.67.0); the mock answers what the interface
 * promises for an id no report has, 404, rather than copy a crash (see the probe test's exceptions).
 */
function reportId(ctx: Ctx): { id: number } | { reply: Reply } {
  const id = pythonBigInt(ctx.params.report_id ?? '', 'str')
  if (id === null || id < 0n) {
    if (id === null && ctx.faults.has('reports-invalid-id-404')) return { reply: notFound(ctx) }
    return { reply: hsError(400, 'M_INVALID_PARAM', BAD_ID) }
  }
  if (id > MAX_SQL_INTEGER) {
    // The real homeserver binds the id as an SQLite INTEGER and overflows: a known defect of the claimed
    // release (lib/data/deviations.json), reproduced unless --no-deviations.
    const defect = ctx.options.deviations !== false && hasDeviation(ctx.options.hsVersion, 'event-report-id-overflow-500')
    if (defect || ctx.faults.has('reports-oversized-id-500')) return { reply: hsError(500, 'M_UNKNOWN', 'Internal server error') }
    return { reply: notFound(ctx) }
  }
  return { id: Number(id) }
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
  if (!ctx.faults.has('reports-missing-event-json')) body.event_json = store.eventJson(found.event, eventJsonShape(ctx.options))
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
