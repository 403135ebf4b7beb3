// The answers the core gives itself, in each area's envelope: routing misses (unless an API's
// `unrouted` hook answers them), crashes, oversized requests.
import type { Area, Reply } from './context.ts'
import type { Unrouted } from './table.ts'

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
      return { status: 404, body: '<!DOCTYPE html><html><head><title>Page not found</title></head><body><h1>Page not found</h1></body></html>', contentType: 'text/html; charset=utf-8' }
  }
}

export function methodNotAllowed(area: Area, allowed: string[]): Reply {
  const headers = { allow: allowed.join(', ') }
  if (area === 'hs') return { status: 405, body: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' }, headers }
  return { status: 405, headers } // axum: empty body
}

export function internalError(area: Area): Reply {
  if (area === 'hs') return { status: 500, body: { errcode: 'M_UNKNOWN', error: 'Internal server error' } }
  if (area === 'control') return { status: 500, body: { error: 'internal error in the mock' } }
  return { status: 500, body: { errors: [{ title: 'Internal server error' }] } }
}

export function tooLarge(area: Area): Reply {
  if (area === 'hs') return { status: 413, body: { errcode: 'M_TOO_LARGE', error: 'Request body too large' } }
  if (area === 'control') return { status: 413, body: { error: 'request body too large' } }
  return { status: 413, body: 'Failed to buffer the request body: length limit exceeded', contentType: TEXT }
}

export function uriTooLong(area: Area): Reply {
  if (area === 'hs') return { status: 414, body: { errcode: 'M_UNKNOWN', error: 'URI too long' } }
  return { status: 414, body: 'URI Too Long', contentType: TEXT }
}
