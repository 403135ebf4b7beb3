// `--state DIR` against a real crash, for the write families beyond the sessions of the interface
// document (./state-crash.test.ts has those): user e-mails (add, delete), user actions (lock,
// unlock, deactivate, reactivate, set-admin), registration tokens (add, update, revoke, unrevoke),
// upstream links (add, delete), OAuth 2.0 and browser session finishes, policy data, event-report
// deletion, reports through the client API, user reports (filed and deleted), and browser sign-ins (their cookies). Eight clients
// stream them concurrently and the mock is killed with SIGKILL in the middle; after a restart
// with the same --state every acknowledged write is there as its answer said, and every record
// that differs from before the stream is explained by a write that was acknowledged or in flight.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { API, HS_ADMIN, HS_USER, browserLogin, call, kill9, listAll, signedIn, start, streamUntilKill } from './state-helpers.ts'

type Answer = { status: number; body: any; cookie?: string }
interface Op {
  kind: string
  /** the record it writes: an id, or for a creation the value that identifies it (address, token text, subject, reason) */
  key: string
  run: (url: string) => Promise<Answer>
  /** after the restart: undefined when the acknowledged write is there as answered */
  check: (url: string, ack: Answer) => Promise<string | undefined>
}

const attrsOf = async (u: string, p: string) => (await call(u, 'GET', p)).body?.data?.attributes
const sameAs = (p: string) => async (u: string, ack: Answer) =>
  JSON.stringify(await attrsOf(u, p)) === JSON.stringify(ack.body.data.attributes) ? undefined : `${p} differs`
const gone = (p: string, token?: string) => async (u: string) =>
  (await call(u, 'GET', p, undefined, token)).status === 404 ? undefined : `${p} still there`
const createdSame = (family: string) => async (u: string, ack: Answer) => sameAs(`${API}/${family}/${ack.body.data.id}`)(u, ack)
const REPORTS = '/_synapse/admin/v1/event_reports'
const USER_REPORTS = '/_synapse/admin/v1/user_reports'

/** every record of the families, by id, as JSON of its attributes */
async function snapshot(u: string): Promise<Record<string, Map<string, any>>> {
  const byId = (rows: any[]) => new Map(rows.map((r) => [String(r.id), r.attributes ?? r]))
  const reports = (await call(u, 'GET', `${REPORTS}?limit=10000`, undefined, HS_ADMIN)).body.event_reports
  return {
    users: byId(await listAll(u, `${API}/users`)),
    emails: byId(await listAll(u, `${API}/user-emails`)),
    tokens: byId(await listAll(u, `${API}/user-registration-tokens`)),
    links: byId(await listAll(u, `${API}/upstream-oauth-links`)),
    oauth2: byId(await listAll(u, `${API}/oauth2-sessions`)),
    browser: byId(await listAll(u, `${API}/user-sessions`)),
    reports: byId(reports),
    userReports: byId((await call(u, 'GET', `${USER_REPORTS}?limit=10000`, undefined, HS_ADMIN)).body.user_reports),
  }
}

interface World {
  active: any[]
  locked: any[]
  deactivated: any[]
  emails: any[]
  tokens: any[]
  links: any[]
  providers: any[]
  oauth2: any[]
  browser: any[]
  reports: number[]
  userReports: number[]
  /** a local user to report */
  reported: string
  room: string
  event: string
}

