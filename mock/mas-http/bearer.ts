// The bearer token of a request as the service's `headers` crate reads it, for the admin API's caller
// check and the auth service's own endpoints (compatibility logout, userinfo).

/** the scope that makes an access token an admin API token */
export const ADMIN_SCOPE = 'urn:mas:admin'

/** The Bearer token of the request, or why there is none. */
export function bearerToken(header: string | undefined): { token: string } | { error: 'missing' | 'invalid' } {
  if (header === undefined) return { error: 'missing' }
  // `headers`' Bearer: scheme matched case-insensitively, one space, a non-empty token of visible
  // ASCII, trailing whitespace ignored. (A character loop: this runs on every admin request.)
  if (header.length < 8 || header.charCodeAt(6) !== 32 || header.slice(0, 6).toLowerCase() !== 'bearer') return { error: 'invalid' }
  let end = header.length
  while (end > 7 && (header.charCodeAt(end - 1) === 32 || header.charCodeAt(end - 1) === 9)) end--
  for (let i = 7; i < end; i++) {
    const c = header.charCodeAt(i)
    if (c < 0x21 || c > 0x7e) return { error: 'invalid' }
  }
  return end > 7 ? { token: header.slice(7, end) } : { error: 'invalid' }
}
