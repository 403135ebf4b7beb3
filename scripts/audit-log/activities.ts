// The activities `audit-log` counts: the interface's area C table, then the admin API's write
// operations (the actions an operator audits first), each an activity of its own.
//
// | activity              | request                                              | ok when                          |
// |-----------------------|------------------------------------------------------|----------------------------------|
// | browser-login         | POST /login                                          | 303 with a requester             |
// | browser-login-failed  | POST /login answered 200 (the form re-rendered)      | never: the outcome is `failed`   |
// | browser-logout        | POST /logout                                         | 303                              |
// | registration          | GET /register/steps/<…>/finish                       | 303                              |
// | upstream-login        | POST /upstream/link/<…>                              | 303 with a requester             |
// | client-login          | POST <client-prefix>/client/<version>/login          | 200 with a requester             |
// | client-logout         | POST <client-prefix>/client/<version>/logout[/all]   | 200                              |
// | token-issuance        | POST /oauth2/token                                   | 200                              |
// | token-revocation      | POST /oauth2/revoke                                  | 200                              |
// | token-introspection   | POST /oauth2/introspect                              | 200                              |
// | authorization-grant   | GET or POST /authorize                               | 303                              |
// | account-self-service  | POST /graphql                                        | 200 (the operation was attempted)|
// | admin-…               | an admin write (admin-actions.ts)                    | 2xx                              |
// | other                 | anything else                                        | status below 400                 |
//
// Every other status of a listed request is `failed` (for example a 401 on /oauth2/token is a
// failed token issuance). A GraphQL 200 only says the operation was attempted: failures are
// reported in the response body, which the log does not show. Requester conditions ("with a
// requester") are only checked on v1.20 lines: pre-v1.20 lines carry no fields at all.
//
// The WebAssembly scanner takes the activity numbers and the paths below from
// wasm/assembly/constants.gen.ts, which wasm/build.ts generates from this file.

import { ADMIN_ACTIONS } from './admin-actions.ts'

export const AREA_C_ACTIVITIES = [
  'browser-login',
  'browser-login-failed',
  'browser-logout',
  'registration',
  'upstream-login',
  'client-login',
  'client-logout',
  'token-issuance',
  'token-revocation',
  'token-introspection',
  'authorization-grant',
  'account-self-service',
] as const

/** Area C, then the admin actions, then `other`: the order of every table and counter. */
export type ActivityName = (typeof AREA_C_ACTIVITIES)[number] | (typeof ADMIN_ACTIONS)[number]['activity'] | 'other'
export const ACTIVITIES: readonly ActivityName[] = [...AREA_C_ACTIVITIES, ...ADMIN_ACTIONS.map((a) => a.activity), 'other']
export type Outcome = 'ok' | 'failed'

// Activity indexes into ACTIVITIES; classification returns index * 2 + (ok ? 1 : 0) so the hot
// loop of the auditor allocates nothing.
export const A_LOGIN = 0
export const A_LOGIN_FAILED = 1
export const A_LOGOUT = 2
export const A_REGISTRATION = 3
export const A_UPSTREAM = 4
export const A_CLIENT_LOGIN = 5
export const A_CLIENT_LOGOUT = 6
export const A_TOKEN = 7
export const A_REVOKE = 8
export const A_INTROSPECT = 9
export const A_AUTHORIZE = 10
export const A_SELF_SERVICE = 11
/** The first admin action; they follow in the order of ADMIN_ACTIONS. */
export const A_ADMIN_FIRST = 12
export const A_OTHER = ACTIVITIES.length - 1

/** Is activity index `a` an admin action? */
export function isAdminActivity(a: number): boolean {
  return a >= A_ADMIN_FIRST && a < A_OTHER
}

export function code(activity: number, ok: boolean): number {
  return activity * 2 + (ok ? 1 : 0)
}

/** The paths area C classifies (the client API's are under the client prefix). */
export const PATHS = {
  login: '/login',
  logout: '/logout',
  token: '/oauth2/token',
  revoke: '/oauth2/revoke',
  introspect: '/oauth2/introspect',
  authorize: '/authorize',
  graphql: '/graphql',
  upstreamLink: '/upstream/link/',
  client: '/client/',
  clientLogin: '/login',
  clientLogout: '/logout',
  clientLogoutAll: '/logout/all',
  registerSteps: '/register/steps/',
  registerFinish: '/finish',
} as const

/** How a line without requester is counted: v1.20 lines without the field, and pre-v1.20 lines (no fields at all). */
export const NO_REQUESTER = '(none)'
export const UNKNOWN_REQUESTER = '(unknown)'
/** The name of GraphQL requests without an operation name. */
export const UNNAMED_OPERATION = '(unnamed)'
