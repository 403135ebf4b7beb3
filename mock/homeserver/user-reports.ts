// GET /_synapse/admin/v1/user_reports, GET and DELETE /_synapse/admin/v1/user_reports/<report_id>
// (since v1.152.0, gated in routes.ts): the real servlets' order of checks (auth, then from, limit,
// dir, user_id, target_user_id), their messages and arithmetic. The API came after v1.106.0, so the
// generic integer parser already rejects negative numbers (the servlet's own sign checks never fire).
import { hsError, type Ctx, type Reply, type Route } from '../core/context.ts'
import type { UserReport } from '../store/homeserver/index.ts'
import type { Authenticator } from './framework/auth.ts'
import { MAX_SQL_INTEGER, beyondSql, parseInteger, parseString, pythonBigInt } from './framework/parse.ts'
import { hasDeviation } from '../../lib/deviations.ts'

const DIRECTIONS = ['b', 'f'] as const
const BAD_ID = 'The report_id parameter must be a string representing a positive integer.'
const NOT_FOUND = 'User report not found'

/** The five columns, in the real response's key order. */
function serialise(ctx: Ctx, r: UserReport): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: r.id,
    received_ts: ctx.faults.has('user-reports-received-ts-seconds') ? Math.floor(r.receivedTs / 1000) : r.receivedTs,
    target_user_id: r.targetUserId,
    user_id: r.userId,
    reason: r.reason,
  }
  if (ctx.faults.has('user-reports-extra-key')) item.event_id = null
  return item
}

async function requireAdmin(ctx: Ctx, auth: Authenticator): Promise<Reply | undefined> {
  if (ctx.faults.has('user-reports-non-admin-allowed')) {
    const who = await auth.authenticate(ctx)
    return who.ok ? undefined : who.reply
  }
  const who = await auth.requireAdmin(ctx)
  return who.ok ? undefined : who.reply
}

async function list(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const denied = await requireAdmin(ctx, auth)
  if (denied) return denied
  const q = ctx.query
  const negativeLimit = ctx.faults.has('user-reports-negative-limit-accepted')
  const from = parseInteger(q, 'from', 0)
  if (!from.ok) return from.reply
  const limitParsed = parseInteger(q, 'limit', 100, { negative: negativeLimit })
  if (!limitParsed.ok) return limitParsed.reply
  const dir = parseString(q, 'dir', DIRECTIONS)
  if (!dir.ok) return dir.reply
  const userId = parseString(q, 'user_id')
  if (!userId.ok) return userId.reply
  const targetUserId = parseString(q, 'target_user_id')
  if (!targetUserId.ok) return targetUserId.reply
  const limit = limitParsed.value < 0 ? 100 : limitParsed.value
  // As the event-report listing: from and limit bound to LIMIT ? OFFSET ? overflow past 64 bits on the
  // real homeserver, a known defect (lib/data/deviations.json) reproduced unless --no-deviations.
  if (beyondSql(q.get('from')) || beyondSql(q.get('limit'))) {
    const defect = ctx.options.deviations !== false && hasDeviation(ctx.options.hsVersion, 'user-report-listing-overflow-500')
    if (defect || ctx.faults.has('reports-listing-overflow-500')) return hsError(500, 'M_UNKNOWN', 'Internal server error')
  }

  const store = ctx.world.hs
  // Empty filters are ignored: the real server tests them for truthiness.
  const target = targetUserId.value || undefined
  const page = store.listUserReports({
    from: from.value,
    limit,
    dir: ctx.faults.has('user-reports-dir-ignored') ? 'b' : ((dir.value as 'b' | 'f' | undefined) ?? 'b'),
    userId: ctx.faults.has('user-reports-user-filter-on-target') ? undefined : userId.value || undefined,
    targetUserId: ctx.faults.has('user-reports-user-filter-on-target') ? userId.value || target : target,
  })
  let reports = page.reports
  if (ctx.faults.has('user-reports-target-filter-exact') && target) reports = reports.filter((r) => r.targetUserId === target)
  ctx.log.queries += 2 // the count and the page, as the real server runs them
  ctx.log.fetched += reports.length + page.scanned
  const total = ctx.faults.has('user-reports-total-ignores-filters') ? store.userReportCount() : page.total
  const body: Record<string, unknown> = { user_reports: reports.map((r) => serialise(ctx, r)), total }
  if (from.value + limit < total || ctx.faults.has('user-reports-next-token-on-last-page')) {
    body.next_token = from.value + reports.length + (ctx.faults.has('user-reports-next-token-off-by-one') ? 1 : 0)
  }
  return { status: 200, body }
}

/**
 * `int(report_id)` and the sign check. An id beyond 64 bits fails inside the real server's query (500
 * on SQLite, seen on 1.160.0): a known defect (lib/data/deviations.json), reproduced unless --no-deviations.
 */
function reportId(ctx: Ctx): { id: number } | { reply: Reply } {
  const id = pythonBigInt(ctx.params.report_id ?? '', 'str')
  if (id === null || id < 0n) return { reply: hsError(400, 'M_INVALID_PARAM', BAD_ID) }
  if (id > MAX_SQL_INTEGER) {
    const defect = ctx.options.deviations !== false && hasDeviation(ctx.options.hsVersion, 'user-report-id-overflow-500')
    if (defect || ctx.faults.has('user-reports-oversized-id-500')) return { reply: hsError(500, 'M_UNKNOWN', 'Internal server error') }
    return { reply: notFound(ctx) }
  }
  return { id: Number(id) }
}

function notFound(ctx: Ctx): Reply {
  // The fault: the event-report servlet's text copied over.
  return hsError(404, 'M_NOT_FOUND', ctx.faults.has('user-reports-not-found-message') ? 'Event report not found' : NOT_FOUND)
}

async function get(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const denied = await requireAdmin(ctx, auth)
  if (denied) return denied
  const parsed = reportId(ctx)
  if ('reply' in parsed) return parsed.reply
  ctx.log.queries += 1
  const found = ctx.world.hs.getUserReport(parsed.id)
  if (!found) return notFound(ctx)
  ctx.log.fetched += 1
  const body = serialise(ctx, found)
  if (ctx.faults.has('user-reports-single-users-swapped')) [body.user_id, body.target_user_id] = [body.target_user_id, body.user_id]
  return { status: 200, body }
}

async function remove(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const denied = await requireAdmin(ctx, auth)
  if (denied) return denied
  const parsed = reportId(ctx)
  if ('reply' in parsed) return parsed.reply
  // Any request body is ignored.
  const store = ctx.world.hs
  ctx.log.queries += 1
  const deleted = ctx.faults.has('user-reports-delete-keeps-report')
    ? store.getUserReport(parsed.id) !== undefined
    : store.deleteUserReport(parsed.id)
  if (!deleted) return notFound(ctx)
  return { status: 200, body: {} }
}

export function userReportRoutes(adminBase: string, auth: Authenticator): Route[] {
  const area = 'hs' as const
  return [
    { method: 'GET', pattern: `${adminBase}/user_reports`, area, handler: (ctx) => list(ctx, auth) },
    // `:report_id?` also matches the empty id (`/user_reports/`), which gets the 400 like the real `[^/]*`.
    { method: 'GET', pattern: `${adminBase}/user_reports/:report_id?`, area, handler: (ctx) => get(ctx, auth) },
    { method: 'DELETE', pattern: `${adminBase}/user_reports/:report_id?`, area, handler: (ctx) => remove(ctx, auth) },
  ]
}