/** Each record is written by one op at most, so each answer says exactly what must be there. */
function buildOps(w: World): { ops: Op[]; login: any; deactivated: Set<string> } {
  const ops: Op[] = []
  const users = w.active.slice()
  const take = (n: number) => users.splice(0, n)
  const login = take(1)[0]
  const deactivate = take(3)
  const userOp = (kind: string, u: any, body?: unknown) =>
    ops.push({
      kind,
      key: u.id,
      run: (url) => call(url, 'POST', `${API}/users/${u.id}/${kind}`, body),
      check: sameAs(`${API}/users/${u.id}`),
    })
  for (const u of take(4)) userOp('lock', u)
  for (const u of deactivate) userOp('deactivate', u)
  for (const u of take(4)) userOp('set-admin', u, { admin: !u.attributes.admin })
  for (const u of w.locked.slice(0, 3)) userOp('unlock', u)
  for (const u of w.deactivated.slice(0, 3)) userOp('reactivate', u)
  const owners = w.active
  for (let i = 0; i < 10; i++) {
    const email = `crash-${i}@example.test`
    ops.push({
      kind: 'email-add',
      key: email,
      run: (u) => call(u, 'POST', `${API}/user-emails`, { user_id: owners[i % owners.length]!.id, email }),
      check: createdSame('user-emails'),
    })
  }
  for (const e of w.emails.slice(0, 6))
    ops.push({
      kind: 'email-delete',
      key: e.id,
      run: (u) => call(u, 'DELETE', `${API}/user-emails/${e.id}`),
      check: gone(`${API}/user-emails/${e.id}`),
    })
  for (let i = 0; i < 6; i++) {
    const token = `crash-token-${i}`
    ops.push({
      kind: 'token-add',
      key: token,
      run: (u) => call(u, 'POST', `${API}/user-registration-tokens`, { token, usage_limit: 3 + i }),
      check: createdSame('user-registration-tokens'),
    })
  }
  const [revoked, unrevoked] = [
    w.tokens.filter((x) => x.attributes.revoked_at !== null),
    w.tokens.filter((x) => x.attributes.revoked_at === null),
  ]
  const tokenOp = (kind: string, x: any, run: (u: string) => Promise<Answer>) =>
    ops.push({ kind, key: x.id, run, check: sameAs(`${API}/user-registration-tokens/${x.id}`) })
  for (const x of revoked) tokenOp('token-unrevoke', x, (u) => call(u, 'POST', `${API}/user-registration-tokens/${x.id}/unrevoke`))
  unrevoked.forEach((x, i) =>
    i % 2 === 0
      ? tokenOp('token-revoke', x, (u) => call(u, 'POST', `${API}/user-registration-tokens/${x.id}/revoke`))
      : tokenOp('token-update', x, (u) =>
          call(u, 'PUT', `${API}/user-registration-tokens/${x.id}`, { usage_limit: 50 + i, expires_at: null }),
        ),
  )
  for (let i = 0; i < 6; i++) {
    const subject = `crash-subject-${i}`
    const body = {
      user_id: owners[i % owners.length]!.id,
      provider_id: w.providers[i % w.providers.length]!.id,
      subject,
      human_account_name: `crash${i}`,
    }
    ops.push({
      kind: 'link-add',
      key: subject,
      run: (u) => call(u, 'POST', `${API}/upstream-oauth-links`, body),
      check: createdSame('upstream-oauth-links'),
    })
  }
  for (const l of w.links.slice(0, 4))
    ops.push({
      kind: 'link-delete',
      key: l.id,
      run: (u) => call(u, 'DELETE', `${API}/upstream-oauth-links/${l.id}`),
      check: gone(`${API}/upstream-oauth-links/${l.id}`),
    })
  // sessions of users no action touches
  const untouched = (s: any) => users.some((u) => u.id === s.attributes.user_id)
  for (const s of w.oauth2.filter(untouched).slice(0, 8))
    ops.push({
      kind: 'oauth2-finish',
      key: s.id,
      run: (u) => call(u, 'POST', `${API}/oauth2-sessions/${s.id}/finish`),
      check: sameAs(`${API}/oauth2-sessions/${s.id}`),
    })
  for (const s of w.browser.filter(untouched).slice(0, 8))
    ops.push({
      kind: 'browser-finish',
      key: s.id,
      run: (u) => call(u, 'POST', `${API}/user-sessions/${s.id}/finish`),
      check: sameAs(`${API}/user-sessions/${s.id}`),
    })
  for (let i = 0; i < 5; i++)
    ops.push({
      kind: 'policy',
      key: `policy ${i}`,
      run: (u) => call(u, 'POST', `${API}/policy-data`, { data: { crash: i } }),
      check: createdSame('policy-data'),
    })
  for (const id of w.reports.slice(0, 5))
    ops.push({
      kind: 'report-delete',
      key: String(id),
      run: (u) => call(u, 'DELETE', `${REPORTS}/${id}`, undefined, HS_ADMIN),
      check: gone(`${REPORTS}/${id}`, HS_ADMIN),
    })
  for (let i = 0; i < 6; i++) {
    const reason = `crash-report-${i}`
    const p = `/_matrix/client/v3/rooms/${encodeURIComponent(w.room)}/report/${encodeURIComponent(w.event)}`
    ops.push({
      kind: 'client-report',
      key: reason,
      run: (u) => call(u, 'POST', p, { reason, score: -10 }, HS_USER),
      check: async (u) =>
        (await call(u, 'GET', `${REPORTS}?limit=10000`, undefined, HS_ADMIN)).body.event_reports.some((r: any) => r.reason === reason)
          ? undefined
          : `report ${reason} missing`,
    })
  }
  for (const id of w.userReports.slice(0, 4))
    ops.push({
      kind: 'user-report-delete',
      key: String(id),
      run: (u) => call(u, 'DELETE', `${USER_REPORTS}/${id}`, undefined, HS_ADMIN),
      check: gone(`${USER_REPORTS}/${id}`, HS_ADMIN),
    })
  for (let i = 0; i < 5; i++) {
    const reason = `crash-user-report-${i}`
    ops.push({
      kind: 'client-user-report',
      key: reason,
      run: (u) => call(u, 'POST', `/_matrix/client/v3/users/${encodeURIComponent(w.reported)}/report`, { reason }, HS_USER),
      check: async (u) =>
        (await call(u, 'GET', `${USER_REPORTS}?limit=10000`, undefined, HS_ADMIN)).body.user_reports.some((r: any) => r.reason === reason)
          ? undefined
          : `user report ${reason} missing`,
    })
  }
  for (let i = 0; i < 4; i++) {
    ops.push({
      kind: 'login',
      key: `login ${i}`,
      run: async (u) => {
        const cookie = await browserLogin(u, login.attributes.username, 'mock-password')
        return { status: cookie ? 200 : 400, body: null, cookie }
      },
      check: async (u, ack) =>
        (await signedIn(u, ack.cookie!, login.attributes.username)) ? undefined : `cookie of login ${i} no longer signs in`,
    })
  }
  // interleave the kinds deterministically
  const order = ops.map((op, i) => ({ op, k: (i * 104729) % 1013 }))
  return { ops: order.sort((a, b) => a.k - b.k).map((x) => x.op), login, deactivated: new Set(deactivate.map((u) => u.id)) }
}

