// GET /api/admin/v1/version: `{version}`, the configured version string, admin token required.
import type { Ctx, Reply } from '../core/context.ts'
import { masGate, type RouteEntry } from '../core/table.ts'
import { authenticate } from './framework/auth.ts'

export function getVersion(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  return { status: 200, body: { version: ctx.options.masVersion } }
}

/** this family's row of the admin route table */
export const VERSION_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/version',
    handler: getVersion,
    ...masGate('version-endpoint'),
    doc: {
      operationId: 'version',
      tag: 'server',
      summary: 'Get the running version',
      security: 'mas-admin',
      responses: { '200': { description: 'The version (a plain object).', ref: 'admin/version#Version' } },
    },
  },
]
