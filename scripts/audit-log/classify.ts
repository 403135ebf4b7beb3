// Classification of one request (method, path, status, requester seen) into an activity and its
// outcome, by the table in activities.ts. The WebAssembly scanner's classify() (wasm/assembly/classify.ts)
// is the same function over bytes; test/scripts/audit-log/wasm/module.test.ts checks they agree.

import type { ResponseLine } from '../../lib/requestlog.ts'
import {
  A_ADMIN_FIRST,
  A_AUTHORIZE,
  A_CLIENT_LOGIN,
  A_CLIENT_LOGOUT,
  A_INTROSPECT,
  A_LOGIN,
  A_LOGIN_FAILED,
  A_LOGOUT,
  A_OTHER,
  A_REGISTRATION,
  A_REVOKE,
  A_SELF_SERVICE,
  A_TOKEN,
  A_UPSTREAM,
  ACTIVITIES,
  code,
  PATHS,
  type ActivityName,
  type Outcome,
} from './activities.ts'
import { adminActionIndex, isAdminWrite } from './admin-actions.ts'

export interface Classification {
  activity: ActivityName
  outcome: Outcome
}

export interface ClassifyOptions {
  /** Prefix of the client-facing API (the interface's `_compat`), default `/_matrix`. */
  clientPrefix?: string
}

export const DEFAULT_CLIENT_PREFIX = '/_matrix'

export function normalizePrefix(p: string): string {
  let out = p.trim()
  while (out.endsWith('/')) out = out.slice(0, -1)
  if (out !== '' && !out.startsWith('/')) out = '/' + out
  return out
}

/** Is `path` `<prefix>/client/<one segment>/<tail>`? */
function isClientPath(path: string, prefix: string, tail: string): boolean {
  // The caller checked that path starts with `<prefix>/client/`.
  const from = prefix.length + PATHS.client.length
  const to = path.length - tail.length
  if (to <= from || !path.endsWith(tail)) return false
  const slash = path.indexOf('/', from)
  return slash === to
}

export function classify(line: ResponseLine, opts?: ClassifyOptions): Classification {
  // Without fields (pre-v1.20) there is no way to see the requester: do not hold it against the line.
  const hasRequester = line.format !== 'v1.20' || line.requester !== undefined
  const c = classifyCode(line.method, line.path, line.status, hasRequester, normalizePrefix(opts?.clientPrefix ?? DEFAULT_CLIENT_PREFIX))
  return { activity: ACTIVITIES[c >> 1]!, outcome: (c & 1) === 1 ? 'ok' : 'failed' }
}

/** activity * 2 + (ok ? 1 : 0) */
export function classifyCode(method: string, path: string, status: number, hasRequester: boolean, prefix: string): number {
  if (method === 'POST') {
    switch (path) {
      case PATHS.login:
        if (status === 200) return code(A_LOGIN_FAILED, false)
        return code(A_LOGIN, status === 303 && hasRequester)
      case PATHS.logout:
        return code(A_LOGOUT, status === 303)
      case PATHS.token:
        return code(A_TOKEN, status === 200)
      case PATHS.revoke:
        return code(A_REVOKE, status === 200)
      case PATHS.introspect:
        return code(A_INTROSPECT, status === 200)
      case PATHS.authorize:
        return code(A_AUTHORIZE, status === 303)
      case PATHS.graphql:
        return code(A_SELF_SERVICE, status === 200)
    }
    // Length and one character first: each startsWith on a slice of a big block of text costs a
    // call into the runtime, and most paths fail the cheap test.
    if (path.length > 15 && path.charCodeAt(1) === 117 /* u */ && path.startsWith(PATHS.upstreamLink)) {
      return code(A_UPSTREAM, status === 303 && hasRequester)
    }
    if (
      path.length > prefix.length + 8 &&
      path.charCodeAt(prefix.length + 1) === 99 /* c */ &&
      path.startsWith(prefix) &&
      path.startsWith(PATHS.client, prefix.length)
    ) {
      if (isClientPath(path, prefix, PATHS.clientLogin)) return code(A_CLIENT_LOGIN, status === 200 && hasRequester)
      if (isClientPath(path, prefix, PATHS.clientLogout) || isClientPath(path, prefix, PATHS.clientLogoutAll)) {
        return code(A_CLIENT_LOGOUT, status === 200)
      }
    }
  } else if (method === 'GET') {
    if (path === PATHS.authorize) return code(A_AUTHORIZE, status === 303)
    if (
      path.length > 23 &&
      path.charCodeAt(1) === 114 /* r */ &&
      path.startsWith(PATHS.registerSteps) &&
      path.endsWith(PATHS.registerFinish)
    ) {
      return code(A_REGISTRATION, status === 303)
    }
    return code(A_OTHER, status < 400)
  }
  if (isAdminWrite(method, path)) {
    const a = adminActionIndex(method, path)
    if (a >= 0) return code(A_ADMIN_FIRST + a, status >= 200 && status < 300)
  }
  return code(A_OTHER, status < 400)
}
