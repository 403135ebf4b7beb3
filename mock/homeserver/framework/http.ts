// The homeserver's habits at the HTTP level that change with the release it claims, as hooks over the
// core's Synapse defaults (mock/core/cors.ts: every OPTIONS a 204, Synapse's fixed CORS lists,
// Cache-Control on JSON):
// - unrouted requests: before v1.78.0 every request no servlet takes (an unknown path, a method the
//   path lacks, DELETE of a report before v1.79.0) answers 400 M_UNRECOGNIZED, before any
//   authentication; since then 404 for an unknown path and 405 for a known path (no Allow header);
// - Access-Control-Expose-Headers: none before v1.80.0, Synapse-Trace-Id since, and Server since v1.88.0;
// - Server: Synapse/<the claimed version> on every answer.
import type { IncomingHttpHeaders } from 'node:http'
import type { Reply } from '../../core/context.ts'
import type { MockOptions } from '../../core/options.ts'
import { synapseHooks } from '../../core/cors.ts'
import type { AreaHooks, Unrouted } from '../../core/table.ts'
import { hsHas } from './version.ts'

const UNRECOGNIZED = { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' }

export function unrouted(u: Unrouted): Reply {
  if (u.method === 'OPTIONS') return { status: 204 }
  if (!hsHas(u.options, 'unrouted-404-405')) return { status: 400, body: UNRECOGNIZED }
  return { status: u.allowed.length > 0 ? 405 : 404, body: UNRECOGNIZED }
}

function exposed(options: MockOptions): string | undefined {
  if (hsHas(options, 'cors-expose-server')) return 'Synapse-Trace-Id, Server'
  if (hsHas(options, 'cors-expose-trace-id')) return 'Synapse-Trace-Id'
  return undefined
}

export function cors(method: string, headers: IncomingHttpHeaders, options: MockOptions): Record<string, string> {
  const base = synapseHooks.cors!(method, headers, options)
  const expose = exposed(options)
  return expose ? { ...base, 'access-control-expose-headers': expose } : base
}

export function headers(method: string, reply: Reply, options: MockOptions): Record<string, string> {
  return { ...synapseHooks.headers?.(method, reply, options), server: `Synapse/${options.hsVersion}` }
}

export const homeserverHooks: AreaHooks = { unrouted, cors, headers }
