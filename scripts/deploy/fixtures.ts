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
  /** the homeserver admin token: a personal token of the admin user, its password login (own login), or a client_credentials source */
  hsAdmin: { kind: 'personal' | 'password'; token: string } | { kind: 'client_credentials'; source: TokenSource }
  /** auth service token without urn:mas:admin, and a homeserver token of a non-admin user */
  masUserToken: string
  hsUserToken: string
  /** things that were tried, did not work, and were not needed */
  notes: string[]
}

export interface FixtureContext {
  plan: DeployPlan
  /** the auth service's admin token; absent when the homeserver keeps its own login (no auth service) */
  admin?: TokenSource
  redactor: Redactor
  say: (line: string) => void
  signal?: AbortSignal
}

const API = 'api/admin/v1'
const ADMIN_SCOPE_HS = 'urn:synapse:admin:*'
const CLIENT_SCOPE = 'urn:matrix:client:api:*'

/** The fixture steps on one context; createFixtures (and, for the homeserver's own login, fixtures-login.ts) run them in order. */
export class FixtureMaker {
  readonly notes: string[] = []
  readonly suffix = randomAlnum(4).toLowerCase()
  constructor(
    readonly ctx: FixtureContext,
    readonly o: FixtureOptions,
  ) {}

  mas(path: string): string {
    return new URL(path, this.ctx.plan.masUrl).toString()
  }
  hs(path: string): string {
    return new URL(path, this.ctx.plan.homeserverUrl).toString()
  }
  get source(): TokenSource {
    if (!this.ctx.admin) throw new DeployError('bootstrap', 'no auth service in this deployment: its admin API cannot be used')
    return this.ctx.admin
  }
  async admin(method: string, path: string, json?: unknown): Promise<HttpResponse> {
    return http(method, this.mas(path), { bearer: await this.source.token(this.ctx.signal), json, signal: this.ctx.signal })
  }
  /** A request with a token; its answer must have one of the `ok` statuses. */
  async must(method: string, url: string, opts: { bearer?: string; json?: unknown }, ok: number[], what: string): Promise<HttpResponse> {
    const res = await http(method, url, { ...opts, signal: this.ctx.signal })
    return this.check(res, ok, what, method, url)
  }
  check(res: HttpResponse, ok: number[], what: string, method: string, url: string): HttpResponse {
    if (!ok.includes(res.status)) throw new DeployError('bootstrap', this.ctx.redactor.apply(describe(what, method, url, res)))
    return res
  }

  // Users. A fresh deployment has none of these names; a seeded stand-in might, so 409 means "look it up".
  async user(username: string): Promise<{ id: string; username: string }> {
    const res = await this.admin('POST', `${API}/users`, { username })
    if (res.status === 409) {
      const path = `${API}/users/by-username/${username}`
      const found = this.check(await this.admin('GET', path), [200], `look up user ${username}`, 'GET', this.mas(path))
      return { id: String(get(found.json, 'data', 'id')), username }
    }
    this.check(res, [200, 201], `create user ${username}`, 'POST', this.mas(`${API}/users`))
    const id = get(res.json, 'data', 'id')
    if (typeof id !== 'string') throw new DeployError('bootstrap', `create user ${username}: no data.id in the answer`)
    return { id, username }
  }
  /** A user with a fresh random password (known to the redactor). */
  async userWithPassword(username: string): Promise<{ id: string; username: string; password: string }> {
    const u = await this.user(username)
    const password = randomAlnum(24)
    this.ctx.redactor.add(password)
    const path = `${API}/users/${u.id}/set-password`
    this.check(
      await this.admin('POST', path, { password, skip_password_check: true }),
      [200, 204],
      `set the password of ${u.username}`,
      'POST',
      this.mas(path),
    )
    return { ...u, password }
  }
  async personal(actorId: string, scope: string, humanName: string, expiresIn?: number): Promise<string | undefined> {
    const path = `${API}/personal-sessions`
    const res = await this.admin('POST', path, {
      actor_user_id: actorId,
      human_name: humanName,
      scope,
      ...(expiresIn ? { expires_in: expiresIn } : {}),
    })
    const token = get(res.json, 'data', 'attributes', 'access_token')
    if ((res.status !== 201 && res.status !== 200) || typeof token !== 'string') {
      this.notes.push(this.ctx.redactor.apply(describe(`personal session "${humanName}"`, 'POST', this.mas(path), res)))
      return undefined
    }
    this.ctx.redactor.add(token)
    return token
  }
  async login(username: string, password: string): Promise<string> {
    const body = { type: 'm.login.password', identifier: { type: 'm.id.user', user: username }, password }
    const res = await this.must(
      'POST',
      this.mas('_matrix/client/v3/login'),
      { json: body },
      [200],
      `log ${username} in by the client login API`,
    )
    const token = get(res.json, 'access_token')
    if (typeof token !== 'string') throw new DeployError('bootstrap', `log ${username} in: no access_token in the answer`)
    this.ctx.redactor.add(token)
    return token
  }

