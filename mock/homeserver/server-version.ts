// GET /_synapse/admin/v1/server_version: no authentication at all, exactly one key since v1.94.0.
import type { Route } from '../core/context.ts'
import type { MockOptions } from '../core/options.ts'

export function serverVersionRoutes(adminBase: string, options: MockOptions): Route[] {
  return [
    {
      method: 'GET',
      pattern: `${adminBase}/server_version`,
      area: 'hs',
      handler: (ctx) => {
        const body: Record<string, string> = { server_version: options.hsVersion }
        if (ctx.faults.has('server-version-extra-key')) body.python_version = '3.12.3'
        return { status: 200, body }
      },
    },
  ]
}
