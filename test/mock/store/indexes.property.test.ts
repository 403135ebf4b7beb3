// Model-based property test of the auth service store's indexes, through the mock's HTTP API:
// fast-check draws sequences of the writes the admin API and the client API make (compat logins,
// client-credentials grants and personal-session creation; finishes, revokes, regenerates, policy
// writes), and after every step each listing family is checked against a brute-force filter of the
// full data (test/mock/store/model.ts):
//   - every filter alone: `count=only` equals the brute-force count;
//   - a drawn combination of filters, walked forward (page[first] + page[after]) and backward
//     (page[last] + page[before]) with a drawn page size: the pages join into exactly the
//     brute-force list, in order, every page's meta.count equals it, and no page is over-full.
// Runs and sequence lengths are fixed below (and printed) so a failure replays with its seed.
import t from 'tap'
import fc from 'fast-check'
import { API, startTestMock, type TestMock } from '../admin/helpers.ts'
import { SEEDED_PASSWORD } from '../../../mock/seed/mas/index.ts'
import { FAMILIES } from './model.ts'
import { runSequences } from './model-check.ts'

const RUNS = Number(process.env.STORE_PROPERTY_RUNS ?? 20)
const MIN_STEPS = 5
const MAX_STEPS = 25
const SEED = Number(process.env.STORE_PROPERTY_SEED ?? 20261124)

type Op =
  | { k: 'finish-compat' | 'finish-oauth2' | 'revoke' | 'login'; i: number }
  | { k: 'regenerate'; i: number; expiresIn: number | null }
  | { k: 'create-personal'; i: number; scope: number; expiresIn: number | null }
  | { k: 'client-credentials' }
  | { k: 'policy'; n: number }

const expiresIn = fc.option(fc.constantFrom(1, 60, 3600, 86_400 * 30, 86_400 * 400), { nil: null })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constantFrom('finish-compat' as const, 'finish-oauth2' as const, 'revoke' as const, 'login' as const), i: fc.nat() }),
  fc.record({ k: fc.constant('regenerate' as const), i: fc.nat(), expiresIn }),
  fc.record({ k: fc.constant('create-personal' as const), i: fc.nat(), scope: fc.nat(), expiresIn }),
  fc.constant({ k: 'client-credentials' as const }),
  fc.record({ k: fc.constant('policy' as const), n: fc.nat(1000) }),
)

const SCOPES = ['openid', 'urn:mas:admin', 'openid urn:mas:admin', 'urn:matrix:client:api:* urn:matrix:client:device:MODELDEV01']

async function apply(tm: TestMock, op: Op): Promise<number> {
  const mas = tm.world().mas
  const nth = <T>(list: readonly T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined)
  switch (op.k) {
    case 'finish-compat':
      return (await tm.post(`${API}/compat-sessions/${nth(mas.compat.all(), op.i)!.id}/finish`)).status
    case 'finish-oauth2': {
      // never the admin token's own session: the rest of the sequence needs it
      const admin = mas.lookupAccessToken(tm.admin)!.sessionId
      const s = nth(
        mas.oauth2.all().filter((x) => x.id !== admin),
        op.i,
      )!
      return (await tm.post(`${API}/oauth2-sessions/${s.id}/finish`)).status
    }
    case 'revoke':
      return (await tm.post(`${API}/personal-sessions/${nth(mas.personal.all(), op.i)!.id}/revoke`)).status
    case 'regenerate': {
      // the admin token regenerates the sessions its client owns
      const own = mas.personal.all().filter((s) => s.ownerClientId === tm.mock.options.adminClientId)
      const s = nth(own, op.i)
      if (!s) return 0
      return (await tm.post(`${API}/personal-sessions/${s.id}/regenerate`, { expires_in: op.expiresIn })).status
    }
    case 'create-personal': {
      const actor = nth(mas.users.all(), op.i)!
      const body = {
        actor_user_id: actor.id,
        human_name: `model ${op.i}`,
        scope: SCOPES[op.scope % SCOPES.length],
        expires_in: op.expiresIn,
      }
      return (await tm.post(`${API}/personal-sessions`, body)).status
    }
    case 'login': {
      const user = nth(mas.users.all(), op.i)!
      const body = { type: 'm.login.password', identifier: { type: 'm.id.user', user: user.username }, password: SEEDED_PASSWORD }
      return (await tm.post('/_matrix/client/v3/login', body, { token: null })).status
    }
    case 'client-credentials': {
      const { adminClientId, adminClientSecret } = tm.mock.options
      const basic = Buffer.from(`${adminClientId}:${adminClientSecret}`).toString('base64')
      const r = await tm.req('POST', '/oauth2/token', {
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&scope=openid',
      })
      return r.status
    }
    case 'policy':
      return (await tm.post(`${API}/policy-data`, { data: { model: op.n } })).status
  }
}

t.test('every listing, count and page boundary agrees with a brute-force filter after every write', async (t) => {
  const tm = await startTestMock(t, { seed: 1, sessions: 60, reports: 0 })
  const stats = await runSequences(tm, {
    families: FAMILIES,
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
    stats.statuses.get(200)! > 0 && stats.statuses.get(201)! > 0,
    'writes succeeded (200 and 201 seen), so the checks ran on a changing world',
  )
})
