// Fixtures made through public APIs only, as a real operator would: users and passwords and personal
// sessions by the auth service's admin API, OAuth 2.0 sessions by the client_credentials grant, compat
// sessions by the client login API, and rooms, events and reports by the homeserver's client API.
import { DeployError } from './errors.ts'
import { describe, get, http, type HttpResponse } from './http.ts'
import { randomAlnum } from './secrets.ts'
import { clientCredentialsGrant, TokenSource } from './oauth.ts'
import type { DeployPlan } from './config.ts'
import type { Redactor } from '../../lib/redact.ts'

export interface FixtureOptions {
  /** regular users (at least 1) besides the admin user */
  users: number
  /** messages sent in each user's room */
  messages: number
  /** event reports filed in all */
  reports: number
}

export const DEFAULT_FIXTURES: FixtureOptions = { users: 3, messages: 4, reports: 6 }

export interface FixtureUser {
  id: string
  username: string
  /** compat access token from the client login API */
  compatToken: string
}

export interface Fixtures {
  admin: { id: string; username: string }
  users: FixtureUser[]
  rooms: string[]
  events: string[]
  reports: number
  personalSessions: number
  oauthSessions: number
  /** the homeserver admin token: a personal token of the admin user, or a client_credentials source */
  hsAdmin: { kind: 'personal'; token: string } | { kind: 'client_credentials'; source: TokenSource }
  /** auth service token without urn:mas:admin, and a homeserver token of a non-admin user */
  masUserToken: string
  hsUserToken: string
  /** things that were tried, did not work, and were not needed */
  notes: string[]
}

export interface FixtureContext {
  plan: DeployPlan
  admin: TokenSource
  redactor: Redactor
  say: (line: string) => void
  signal?: AbortSignal
}

const API = 'api/admin/v1'
const ADMIN_SCOPE_HS = 'urn:synapse:admin:*'
const CLIENT_SCOPE = 'urn:matrix:client:api:*'

