// AssemblyScript (part of audit-scan.wasm, see audit-scan.ts). Classification of the line parse()
// read: classifyCode in scripts/audit-log/classify.ts over bytes (the tests check they agree).

import { at, is, lit, litLen } from './bytes'
import {
  A_AUTHORIZE, A_CLIENT_LOGIN, A_CLIENT_LOGOUT, A_INTROSPECT, A_LOGIN, A_LOGIN_FAILED, A_LOGOUT, A_OTHER, A_REGISTRATION,
  A_REVOKE, A_SELF_SERVICE, A_TOKEN, A_UPSTREAM,
  P_CLIENT, P_CLIENT_LOGIN, P_CLIENT_LOGOUT, P_LOGOUT_ALL,
  P_ADMIN_API_N, P_ADMIN_API_W0, P_ADMIN_API_W1, P_ADMIN_API_W2,
  P_ADMIN_HS_N, P_ADMIN_HS_W0, P_ADMIN_HS_W1, P_ADMIN_HS_W2,
  P_AUTHORIZE_N, P_AUTHORIZE_W0, P_AUTHORIZE_W1, P_AUTHORIZE_W2,
  P_FINISH_N, P_FINISH_W0, P_FINISH_W1, P_FINISH_W2,
  P_GRAPHQL_N, P_GRAPHQL_W0, P_GRAPHQL_W1, P_GRAPHQL_W2,
  P_INTROSPECT_N, P_INTROSPECT_W0, P_INTROSPECT_W1, P_INTROSPECT_W2,
  P_LOGIN_N, P_LOGIN_W0, P_LOGIN_W1, P_LOGIN_W2,
  P_LOGOUT_N, P_LOGOUT_W0, P_LOGOUT_W1, P_LOGOUT_W2,
  P_REGISTER_N, P_REGISTER_W0, P_REGISTER_W1, P_REGISTER_W2,
  P_REVOKE_N, P_REVOKE_W0, P_REVOKE_W1, P_REVOKE_W2,
  P_TOKEN_N, P_TOKEN_W0, P_TOKEN_W1, P_TOKEN_W2,
  P_UPSTREAM_N, P_UPSTREAM_W0, P_UPSTREAM_W1, P_UPSTREAM_W2,
} from './constants.gen'
import { method, pathLen, pathStart, status } from './parse'

// Paths classified are compared as immediates (`is`, `pathIs`), but for the client API's, which
// clientPath() takes from memory (a rare path: POSTs under the client prefix).
const L_CLIENT_PATH = lit(P_CLIENT)
const L_CLIENT_LOGIN = lit(P_CLIENT_LOGIN)
const L_CLIENT_LOGOUT = lit(P_CLIENT_LOGOUT)
const L_LOGOUT_ALL = lit(P_LOGOUT_ALL)
// Admin writes are left to JavaScript (scripts/audit-log/admin-actions.ts says why): adminWrite().

// The client API prefix (written by the caller, see reservePrefix in audit-scan.ts).
let prefix: usize = 0
let prefixLen: i32 = 0

/** Room for a prefix of n bytes; its address. */
export function allocPrefix(n: u32): usize {
  prefix = heap.alloc(<usize>n + 1)
  return prefix
}

export function setPrefixLength(n: i32): void {
  prefixLen = n
}

// ---------------------------------------------------------------------------------------------
// Classification (classifyCode in scripts/audit-log/index.ts)

@inline export function code(activity: i32, ok: bool): i32 {
  return activity * 2 + (ok ? 1 : 0)
}

/** Is the path exactly the literal of `is` (n bytes, words w0..w2)? */
@inline export function pathIs(n: i32, w0: u64, w1: u64, w2: u64): bool {
  return pathLen == <u32>n && is(pathStart, n, w0, w1, w2)
}

/** Is the path `<prefix>/client/<one segment><tail>`? (The caller checked `<prefix>/client/`.) */
export function clientPath(tail: usize): bool {
  const from = <u32>prefixLen + litLen(L_CLIENT_PATH)
  const tl = litLen(tail)
  if (pathLen < tl) return false
  const to = pathLen - tl
  if (to <= from || !at(pathStart + to, tail)) return false
  let i = from
  while (i < pathLen && load<u8>(pathStart + i) != 0x2f) i++
  return i == to
}

