// The activity table of the interface (area C) and the admin actions, row by row, with the outcome
// of each status.
import t from 'tap'
import { ACTIVITIES, classify, type ActivityName, type Outcome } from '../../../scripts/audit-log/index.ts'
import { levelForStatus, reasonPhrase, type LogFormat, type Requester, type ResponseLine } from '../../../lib/requestlog.ts'

const USER: Requester = { kind: 'user', id: '01J2KDPHTZYW3TAT1SKVAD63SQ', username: 'alice' }
const CLIENT: Requester = { kind: 'oauth2-client', id: '01J44RKQYM4G3TNVANTMTDYTX6' }
const HS: Requester = { kind: 'homeserver' }

function line(method: string, path: string, status: number, requester?: Requester, format: LogFormat = 'v1.20'): ResponseLine {
  const rec: ResponseLine = {
    timestamp: '2026-06-17T10:52:03.118204Z',
    level: levelForStatus(status),
    requestId: { method, counter: 1 },
    method,
    path,
    httpVersion: '1.1',
    status,
    reason: reasonPhrase(status),
    userAgent: null,
    stats:
      format === 'v1.20' ? { polls: 1, cpuMs: 0, dbMs: 0, elapsedMs: 0, queries: 0, fetched: 0 } : { polls: 1, cpuMs: 0, elapsedMs: 0 },
    format,
  }
  if (requester !== undefined) rec.requester = requester
  return rec
}

