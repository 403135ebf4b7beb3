// A user's global account data (synapse/rest/client/account_data.py AccountDataServlet, read in
// Debian's matrix-synapse 1.160.0): what the moderation bots keep their report-polling position in.
// GET and PUT {client}/v3|r0/user/{userId}/account_data/{type}: the token first, then the user must be
// the requester (403 in the real words), then PUT refuses the two types with their own APIs (405) and
// a body that is not a JSON object; GET of a type never set is 404 M_NOT_FOUND, which Draupnir reads as
// "no position yet". Writes are recorded (the state journal) like every other write.
import { hsError, type Ctx, type Reply, type Route } from '../../core/context.ts'
import type { Authenticator } from '../framework/auth.ts'
import { parseJsonObject } from '../framework/parse.ts'

export const ACCOUNT_DATA_ERRORS = {
  notFound: 'Account data not found',
  getOther: 'Cannot get account data for other users.',
  putOther: 'Cannot add account data for other users.',
} as const

/** The types a client may not set here (_check_can_set_account_data_type). */
const RESERVED: Record<string, string> = {
  'm.fully_read': 'Cannot set m.fully_read through this API. Use /rooms/!roomId:server.name/read_markers',
  'm.push_rules': 'Cannot set m.push_rules through this API. Use /pushrules',
}

async function get(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.authenticate(ctx)
  if (!who.ok) return who.reply
  const userId = ctx.params.userId ?? ''
  if (userId !== who.user.userId) return hsError(403, 'M_FORBIDDEN', ACCOUNT_DATA_ERRORS.getOther)
  ctx.log.queries += 1
  const content = ctx.world.hs.getAccountData(userId, ctx.params.type ?? '')
  if (!content)
    return ctx.faults.has('account-data-unset-empty')
      ? { status: 200, body: {} }
      : hsError(404, 'M_NOT_FOUND', ACCOUNT_DATA_ERRORS.notFound)
  return { status: 200, body: content }
}

async function put(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.authenticate(ctx)
  if (!who.ok) return who.reply
  const userId = ctx.params.userId ?? ''
  if (userId !== who.user.userId) return hsError(403, 'M_FORBIDDEN', ACCOUNT_DATA_ERRORS.putOther)
  const type = ctx.params.type ?? ''
  const reserved = RESERVED[type]
  if (reserved) return hsError(405, 'M_BAD_JSON', reserved)
  const parsed = parseJsonObject(ctx.body)
  if (!parsed.ok) return parsed.reply
  ctx.log.queries += 1
  if (!ctx.faults.has('account-data-put-dropped')) ctx.world.hs.setAccountData(userId, type, parsed.value.value)
  return { status: 200, body: {} }
}

// `:userId?` and `:type?` also match an empty segment, as the real `[^/]*` does.
export function accountDataRoutes(clientBase: string, auth: Authenticator): Route[] {
  const area = 'hs' as const
  return ['r0', 'v3'].flatMap((v) => {
    const pattern = `${clientBase}/${v}/user/:userId?/account_data/:type?`
    return [
      { method: 'GET', pattern, area, handler: (ctx: Ctx) => get(ctx, auth) },
      { method: 'PUT', pattern, area, handler: (ctx: Ctx) => put(ctx, auth) },
    ]
  })
}
