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
// - GET|POST /authorize (client_id, redirect_uri, state...): unknown client or redirect URI → 400
//   page; without a session → 303 to /login?next=…; with one → 303 to redirect_uri with a code (as
//   after consent), requester is the user.
// - POST /graphql {query, operationName?, variables?}: the operation type and name are taken from the
//   document for the log; 200 with {data} or, like the real one, with {errors} for failures (also
//   without a session); a body that is not a GraphQL request → 400.
// - GET /account/: the account page with a session (requester the user), 303 to /login without.
//
// Sessions: the cookie holds an opaque random id mapped to a browser session of the store; a reset of
// the world drops them all (the session ids are no longer found).
import { randomBytes } from 'node:crypto'
import type { Ctx, Reply, Route } from '../core/context.ts'
import type { MockOptions } from '../core/options.ts'
import { MasStore, nowMicros, type BrowserSession, type User } from '../store/mas.ts'

export const SESSION_COOKIE = 'mas-session'

/** Bound on each in-memory map (cookies, pending registrations, upstream links): oldest entries go first. */
const MAX_ENTRIES = 100_000

const USERNAME_RE = /^[a-z0-9=_\-./+]+$/

function isValidUsername(name: string): boolean {
  return name.length > 0 && Buffer.byteLength(name) <= 255 && !name.startsWith('_') && USERNAME_RE.test(name)
}

function opaqueId(): string {
  return randomBytes(24).toString('base64url')
}

function boundedSet<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.set(key, value)
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K)
}