// [method, path, status, requester, expected activity, expected outcome, format?]
type Row = [string, string, number, Requester | undefined, ActivityName, Outcome, LogFormat?]
const rows: Row[] = [
  // Browser login: 303 with a requester; a 200 re-renders the form (wrong password).
  ['POST', '/login', 303, USER, 'browser-login', 'ok'],
  ['POST', '/login', 200, undefined, 'browser-login-failed', 'failed'],
  ['POST', '/login', 303, undefined, 'browser-login', 'failed'],
  ['POST', '/login', 303, undefined, 'browser-login', 'ok', 'pre-v1.20'],
  ['POST', '/login', 200, undefined, 'browser-login-failed', 'failed', 'pre-v1.20'],
  ['POST', '/login', 429, undefined, 'browser-login', 'failed'],
  ['POST', '/login', 500, undefined, 'browser-login', 'failed'],
  ['GET', '/login', 200, undefined, 'other', 'ok'],
  // Browser logout.
  ['POST', '/logout', 303, USER, 'browser-logout', 'ok'],
  ['POST', '/logout', 400, USER, 'browser-logout', 'failed'],
  // Registration.
  ['GET', '/register/steps/01J3M0R1J7E4W0Y9G2H5K8N6QT/finish', 303, USER, 'registration', 'ok'],
  ['GET', '/register/steps/01J3M0R1J7E4W0Y9G2H5K8N6QT/finish', 200, undefined, 'registration', 'failed'],
  ['GET', '/register/steps/01J3M0R1J7E4W0Y9G2H5K8N6QT/verify-email', 200, undefined, 'other', 'ok'],
  ['GET', '/register', 200, undefined, 'other', 'ok'],
  // Upstream provider.
  ['POST', '/upstream/link/01J3M0S5D9V2C7X4B1N8M6K3PR', 303, USER, 'upstream-login', 'ok'],
  ['POST', '/upstream/link/01J3M0S5D9V2C7X4B1N8M6K3PR', 303, undefined, 'upstream-login', 'failed'],
  ['POST', '/upstream/link/01J3M0S5D9V2C7X4B1N8M6K3PR', 200, undefined, 'upstream-login', 'failed'],
  ['GET', '/upstream/link/01J3M0S5D9V2C7X4B1N8M6K3PR', 200, undefined, 'other', 'ok'],
  // Client login/logout through the compatibility layer.
  ['POST', '/_matrix/client/v3/login', 200, USER, 'client-login', 'ok'],
  ['POST', '/_matrix/client/r0/login', 200, USER, 'client-login', 'ok'],
  ['POST', '/_matrix/client/v3/login', 200, undefined, 'client-login', 'failed'],
  ['POST', '/_matrix/client/v3/login', 403, undefined, 'client-login', 'failed'],
  ['POST', '/_matrix/client/v3/login', 200, undefined, 'client-login', 'ok', 'pre-v1.20'],
  ['GET', '/_matrix/client/v3/login', 200, undefined, 'other', 'ok'],
  ['POST', '/_matrix/client/v3/logout', 200, USER, 'client-logout', 'ok'],
  ['POST', '/_matrix/client/v3/logout/all', 200, USER, 'client-logout', 'ok'],
  ['POST', '/_matrix/client/v3/logout', 401, undefined, 'client-logout', 'failed'],
  ['POST', '/_matrix/client/v3/refresh', 200, USER, 'other', 'ok'],
  ['POST', '/_matrix/client/v3/x/login', 200, USER, 'other', 'ok'],
  // Token endpoints: the requester is the client (or the homeserver for introspection).
  ['POST', '/oauth2/token', 200, CLIENT, 'token-issuance', 'ok'],
  ['POST', '/oauth2/token', 401, CLIENT, 'token-issuance', 'failed'],
  ['POST', '/oauth2/token', 400, undefined, 'token-issuance', 'failed'],
  ['POST', '/oauth2/revoke', 200, CLIENT, 'token-revocation', 'ok'],
  ['POST', '/oauth2/revoke', 401, undefined, 'token-revocation', 'failed'],
  ['POST', '/oauth2/introspect', 200, HS, 'token-introspection', 'ok'],
  ['POST', '/oauth2/introspect', 200, CLIENT, 'token-introspection', 'ok'],
  ['POST', '/oauth2/introspect', 401, undefined, 'token-introspection', 'failed'],
  // Authorization grant.
  ['GET', '/authorize', 303, USER, 'authorization-grant', 'ok'],
  ['POST', '/authorize', 303, USER, 'authorization-grant', 'ok'],
  ['GET', '/authorize', 400, undefined, 'authorization-grant', 'failed'],
  ['GET', '/authorize', 200, USER, 'authorization-grant', 'failed'],
  // Account self-service: 200 means attempted.
  ['POST', '/graphql', 200, USER, 'account-self-service', 'ok'],
  ['POST', '/graphql', 400, USER, 'account-self-service', 'failed'],
  ['GET', '/graphql', 200, USER, 'other', 'ok'],
  // Everything else.
  ['GET', '/api/admin/v1/compat-sessions', 200, CLIENT, 'other', 'ok'],
  // Admin writes are activities of their own: ok when answered 2xx.
  ['POST', '/api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish', 400, USER, 'admin-compat-session-finish', 'failed'],
  ['POST', '/api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish', 200, CLIENT, 'admin-compat-session-finish', 'ok'],
  ['POST', '/api/admin/v1/oauth2-sessions/01J44S0000000000000000000B/finish', 200, CLIENT, 'admin-oauth2-session-finish', 'ok'],
  ['POST', '/api/admin/v1/user-sessions/01J44S0000000000000000000C/finish', 404, CLIENT, 'admin-user-session-finish', 'failed'],
  ['POST', '/api/admin/v1/personal-sessions', 201, CLIENT, 'admin-personal-session-create', 'ok'],
  ['POST', '/api/admin/v1/personal-sessions/01J44S0000000000000000000D/revoke', 200, CLIENT, 'admin-personal-session-revoke', 'ok'],
  ['POST', '/api/admin/v1/personal-sessions/01J44S0000000000000000000D/regenerate', 200, CLIENT, 'admin-personal-session-regenerate', 'ok'],
  ['POST', '/api/admin/v1/policy-data', 201, CLIENT, 'admin-policy-data-set', 'ok'],
  ['POST', '/api/admin/v1/users', 201, CLIENT, 'admin-user-create', 'ok'],
  ['POST', '/api/admin/v1/users/01J44S0000000000000000000E/lock', 200, CLIENT, 'admin-user-lock', 'ok'],
  ['POST', '/api/admin/v1/users/01J44S0000000000000000000E/unlock', 200, CLIENT, 'admin-user-unlock', 'ok'],
  ['POST', '/api/admin/v1/users/01J44S0000000000000000000E/deactivate', 200, CLIENT, 'admin-user-deactivate', 'ok'],
  ['POST', '/api/admin/v1/users/01J44S0000000000000000000E/reactivate', 200, CLIENT, 'admin-user-reactivate', 'ok'],
  ['POST', '/api/admin/v1/users/01J44S0000000000000000000E/set-admin', 200, CLIENT, 'admin-user-set-admin', 'ok'],
  ['POST', '/api/admin/v1/users/01J44S0000000000000000000E/set-password', 204, CLIENT, 'admin-user-set-password', 'ok'],
  ['POST', '/api/admin/v1/user-emails', 201, CLIENT, 'admin-user-email-add', 'ok'],
  ['DELETE', '/api/admin/v1/user-emails/01J44S0000000000000000000F', 204, CLIENT, 'admin-user-email-delete', 'ok'],
  ['POST', '/api/admin/v1/user-registration-tokens', 201, CLIENT, 'admin-registration-token-add', 'ok'],
  [
    'POST',
    '/api/admin/v1/user-registration-tokens/01J44S0000000000000000000G/revoke',
    200,
    CLIENT,
    'admin-registration-token-revoke',
    'ok',
  ],
  [
    'POST',
    '/api/admin/v1/user-registration-tokens/01J44S0000000000000000000G/unrevoke',
    400,
    CLIENT,
    'admin-registration-token-unrevoke',
    'failed',
  ],
  ['PUT', '/api/admin/v1/user-registration-tokens/01J44S0000000000000000000G', 200, CLIENT, 'admin-registration-token-update', 'ok'],
  ['POST', '/api/admin/v1/upstream-oauth-links', 201, CLIENT, 'admin-upstream-link-add', 'ok'],
  ['DELETE', '/api/admin/v1/upstream-oauth-links/01J44S0000000000000000000H', 204, CLIENT, 'admin-upstream-link-delete', 'ok'],
  ['DELETE', '/_synapse/admin/v1/event_reports/42', 200, undefined, 'admin-event-report-delete', 'ok'],
  ['DELETE', '/_synapse/admin/v1/event_reports/42', 404, undefined, 'admin-event-report-delete', 'failed'],
  // …but not reads, other methods, or paths beside the routes.
  ['GET', '/api/admin/v1/users/01J44S0000000000000000000E/lock', 200, CLIENT, 'other', 'ok'],
  ['GET', '/_synapse/admin/v1/event_reports/42', 200, undefined, 'other', 'ok'],
  ['PATCH', '/api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish', 405, CLIENT, 'other', 'failed'],
  ['POST', '/api/admin/v1/compat-sessions//finish', 404, CLIENT, 'other', 'failed'],
  ['POST', '/api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish/', 404, CLIENT, 'other', 'failed'],
  ['POST', '/api/admin/v1/users/01J44S0000000000000000000E/frobnicate', 404, CLIENT, 'other', 'failed'],
  ['DELETE', '/api/admin/v1/users/01J44S0000000000000000000E', 405, CLIENT, 'other', 'failed'],
  ['_OTHER', '/login', 405, undefined, 'other', 'failed'],
  ['GET', '/health', 200, undefined, 'other', 'ok'],
  ['GET', '/nope', 301, undefined, 'other', 'ok'],
]

