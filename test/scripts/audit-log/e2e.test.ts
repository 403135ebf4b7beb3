// End to end: drive a known mix of traffic at the mock (browser logins that work and fail, logouts,
// registrations, upstream logins, client login/logout, token issuance/revocation/introspection with a
// bad client, authorization, GraphQL operations, admin API calls), keep a tally of what was sent, then
// audit the mock's log with auditStream and with the `audit-log --json` command and compare: requests,
// activities, outcomes, GraphQL operations and who did what, and the admin actions with their
// targets and requesters.
import { spawnSync } from 'node:child_process'
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import {
  ACTIVITIES,
  auditStream,
  type ActivityName,
  type AdminActionEntry,
  type AuditResult,
  type Outcome,
} from '../../../scripts/audit-log/index.ts'
import { AREA_C_ACTIVITIES } from '../../../scripts/audit-log/activities.ts'
import { parseLine } from '../../../lib/requestlog.ts'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const dir = mkdtempSync(path.join(tmpdir(), 'ac-log-e2e-'))
t.teardown(async () => {
  await m.close()
  rmSync(dir, { recursive: true, force: true })
})
const logFile = path.join(dir, 'mock.log')

const m = await startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile }, {}))
const opts = m.options
const base = m.url

// ---------------------------------------------------------------------------------------------------
// The tally of what was sent

const NONE = '(none)'
interface Tally {
  requests: number
  activities: Record<ActivityName, { ok: number; failed: number }>
  operations: Record<string, number>
  /** requester key (user:<id>, oauth2-client:<id>, (none)) → activity → count */
  requesters: Record<string, Partial<Record<ActivityName, number>>>
}
const tally: Tally = {
  requests: 0,
  activities: Object.fromEntries(ACTIVITIES.map((a) => [a, { ok: 0, failed: 0 }])) as Tally['activities'],
  operations: {},
  requesters: {},
}
/** the admin writes sent, as the audit must list them (line numbers aside) */
const adminSent: Array<Omit<AdminActionEntry, 'line' | 'timestamp'>> = []
/** the activities of one user, in order (for the timeline) */
const timelineOf = new Map<string, ActivityName[]>()

interface Expect {
  status: number
  activity: ActivityName
  outcome: Outcome
  /** requester key, or NONE */
  requester: string
  /** GraphQL operation name as the audit counts it (self-service only) */
  op?: string
}

function count(e: Expect): void {
  tally.requests++
  tally.activities[e.activity][e.outcome]++
  if (e.op !== undefined) tally.operations[e.op] = (tally.operations[e.op] ?? 0) + 1
  const r = (tally.requesters[e.requester] ??= {})
  r[e.activity] = (r[e.activity] ?? 0) + 1
  if (e.requester !== NONE) timelineOf.set(e.requester, [...(timelineOf.get(e.requester) ?? []), e.activity])
}

interface Req {
  method?: string
  headers?: Record<string, string>
  form?: Record<string, string>
  json?: unknown
  cookie?: string
  bearer?: string
  basic?: [string, string]
}

const people = ['ada.e2e', 'bob.e2e', 'cy.e2e']
const password = 'correct horse 42'

// The test the traffic assertions belong to (the driving subtest).
let cur: Test = t

/** Sends one request (no redirects followed), checks its status, and counts what the log must show. */
async function send(what: string, p: string, req: Req, e: Expect): Promise<Response> {
  const headers: Record<string, string> = { 'user-agent': 'ac-e2e/1.0', ...req.headers }
  let body: string | undefined
  if (req.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(req.form).toString()
  } else if (req.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(req.json)
  }
  if (req.cookie) headers.cookie = req.cookie
  if (req.bearer) headers.authorization = `Bearer ${req.bearer}`
  if (req.basic)
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(req.basic[0])}:${encodeURIComponent(req.basic[1])}`).toString('base64')}`
  const res = await fetch(base + p, { method: req.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'manual' })
  // The body is read so that the connection is reused; the tests look at it through the return value.
  const text = await res.text()
  cur.equal(res.status, e.status, `${what}: ${req.method ?? (body === undefined ? 'GET' : 'POST')} ${p.split('?')[0]} → ${e.status}`, {
    body: text.slice(0, 300),
  })
  count(e)
  return new Response(res.status === 204 || res.status === 304 ? null : text, { status: res.status, headers: res.headers })
}