  /** The admin user (made an admin) and the regular users, each logged in by the client login API. */
  async users(): Promise<{ adminUser: { id: string; username: string }; users: FixtureUser[] }> {
    const { password: _p, ...adminUser } = await this.userWithPassword(`ac-admin-${this.suffix}`)
    const setAdmin = await this.admin('POST', `${API}/users/${adminUser.id}/set-admin`, { admin: true })
    if (setAdmin.status !== 200)
      this.notes.push(describe('make the admin user an admin', 'POST', this.mas(`${API}/users/${adminUser.id}/set-admin`), setAdmin))
    const users: FixtureUser[] = []
    for (let i = 1; i <= Math.max(1, this.o.users); i++) {
      const { password, ...u } = await this.userWithPassword(`ac-user-${i}-${this.suffix}`)
      users.push({ ...u, compatToken: await this.login(u.username, password) })
    }
    this.ctx.say(`${users.length + 1} users, ${users.length} compat sessions`)
    return { adminUser, users }
  }

  /** OAuth 2.0 sessions: every grant makes one. The second client (body auth) is optional: a stand-in may know only the admin client. */
  async oauthSessions(): Promise<number> {
    const { plan, signal } = this.ctx
    await this.source.token(signal)
    let n = this.source.grants
    try {
      const t = await clientCredentialsGrant(
        {
          tokenUrl: this.mas('oauth2/token'),
          clientId: plan.fixtureClient.id,
          clientSecret: plan.fixtureClient.secret,
          scope: 'openid',
          auth: 'client_secret_post',
        },
        signal,
      )
      this.ctx.redactor.add(t.accessToken)
      n++
    } catch (e) {
      this.notes.push(`second OAuth 2.0 client: ${(e as Error).message}`)
    }
    return n
  }

  /** A room of its own for each of the first two users, with messages in it. */
  async rooms(users: FixtureUser[]): Promise<Map<string, { user: FixtureUser; events: string[] }>> {
    const byRoom = new Map<string, { user: FixtureUser; events: string[] }>()
    for (const [i, u] of users.slice(0, Math.min(users.length, 2)).entries()) {
      const json = { preset: 'public_chat', name: `admin-conformance room ${i + 1}` }
      const res = await this.must(
        'POST',
        this.hs('_matrix/client/v3/createRoom'),
        { bearer: u.compatToken, json },
        [200],
        `create a room as ${u.username}`,
      )
      const roomId = get(res.json, 'room_id')
      if (typeof roomId !== 'string') throw new DeployError('bootstrap', 'createRoom: no room_id in the answer')
      const mine: string[] = []
      for (let m = 0; m < this.o.messages; m++) {
        const sendUrl = this.hs(`_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/ac-${this.suffix}-${i}-${m}`)
        const sent = await this.must(
          'PUT',
          sendUrl,
          { bearer: u.compatToken, json: { msgtype: 'm.text', body: `admin-conformance message ${m + 1}` } },
          [200],
          `send a message as ${u.username}`,
        )
        const eventId = get(sent.json, 'event_id')
        if (typeof eventId !== 'string') throw new DeployError('bootstrap', 'send: no event_id in the answer')
        mine.push(eventId)
      }
      byRoom.set(roomId, { user: u, events: mine })
    }
    return byRoom
  }

  /**
   * Every fixture user joins every fixture room, so that any fixture event is visible to (and can be
   * reported by) any of them, the non-admin user whose token the suites get included. Returns the members.
   */
  async joinAll(byRoom: Map<string, { user: FixtureUser }>, users: FixtureUser[]): Promise<Map<string, FixtureUser[]>> {
    const members = new Map<string, FixtureUser[]>()
    for (const [roomId, { user: owner }] of byRoom) {
      const list = [owner]
      for (const u of users) {
        if (u === owner) continue
        const url = this.hs(`_matrix/client/v3/join/${encodeURIComponent(roomId)}`)
        const res = await http('POST', url, { bearer: u.compatToken, json: {}, signal: this.ctx.signal })
        if (res.status === 200) list.push(u)
        else this.notes.push(this.ctx.redactor.apply(describe(`${u.username} joins ${roomId}`, 'POST', url, res)))
      }
      members.set(roomId, list)
    }
    return members
  }

