// The homeserver's habits at the HTTP level, as the core asks them through the area hooks:
// - unrouted requests: before v1.78.0 every request no servlet takes (an unknown path, a method the
//   path lacks, DELETE of a report before v1.79.0) answers 400 M_UNRECOGNIZED, before any
//   authentication; since then 404 for an unknown path and 405 for a known path (no Allow header);
// - OPTIONS: 204 on every path, routed or not, with or without a CORS preflight;
// - headers: the same CORS headers on every JSON answer and OPTIONS (Expose-Headers by release),
//   Cache-Control that forbids caching on every JSON answer, and Server naming the release.
import type { Reply } from '../../core/context.ts'
import type { MockOptions } from '../../core/options.ts'
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

/** JSON: a body the core serialises itself (no content type of its own) or one declared as JSON. */
function isJson(reply: Reply): boolean {
  if (reply.body === undefined) return false
  return reply.contentType === undefined || reply.contentType.startsWith('application/json')
}

export function headers(method: string, reply: Reply, options: MockOptions): Record<string, string> {
  const out: Record<string, string> = { server: `Synapse/${options.hsVersion}` }
  const json = isJson(reply)
  if (json || method === 'OPTIONS') {
    out['access-control-allow-origin'] = '*'
    out['access-control-allow-methods'] = 'GET, HEAD, POST, PUT, DELETE, OPTIONS'
    out['access-control-allow-headers'] = 'X-Requested-With, Content-Type, Authorization, Date'
    const expose = exposed(options)
    if (expose) out['access-control-expose-headers'] = expose
  }
  if (json) out['cache-control'] = 'no-cache, no-store, must-revalidate'
  return out
}

export const homeserverHooks: AreaHooks = { unrouted, headers }
