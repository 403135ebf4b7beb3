// The activity table of the interface (area C), row by row, with the outcome of each status.
import t from 'tap'
import { ACTIVITIES, classify, type ActivityName, type Outcome } from '../../../scripts/audit-log/auditor.ts'
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
    stats: format === 'v1.20' ? { polls: 1, cpuMs: 0, dbMs: 0, elapsedMs: 0, queries: 0, fetched: 0 } : { polls: 1, cpuMs: 0, elapsedMs: 0 },
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
  ['POST', '/api/admin/v1/compat-sessions/01J44S0000000000000000000A/finish', 400, USER, 'other', 'failed'],
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
  t.same(ACTIVITIES.filter((a) => !covered.has(a)), [], 'every activity is exercised')
})

t.test('the client prefix is configurable', async (t) => {
  t.same(classify(line('POST', '/_compat/client/v3/login', 200, USER), { clientPrefix: '/_compat' }), { activity: 'client-login', outcome: 'ok' })
  t.same(classify(line('POST', '/_compat/client/v3/logout', 200, USER), { clientPrefix: '/_compat/' }), { activity: 'client-logout', outcome: 'ok' })
  t.same(classify(line('POST', '/_matrix/client/v3/login', 200, USER), { clientPrefix: '/_compat' }), { activity: 'other', outcome: 'ok' })
  t.same(classify(line('POST', '/client/v3/login', 200, USER), { clientPrefix: '' }), { activity: 'client-login', outcome: 'ok' }, 'an empty prefix')
})

t.test('activity names are exactly the documented ones', async (t) => {
  t.same([...ACTIVITIES], [
    'browser-login', 'browser-login-failed', 'browser-logout', 'registration', 'upstream-login', 'client-login', 'client-logout',
    'token-issuance', 'token-revocation', 'token-introspection', 'authorization-grant', 'account-self-service', 'other',
  ])
})