function cookieOf(res: Response): string {
  const sc = res.headers.get('set-cookie') ?? ''
  return sc.split(';')[0]!
}

const userKey = (username: string) => `user:${m.world().mas.findUserByUsername(username)!.id}`
const adminClient = `oauth2-client:${opts.adminClientId}`

// ---------------------------------------------------------------------------------------------------
// Traffic

t.test('drive a known mix of traffic at the mock', async (t) => {
  cur = t
  // Registrations: the password step (other) and the finish step (registration, by the new user).
  const cookies: Record<string, string> = {}
  for (const name of people) {
    const step = await send(
      `register ${name}`,
      '/register/password',
      { form: { username: name, password } },
      { status: 303, activity: 'other', outcome: 'ok', requester: NONE },
    )
    const finishPath = step.headers.get('location') ?? ''
    t.match(finishPath, /^\/register\/steps\/[0-9A-Z]{26}\/finish$/, 'the password step redirects to the finish step')
    // The user exists only after the finish step: its key is known then.
    const res = await fetch(base + finishPath, { redirect: 'manual', headers: { 'user-agent': 'ac-e2e/1.0' } })
    await res.text()
    t.equal(res.status, 303, `register ${name}: GET finish → 303`)
    count({ status: 303, activity: 'registration', outcome: 'ok', requester: userKey(name) })
    cookies[name] = cookieOf(res)
  }
  await send(
    'register a taken name',
    '/register/password',
    { form: { username: 'ada.e2e', password } },
    { status: 200, activity: 'other', outcome: 'ok', requester: NONE },
  )
  await send(
    'finish an unknown registration',
    '/register/steps/01J00000000000000000000000/finish',
    {},
    { status: 404, activity: 'registration', outcome: 'failed', requester: NONE },
  )

  // Browser logins: the form, right passwords, wrong ones, an unknown user.
  await send('login form', '/login', {}, { status: 200, activity: 'other', outcome: 'ok', requester: NONE })
  for (const name of people) {
    const res = await send(
      `login ${name}`,
      '/login',
      { form: { username: name, password } },
      { status: 303, activity: 'browser-login', outcome: 'ok', requester: userKey(name) },
    )
    cookies[name] = cookieOf(res)
  }
  const wrong = await send(
    'login with a wrong password',
    '/login',
    { form: { username: 'ada.e2e', password: 'nope' } },
    { status: 200, activity: 'browser-login-failed', outcome: 'failed', requester: NONE },
  )
  t.match(await wrong.text(), /<form[^>]+action="\/login"/, 'a wrong password re-renders the form')
  await send(
    'login with another wrong password',
    '/login',
    { form: { username: 'bob.e2e', password: 'still nope' } },
    { status: 200, activity: 'browser-login-failed', outcome: 'failed', requester: NONE },
  )
  await send(
    'login of an unknown user',
    '/login',
    { form: { username: 'nobody.e2e', password } },
    { status: 200, activity: 'browser-login-failed', outcome: 'failed', requester: NONE },
  )

  // Upstream logins: the callback (other), then the link step creates the user and logs it in.
  for (const [sub, name] of [
    ['sub-1', 'up.one'],
    ['sub-2', 'up.two'],
  ] as const) {
    const cb = await send(
      `upstream callback ${sub}`,
      `/upstream/callback/oidc?sub=${sub}&code=xyz`,
      {},
      { status: 303, activity: 'other', outcome: 'ok', requester: NONE },
    )
    const linkPath = cb.headers.get('location') ?? ''
    const res = await fetch(base + linkPath, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'user-agent': 'ac-e2e/1.0', 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=${name}`,
    })
    await res.text()
    t.equal(res.status, 303, `upstream link ${name} → 303`)
    count({ status: 303, activity: 'upstream-login', outcome: 'ok', requester: userKey(name) })
  }
  await send(
    'upstream link that does not exist',
    '/upstream/link/01J00000000000000000000000',
    { form: { username: 'x' } },
    { status: 404, activity: 'upstream-login', outcome: 'failed', requester: NONE },
  )

  // Account page and GraphQL, with and without a session.
  await send(
    'account page',
    '/account/',
    { cookie: cookies['ada.e2e'] },
    { status: 200, activity: 'other', outcome: 'ok', requester: userKey('ada.e2e') },
  )
  await send('account page without a session', '/account/', {}, { status: 303, activity: 'other', outcome: 'ok', requester: NONE })
  const gql = (query: string, operationName?: string, variables?: unknown) => ({
    query,
    ...(operationName ? { operationName } : {}),
    ...(variables ? { variables } : {}),
  })
  const addEmail = await send(
    'AddEmail',
    '/graphql',
    {
      cookie: cookies['ada.e2e'],
      json: gql('mutation AddEmail($email: String!) { addEmail(input: {email: $email}) { status } }', undefined, {
        email: 'ada@example.test',
      }),
    },
    { status: 200, activity: 'account-self-service', outcome: 'ok', requester: userKey('ada.e2e'), op: 'AddEmail' },
  )
  t.same(await addEmail.json(), { data: { addEmail: { status: 'ADDED' } } }, 'AddEmail answers with data')
  await send(
    'SetDisplayName',
    '/graphql',
    {
      cookie: cookies['bob.e2e'],
      json: gql('mutation SetDisplayName($n: String) { setDisplayName(input: {displayName: $n}) { status } }', 'SetDisplayName', {
        n: 'Bob',
      }),
    },
    { status: 200, activity: 'account-self-service', outcome: 'ok', requester: userKey('bob.e2e'), op: 'SetDisplayName' },
  )
  await send(
    'a named query',
    '/graphql',
    { cookie: cookies['bob.e2e'], json: gql('query CurrentViewer { viewer { __typename } }') },
    { status: 200, activity: 'account-self-service', outcome: 'ok', requester: userKey('bob.e2e'), op: 'CurrentViewer' },
  )
  await send(
    'an anonymous query',
    '/graphql',
    { cookie: cookies['cy.e2e'], json: gql('{ viewer { __typename } }') },
    { status: 200, activity: 'account-self-service', outcome: 'ok', requester: userKey('cy.e2e'), op: '(unnamed)' },
  )
  const anon = await send(
    'AddEmail without a session',
    '/graphql',
    { json: gql('mutation AddEmail { addEmail(input: {email: "x@example.test"}) { status } }') },
    { status: 200, activity: 'account-self-service', outcome: 'ok', requester: NONE, op: 'AddEmail' },
  )
  t.ok(Array.isArray(((await anon.json()) as { errors?: unknown }).errors), 'without a session the failure is in the body of a 200')
  await send(
    'a body that is no GraphQL request',
    '/graphql',
    { cookie: cookies['cy.e2e'], headers: { 'content-type': 'application/json' }, method: 'POST' },
    { status: 400, activity: 'account-self-service', outcome: 'failed', requester: NONE, op: '(unnamed)' },
  )

  // Client (compatibility) login and logout.
  const clientLogin = (user: string, pw: string) => ({
    json: { type: 'm.login.password', identifier: { type: 'm.id.user', user }, password: pw },
  })
  const c1 = await send('client login', '/_matrix/client/v3/login', clientLogin('cy.e2e', password), {
    status: 200,
    activity: 'client-login',
    outcome: 'ok',
    requester: userKey('cy.e2e'),
  })
  const tok1 = ((await c1.json()) as { access_token: string }).access_token
  const c2 = await send('second client login', '/_matrix/client/v3/login', clientLogin('cy.e2e', password), {
    status: 200,
    activity: 'client-login',
    outcome: 'ok',
    requester: userKey('cy.e2e'),
  })
  const tok2 = ((await c2.json()) as { access_token: string }).access_token
  const c3 = await send('third client login', '/_matrix/client/v3/login', clientLogin('cy.e2e', password), {
    status: 200,
    activity: 'client-login',
    outcome: 'ok',
    requester: userKey('cy.e2e'),
  })
  const tok3 = ((await c3.json()) as { access_token: string }).access_token
  await send('client login with a wrong password', '/_matrix/client/v3/login', clientLogin('cy.e2e', 'wrong'), {
    status: 403,
    activity: 'client-login',
    outcome: 'failed',
    requester: NONE,
  })
  // Account self-service ends one of them.
  const compatId = m.world().mas.lookupAccessToken(tok3)!.sessionId
  const end = await send(
    'EndCompatSession',
    '/graphql',
    {
      cookie: cookies['cy.e2e'],
      json: gql('mutation EndCompatSession($id: ID!) { endCompatSession(input: {compatSessionId: $id}) { status } }', 'EndCompatSession', {
        id: `compat_session:${compatId}`,
      }),
    },
    { status: 200, activity: 'account-self-service', outcome: 'ok', requester: userKey('cy.e2e'), op: 'EndCompatSession' },
  )
  t.same(await end.json(), { data: { endCompatSession: { status: 'FINISHED' } } }, 'EndCompatSession finishes the session')
  await send(
    'client logout',
    '/_matrix/client/v3/logout',
    { bearer: tok1, json: {} },
    { status: 200, activity: 'client-logout', outcome: 'ok', requester: userKey('cy.e2e') },
  )
  await send(
    'client logout/all',
    '/_matrix/client/v3/logout/all',
    { bearer: tok2, json: { 'io.element.only_compat_is_fine': true } },
    { status: 200, activity: 'client-logout', outcome: 'ok', requester: userKey('cy.e2e') },
  )
  await send(
    'client logout with a finished session',
    '/_matrix/client/v3/logout',
    { bearer: tok1, json: {} },
    { status: 401, activity: 'client-logout', outcome: 'failed', requester: NONE },
  )

  // Tokens: issuance (and a bad client), introspection, revocation.
  const ccForm = { grant_type: 'client_credentials', scope: 'urn:mas:admin' }
  const t1 = await send(
    'token issuance',
    '/oauth2/token',
    { form: ccForm, basic: [opts.adminClientId, opts.adminClientSecret] },
    { status: 200, activity: 'token-issuance', outcome: 'ok', requester: adminClient },
  )
  const access = ((await t1.json()) as { access_token: string }).access_token
  await send(
    'token issuance (client_secret_post)',
    '/oauth2/token',
    { form: { ...ccForm, client_id: opts.adminClientId, client_secret: opts.adminClientSecret } },
    { status: 200, activity: 'token-issuance', outcome: 'ok', requester: adminClient },
  )
  await send(
    'token issuance with a bad client secret',
    '/oauth2/token',
    { form: ccForm, basic: [opts.adminClientId, 'wrong-secret'] },
    { status: 401, activity: 'token-issuance', outcome: 'failed', requester: NONE },
  )
  const intro = await send(
    'introspection',
    '/oauth2/introspect',
    { form: { token: access }, basic: [opts.adminClientId, opts.adminClientSecret] },
    { status: 200, activity: 'token-introspection', outcome: 'ok', requester: adminClient },
  )
  t.equal(((await intro.json()) as { active?: unknown }).active, true, 'the issued token is active')
  await send(
    'admin API with the issued token',
    '/api/admin/v1/version',
    { bearer: access },
    { status: 200, activity: 'other', outcome: 'ok', requester: adminClient },
  )
  await send(
    'revocation',
    '/oauth2/revoke',
    { form: { token: access }, basic: [opts.adminClientId, opts.adminClientSecret] },
    { status: 200, activity: 'token-revocation', outcome: 'ok', requester: adminClient },
  )
  await send(
    'revocation with a bad client',
    '/oauth2/revoke',
    { form: { token: access }, basic: [opts.adminClientId, 'wrong-secret'] },
    { status: 401, activity: 'token-revocation', outcome: 'failed', requester: NONE },
  )
  await send(
    'introspection of the revoked token',
    '/oauth2/introspect',
    { form: { token: access }, basic: [opts.adminClientId, opts.adminClientSecret] },
    { status: 200, activity: 'token-introspection', outcome: 'ok', requester: adminClient },
  )

  // Authorization: a client with a redirect URI, then /authorize with and without a session.
  const reg = await send(
    'client registration',
    '/oauth2/registration',
    {
      json: {
        client_name: 'e2e app',
        client_uri: 'https://app.example.test/',
        redirect_uris: ['https://app.example.test/cb'],
        token_endpoint_auth_method: 'none',
      },
    },
    { status: 201, activity: 'other', outcome: 'ok', requester: NONE },
  )
  const appId = ((await reg.json()) as { client_id: string }).client_id
  const authz = new URLSearchParams({
    response_type: 'code',
    client_id: appId,
    redirect_uri: 'https://app.example.test/cb',
    scope: 'openid',
    state: 's1',
  }).toString()
  const granted = await send(
    'authorize with a session',
    `/authorize?${authz}`,
    { cookie: cookies['ada.e2e'] },
    { status: 303, activity: 'authorization-grant', outcome: 'ok', requester: userKey('ada.e2e') },
  )
  t.match(granted.headers.get('location') ?? '', /^\/consent\/[0-9A-Z]{26}$/, 'with a session the grant goes on to the consent page')
  await send(
    'authorize by form post',
    '/authorize',
    { cookie: cookies['bob.e2e'], form: Object.fromEntries(new URLSearchParams(authz)) },
    { status: 303, activity: 'authorization-grant', outcome: 'ok', requester: userKey('bob.e2e') },
  )
  // Without a session the user is sent to log in first: a 303 that the audit (by status) counts as ok.
  const toLogin = await send(
    'authorize without a session',
    `/authorize?${authz}`,
    {},
    { status: 303, activity: 'authorization-grant', outcome: 'ok', requester: NONE },
  )
  t.match(
    toLogin.headers.get('location') ?? '',
    /^\/login\?kind=continue_authorization_grant&id=/,
    'without a session /authorize sends the user to log in',
  )
  await send(
    'authorize for an unknown client',
    '/authorize?client_id=01J00000000000000000000000&redirect_uri=https%3A%2F%2Fx.test%2F',
    {},
    { status: 400, activity: 'authorization-grant', outcome: 'failed', requester: NONE },
  )

  // Browser logouts (the last: the sessions are used above).
  await send(
    'logout ada',
    '/logout',
    { cookie: cookies['ada.e2e'], form: {} },
    { status: 303, activity: 'browser-logout', outcome: 'ok', requester: userKey('ada.e2e') },
  )
  await send(
    'logout bob',
    '/logout',
    { cookie: cookies['bob.e2e'], form: {} },
    { status: 303, activity: 'browser-logout', outcome: 'ok', requester: userKey('bob.e2e') },
  )
  await send(
    'logout without a session',
    '/logout',
    { form: {} },
    { status: 303, activity: 'browser-logout', outcome: 'ok', requester: NONE },
  )
  await send(
    'GraphQL after logout',
    '/graphql',
    { cookie: cookies['ada.e2e'], json: gql('mutation RemoveEmail { removeEmail(input: {}) { status } }') },
    { status: 200, activity: 'account-self-service', outcome: 'ok', requester: NONE, op: 'RemoveEmail' },
  )

  // Admin API.
  await send(
    'admin API with the admin token',
    '/api/admin/v1/version',
    { bearer: opts.adminToken },
    { status: 200, activity: 'other', outcome: 'ok', requester: adminClient },
  )
  await send(
    'admin API without a token',
    '/api/admin/v1/compat-sessions',
    {},
    { status: 400, activity: 'other', outcome: 'failed', requester: NONE },
  )
  await send(
    'admin API, unknown session',
    '/api/admin/v1/compat-sessions/01040G2081040G2081040G2081',
    { bearer: opts.adminToken },
    { status: 404, activity: 'other', outcome: 'failed', requester: adminClient },
  )

  // Admin writes: activities of their own, each listed with its target and requester.
  const admin = async (what: string, method: string, p: string, json: unknown, status: number, activity: ActivityName, target?: string) => {
    const outcome: Outcome = status >= 200 && status < 300 ? 'ok' : 'failed'
    const res = await send(what, p, { method, bearer: opts.adminToken, json }, { status, activity, outcome, requester: adminClient })
    adminSent.push({ activity, method, path: p, ...(target !== undefined ? { target } : {}), requester: adminClient, status, outcome })
    return res
  }
  const c4 = await send('a fourth client login', '/_matrix/client/v3/login', clientLogin('cy.e2e', password), {
    status: 200,
    activity: 'client-login',
    outcome: 'ok',
    requester: userKey('cy.e2e'),
  })
  const active = m.world().mas.lookupAccessToken(((await c4.json()) as { access_token: string }).access_token)!.sessionId
  const UNKNOWN = '01040G2081040G2081040G2081'
  await admin(
    'finish an active compat session',
    'POST',
    `/api/admin/v1/compat-sessions/${active}/finish`,
    undefined,
    200,
    'admin-compat-session-finish',
    active,
  )
  await admin(
    'finish an unknown compat session',
    'POST',
    `/api/admin/v1/compat-sessions/${UNKNOWN}/finish`,
    undefined,
    404,
    'admin-compat-session-finish',
    UNKNOWN,
  )
  await admin(
    'finish an unknown OAuth 2.0 session',
    'POST',
    `/api/admin/v1/oauth2-sessions/${UNKNOWN}/finish`,
    undefined,
    404,
    'admin-oauth2-session-finish',
    UNKNOWN,
  )
  await admin(
    'revoke an unknown personal session',
    'POST',
    `/api/admin/v1/personal-sessions/${UNKNOWN}/revoke`,
    undefined,
    404,
    'admin-personal-session-revoke',
    UNKNOWN,
  )
  await admin(
    'regenerate an unknown personal session',
    'POST',
    `/api/admin/v1/personal-sessions/${UNKNOWN}/regenerate`,
    {},
    404,
    'admin-personal-session-regenerate',
    UNKNOWN,
  )
  await admin(
    'a personal session for an unknown actor',
    'POST',
    '/api/admin/v1/personal-sessions',
    { actor_user_id: UNKNOWN, human_name: 'e2e', scope: 'openid' },
    404,
    'admin-personal-session-create',
  )
  await admin('set policy data', 'POST', '/api/admin/v1/policy-data', { data: { e2e: true } }, 201, 'admin-policy-data-set')
  await admin('create a user', 'POST', '/api/admin/v1/users', { username: 'eve.e2e' }, 201, 'admin-user-create')
  await admin(
    'set the password of an unknown user',
    'POST',
    `/api/admin/v1/users/${UNKNOWN}/set-password`,
    { password },
    404,
    'admin-user-set-password',
    UNKNOWN,
  )
  await m.close()
})

// ---------------------------------------------------------------------------------------------------
// The audit against the tally

function compare(t: Test, r: AuditResult, how: string): void {
  t.equal(r.malformedCount, 0, `${how}: no malformed line`, { malformed: r.malformed })
  t.equal(r.requests, tally.requests, `${how}: ${tally.requests} requests sent, ${r.requests} counted`)
  t.equal(r.lines, r.requests + r.events + r.blank, `${how}: every line is a request or another event`)
  t.equal(r.formats['v1.20'], tally.requests, `${how}: all lines in the v1.20 format`)
  for (const a of ACTIVITIES) {
    const want = tally.activities[a]
    t.same(r.outcomes[a], want, `${how}: ${a}: ${want.ok} ok, ${want.failed} failed`)
    t.equal(r.activities[a], want.ok + want.failed, `${how}: ${a}: ${want.ok + want.failed} in all`)
  }
  t.same(r.operations, tally.operations, `${how}: GraphQL operations`)
  t.same(Object.keys(r.requesters).sort(), Object.keys(tally.requesters).sort(), `${how}: the same requesters`)
  for (const [key, acts] of Object.entries(tally.requesters)) {
    const got = r.requesters[key]
    const n = Object.values(acts).reduce((x, y) => x + y, 0)
    t.equal(got?.requests, n, `${how}: ${key}: ${n} requests`)
    t.same(got?.activities, acts, `${how}: ${key}: activities`)
  }
  for (const name of people)
    t.equal(r.requesters[userKey(name)]?.username, name, `${how}: ${userKey(name)} is shown with its username ${name}`)
  t.same(
    r.adminActions.map(({ line: _l, timestamp: _t, ...e }) => e),
    adminSent,
    `${how}: the ${adminSent.length} admin actions in order, with their targets and requesters`,
  )
  t.ok(
    r.adminActions.every((e) => r.timeRange !== null && e.timestamp >= r.timeRange.first && e.timestamp <= r.timeRange.last),
    `${how}: admin actions within the time range`,
  )
}

t.test('the mock logged one parseable line per request', async (t) => {
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
  const responses = lines.map((l) => parseLine(l)).filter((p) => p.kind === 'response')
  t.equal(responses.length, tally.requests, `${tally.requests} response lines`)
  t.ok(
    lines.every((l) => parseLine(l).kind !== 'malformed'),
    'no line is malformed',
  )
  const gqlLines = responses.flatMap((p) => (p.kind === 'response' && p.line.path === '/graphql' ? [p.line] : []))
  t.ok(
    gqlLines.filter((l) => l.status === 200).every((l) => l.graphqlOperationType !== undefined),
    'every GraphQL request that held an operation logs its type',
  )
  t.ok(
    responses.every((p) => p.kind !== 'response' || p.line.path === '/graphql' || p.line.graphqlOperationType === undefined),
    'graphql.operation.* only on /graphql',
  )
})

t.test('auditStream counts what was sent', async (t) => {
  const r = await auditStream(createReadStream(logFile))
  compare(t, r, 'auditStream')
})

t.test('the timeline of one user follows what they did, in order', async (t) => {
  const key = userKey('cy.e2e')
  const r = await auditStream(createReadStream(logFile), { requester: key })
  t.same(
    r.timeline?.map((e) => e.activity),
    timelineOf.get(key),
    `the activities of ${key}`,
  )
  t.ok(
    r.timeline?.every((e) => e.clientAddress === '127.0.0.1'),
    'each entry has the client address',
  )
})

t.test('audit-log --json counts what was sent', async (t) => {
  const p = spawnSync(process.execPath, [path.join(ROOT, 'bin/admin-conformance.mjs'), 'audit-log', '--json', logFile], {
    encoding: 'utf8',
    timeout: 120_000,
  })
  t.equal(p.status, 0, 'exit status 0 (no malformed line)', { stderr: p.stderr })
  let r: AuditResult | undefined
  try {
    r = JSON.parse(p.stdout) as AuditResult
  } catch (e) {
    t.fail(`the output is JSON: ${(e as Error).message}`, { stdout: p.stdout.slice(0, 500) })
  }
  if (r) compare(t, r, 'audit-log --json')
})

t.test('figures', async (t) => {
  const sent = Object.fromEntries(ACTIVITIES.map((a) => [a, tally.activities[a].ok + tally.activities[a].failed]))
  t.comment(
    `requests driven: ${tally.requests}; per activity: ${JSON.stringify(sent)}; operations: ${JSON.stringify(tally.operations)}; requesters: ${Object.keys(tally.requesters).length}`,
  )
  t.ok(
    AREA_C_ACTIVITIES.every((a) => tally.activities[a].ok + tally.activities[a].failed > 0),
    'the traffic covers every activity of the table',
  )
  // The mock serves only some admin writes; classify.test.ts covers every admin route.
  t.ok(
    adminSent.length >= 9 && new Set(adminSent.map((a) => a.activity)).size >= 8,
    `admin actions of ${new Set(adminSent.map((a) => a.activity)).size} kinds driven`,
  )
  t.ok(ACTIVITIES.filter((a) => tally.activities[a].failed > 0).length >= 8, 'and failure outcomes of most of them')
})