@inline export function classify(hasRequester: bool): i32 {
  if (method == 2) {
    switch (pathLen) {
      case 6:
        if (pathIs(P_LOGIN_N, P_LOGIN_W0, P_LOGIN_W1, P_LOGIN_W2)) return status == 200 ? code(A_LOGIN_FAILED, false) : code(A_LOGIN, status == 303 && hasRequester)
        break
      case 7:
        if (pathIs(P_LOGOUT_N, P_LOGOUT_W0, P_LOGOUT_W1, P_LOGOUT_W2)) return code(A_LOGOUT, status == 303)
        break
      case 13:
        if (pathIs(P_TOKEN_N, P_TOKEN_W0, P_TOKEN_W1, P_TOKEN_W2)) return code(A_TOKEN, status == 200)
        break
      case 14:
        if (pathIs(P_REVOKE_N, P_REVOKE_W0, P_REVOKE_W1, P_REVOKE_W2)) return code(A_REVOKE, status == 200)
        break
      case 18:
        if (pathIs(P_INTROSPECT_N, P_INTROSPECT_W0, P_INTROSPECT_W1, P_INTROSPECT_W2)) return code(A_INTROSPECT, status == 200)
        break
      case 10:
        if (pathIs(P_AUTHORIZE_N, P_AUTHORIZE_W0, P_AUTHORIZE_W1, P_AUTHORIZE_W2)) return code(A_AUTHORIZE, status == 303)
        break
      case 8:
        if (pathIs(P_GRAPHQL_N, P_GRAPHQL_W0, P_GRAPHQL_W1, P_GRAPHQL_W2)) return code(A_SELF_SERVICE, status == 200)
        break
    }
    if (pathLen > 15 && is(pathStart, P_UPSTREAM_N, P_UPSTREAM_W0, P_UPSTREAM_W1, P_UPSTREAM_W2)) return code(A_UPSTREAM, status == 303 && hasRequester)
    const pl = <u32>prefixLen
    if (pathLen > pl + 8 && memory.compare(pathStart, prefix, pl) == 0 && at(pathStart + pl, L_CLIENT_PATH)) {
      if (clientPath(L_CLIENT_LOGIN)) return code(A_CLIENT_LOGIN, status == 200 && hasRequester)
      if (clientPath(L_CLIENT_LOGOUT) || clientPath(L_LOGOUT_ALL)) return code(A_CLIENT_LOGOUT, status == 200)
    }
  } else if (method == 1) {
    if (pathIs(P_AUTHORIZE_N, P_AUTHORIZE_W0, P_AUTHORIZE_W1, P_AUTHORIZE_W2)) return code(A_AUTHORIZE, status == 303)
    if (pathLen > 23 && is(pathStart, P_REGISTER_N, P_REGISTER_W0, P_REGISTER_W1, P_REGISTER_W2) && is(pathStart + pathLen - P_FINISH_N, P_FINISH_N, P_FINISH_W0, P_FINISH_W1, P_FINISH_W2)) return code(A_REGISTRATION, status == 303)
  }
  return code(A_OTHER, status < 400)
}

/** A method other than GET on a path under an admin prefix (isAdminWrite in scripts/audit-log/admin-actions.ts). */
@inline export function adminWrite(): bool {
  // Without branches: the method and the path change from line to line (the reads past a short
  // path stay in the line or the input's slack).
  const api = (pathLen >= <u32>P_ADMIN_API_N) & is(pathStart, P_ADMIN_API_N, P_ADMIN_API_W0, P_ADMIN_API_W1, P_ADMIN_API_W2)
  const hs = (pathLen >= <u32>P_ADMIN_HS_N) & is(pathStart, P_ADMIN_HS_N, P_ADMIN_HS_W0, P_ADMIN_HS_W1, P_ADMIN_HS_W2)
  return (method != 1) & (api | hs)
}

/** Counts the line at p when it is canonical (and not an admin write): its '\n' then, else 0. */