/** records that differ from before the stream without a write that explains them */
function unexplained(
  before: Record<string, Map<string, any>>,
  after: Record<string, Map<string, any>>,
  sent: Op[],
  acked: Op[],
  loginUser: string,
  deactivated: Set<string>,
): string[] {
  const keys = new Set(sent.map((o) => o.key))
  const out: string[] = []
  const changed = (family: string, explain: (id: string, attrs: any) => boolean) => {
    for (const [id, a] of after[family]!)
      if (JSON.stringify(before[family]!.get(id)) !== JSON.stringify(a) && !explain(id, a)) out.push(`${family} ${id} changed`)
    for (const id of before[family]!.keys()) if (!after[family]!.has(id) && !keys.has(id)) out.push(`${family} ${id} gone`)
  }
  const bySession = (id: string, a: any) => keys.has(id) || deactivated.has(a.user_id)
  changed('users', (id) => keys.has(id))
  changed('emails', (id, a) => keys.has(id) || keys.has(a.email))
  changed('tokens', (id, a) => keys.has(id) || keys.has(a.token))
  changed('links', (id, a) => keys.has(id) || keys.has(a.subject))
  changed('oauth2', bySession)
  changed('browser', (id, a) => bySession(id, a) || (!before.browser!.has(id) && a.user_id === loginUser))
  changed('reports', (id, a) => keys.has(id) || keys.has(a.reason))
  changed('userReports', (id, a) => keys.has(id) || keys.has(a.reason))
  const logins = [...after.browser!.keys()].filter((id) => !before.browser!.has(id)).length
  const [ackedLogins, sentLogins] = [acked, sent].map((l) => l.filter((o) => o.kind === 'login').length)
  if (logins < ackedLogins! || logins > sentLogins!)
    out.push(`${logins} new browser sessions for ${ackedLogins} acknowledged and ${sentLogins} sent sign-ins`)
  return out
}

