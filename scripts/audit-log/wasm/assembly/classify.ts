// AssemblyScript (part of audit-scan.wasm, see audit-scan.ts). Classification of the line parse()
// read: classifyCode in scripts/audit-log/classify.ts over bytes (the tests check they agree).

import { at, lit, litLen, same } from './bytes'
import {
  A_AUTHORIZE, A_CLIENT_LOGIN, A_CLIENT_LOGOUT, A_INTROSPECT, A_LOGIN, A_LOGIN_FAILED, A_LOGOUT, A_OTHER, A_REGISTRATION,
  A_REVOKE, A_SELF_SERVICE, A_TOKEN, A_UPSTREAM,
  P_ADMIN_API, P_ADMIN_HS, P_AUTHORIZE, P_CLIENT, P_CLIENT_LOGIN, P_CLIENT_LOGOUT, P_FINISH, P_GRAPHQL, P_INTROSPECT, P_LOGIN,
  P_LOGOUT, P_LOGOUT_ALL, P_REGISTER, P_REVOKE, P_TOKEN, P_UPSTREAM,
} from './constants.gen'
import { method, pathLen, pathStart, status } from './parse'

// Paths classified
const L_LOGIN = lit(P_LOGIN)
const L_LOGOUT = lit(P_LOGOUT)
const L_TOKEN = lit(P_TOKEN)
const L_REVOKE_PATH = lit(P_REVOKE)
const L_INTROSPECT = lit(P_INTROSPECT)
const L_AUTHORIZE = lit(P_AUTHORIZE)
const L_GRAPHQL = lit(P_GRAPHQL)
const L_UPSTREAM = lit(P_UPSTREAM)
const L_CLIENT_PATH = lit(P_CLIENT)
const L_CLIENT_LOGIN = lit(P_CLIENT_LOGIN)
const L_CLIENT_LOGOUT = lit(P_CLIENT_LOGOUT)
const L_LOGOUT_ALL = lit(P_LOGOUT_ALL)
const L_REGISTER = lit(P_REGISTER)
const L_FINISH = lit(P_FINISH)
// Admin writes are left to JavaScript (scripts/audit-log/admin-actions.ts says why).
const L_ADMIN_API = lit(P_ADMIN_API)
const L_ADMIN_HS = lit(P_ADMIN_HS)

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
// Classification (classifyCode in scripts/audit-log/auditor.ts)

@inline export function code(activity: i32, ok: bool): i32 {
  return activity * 2 + (ok ? 1 : 0)
}

export function pathIs(l: usize): bool {
  return same(pathStart, pathLen, l)
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

export function classify(hasRequester: bool): i32 {
  if (method == 2) {
    switch (pathLen) {
      case 6:
        if (pathIs(L_LOGIN)) return status == 200 ? code(A_LOGIN_FAILED, false) : code(A_LOGIN, status == 303 && hasRequester)
        break
      case 7:
        if (pathIs(L_LOGOUT)) return code(A_LOGOUT, status == 303)
        break
      case 13:
        if (pathIs(L_TOKEN)) return code(A_TOKEN, status == 200)
        break
      case 14:
        if (pathIs(L_REVOKE_PATH)) return code(A_REVOKE, status == 200)
        break
      case 18:
        if (pathIs(L_INTROSPECT)) return code(A_INTROSPECT, status == 200)
        break
      case 10:
        if (pathIs(L_AUTHORIZE)) return code(A_AUTHORIZE, status == 303)
        break
      case 8:
        if (pathIs(L_GRAPHQL)) return code(A_SELF_SERVICE, status == 200)
        break
    }
    if (pathLen > 15 && at(pathStart, L_UPSTREAM)) return code(A_UPSTREAM, status == 303 && hasRequester)
    const pl = <u32>prefixLen
    if (pathLen > pl + 8 && memory.compare(pathStart, prefix, pl) == 0 && at(pathStart + pl, L_CLIENT_PATH)) {
      if (clientPath(L_CLIENT_LOGIN)) return code(A_CLIENT_LOGIN, status == 200 && hasRequester)
      if (clientPath(L_CLIENT_LOGOUT) || clientPath(L_LOGOUT_ALL)) return code(A_CLIENT_LOGOUT, status == 200)
    }
  } else if (method == 1) {
    if (pathIs(L_AUTHORIZE)) return code(A_AUTHORIZE, status == 303)
    if (pathLen > 23 && at(pathStart, L_REGISTER) && at(pathStart + pathLen - litLen(L_FINISH), L_FINISH)) return code(A_REGISTRATION, status == 303)
  }
  return code(A_OTHER, status < 400)
}

/** A method other than GET on a path under an admin prefix (isAdminWrite in scripts/audit-log/admin-actions.ts). */
export function adminWrite(): bool {
  if (method == 1) return false
  return (pathLen >= litLen(L_ADMIN_API) && at(pathStart, L_ADMIN_API)) || (pathLen >= litLen(L_ADMIN_HS) && at(pathStart, L_ADMIN_HS))
}

/** Counts the line at p when it is canonical (and not an admin write): its '\n' then, else 0. */
