// GET /api/admin/v1/version: `{version}`, the configured version string, admin token required.
import type { Ctx, Reply } from '../core/context.ts'
import { authenticate } from './framework/auth.ts'

export function getVersion(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  return { status: 200, body: { version: ctx.options.masVersion } }
}