t.test('every family: acknowledged writes survive kill -9, nothing else changes', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-state-families-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let mock = await start(dir)
  t.teardown(() => kill9(mock))
  const url = mock.url
  const room = (await call(url, 'POST', '/_matrix/client/v3/createRoom', { name: 'crash' }, HS_USER)).body.room_id
  const sent = await call(
    url,
    'PUT',
    `/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/crash1`,
    { msgtype: 'm.text', body: 'crash' },
    HS_USER,
  )
  const w: World = {
    active: await listAll(url, `${API}/users?filter[status]=active`),
    locked: (await listAll(url, `${API}/users?filter[status]=locked`)).filter((u) => u.attributes.deactivated_at === null),
    deactivated: await listAll(url, `${API}/users?filter[status]=deactivated`),
    emails: await listAll(url, `${API}/user-emails`),
    tokens: await listAll(url, `${API}/user-registration-tokens`),
    links: await listAll(url, `${API}/upstream-oauth-links`),
    providers: (await listAll(url, `${API}/upstream-oauth-providers`)).filter((p) => p.attributes.disabled_at === null),
    oauth2: await listAll(url, `${API}/oauth2-sessions?filter[status]=active`),
    browser: await listAll(url, `${API}/user-sessions?filter[status]=active`),
    reports: ((await call(url, 'GET', `${REPORTS}?limit=1000`, undefined, HS_ADMIN)).body.event_reports as { id: number }[]).map(
      (r) => r.id,
    ),
    userReports: ((await call(url, 'GET', `${USER_REPORTS}?limit=1000`, undefined, HS_ADMIN)).body.user_reports as { id: number }[]).map(
      (r) => r.id,
    ),
    reported: (await call(url, 'GET', '/_matrix/client/v3/account/whoami', undefined, HS_ADMIN)).body.user_id,
    room,
    event: sent.body.event_id,
  }
  const before = await snapshot(url)
  const { ops, login, deactivated } = buildOps(w)
  t.ok(new Set(ops.map((o) => o.kind)).size >= 19, `${ops.length} writes of ${new Set(ops.map((o) => o.kind)).size} kinds`)

  const stream = await streamUntilKill(
    ops,
    (op) => op.run(url),
    Math.floor(ops.length * 0.6),
    () => kill9(mock),
  )
  const { started, killed } = stream
  const acked = stream.acked.map(({ op, answer }) => ({ op, ack: answer }))
  t.ok(killed, `killed after ${acked.length} acknowledged writes of ${ops.length} (${started.length} sent)`)
  t.ok(
    new Set(acked.map((a) => a.op.kind)).size >= 15,
    `acknowledged kinds: ${[...new Set(acked.map((a) => a.op.kind))].sort().join(', ')}`,
  )

  mock = await start(dir)
  const u2 = mock.url
  const info = (await call(u2, 'GET', '/_mock/info')).body
  t.comment(
    `acknowledged ${acked.length}, sent ${started.length}, records replayed ${info.state.replayed}, torn tail ${JSON.stringify(info.state.tornTail)}`,
  )
  const missing: string[] = []
  for (const { op, ack } of acked) {
    const why = await op.check(u2, ack)
    if (why) missing.push(`${op.kind} ${op.key}: ${why}`)
  }
  t.same(missing, [], `every acknowledged write (${acked.length}) is there, as acknowledged`)
  const after = await snapshot(u2)
  t.same(
    unexplained(
      before,
      after,
      started,
      acked.map((a) => a.op),
      login.id,
      deactivated,
    ),
    [],
    'every other record is as before the stream',
  )
  for (const p of [
    'users?filter[status]=locked',
    'user-emails',
    'user-registration-tokens?filter[revoked]=true',
    'upstream-oauth-links',
    'user-sessions?filter[status]=finished',
  ]) {
    const all = await listAll(u2, `${API}/${p}`)
    const count = (await call(u2, 'GET', `${API}/${p}${p.includes('?') ? '&' : '?'}count=only`)).body.meta.count
    t.equal(count, all.length, `${p}: count ${count} = listed ${all.length}`)
  }
})
