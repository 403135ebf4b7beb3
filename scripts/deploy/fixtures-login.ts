// Fixtures on a homeserver that keeps its own login (a release before delegation to the auth service, see
// versions.ts): the admin and the users are registered with the registration shared secret through
// /_synapse/admin/v1/register, their tokens come from password login, and rooms, messages and reports are
// made through the client API by the same steps as with an auth service (fixtures.ts).
import { createHmac } from 'node:crypto'
import { DeployError } from './errors.ts'
import { FixtureMaker, type FixtureContext, type FixtureOptions, type Fixtures, type FixtureUser } from './fixtures.ts'
import { describe, get, http } from './http.ts'
import { randomAlnum } from './secrets.ts'

const REGISTER = '_synapse/admin/v1/register'

/** Shared-secret registration: a nonce, then an HMAC-SHA1 over nonce, user, password and admin flag. */
async function register(f: FixtureMaker, username: string, password: string, admin: boolean): Promise<string> {
  const { plan, redactor, signal } = f.ctx
  const url = f.hs(REGISTER)
  const n = await f.must('GET', url, {}, [200], 'get a registration nonce')
  const nonce = get(n.json, 'nonce')
  if (typeof nonce !== 'string') throw new DeployError('bootstrap', `get a registration nonce: no nonce in the answer of GET /${REGISTER}`)
  const mac = createHmac('sha1', plan.homeserver.registrationSecret)
    .update([nonce, username, password, admin ? 'admin' : 'notadmin'].join('\0'))
    .digest('hex')
  const res = await http('POST', url, { json: { nonce, username, password, admin, mac }, signal })
  const token = get(res.json, 'access_token')
  if (typeof token === 'string') redactor.add(token)
  const userId = get(res.json, 'user_id')
  if (res.status !== 200 || typeof userId !== 'string')
    throw new DeployError('bootstrap', redactor.apply(describe(`register ${username} with the shared secret`, 'POST', url, res)))
  return userId
}

/** Password login at the homeserver's client API. */
async function login(f: FixtureMaker, username: string, password: string): Promise<string> {
  const body = { type: 'm.login.password', identifier: { type: 'm.id.user', user: username }, password }
  const res = await f.must(
    'POST',
    f.hs('_matrix/client/v3/login'),
    { json: body },
    [200],
    `log ${username} in with a password at the homeserver`,
  )
  const token = get(res.json, 'access_token')
  if (typeof token !== 'string') throw new DeployError('bootstrap', `log ${username} in: no access_token in the answer`)
  f.ctx.redactor.add(token)
  return token
}

async function account(f: FixtureMaker, username: string, admin: boolean): Promise<FixtureUser> {
  const password = randomAlnum(24)
  f.ctx.redactor.add(password)
  const id = await register(f, username, password, admin)
  return { id, username, compatToken: await login(f, username, password) }
}

export async function createOwnLoginFixtures(ctx: FixtureContext, o: FixtureOptions): Promise<Fixtures> {
  const f = new FixtureMaker(ctx, o)
  const admin = await account(f, `ac-admin-${f.suffix}`, true)
  const users: FixtureUser[] = []
  for (let i = 1; i <= Math.max(1, o.users); i++) users.push(await account(f, `ac-user-${i}-${f.suffix}`, false))
  ctx.say(`${users.length + 1} users registered with the shared secret, each logged in with a password`)
  const byRoom = await f.rooms(users)
  const members = await f.joinAll(byRoom, users)
  const reports = await f.reports(byRoom, members)
  const rooms = [...byRoom.keys()]
  const events = [...byRoom.values()].flatMap((r) => r.events)
  ctx.say(`${rooms.length} rooms, ${events.length} events, ${reports} reports`)
  const probe = f.hs('_synapse/admin/v1/event_reports?limit=1')
  await f.must('GET', probe, { bearer: admin.compatToken }, [200], 'the registered admin as homeserver admin')
  return {
    admin: { id: admin.id, username: admin.username },
    users,
    rooms,
    events,
    reports,
    personalSessions: 0,
    oauthSessions: 0,
    hsAdmin: { kind: 'password', token: admin.compatToken },
    masUserToken: '',
    hsUserToken: users[0]!.compatToken,
    notes: f.notes,
  }
}