t.test('classification table', async (t) => {
  for (const [method, path, status, requester, activity, outcome, format] of rows) {
    const got = classify(line(method, path, status, requester, format))
    t.same(got, { activity, outcome }, `${method} ${path} ${status}${requester ? ' ' + requester.kind : ''}${format ? ' ' + format : ''}`)
  }
  const covered = new Set(rows.map((r) => r[4]))
  t.same(
    ACTIVITIES.filter((a) => !covered.has(a)),
    [],
    'every activity is exercised',
  )
})

t.test('the client prefix is configurable', async (t) => {
  t.same(classify(line('POST', '/_compat/client/v3/login', 200, USER), { clientPrefix: '/_compat' }), {
    activity: 'client-login',
    outcome: 'ok',
  })
  t.same(classify(line('POST', '/_compat/client/v3/logout', 200, USER), { clientPrefix: '/_compat/' }), {
    activity: 'client-logout',
    outcome: 'ok',
  })
  t.same(classify(line('POST', '/_matrix/client/v3/login', 200, USER), { clientPrefix: '/_compat' }), { activity: 'other', outcome: 'ok' })
  t.same(
    classify(line('POST', '/client/v3/login', 200, USER), { clientPrefix: '' }),
    { activity: 'client-login', outcome: 'ok' },
    'an empty prefix',
  )
})

t.test('activity names are exactly the documented ones', async (t) => {
  t.same(
    [...ACTIVITIES],
    [
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
      'admin-compat-session-finish',
      'admin-oauth2-session-finish',
      'admin-user-session-finish',
      'admin-personal-session-create',
      'admin-personal-session-revoke',
      'admin-personal-session-regenerate',
      'admin-policy-data-set',
      'admin-user-create',
      'admin-user-lock',
      'admin-user-unlock',
      'admin-user-deactivate',
      'admin-user-reactivate',
      'admin-user-set-admin',
      'admin-user-set-password',
      'admin-user-email-add',
      'admin-user-email-delete',
      'admin-registration-token-add',
      'admin-registration-token-revoke',
      'admin-registration-token-unrevoke',
      'admin-registration-token-update',
      'admin-upstream-link-add',
      'admin-upstream-link-delete',
      'admin-event-report-delete',
      'other',
    ],
  )
})

t.test('the target of an admin action is the id in its path', async (t) => {
  const { ADMIN_ACTIONS, adminActionIndex, adminTarget } = await import('../../../scripts/audit-log/admin-actions.ts')
  const i = adminActionIndex('POST', '/api/admin/v1/personal-sessions/01J44S0000000000000000000D/regenerate')
  t.equal(ADMIN_ACTIONS[i]!.activity, 'admin-personal-session-regenerate')
  t.equal(adminTarget(i, '/api/admin/v1/personal-sessions/01J44S0000000000000000000D/regenerate'), '01J44S0000000000000000000D')
  const r = adminActionIndex('DELETE', '/_synapse/admin/v1/event_reports/42')
  t.equal(adminTarget(r, '/_synapse/admin/v1/event_reports/42'), '42')
  const c = adminActionIndex('POST', '/api/admin/v1/policy-data')
  t.equal(adminTarget(c, '/api/admin/v1/policy-data'), undefined, 'no target for policy data')
  t.equal(
    adminTarget(adminActionIndex('DELETE', '/api/admin/v1/user-emails/a%20b'), '/api/admin/v1/user-emails/a%20b'),
    'a b',
    'percent-decoded',
  )
})
