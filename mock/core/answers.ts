// The answers the core gives itself, in each area's envelope: routing misses (unless an API's
// `unrouted` hook answers them), crashes, oversized requests.
import type { Area, Reply } from './context.ts'
import type { Unrouted } from './table.ts'
import { MOCK_CONTROL_HEADER } from '../../lib/target.ts'

const TEXT = 'text/plain; charset=utf-8'

/** Default for an area whose API has no `unrouted` hook: 404 for an unknown path, 405 for a method the path lacks. */
export function unroutedDefault(u: Unrouted): Reply {
  return u.allowed.length > 0 ? methodNotAllowed(u.area, u.allowed) : notFound(u.area)
}

export function notFound(area: Area): Reply {
  switch (area) {
    case 'hs':
      return { status: 404, body: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' } }
    case 'control':
      return { status: 404, body: { error: 'unknown control endpoint' } }
    default:
      // The auth service answers unknown paths with its HTML error page.
      return {
        status: 404,
        body: '<!DOCTYPE html><html><head><title>Page not found</title></head><body><h1>Page not found</h1></body></html>',
        contentType: 'text/html; charset=utf-8',
      }
  }
}

export function methodNotAllowed(area: Area, allowed: string[]): Reply {
  const headers = { allow: allowed.join(', ') }
  if (area === 'hs') return { status: 405, body: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' }, headers }
  if (area === 'control') return { status: 405, body: { error: `method not allowed; this path takes ${headers.allow}` }, headers }
  return { status: 405, headers } // axum: empty body
}

export function internalError(area: Area): Reply {
  if (area === 'hs') return { status: 500, body: { errcode: 'M_UNKNOWN', error: 'Internal server error' } }
  if (area === 'control') return { status: 500, body: { error: 'internal error in the mock' } }
  return { status: 500, body: { errors: [{ title: 'Internal server error' }] } }
}

/** 413 for a body over `limit` bytes; the homeserver's text is Synapse's (synapse/http/site.py, 1.160). */
export function tooLarge(area: Area, limit: number): Reply {
  if (area === 'hs') return { status: 413, body: { errcode: 'M_TOO_LARGE', error: `Request content is too large (>${limit})` } }
  if (area === 'control') return { status: 413, body: { error: `request body too large (more than ${limit} bytes)` } }
  return { status: 413, body: 'Failed to buffer the request body: length limit exceeded', contentType: TEXT }
}

export function uriTooLong(area: Area): Reply {
  if (area === 'hs') return { status: 414, body: { errcode: 'M_UNKNOWN', error: 'URI too long' } }
  return { status: 414, body: 'URI Too Long', contentType: TEXT }
}

/** 421: the Host header names another site (core/host.ts). */
export function misdirected(area: Area): Reply {
  const error = 'this mock does not serve the host named in the Host header; start it with --allowed-host NAME to serve another name'
  const headers = { connection: 'close' }
  if (area === 'hs') return { status: 421, body: { errcode: 'M_UNKNOWN', error }, headers }
  if (area === 'control') return { status: 421, body: { error }, headers }
  if (area === 'mas') return { status: 421, body: { errors: [{ title: error }] }, headers }
  return { status: 421, body: error, contentType: TEXT, headers }
}

/** 403: a control request a web page could send without a preflight. */
export function notPreflighted(): Reply {
  return {
    status: 403,
    body: {
      error:
        `control requests need the header '${MOCK_CONTROL_HEADER}: 1' or a JSON body (content-type: application/json): ` +
        'a browser then asks before sending them (CORS preflight), so a web page cannot drive the mock',
    },
  }
}