export async function createFixtures(ctx: FixtureContext, o: FixtureOptions = DEFAULT_FIXTURES): Promise<Fixtures> {
  const { plan, signal } = ctx
  const mas = (path: string) => new URL(path, plan.masUrl).toString()
  const hs = (path: string) => new URL(path, plan.homeserverUrl).toString()
  const notes: string[] = []

  async function admin(method: string, path: string, json?: unknown): Promise<HttpResponse> {
    return http(method, mas(path), { bearer: await ctx.admin.token(signal), json, signal })
  }
  function must(res: HttpResponse, ok: number[], what: string, method: string, url: string): HttpResponse {
    if (!ok.includes(res.status)) throw new DeployError('bootstrap', ctx.redactor.apply(describe(what, method, url, res)))
    return res
  }

  // Users. A fresh deployment has none of these names; a seeded stand-in might, so 409 means "look it up".
  async function user(username: string): Promise<{ id: string; username: string }> {
    const res = await admin('POST', `${API}/users`, { username })
    if (res.status === 409) {
      const found = must(await admin('GET', `${API}/users/by-username/${username}`), [200], `look up user ${username}`, 'GET', mas(`${API}/users/by-username/${username}`))
      return { id: String(get(found.json, 'data', 'id')), username }
    }
    must(res, [200, 201], `create user ${username}`, 'POST', mas(`${API}/users`))
    const id = get(res.json, 'data', 'id')
    if (typeof id !== 'string') throw new DeployError('bootstrap', `create user ${username}: no data.id in the answer`)
    return { id, username }
  }
  async function setPassword(u: { id: string; username: string }, password: string): Promise<void> {
    const path = `${API}/users/${u.id}/set-password`
    must(await admin('POST', path, { password, skip_password_check: true }), [200, 204], `set the password of ${u.username}`, 'POST', mas(path))
  }
  async function personal(actorId: string, scope: string, humanName: string, expiresIn?: number): Promise<string | undefined> {
    const path = `${API}/personal-sessions`
    const res = await admin('POST', path, { actor_user_id: actorId, human_name: humanName, scope, ...(expiresIn ? { expires_in: expiresIn } : {}) })
    const token = get(res.json, 'data', 'attributes', 'access_token')
    if ((res.status !== 201 && res.status !== 200) || typeof token !== 'string') {
      notes.push(ctx.redactor.apply(describe(`personal session "${humanName}"`, 'POST', mas(path), res)))
      return undefined
    }
    ctx.redactor.add(token)
    return token
  }
  async function login(username: string, password: string): Promise<string> {
    const url = mas('_matrix/client/v3/login')
    const res = must(
      await http('POST', url, { json: { type: 'm.login.password', identifier: { type: 'm.id.user', user: username }, password }, signal }),
      [200],
      `log ${username} in by the client login API`,
      'POST',
      url,
    )
    const token = get(res.json, 'access_token')
    if (typeof token !== 'string') throw new DeployError('bootstrap', `log ${username} in: no access_token in the answer`)
    ctx.redactor.add(token)
    return token
  }

  const suffix = randomAlnum(4).toLowerCase()
  const adminUser = await user(`ac-admin-${suffix}`)
  const adminPassword = randomAlnum(24)
  ctx.redactor.add(adminPassword)
  await setPassword(adminUser, adminPassword)
  const setAdmin = await admin('POST', `${API}/users/${adminUser.id}/set-admin`, { admin: true })
  if (setAdmin.status !== 200) notes.push(describe('make the admin user an admin', 'POST', mas(`${API}/users/${adminUser.id}/set-admin`), setAdmin))

  const users: FixtureUser[] = []
  for (let i = 1; i <= Math.max(1, o.users); i++) {
    const u = await user(`ac-user-${i}-${suffix}`)
    const password = randomAlnum(24)
    ctx.redactor.add(password)
    await setPassword(u, password)
    users.push({ ...u, compatToken: await login(u.username, password) })
  }
  ctx.say(`${users.length + 1} users, ${users.length} compat sessions`)

  // Personal sessions: the admin user's carries the homeserver admin scope; a user's carries none.
  let personalSessions = 0
  const adminPat = await personal(adminUser.id, `${CLIENT_SCOPE} ${ADMIN_SCOPE_HS}`, 'admin-conformance homeserver admin')
  if (adminPat) personalSessions++
  const userPat = await personal(users[0]!.id, CLIENT_SCOPE, 'admin-conformance user')
  if (userPat) personalSessions++
  if (users[1] && (await personal(users[1].id, CLIENT_SCOPE, 'admin-conformance expiring', 3600))) personalSessions++

  // OAuth 2.0 sessions: every grant makes one. The admin client is known to work; the second client
  // authenticates in the body and is optional (a stand-in may know only the admin client).
  await ctx.admin.token(signal)
  let oauthSessions = ctx.admin.grants
  try {
    const t = await clientCredentialsGrant(
      { tokenUrl: mas('oauth2/token'), clientId: plan.fixtureClient.id, clientSecret: plan.fixtureClient.secret, scope: 'openid', auth: 'client_secret_post' },
      signal,
    )
    ctx.redactor.add(t.accessToken)
    oauthSessions++
  } catch (e) {
    notes.push(`second OAuth 2.0 client: ${(e as Error).message}`)
  }

  // Rooms, events and reports, each user in a room of their own.
  const rooms: string[] = []
  const events: string[] = []
  const byRoom = new Map<string, { user: FixtureUser; events: string[] }>()
  for (const [i, u] of users.slice(0, Math.min(users.length, 2)).entries()) {
    const url = hs('_matrix/client/v3/createRoom')
    const res = must(
      await http('POST', url, { bearer: u.compatToken, json: { preset: 'public_chat', name: `admin-conformance room ${i + 1}` }, signal }),
      [200],
      `create a room as ${u.username}`,
      'POST',
      url,
    )
    const roomId = get(res.json, 'room_id')
    if (typeof roomId !== 'string') throw new DeployError('bootstrap', 'createRoom: no room_id in the answer')
    rooms.push(roomId)
    const mine: string[] = []
    for (let m = 0; m < o.messages; m++) {
      const sendUrl = hs(`_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/ac-${suffix}-${i}-${m}`)
      const sent = must(
        await http('PUT', sendUrl, { bearer: u.compatToken, json: { msgtype: 'm.text', body: `admin-conformance message ${m + 1}` }, signal }),
        [200],
        `send a message as ${u.username}`,
        'PUT',
        sendUrl,
      )
      const eventId = get(sent.json, 'event_id')
      if (typeof eventId !== 'string') throw new DeployError('bootstrap', 'send: no event_id in the answer')
      mine.push(eventId)
      events.push(eventId)
    }
    byRoom.set(roomId, { user: u, events: mine })
  }
  // Every fixture user joins every fixture room, so that any fixture event is visible to (and can be
  // reported by) any of them, the non-admin user whose token the suites get included.
  const members = new Map<string, FixtureUser[]>()
  for (const [roomId, { user: owner }] of byRoom) {
    const list = [owner]
    for (const u of users) {
      if (u === owner) continue
      const url = hs(`_matrix/client/v3/join/${encodeURIComponent(roomId)}`)
      const res = await http('POST', url, { bearer: u.compatToken, json: {}, signal })
      if (res.status === 200) list.push(u)
      else notes.push(ctx.redactor.apply(describe(`${u.username} joins ${roomId}`, 'POST', url, res)))
    }
    members.set(roomId, list)
  }
  let reports = 0
  const roomList = [...byRoom.entries()]
  for (let k = 0; k < o.reports && roomList.length && o.messages > 0; k++) {
    const [roomId, { user: owner, events: evs }] = roomList[k % roomList.length]!
    const eventId = evs[Math.floor(k / roomList.length) % evs.length]!
    // Reported by another member when there is one, as in real life; else by the sender.
    const others = (members.get(roomId) ?? [owner]).filter((m) => m !== owner)
    const u = others.length ? others[k % others.length]! : owner
    const url = hs(`_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/report/${encodeURIComponent(eventId)}`)
    must(await http('POST', url, { bearer: u.compatToken, json: { reason: `admin-conformance report ${k + 1}`, score: -50 }, signal }), [200], `report an event as ${u.username}`, 'POST', url)
    reports++
  }
  ctx.say(`${rooms.length} rooms, ${events.length} events, ${reports} reports, ${personalSessions} personal and ${oauthSessions} OAuth 2.0 sessions`)

  // The homeserver admin token: the admin user's personal token if the homeserver takes it as admin,
  // else a client_credentials token with the homeserver admin scope.
  const probe = hs('_synapse/admin/v1/event_reports?limit=1')
  let hsAdmin: Fixtures['hsAdmin'] | undefined
  if (adminPat) {
    const r = await http('GET', probe, { bearer: adminPat, signal })
    if (r.status === 200) hsAdmin = { kind: 'personal', token: adminPat }
    else notes.push(describe('homeserver admin by personal token', 'GET', probe, r))
  }
  if (!hsAdmin) {
    const source = new TokenSource({
      tokenUrl: mas('oauth2/token'),
      clientId: plan.adminClient.id,
      clientSecret: plan.adminClient.secret,
      scope: ADMIN_SCOPE_HS,
      onToken: (t) => ctx.redactor.add(t),
    })
    let r: HttpResponse | undefined
    try {
      r = await http('GET', probe, { bearer: await source.token(signal), signal })
    } catch (e) {
      notes.push((e as Error).message)
    }
    if (r?.status === 200) hsAdmin = { kind: 'client_credentials', source }
    else {
      throw new DeployError('bootstrap', 'no token is accepted as homeserver admin', [
        ...notes.map((n) => ctx.redactor.apply(n)),
        ...(r ? [ctx.redactor.apply(describe('homeserver admin by client_credentials', 'GET', probe, r))] : []),
      ])
    }
  }

  return {
    admin: adminUser,
    users,
    rooms,
    events,
    reports,
    personalSessions,
    oauthSessions,
    hsAdmin,
    masUserToken: userPat ?? users[0]!.compatToken,
    // The client API is known to take the compat token: the fixtures above were made with it.
    hsUserToken: users[0]!.compatToken,
    notes,
  }
}
