// GET /_synapse/admin/v1/background_updates/status and GET/POST .../enabled (admin only).
// The running update is faked through the control API (POST/DELETE /_mock/background-updates).
import { hsError, type Route } from '../core/context.ts'
import type { Authenticator } from './framework/auth.ts'
import { parseJsonObject } from './framework/parse.ts'

export function backgroundUpdateRoutes(adminBase: string, auth: Authenticator): Route[] {
  const area = 'hs' as const
  return [
    {
      method: 'GET',
      pattern: `${adminBase}/background_updates/status`,
      area,
      handler: async (ctx) => {
        const who = await auth.requireAdmin(ctx)
        if (!who.ok) return who.reply
        const { enabled, current } = ctx.world.backgroundUpdates
        // One entry per database that is running an update now; none running: {}.
        const currentUpdates: Record<string, unknown> = {}
        if (!ctx.faults.has('background-updates-hidden')) {
          for (const u of current) {
            currentUpdates[u.database] = {
              name: u.name,
              total_item_count: u.total_item_count,
              total_duration_ms: u.total_duration_ms,
              average_items_per_ms: u.average_items_per_ms,
            }
          }
        }
        return { status: 200, body: { enabled, current_updates: currentUpdates } }
      },
    },
    {
      method: 'GET',
      pattern: `${adminBase}/background_updates/enabled`,
      area,
      handler: async (ctx) => {
        const who = await auth.requireAdmin(ctx)
        if (!who.ok) return who.reply
        return { status: 200, body: { enabled: ctx.world.backgroundUpdates.enabled } }
      },
    },
    {
      method: 'POST',
      pattern: `${adminBase}/background_updates/enabled`,
      area,
      handler: async (ctx) => {
        const who = await auth.requireAdmin(ctx)
        if (!who.ok) return who.reply
        const parsed = parseJsonObject(ctx.body)
        if (!parsed.ok) return parsed.reply
        const enabled = parsed.value.value.enabled ?? true
        if (typeof enabled !== 'boolean') return hsError(400, 'M_UNKNOWN', "'enabled' parameter must be a boolean")
        // Like the real server, pausing is not persisted: a reset of the world forgets it.
        ctx.world.backgroundUpdates.enabled = enabled
        return { status: 200, body: { enabled } }
      },
    },
  ]
}
