// GET /_synapse/admin/v1/server_version: no authentication at all; before v1.94.0 it also names the
// Python it runs on, since then exactly one key.
import type { Route } from '../core/context.ts'
import type { MockOptions } from '../core/options.ts'
import { hsHas } from './framework/version.ts'

/** The Python of Debian bookworm, which a real 1.67.0 reports here. */
const PYTHON_VERSION = '3.11.2'

export function serverVersionRoutes(adminBase: string, options: MockOptions): Route[] {
  return [
    {
      method: 'GET',
      pattern: `${adminBase}/server_version`,
      area: 'hs',
      handler: (ctx) => {
        const body: Record<string, string> = { server_version: options.hsVersion }
        if (hsHas(options, 'server-version-python-version')) body.python_version = PYTHON_VERSION
        else if (ctx.faults.has('server-version-extra-key')) body.python_version = '3.12.3'
        return { status: 200, body }
      },
    },
  ]
}
