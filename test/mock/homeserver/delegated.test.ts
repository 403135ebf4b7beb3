// Delegated tokens on the mock that is both services (mock/homeserver/client/auth.ts): an auth-service
// token reads the homeserver admin API with urn:synapse:admin:*, is a plain user without it, is refused
// without the client-server API scope, by release (from v1.86.0; the stable scope from v1.138.0); the
// homeserver's fixed tokens keep working, and a user the auth service locks or deactivates is refused
// by the homeserver, as Synapse delegating to the real auth service refuses them (synapse/api/auth/mas.py).
import t from 'tap'
import { ADMIN_TOKEN, USER_TOKEN, hsErr, startHs, whoami, type Hs } from './helpers.ts'

const UNSTABLE = 'urn:matrix:org.matrix.msc2967.client:api:*'
const STABLE = 'urn:matrix:client:api:*'
const ADMIN = 'urn:synapse:admin:*'

function personal(hs: Hs, username: string, scope: string): string {
  const mas = hs.mock.world().mas
  const user = mas.findUserByUsername(username)!
  return mas.createPersonalSession(
    { ownerUserId: null, ownerClientId: null, actorUserId: user.id, humanName: 'test', scope, expiresIn: 3600 },
    Date.now() * 1000,
  ).token.value
}

const hs = await startHs()
t.teardown(() => hs.close())
const masUser = hs.mock
  .world()
  .mas.users.all()
  .find((u) => u.lockedAt === null && u.deactivatedAt === null && !u.admin)!.username

t.test('an auth-service token on the homeserver admin API, by scope', async (t) => {
  const admin = personal(hs, masUser, `${UNSTABLE} ${ADMIN}`)
  const ok = await hs.req('GET', `${hs.reports}?limit=1`, { token: admin })
  t.equal(ok.status, 200, 'the admin scope reads event reports')
  t.equal((await hs.req('GET', `${hs.admin}/rooms?limit=0`, { token: admin })).status, 200, 'and the rooms')
  t.equal(
    (await hs.req('GET', `${hs.reports}?limit=1`, { token: personal(hs, masUser, `${STABLE} ${ADMIN}`) })).status,
    200,
    'the stable API scope (1.160.0)',
  )
  hsErr(t, await hs.req('GET', hs.reports, { token: personal(hs, masUser, UNSTABLE) }), 403, 'M_FORBIDDEN', 'You are not a server admin')
  hsErr(
    t,
    await hs.req('GET', hs.reports, { token: personal(hs, masUser, ADMIN) }),
    401,
    'M_UNKNOWN_TOKEN',
    "Token doesn't grant access to the Matrix C-S API",
  )
  hsErr(
    t,
    await hs.req('GET', hs.reports, { token: personal(hs, masUser, 'urn:mas:admin') }),
    401,
    'M_UNKNOWN_TOKEN',
    "Token doesn't grant access to the Matrix C-S API",
  )
  t.equal(await whoami(hs, admin), `@${masUser}:${hs.mock.options.serverName}`, 'the client API knows the same user')
  t.equal((await hs.req('GET', hs.reports, { token: ADMIN_TOKEN })).status, 200, 'the fixed admin token keeps working')
})

t.test('by release: none before v1.86.0, the stable scope from v1.138.0', async (t) => {
  const old = await startHs({ hsVersion: '1.85.0' })
  t.teardown(() => old.close())
  hsErr(
    t,
    await old.req('GET', old.reports, { token: personal(old, masUser, `${UNSTABLE} ${ADMIN}`) }),
    401,
    'M_UNKNOWN_TOKEN',
    'Invalid access token passed.',
  )
  const mid = await startHs({ hsVersion: '1.137.0' })
  t.teardown(() => mid.close())
  t.equal(
    (await mid.req('GET', mid.reports, { token: personal(mid, masUser, `${UNSTABLE} ${ADMIN}`) })).status,
    200,
    '1.137.0: the MSC2967 scope',
  )
  hsErr(
    t,
    await mid.req('GET', mid.reports, { token: personal(mid, masUser, `${STABLE} ${ADMIN}`) }),
    401,
    'M_UNKNOWN_TOKEN',
    "Token doesn't grant access to the Matrix C-S API",
  )
})

t.test('a user the auth service locks or deactivates is refused by the homeserver; unlocked, accepted again', async (t) => {
  const own = await startHs()
  t.teardown(() => own.close())
  const me = await whoami(own, USER_TOKEN)
  const mas = own.mock.world().mas
  const user = mas.findUserByUsername(me.slice(1).split(':')[0]!)!
  t.ok(user, 'the homeserver user is an auth-service user of the same username')
  const state = { lockedAt: user.lockedAt, deactivatedAt: user.deactivatedAt, admin: user.admin }
  mas.setUserState(user, { ...state, lockedAt: Date.now() * 1000 })
  hsErr(t, await own.req('GET', '/_matrix/client/v3/account/whoami', { token: USER_TOKEN }), 401, 'M_UNKNOWN_TOKEN', 'Token is not active')
  mas.setUserState(user, state)
  t.equal(await whoami(own, USER_TOKEN), me, 'unlocked: accepted again')
  const admin = mas.findUserByUsername('admin')!
  mas.setUserState(admin, { lockedAt: null, deactivatedAt: Date.now() * 1000, admin: admin.admin })
  hsErr(t, await own.req('GET', own.reports, { token: ADMIN_TOKEN }), 401, 'M_UNKNOWN_TOKEN', 'Token is not active')
})