// ---------------------------------------------------------------------------------------------------
// HTML

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><main>${body}</main></body></html>`
}

function html(status: number, title: string, body: string, headers?: Record<string, string | string[]>): Reply {
  return { status, body: page(title, body), contentType: 'text/html; charset=utf-8', ...(headers ? { headers } : {}) }
}

function redirect(location: string, headers: Record<string, string | string[]> = {}): Reply {
  return { status: 303, headers: { location, ...headers } }
}

function errorPage(status: number, message: string): Reply {
  return html(status, 'Error', `<h1>Something went wrong</h1><p>${esc(message)}</p>`)
}

function loginForm(opts: { username?: string; next?: string; error?: string }): string {
  return (
    '<h1>Sign in</h1>' +
    (opts.error ? `<p role="alert" class="error">${esc(opts.error)}</p>` : '') +
    '<form method="post" action="/login">' +
    `<input name="username" autocomplete="username" value="${esc(opts.username ?? '')}">` +
    '<input name="password" type="password" autocomplete="current-password">' +
    (opts.next ? `<input type="hidden" name="next" value="${esc(opts.next)}">` : '') +
    '<button type="submit">Continue</button></form>'
  )
}

function registerForm(opts: { username?: string; error?: string }): string {
  return (
    '<h1>Create an account</h1>' +
    (opts.error ? `<p role="alert" class="error">${esc(opts.error)}</p>` : '') +
    '<form method="post" action="/register/password">' +
    `<input name="username" value="${esc(opts.username ?? '')}">` +
    '<input name="password" type="password" autocomplete="new-password">' +
    '<button type="submit">Continue</button></form>'
  )
}

function linkForm(id: string, opts: { username?: string; error?: string }): string {
  return (
    '<h1>Choose your username</h1>' +
    (opts.error ? `<p role="alert" class="error">${esc(opts.error)}</p>` : '') +
    `<form method="post" action="/upstream/link/${esc(encodeURIComponent(id))}">` +
    `<input name="username" value="${esc(opts.username ?? '')}">` +
    '<button type="submit">Continue</button></form>'
  )
}

// ---------------------------------------------------------------------------------------------------
// Request helpers

/** The urlencoded form of a POST, or a 415 reply (axum's Form rejects other content types). */
function formOf(ctx: Ctx): URLSearchParams | Reply {
  const ct = (ctx.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (ct !== 'application/x-www-form-urlencoded') {
    return { status: 415, body: 'Expected request with `Content-Type: application/x-www-form-urlencoded`', contentType: 'text/plain; charset=utf-8' }
  }
  return new URLSearchParams(ctx.body.toString('utf8'))
}

/** GET: the query; POST: the form. */
function paramsOf(ctx: Ctx): URLSearchParams | Reply {
  return ctx.method === 'POST' ? formOf(ctx) : ctx.query
}

function cookieValue(ctx: Ctx, name: string): string | undefined {
  const header = ctx.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** Only local paths are followed after a login, never another origin. */
function safeNext(next: string | null): string {
  return next !== null && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/'
}

const requesterOf = (u: User) => ({ kind: 'user' as const, id: u.id, username: u.username })

// ---------------------------------------------------------------------------------------------------
// GraphQL operation detection

export interface GraphqlOperation {
  type: 'query' | 'mutation' | 'subscription'
  name?: string
}

/**
 * The operation definitions of a GraphQL document, in order: `query|mutation|subscription [Name]` or
 * the `{ … }` shorthand (an anonymous query) at the top level. Fragments are skipped; strings and
 * comments are not mistaken for keywords. Returns null when the braces do not balance.
 */
export function operationsOf(doc: string): GraphqlOperation[] | null {
  const ops: GraphqlOperation[] = []
  const n = doc.length
  let depth = 0
  let i = 0
  // At the top level: the operation whose keyword was read (until its body opens), and whether its
  // name may still come (right after the keyword only).
  let pending: GraphqlOperation | null = null
  let expectName = false
  let inFragment = false
  const isNameStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
  const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57)
  /** Index after the string starting at i, or -1 when it is not closed. */
  const skipString = (at: number): number => {
    if (doc.startsWith('"""', at)) {
      const end = doc.indexOf('"""', at + 3)
      return end === -1 ? -1 : end + 3
    }
    let k = at + 1
    while (k < n && doc.charCodeAt(k) !== 34) k += doc.charCodeAt(k) === 92 ? 2 : 1
    return k >= n ? -1 : k + 1
  }
  while (i < n) {
    const c = doc.charCodeAt(i)
    if (c === 35 /* # */) {
      while (i < n && doc.charCodeAt(i) !== 10 && doc.charCodeAt(i) !== 13) i++
    } else if (c === 34 /* " */) {
      i = skipString(i)
      if (i < 0) return null
    } else if (c === 123 /* { */) {
      if (depth === 0) {
        if (pending) ops.push(pending)
        else if (!inFragment) ops.push({ type: 'query' })
        pending = null
        expectName = false
        inFragment = false
      }
      depth++
      i++
    } else if (c === 125 /* } */) {
      if (--depth < 0) return null
      i++
    } else if (depth === 0 && isNameStart(c)) {
      let j = i + 1
      while (j < n && isNameChar(doc.charCodeAt(j))) j++
      const word = doc.slice(i, j)
      if (pending) {
        if (expectName) pending.name = word
        expectName = false
      } else if (!inFragment) {
        if (word === 'query' || word === 'mutation' || word === 'subscription') {
          pending = { type: word }
          expectName = true
        } else if (word === 'fragment') inFragment = true
      }
      i = j
    } else if (depth === 0 && c === 40 /* ( */) {
      // Variable definitions (or a directive's arguments): skip to the matching ')'.
      let level = 0
      while (i < n) {
        const d = doc.charCodeAt(i)
        if (d === 34) {
          i = skipString(i)
          if (i < 0) return null
          continue
        }
        if (d === 40) level++
        else if (d === 41 && --level === 0) break
        i++
      }
      if (i >= n) return null
      expectName = false
      i++
    } else {
      // '@' of a directive, '$', ':', punctuation: no name may follow as the operation's name.
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 44) expectName = false
      i++
    }
  }
  return depth === 0 ? ops : null
}

/** The operation a request executes: the one named by operationName, or the only one. */
export function selectOperation(doc: string, operationName: string | undefined): { ok: true; op: GraphqlOperation } | { ok: false; message: string } {
  const ops = operationsOf(doc)
  if (ops === null || ops.length === 0) return { ok: false, message: 'Syntax error: the document holds no operation' }
  if (operationName !== undefined) {
    const op = ops.find((o) => o.name === operationName)
    return op ? { ok: true, op } : { ok: false, message: `Unknown operation named "${operationName}"` }
  }
  if (ops.length > 1) return { ok: false, message: 'Operation name required in request' }
  return { ok: true, op: ops[0]! }
}

// ---------------------------------------------------------------------------------------------------
// Routes

interface PendingRegistration {
  username: string
  password: string
}

interface UpstreamLink {
  provider: string
  subject: string
}

export function browserRoutes(_options: MockOptions): Route[] {
  // cookie value → browser session id
  const cookies = new Map<string, string>()
  const registrations = new Map<string, PendingRegistration>()
  const links = new Map<string, UpstreamLink>()
  // `<provider>\n<subject>` → user id
  const linkedUsers = new Map<string, string>()

  const cookieHeader = (value: string) => `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax`
  const clearCookie = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`

  /** The active browser session of the request's cookie, and its user (who must still be active). */
  function session(ctx: Ctx): { cookie: string; session: BrowserSession; user: User } | undefined {
    const cookie = cookieValue(ctx, SESSION_COOKIE)
    if (cookie === undefined) return undefined
    const id = cookies.get(cookie)
    if (id === undefined) return undefined
    ctx.log.queries += 2
    const store = ctx.world.mas
    const s = store.getBrowserSession(id)
    if (!s || s.finishedAt !== null) return undefined
    const user = store.getUser(s.userId)
    if (!user || !MasStore.isUserActive(user)) return undefined
    ctx.log.fetched += 2
    return { cookie, session: s, user }
  }

  /** Starts a browser session for `user` and answers 303 with the cookie. */
  function logIn(ctx: Ctx, user: User, location: string): Reply {
    const ua = ctx.headers['user-agent']
    const s = ctx.world.mas.createBrowserSession(user.id, nowMicros(ctx.now()), { userAgent: typeof ua === 'string' ? ua : null, ip: ctx.clientAddress ?? null })
    const cookie = opaqueId()
    boundedSet(cookies, cookie, s.id)
    ctx.log.queries += 2
    ctx.log.requester = requesterOf(user)
    return redirect(location, { 'set-cookie': cookieHeader(cookie) })
  }

  const loginPage = (ctx: Ctx): Reply => html(200, 'Sign in', loginForm({ next: ctx.query.get('next') ?? undefined }))

  const login = (ctx: Ctx): Reply => {
    const form = formOf(ctx)
    if (!(form instanceof URLSearchParams)) return form
    const username = (form.get('username') ?? '').trim()
    const password = form.get('password') ?? ''
    const next = form.get('next')
    ctx.log.queries += 2
    const user = username !== '' ? ctx.world.mas.checkPassword(username, password) : undefined
    // A wrong password, an unknown user and a locked account all re-render the form with 200.
    if (!user || !MasStore.isUserActive(user)) {
      ctx.log.fetched += user ? 1 : 0
      return html(200, 'Sign in', loginForm({ username, next: next ?? undefined, error: user ? 'This account is locked.' : 'Invalid credentials.' }))
    }
    ctx.log.fetched += 1
    return logIn(ctx, user, safeNext(next))
  }

  const logout = (ctx: Ctx): Reply => {
    const s = session(ctx)
    if (!s) return redirect('/login', { 'set-cookie': clearCookie })
    ctx.world.mas.finishBrowserSession(s.session, nowMicros(ctx.now()))
    cookies.delete(s.cookie)
    ctx.log.queries += 1
    ctx.log.requester = requesterOf(s.user)
    return redirect('/login', { 'set-cookie': clearCookie })
  }

  const registerPage = (): Reply => html(200, 'Create an account', registerForm({}))

  const registerPassword = (ctx: Ctx): Reply => {
    const form = formOf(ctx)
    if (!(form instanceof URLSearchParams)) return form
    const username = (form.get('username') ?? '').trim()
    const password = form.get('password') ?? ''
    ctx.log.queries += 1
    if (!isValidUsername(username)) return html(200, 'Create an account', registerForm({ username, error: 'This username is not valid.' }))
    if (ctx.world.mas.findUserByUsername(username)) return html(200, 'Create an account', registerForm({ username, error: 'This username is already taken.' }))
    if (password.length < 8) return html(200, 'Create an account', registerForm({ username, error: 'This password is too weak.' }))
    const id = ctx.world.mas.newId(nowMicros(ctx.now()))
    boundedSet(registrations, id, { username, password })
    ctx.log.queries += 1
    return redirect(`/register/steps/${id}/finish`)
  }

  const registerFinish = (ctx: Ctx): Reply => {
    const id = ctx.params.id ?? ''
    const pending = registrations.get(id)
    ctx.log.queries += 1
    if (!pending) return errorPage(404, 'This registration does not exist or has already been completed.')
    const store = ctx.world.mas
    // Taken meanwhile (two registrations of one name): the real service refuses at this step too.
    if (store.findUserByUsername(pending.username)) {
      registrations.delete(id)
      return errorPage(409, 'This username is already taken.')
    }
    registrations.delete(id)
    const user = store.createUser(pending.username, nowMicros(ctx.now()), { password: pending.password })
    ctx.log.queries += 3
    return logIn(ctx, user, '/')
  }

  const upstreamCallback = (ctx: Ctx): Reply => {
    const provider = ctx.params.provider ?? ''
    const subject = ctx.query.get('sub') ?? ''
    if (subject === '') return errorPage(400, 'The upstream provider did not say who the user is.')
    const id = ctx.world.mas.newId(nowMicros(ctx.now()))
    boundedSet(links, id, { provider, subject })
    ctx.log.queries += 2
    return redirect(`/upstream/link/${id}`)
  }

  const upstreamLink = (ctx: Ctx): Reply => {
    const id = ctx.params.id ?? ''
    const link = links.get(id)
    ctx.log.queries += 1
    if (!link) return errorPage(404, 'This link does not exist or has expired.')
    const form = formOf(ctx)
    if (!(form instanceof URLSearchParams)) return form
    const store = ctx.world.mas
    const key = `${link.provider}\n${link.subject}`
    const linked = linkedUsers.get(key)
    let user = linked !== undefined ? store.getUser(linked) : undefined
    if (!user) {
      const username = (form.get('username') ?? '').trim()
      if (!isValidUsername(username)) return html(200, 'Choose your username', linkForm(id, { username, error: 'This username is not valid.' }))
      if (store.findUserByUsername(username)) return html(200, 'Choose your username', linkForm(id, { username, error: 'This username is already taken.' }))
      user = store.createUser(username, nowMicros(ctx.now()))
      boundedSet(linkedUsers, key, user.id)
      ctx.log.queries += 3
    } else if (!MasStore.isUserActive(user)) {
      return errorPage(403, 'This account is locked.')
    }
    links.delete(id)
    return logIn(ctx, user, '/')
  }

  const authorize = (ctx: Ctx): Reply => {
    const params = paramsOf(ctx)
    if (!(params instanceof URLSearchParams)) return params
    const clientId = params.get('client_id') ?? ''
    const redirectUri = params.get('redirect_uri') ?? ''
    ctx.log.queries += 1
    const client = clientId !== '' ? ctx.world.mas.getClient(clientId) : undefined
    if (!client) return errorPage(400, 'Client not found.')
    if (redirectUri === '' || !client.redirectUris.includes(redirectUri)) return errorPage(400, 'The redirect URI is not registered for this client.')
    const s = session(ctx)
    if (!s) {
      const back = `/authorize?${new URLSearchParams(params).toString()}`
      return redirect(`/login?next=${encodeURIComponent(back)}`)
    }
    ctx.log.requester = requesterOf(s.user)
    const target = new URL(redirectUri)
    target.searchParams.set('code', opaqueId())
    const state = params.get('state')
    if (state !== null) target.searchParams.set('state', state)
    ctx.log.queries += 3
    return redirect(target.toString())
  }

  const accountPage = (ctx: Ctx): Reply => {
    const s = session(ctx)
    if (!s) return redirect(`/login?next=${encodeURIComponent('/account/')}`)
    ctx.log.requester = requesterOf(s.user)
    return html(200, 'Your account', `<h1>${esc(s.user.username)}</h1><div id="view"></div>`)
  }

  const index = (ctx: Ctx): Reply => {
    const s = session(ctx)
    if (s) ctx.log.requester = requesterOf(s.user)
    return html(200, 'Welcome', s ? `<p>Signed in as ${esc(s.user.username)}</p>` : '<p><a href="/login">Sign in</a></p>')
  }

  const graphql = (ctx: Ctx): Reply => {
    const badRequest = (message: string): Reply => ({ status: 400, body: { data: null, errors: [{ message }] } })
    let body: unknown
    try {
      body = JSON.parse(ctx.body.toString('utf8'))
    } catch {
      return badRequest('Invalid GraphQL request: the body is not JSON')
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return badRequest('Invalid GraphQL request: expected an object')
    const req = body as { query?: unknown; operationName?: unknown; variables?: unknown }
    if (typeof req.query !== 'string') return badRequest('Invalid GraphQL request: missing query')
    if (req.operationName !== undefined && req.operationName !== null && typeof req.operationName !== 'string') return badRequest('Invalid GraphQL request: bad operationName')
    const variables = typeof req.variables === 'object' && req.variables !== null && !Array.isArray(req.variables) ? (req.variables as Record<string, unknown>) : {}
    const selected = selectOperation(req.query, typeof req.operationName === 'string' ? req.operationName : undefined)
    if (!selected.ok) return { status: 200, body: { data: null, errors: [{ message: selected.message }] } }
    const op = selected.op
    ctx.log.graphqlOperationType = op.type
    if (op.name !== undefined) ctx.log.graphqlOperationName = op.name
    const s = session(ctx)
    if (!s) {
      // The real API answers 200 and reports the failure in the body.
      if (op.type === 'query') return { status: 200, body: { data: { viewer: { __typename: 'Anonymous', id: 'anonymous' } } } }
      return { status: 200, body: { data: null, errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHORIZED' } }] } }
    }
    ctx.log.requester = requesterOf(s.user)
    return { status: 200, body: runOperation(ctx, op, variables, s.user, s.session) }
  }

  return [
    { method: 'GET', pattern: '/', area: 'other', handler: index },
    { method: 'GET', pattern: '/login', area: 'other', handler: loginPage },
    { method: 'POST', pattern: '/login', area: 'other', handler: login },
    { method: 'POST', pattern: '/logout', area: 'other', handler: logout },
    { method: 'GET', pattern: '/register', area: 'other', handler: registerPage },
    { method: 'POST', pattern: '/register/password', area: 'other', handler: registerPassword },
    { method: 'GET', pattern: '/register/steps/:id/finish', area: 'other', handler: registerFinish },
    { method: 'GET', pattern: '/upstream/callback/:provider', area: 'other', handler: upstreamCallback },
    { method: 'POST', pattern: '/upstream/link/:id', area: 'other', handler: upstreamLink },
    { method: 'GET', pattern: '/authorize', area: 'other', handler: authorize },
    { method: 'POST', pattern: '/authorize', area: 'other', handler: authorize },
    { method: 'GET', pattern: '/account/', area: 'other', handler: accountPage },
    { method: 'POST', pattern: '/graphql', area: 'other', handler: graphql },
  ]
}

// ---------------------------------------------------------------------------------------------------
// GraphQL operations of the account page (the names the bundled frontend sends)

const lcFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1)

/** A session id as the API shows it (`compat_session:<ulid>`) or the bare ULID. */
function bareId(v: unknown, prefix: string): string | undefined {
  if (typeof v !== 'string') return undefined
  return v.startsWith(prefix + ':') ? v.slice(prefix.length + 1) : v
}

function runOperation(ctx: Ctx, op: GraphqlOperation, variables: Record<string, unknown>, user: User, current: BrowserSession): Record<string, unknown> {
  const store = ctx.world.mas
  const input = typeof variables.input === 'object' && variables.input !== null ? (variables.input as Record<string, unknown>) : variables
  const at = nowMicros(ctx.now())
  if (op.type !== 'mutation') {
    ctx.log.queries += 1
    return { data: { viewer: { __typename: 'User', id: `user:${user.id}`, username: user.username } } }
  }
  const name = op.name ?? ''
  const field = lcFirst(name)
  ctx.log.queries += 2
  switch (name) {
    case 'EndBrowserSession': {
      const id = bareId(input.browserSessionId ?? input.id, 'browser_session') ?? current.id
      const s = store.getBrowserSession(id)
      if (!s || s.userId !== user.id || s.finishedAt !== null) return { data: { [field]: { status: 'NOT_FOUND' } } }
      store.finishBrowserSession(s, at)
      return { data: { [field]: { status: 'FINISHED' } } }
    }
    case 'EndCompatSession': {
      const s = store.compat.get(bareId(input.compatSessionId ?? input.id, 'compat_session') ?? '')
      if (!s || s.userId !== user.id || s.finishedAt !== null) return { data: { [field]: { status: 'NOT_FOUND' } } }
      store.finishCompatSession(s, at)
      return { data: { [field]: { status: 'FINISHED' } } }
    }
    case 'EndOAuth2Session': {
      const s = store.oauth2.get(bareId(input.oauth2SessionId ?? input.id, 'oauth2_session') ?? '')
      if (!s || s.userId !== user.id || s.finishedAt !== null) return { data: { [field]: { status: 'NOT_FOUND' } } }
      store.finishOAuth2Session(s, at)
      return { data: { [field]: { status: 'FINISHED' } } }
    }
    case 'AddEmail':
      return typeof input.email === 'string' && /^[^@\s]+@[^@\s]+$/.test(input.email)
        ? { data: { [field]: { status: 'ADDED' } } }
        : { data: { [field]: { status: 'INVALID' } } }
    case 'SetDisplayName':
      return { data: { [field]: { status: 'SET' } } }
    case 'DoVerifyEmail':
    case 'RemoveEmail':
    case 'ChangePassword':
    case 'RecoverPassword':
    case 'DeactivateUser':
    case 'AllowCrossSigningReset':
    case 'SetCompatSessionName':
    case 'SetOAuth2SessionName':
      // Attempted; the mock keeps no emails, names or keys, so it reports the operation as not allowed.
      return { data: null, errors: [{ message: `${name} is not supported by the mock`, path: [field] }] }
    default:
      return { data: null, errors: [{ message: `Unknown mutation ${name || '(unnamed)'}` }] }
  }
}
