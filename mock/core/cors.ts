// Cross-origin answers, per area. The auth service's paths serve frontend developers: the requested
// headers are reflected, a configured origin (--cors-origin, or the MOCK_CORS_ORIGIN environment
// variable) is echoed with credentials (cookie-authenticated routes such as /graphql then work from
// that origin), else `*` without credentials; preflights carry Max-Age. The control API answers CORS
// only to the configured origin: any other page gets no CORS headers, so its preflights fail.
// The homeserver's paths answer as Synapse does (synapse/http/server.py set_cors_headers,
// OptionsResource, respond_with_json): the same fixed set on every JSON answer and on every OPTIONS,
// preflight or not, which is a 204; JSON answers also carry Cache-Control: no-cache, no-store,
// must-revalidate. Those are the homeserver's default hooks here; mock/homeserver may refine them
// through its table's `hooks.hs`.
import type { IncomingHttpHeaders } from 'node:http'
import type { Reply } from './context.ts'
import type { MockOptions } from './options.ts'
import type { AreaHooks } from './table.ts'

const DEFAULT_HEADERS = 'Authorization, Content-Type, X-Requested-With'
const METHODS = 'GET, POST, PUT, DELETE, OPTIONS'
/** a day: browsers cap it lower anyway (Chromium 2 h, Firefox 24 h) */
export const PREFLIGHT_MAX_AGE = '86400'
/** header names and the separators of a list, and not too long: anything else is not reflected */
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/

export function isPreflight(method: string, headers: IncomingHttpHeaders): boolean {
  return method === 'OPTIONS' && headers['access-control-request-method'] !== undefined
}

/**
 * The CORS headers of a control answer: only for the origin given with --cors-origin (a frontend
 * developer's dev server); no other page may read or drive the control API.
 */
export function controlCors(method: string, headers: IncomingHttpHeaders, options: MockOptions): string[] {
  if (!options.corsOrigin || headers.origin !== options.corsOrigin) return []
  return serviceCors(method, headers, options)
}

/** The CORS headers of an auth-service answer, as a flat [name, value, ...] list. */
export function serviceCors(method: string, headers: IncomingHttpHeaders, options: MockOptions): string[] {
  const out: string[] = []
  if (options.corsOrigin)
    out.push('access-control-allow-origin', options.corsOrigin, 'access-control-allow-credentials', 'true', 'vary', 'Origin')
  else out.push('access-control-allow-origin', '*')
  out.push('access-control-allow-methods', METHODS)
  const requested = headers['access-control-request-headers']
  const reflect = typeof requested === 'string' && requested.length <= 2048 && HEADER_LIST.test(requested.trim())
  out.push('access-control-allow-headers', reflect ? requested.trim() : DEFAULT_HEADERS)
  if (isPreflight(method, headers)) {
    out.push('access-control-max-age', PREFLIGHT_MAX_AGE)
    out.push('vary', 'Access-Control-Request-Headers')
  }
  return out
}

const SYNAPSE_CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE, OPTIONS',
  'access-control-allow-headers': 'X-Requested-With, Content-Type, Authorization, Date',
}

/** Synapse's habits on the homeserver's paths (see the top of this file). */
export const synapseHooks: AreaHooks = {
  options: () => ({ status: 204 }),
  cors: () => SYNAPSE_CORS,
  headers: (_method: string, reply: Reply) =>
    reply.body !== undefined && (reply.contentType === undefined || reply.contentType.startsWith('application/json'))
      ? { 'cache-control': 'no-cache, no-store, must-revalidate' }
      : undefined,
}
