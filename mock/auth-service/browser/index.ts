// The browser-facing routes of the auth service that the request log's activity table names (interface
// area C): password login and logout, registration, login through an upstream provider, the
// authorization endpoint, the account page and its GraphQL API. They are not full implementations:
// what matters is that each answers with the status, the redirect and the log attribution
// (requester, graphql.operation.*) the real service gives, so that `audit-log` can be shown working
// on traffic the project generates.
//
// - GET /login: the form. POST /login (form username, password[, next]): right password of an active
//   user → 303 to `next` (or /) with a session cookie, a new browser session, requester
//   user:<id>(<username>); anything else → 200 with the form re-rendered and an error, no requester.
// - POST /logout: with the cookie → the browser session is finished, 303 to /login, requester is the
//   logged-out user; without → 303 to /login, no requester.
// - GET /register: the form. POST /register/password (form username, password) → 303 to
//   /register/steps/<id>/finish (a pending registration; 200 re-render on a taken/invalid name).
//   GET /register/steps/<id>/finish → the user and a browser session are created, 303 to / with the
//   cookie, requester is the new user; an unknown id → 404 page.
// - GET /upstream/callback/<provider>?sub=<subject>: the provider sent the user back → 303 to
//   /upstream/link/<id>. POST /upstream/link/<id> (form username, for a subject not linked yet) → the
//   subject's user is logged in (created and linked on first use), 303 to / with the cookie,
//   requester is that user; a taken username → 200 re-render; an unknown link → 404 page.
// - GET|POST /authorize, GET|POST /consent/<grant>: the authorization-code grant with its login and
//   consent pages, oidc/authorize.ts (the login page continues a grant: /login?kind=continue_authorization_grant&id=…).
// - POST /graphql {query, operationName?, variables?}: the operation type and name are taken from the
//   document for the log; 200 with {data} or, like the real one, with {errors} for failures (also
//   without a session); a body that is not a GraphQL request → 400.
// - GET /account/: the account page with a session (requester the user), 303 to /login without.
//
// Sessions: browser/session.ts. Pages: browser/pages.ts; GraphQL: browser/graphql-*.ts.

import type { Ctx, Reply } from '../../core/context.ts'
import type { RouteEntry } from '../../core/table.ts'
import { graphql } from './graphql-operations.ts'
import {
  accountPage,
  index,
  login,
  loginPage,
  logout,
  registerFinish,
  registerPage,
  registerPassword,
  upstreamCallback,
  upstreamLink,
} from './pages.ts'
import { BrowserState } from './session.ts'
import { authorize, consentPage, consentSubmit } from '../oidc/authorize.ts'

export { SESSION_COOKIE } from './session.ts'
export { operationsOf, selectOperation, type GraphqlOperation } from './graphql-document.ts'

const BROWSER = { undocumented: 'browser page or GraphQL API of the account UI, outside the admin API' }

/** The browser routes with their own session state (one per mock). */
export function browserRoutes(): RouteEntry[] {
  const b = new BrowserState()
  const entry = (method: string, pattern: string, page: (b: BrowserState, ctx: Ctx) => Reply): RouteEntry => ({
    method,
    pattern,
    area: 'other',
    handler: (ctx) => page(b, ctx),
    doc: BROWSER,
  })
  return [
    entry('GET', '/', index),
    entry('GET', '/login', loginPage),
    entry('POST', '/login', login),
    entry('POST', '/logout', logout),
    entry('GET', '/register', registerPage),
    entry('POST', '/register/password', registerPassword),
    entry('GET', '/register/steps/:id/finish', registerFinish),
    entry('GET', '/upstream/callback/:provider', upstreamCallback),
    entry('POST', '/upstream/link/:id', upstreamLink),
    entry('GET', '/authorize', authorize),
    entry('POST', '/authorize', authorize),
    entry('GET', '/consent/:id', consentPage),
    entry('POST', '/consent/:id', consentSubmit),
    entry('GET', '/account/', accountPage),
    entry('POST', '/graphql', graphql),
  ]
}
