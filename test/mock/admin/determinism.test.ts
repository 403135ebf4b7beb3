// Same seed and size: byte-identical answers (whatever the tokens); another seed: another world.
// The seeded world covers every state the listings and filters need.
import t from 'tap'
import { API, startTestMock } from './helpers.ts'

async function snapshot(tm: Awaited<ReturnType<typeof startTestMock>>): Promise<string[]> {
  const paths = [
    `${API}/compat-sessions`,
    `${API}/compat-sessions?page[last]=5&count=false`,
    `${API}/compat-sessions?filter[status]=finished&page[first]=50`,
    `${API}/oauth2-sessions?page[first]=100`,
    `${API}/oauth2-sessions?filter[client-kind]=dynamic&filter[scope]=openid`,
    `${API}/personal-sessions?page[first]=100`,
    `${API}/personal-sessions?filter[expires]=true&count=only`,
    `${API}/policy-data/latest`,
    `${API}/site-config`,
  ]
  const out: string[] = []
  for (const p of paths) out.push((await tm.get(p)).text)
  const first = JSON.parse(out[0]!).data[0].id
  out.push((await tm.get(`${API}/compat-sessions/${first}`)).text)
  return out
}

t.test('same seed, same bytes; another seed, another world', async (t) => {
  const a = await startTestMock(t, { seed: 42, sessions: 300 })
  const b = await startTestMock(t, { seed: 42, sessions: 300 })
  const c = await startTestMock(t, { seed: 43, sessions: 300 })
  t.not(a.admin, b.admin, 'the tokens differ')
  const [sa, sb, sc] = [await snapshot(a), await snapshot(b), await snapshot(c)]
  t.same(sa, sb, 'identical answers')
  for (let i = 0; i < sa.length - 2; i++) t.not(sa[i], sc[i], `seed 43 differs (${i})`)
  const reset = await a.req('POST', '/_mock/reset')
  t.equal(reset.status, 200)
  t.same(await snapshot(a), sa, 'a reset rebuilds the same world')
})

t.test('the seeded world has every state', async (t) => {
  const tm = await startTestMock(t, { seed: 1, sessions: 3000 })
  const m = tm.world().mas
  const compat = m.compat.all()
  const oauth2 = m.oauth2.all()
  const personal = m.personal.all()
  const users = m.users.all()
  t.equal(compat.length + oauth2.length + personal.length, 3000, 'sessions split across the three kinds')
  t.ok(Math.abs(compat.length - personal.length) <= 1)
  t.ok(
    users.some((u) => u.lockedAt !== null),
    'locked users',
  )
  t.ok(
    users.some((u) => u.deactivatedAt !== null),
    'deactivated users',
  )
  t.ok(
    users.some((u) => u.admin),
    'admins',
  )
  t.ok(m.clients.all().some((c) => c.kind === 'static') && m.clients.all().some((c) => c.kind === 'dynamic'), 'static and dynamic clients')
  for (const [name, list, ended] of [
    ['compat', compat, (s: any) => s.finishedAt],
    ['oauth2', oauth2, (s: any) => s.finishedAt],
    ['personal', personal, (s: any) => s.revokedAt],
  ] as const) {
    t.ok(list.some((s) => ended(s) === null) && list.some((s) => ended(s) !== null), `${name}: active and ended`)
    t.ok(list.some((s) => s.lastActiveAt === null) && list.some((s) => s.lastActiveAt !== null), `${name}: with and without activity`)
  }
  t.ok(
    compat.some((s) => s.userSessionId !== null) && compat.some((s) => s.redirectUri !== null) && compat.some((s) => s.deviceId === null),
    'compat: browser-started, SSO, without device',
  )
  t.ok(oauth2.some((s) => s.userId === null) && oauth2.some((s) => s.scope.includes(':device:')), 'oauth2: user-less and device-bound')
  const epoch = tm.mock.options.epoch.getTime() * 1000
  t.ok(
    personal.some((s) => s.revokedAt === null && s.tokenExpiresAt === null),
    'personal: never expiring',
  )
  t.ok(
    personal.some((s) => s.tokenExpiresAt !== null && s.tokenExpiresAt > epoch),
    'personal: expiring',
  )
  t.ok(
    personal.some((s) => s.tokenExpiresAt !== null && s.tokenExpiresAt < epoch),
    'personal: expired, not revoked',
  )
  t.ok(
    personal.some((s) => s.ownerClientId !== null) && personal.some((s) => s.ownerUserId !== null && s.ownerUserId !== s.actorUserId),
    'personal: client-owned, owned by another user',
  )
  for (const s of compat)
    if (m.getUser(s.userId)!.deactivatedAt !== null) t.not(s.finishedAt, null, 'sessions of deactivated users are finished')
  t.ok(
    [...compat, ...oauth2, ...personal].every((s) => s.createdAt < epoch),
    'everything before the epoch',
  )
  t.ok(m.policyData.size >= 3)
})
