// Model-based property test of the families the whole admin API added (users, user e-mails,
// registration tokens, upstream links, browser sessions), through the mock's HTTP API: fast-check
// draws sequences of their writes (e-mails added and deleted; users locked, unlocked, deactivated,
// reactivated, made admin or not; tokens added, revoked, unrevoked, updated; links added, attached
// and deleted; browser sign-ins and finishes; OAuth 2.0 finishes, which move the users'
// has-active-session filters), and after every step each family's every filter alone (counts) and
// a drawn combination walked both ways are compared with a brute-force filter of the full data
// (./model.ts, ./model-check.ts). Runs and lengths are fixed and printed so a failure replays.
import t from 'tap'
import fc from 'fast-check'
import { API, startTestMock, type TestMock } from '../admin/helpers.ts'
import { SEEDED_PASSWORD } from '../../../mock/seed/mas/index.ts'
import { MORE_FAMILIES } from './model.ts'
import { runSequences } from './model-check.ts'

const RUNS = Number(process.env.STORE_PROPERTY_RUNS ?? 6)
const MIN_STEPS = 5
const MAX_STEPS = 15
const SEED = Number(process.env.STORE_PROPERTY_SEED ?? 20261125)

const ACTIONS = ['lock', 'unlock', 'deactivate', 'reactivate', 'set-admin'] as const
type Op =
  | { k: 'user'; action: (typeof ACTIONS)[number]; i: number; admin: boolean }
  | {
      k:
        | 'email-add'
        | 'email-delete'
        | 'token-revoke'
        | 'token-unrevoke'
        | 'link-delete'
        | 'browser-finish'
        | 'browser-login'
        | 'oauth2-finish'
      i: number
    }
  | { k: 'token-add'; n: number; limit: number | null }
  | { k: 'token-update'; i: number; limit: number | null }
  | { k: 'link-add'; i: number; p: number; subject: number }

const limit = fc.option(fc.integer({ min: 0, max: 20 }), { nil: null })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant('user' as const), action: fc.constantFrom(...ACTIONS), i: fc.nat(), admin: fc.boolean() }),
  fc.record({
    k: fc.constantFrom(
      'email-add' as const,
      'email-delete' as const,
      'token-revoke' as const,
      'token-unrevoke' as const,
      'link-delete' as const,
      'browser-finish' as const,
      'browser-login' as const,
      'oauth2-finish' as const,
    ),
    i: fc.nat(),
  }),
  fc.record({ k: fc.constant('token-add' as const), n: fc.nat(30), limit }),
  fc.record({ k: fc.constant('token-update' as const), i: fc.nat(), limit }),
  fc.record({ k: fc.constant('link-add' as const), i: fc.nat(), p: fc.nat(), subject: fc.nat(15) }),
)

async function apply(tm: TestMock, op: Op): Promise<number> {
  const mas = tm.world().mas
  const x = mas.extra
  const nth = <T>(list: readonly T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined)
  // never the admin token's own session or user: the rest of the sequence needs them
  const adminSession = mas.oauth2.get(mas.lookupAccessToken(tm.admin)!.sessionId)!
  const users = mas.users.all().filter((u) => u.id !== adminSession.userId)
  const status = async (p: Promise<{ status: number }>) => (await p).status
  switch (op.k) {
    case 'user':
      return status(
        tm.post(`${API}/users/${nth(users, op.i)!.id}/${op.action}`, op.action === 'set-admin' ? { admin: op.admin } : undefined),
      )
    case 'email-add':
      return status(tm.post(`${API}/user-emails`, { user_id: nth(users, op.i)!.id, email: `Model-${op.i % 40}@example.test` }))
    case 'email-delete': {
      const e = nth(
        x.emails.all().filter((e) => !e.deleted),
        op.i,
      )
      return e ? status(tm.req('DELETE', `${API}/user-emails/${e.id}`, { headers: { authorization: `Bearer ${tm.admin}` } })) : 0
    }
    case 'token-add':
      return status(tm.post(`${API}/user-registration-tokens`, { token: `model-${op.n}`, usage_limit: op.limit }))
    case 'token-revoke':
    case 'token-unrevoke':
      return status(tm.post(`${API}/user-registration-tokens/${nth(x.tokens.all(), op.i)!.id}/${op.k.slice(6)}`))
    case 'token-update': {
      const id = nth(x.tokens.all(), op.i)!.id
      return status(
        tm.req('PUT', `${API}/user-registration-tokens/${id}`, {
          headers: { authorization: `Bearer ${tm.admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ usage_limit: op.limit }),
        }),
      )
    }
    case 'link-add': {
      const body = {
        user_id: nth(users, op.i)!.id,
        provider_id: nth(x.providers.all(), op.p)!.id,
        subject: `model-subject-${op.subject}`,
        human_account_name: `model${op.subject % 3}`,
      }
      return status(tm.post(`${API}/upstream-oauth-links`, body))
    }
    case 'link-delete': {
      const l = nth(
        x.links.all().filter((l) => !l.deleted),
        op.i,
      )
      return l ? status(tm.req('DELETE', `${API}/upstream-oauth-links/${l.id}`, { headers: { authorization: `Bearer ${tm.admin}` } })) : 0
    }
    case 'browser-finish':
      return status(tm.post(`${API}/user-sessions/${nth(mas.userSessions.all(), op.i)!.id}/finish`))
    case 'browser-login': {
      const form = new URLSearchParams({ username: nth(users, op.i)!.username, password: SEEDED_PASSWORD }).toString()
      return status(tm.req('POST', '/login', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }))
    }
    case 'oauth2-finish': {
      const s = nth(
        mas.oauth2.all().filter((s) => s.id !== adminSession.id),
        op.i,
      )!
      return status(tm.post(`${API}/oauth2-sessions/${s.id}/finish`))
    }
  }
}

t.test('the new families: every listing, count and page boundary agrees with a brute-force filter after every write', async (t) => {
  const tm = await startTestMock(t, { seed: 2, sessions: 60, reports: 0 })
  const stats = await runSequences(tm, {
    families: MORE_FAMILIES,
    apply,
    op: opArb,
    runs: RUNS,
    minSteps: MIN_STEPS,
    maxSteps: MAX_STEPS,
    seed: SEED,
  })
  const { responses } = await tm.log()
  t.comment(
    `${stats.runs} runs, ${stats.steps} writes (sequences of ${MIN_STEPS}–${MAX_STEPS}), ${responses.length} requests in ${stats.seconds.toFixed(1)} s; write statuses ${JSON.stringify(Object.fromEntries(stats.statuses))}`,
  )
  t.ok(
    stats.statuses.get(200)! > 0 && stats.statuses.get(201)! > 0 && stats.statuses.get(204)! > 0,
    'writes succeeded (200, 201 and 204 seen), so the checks ran on a changing world',
  )
})
