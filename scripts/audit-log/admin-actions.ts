// The admin API's write operations as activities of their own: who finished, revoked or
// regenerated which session, set policy data, deleted which report… read from the method, path
// and requester of each line. The routes are the real auth service's admin API
// (shared/reference/mas-admin-api.md §1, §5) and the homeserver's event-report deletion.
//
// Admin writes are rare and each is listed with its details (target, requester, time), so the
// WebAssembly scanner hands every non-GET line under an admin prefix back to the JavaScript side
// (wasm/assembly/constants.gen.ts carries ADMIN_PREFIXES); counts come out the same by construction.

/** Paths under these prefixes with a method other than GET are read in JavaScript. */
export const ADMIN_PREFIXES = ['/api/admin/', '/_synapse/admin/'] as const

const MAS = '/api/admin/v1'
const HS = '/_synapse/admin/v1'

/** One route: `{id}` marks the target segment. */
export const ADMIN_ACTIONS = [
  { activity: 'admin-compat-session-finish', method: 'POST', route: `${MAS}/compat-sessions/{id}/finish` },
  { activity: 'admin-oauth2-session-finish', method: 'POST', route: `${MAS}/oauth2-sessions/{id}/finish` },
  { activity: 'admin-user-session-finish', method: 'POST', route: `${MAS}/user-sessions/{id}/finish` },
  { activity: 'admin-personal-session-create', method: 'POST', route: `${MAS}/personal-sessions` },
  { activity: 'admin-personal-session-revoke', method: 'POST', route: `${MAS}/personal-sessions/{id}/revoke` },
  { activity: 'admin-personal-session-regenerate', method: 'POST', route: `${MAS}/personal-sessions/{id}/regenerate` },
  { activity: 'admin-policy-data-set', method: 'POST', route: `${MAS}/policy-data` },
  { activity: 'admin-user-create', method: 'POST', route: `${MAS}/users` },
  { activity: 'admin-user-lock', method: 'POST', route: `${MAS}/users/{id}/lock` },
  { activity: 'admin-user-unlock', method: 'POST', route: `${MAS}/users/{id}/unlock` },
  { activity: 'admin-user-deactivate', method: 'POST', route: `${MAS}/users/{id}/deactivate` },
  { activity: 'admin-user-reactivate', method: 'POST', route: `${MAS}/users/{id}/reactivate` },
  { activity: 'admin-user-set-admin', method: 'POST', route: `${MAS}/users/{id}/set-admin` },
  { activity: 'admin-user-set-password', method: 'POST', route: `${MAS}/users/{id}/set-password` },
  { activity: 'admin-user-email-add', method: 'POST', route: `${MAS}/user-emails` },
  { activity: 'admin-user-email-delete', method: 'DELETE', route: `${MAS}/user-emails/{id}` },
  { activity: 'admin-registration-token-add', method: 'POST', route: `${MAS}/user-registration-tokens` },
  { activity: 'admin-registration-token-revoke', method: 'POST', route: `${MAS}/user-registration-tokens/{id}/revoke` },
  { activity: 'admin-registration-token-unrevoke', method: 'POST', route: `${MAS}/user-registration-tokens/{id}/unrevoke` },
  { activity: 'admin-registration-token-update', method: 'PUT', route: `${MAS}/user-registration-tokens/{id}` },
  { activity: 'admin-upstream-link-add', method: 'POST', route: `${MAS}/upstream-oauth-links` },
  { activity: 'admin-upstream-link-delete', method: 'DELETE', route: `${MAS}/upstream-oauth-links/{id}` },
  { activity: 'admin-event-report-delete', method: 'DELETE', route: `${HS}/event_reports/{id}` },
] as const

/** Is this request one the WebAssembly scanner leaves to JavaScript (see the top of this file)? */
export function isAdminWrite(method: string, path: string): boolean {
  if (method === 'GET') return false
  const c = path.charCodeAt(1)
  return (c === 97 /* a */ && path.startsWith(ADMIN_PREFIXES[0])) || (c === 95 /* _ */ && path.startsWith(ADMIN_PREFIXES[1]))
}

interface CompiledRoute {
  method: string
  /** The literal segments, '' where the target is. */
  segments: string[]
  targetAt: number
}

const COMPILED: CompiledRoute[] = ADMIN_ACTIONS.map((a) => {
  const segments = a.route.split('/').slice(1)
  const targetAt = segments.indexOf('{id}')
  return { method: a.method, segments: segments.map((s) => (s === '{id}' ? '' : s)), targetAt }
})

/** The admin action of a request, as its index in ADMIN_ACTIONS, or -1. */
export function adminActionIndex(method: string, path: string): number {
  if (!isAdminWrite(method, path)) return -1
  const segs = path.split('/').slice(1)
  // A trailing slash is another path to the service's router: no match.
  for (let i = 0; i < COMPILED.length; i++) {
    const r = COMPILED[i]!
    if (r.method !== method || r.segments.length !== segs.length) continue
    let ok = true
    for (let k = 0; k < segs.length && ok; k++) ok = k === r.targetAt ? segs[k]!.length > 0 : segs[k] === r.segments[k]
    if (ok) return i
  }
  return -1
}

/** The target id of a request matched by adminActionIndex (undefined for a route without one, such as a create). */
export function adminTarget(index: number, path: string): string | undefined {
  const r = COMPILED[index]!
  if (r.targetAt < 0) return undefined
  const seg = path.split('/')[r.targetAt + 1]!
  try {
    return decodeURIComponent(seg)
  } catch {
    return seg
  }
}