  /**
   * Reports spread over the rooms' events, each by another member when there is one (as in real life), in
   * every shape a client may send (reason and score, `{}`, a reason only, a score only); then one on an
   * event that does not exist, which old releases accept (1.67.0 lists it, but GET of it answers 404) and
   * newer ones refuse with 404 (then it is not counted, and noted).
   */
  async reports(byRoom: Map<string, { user: FixtureUser; events: string[] }>, members: Map<string, FixtureUser[]>): Promise<number> {
    let reports = 0
    const roomList = [...byRoom.entries()]
    const reportUrl = (roomId: string, eventId: string) =>
      this.hs(`_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/report/${encodeURIComponent(eventId)}`)
    for (let k = 0; k < this.o.reports && roomList.length && this.o.messages > 0; k++) {
      const [roomId, { user: owner, events: evs }] = roomList[k % roomList.length]!
      const eventId = evs[Math.floor(k / roomList.length) % evs.length]!
      const others = (members.get(roomId) ?? [owner]).filter((m) => m !== owner)
      const u = others.length ? others[k % others.length]! : owner
      const reason = `admin-conformance report ${k + 1}`
      const body = [{ reason, score: -50 }, {}, { reason }, { score: -25 }][k % 4]
      await this.must('POST', reportUrl(roomId, eventId), { bearer: u.compatToken, json: body }, [200], `report an event as ${u.username}`)
      reports++
    }
    const first = roomList[0]
    if (first && this.o.reports > 0) {
      const [roomId, { user }] = first
      const url = reportUrl(roomId, `$ac-no-such-event-${this.suffix}:${this.ctx.plan.serverName}`)
      const res = await http('POST', url, {
        bearer: user.compatToken,
        json: { reason: 'admin-conformance: an event that does not exist' },
        signal: this.ctx.signal,
      })
      if (res.status === 200) reports++
      else
        this.notes.push(
          this.ctx.redactor.apply(describe('report on an event that does not exist (refused, as newer releases do)', 'POST', url, res)),
        )
    }
    return reports
  }

  /**
   * The homeserver admin token: the admin user's personal token if the homeserver takes it as admin,
   * else a client_credentials token with the homeserver admin scope.
   */
  async homeserverAdmin(adminPat: string | undefined): Promise<Fixtures['hsAdmin']> {
    const { plan, signal, redactor } = this.ctx
    const probe = this.hs('_synapse/admin/v1/event_reports?limit=1')
    if (adminPat) {
      const r = await http('GET', probe, { bearer: adminPat, signal })
      if (r.status === 200) return { kind: 'personal', token: adminPat }
      this.notes.push(describe('homeserver admin by personal token', 'GET', probe, r))
    }
    const source = new TokenSource({
      tokenUrl: this.mas('oauth2/token'),
      clientId: plan.adminClient.id,
      clientSecret: plan.adminClient.secret,
      scope: ADMIN_SCOPE_HS,
      onToken: (t) => redactor.add(t),
    })
    let r: HttpResponse | undefined
    try {
      r = await http('GET', probe, { bearer: await source.token(signal), signal })
    } catch (e) {
      this.notes.push((e as Error).message)
    }
    if (r?.status === 200) return { kind: 'client_credentials', source }
    throw new DeployError('bootstrap', 'no token is accepted as homeserver admin', [
      ...this.notes.map((n) => redactor.apply(n)),
      ...(r ? [redactor.apply(describe('homeserver admin by client_credentials', 'GET', probe, r))] : []),
    ])
  }
}

export async function createFixtures(ctx: FixtureContext, o: FixtureOptions = DEFAULT_FIXTURES): Promise<Fixtures> {
  const f = new FixtureMaker(ctx, o)
  const { adminUser, users } = await f.users()
  // Personal sessions: the admin user's carries the homeserver admin scope; a user's carries none.
  let personalSessions = 0
  const adminPat = await f.personal(adminUser.id, `${CLIENT_SCOPE} ${ADMIN_SCOPE_HS}`, 'admin-conformance homeserver admin')
  if (adminPat) personalSessions++
  const userPat = await f.personal(users[0]!.id, CLIENT_SCOPE, 'admin-conformance user')
  if (userPat) personalSessions++
  if (users[1] && (await f.personal(users[1].id, CLIENT_SCOPE, 'admin-conformance expiring', 3600))) personalSessions++
  const oauthSessions = await f.oauthSessions()
  const byRoom = await f.rooms(users)
  const members = await f.joinAll(byRoom, users)
  const reports = await f.reports(byRoom, members)
  const rooms = [...byRoom.keys()]
  const events = [...byRoom.values()].flatMap((r) => r.events)
  ctx.say(
    `${rooms.length} rooms, ${events.length} events, ${reports} reports, ${personalSessions} personal and ${oauthSessions} OAuth 2.0 sessions`,
  )
  const hsAdmin = await f.homeserverAdmin(adminPat)
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
    notes: f.notes,
  }
}
