// The auth service's seeded world, the same for the same seed and size: faker (seeded, its own
// instance) draws the word pools once, then a fast seeded PRNG draws every per-item choice, and
// ulidx makes the ids from the item's creation time and that PRNG. All times derive from
// options.epoch, never from the wall clock.
//
// What exists, so that every listing, filter and state has examples:
// - users (a few locked, deactivated, admins, one legacy guest), 1–2 browser sessions each;
// - static clients (the admin client of the options among them) and dynamically registered ones;
// - compat sessions: active / finished, with or without browser session, SSO redirect, device,
//   user agent, last activity, name; all sessions of deactivated users are finished;
// - OAuth 2.0 sessions: user-bound and client-credentials (no user), static and dynamic clients,
//   device-bound scopes, finished ones; plus the sessions of the admin token (client credentials of
//   the admin client, scope urn:mas:admin) and of the user token (scope openid), the newest two;
// - personal sessions: owned by a user or a client, active with a never-expiring, expiring or
//   already expired token, revoked;
// - three policy-data records.
import { Faker, en, base } from '@faker-js/faker'
import { monotonicFactory } from 'ulidx'
import type { MockOptions } from '../core/options.ts'
import {
  MasStore,
  normalizeScope,
  type BrowserSession,
  type Client,
  type CompatSession,
  type Micros,
  type OAuth2Session,
  type PersonalSession,
  type User,
} from '../store/mas.ts'

const SECOND = 1_000_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** The password of every seeded user that has one (documented for fixtures: it is a mock). */
export const SEEDED_PASSWORD = 'mock-password'

/** mulberry32: tiny, fast, and good enough to pick seeded values */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * A flat copy of an ASCII string. ulidx builds ids by concatenating characters, which V8 keeps as
 * a tree of 25 string pieces (~230 bytes); a million of them would not fit the memory budget.
 */
function flat(s: string): string {
  return Buffer.from(s, 'latin1').toString('latin1')
}

function canonicalIp(ip: string): string {
  // The service prints Rust's IpAddr Display: IPv6 compressed, without leading zeros.
  return ip.includes(':') ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip
}

export function seedMas(options: MockOptions): MasStore {
  const faker = new Faker({ locale: [en, base] })
  faker.seed(options.seed)
  const random = prng(faker.number.int({ min: 0, max: 2 ** 32 - 1 }))
  const int = (n: number) => Math.floor(random() * n)
  const chance = (p: number) => random() < p
  const pick = <T>(arr: readonly T[]): T => arr[int(arr.length)]!
  const between = (a: Micros, b: Micros): Micros => a + Math.floor(random() * Math.max(1, b - a))
  const E: Micros = options.epoch.getTime() * 1000
  const ulid = () => {
    const f = monotonicFactory(random)
    return (at: Micros) => flat(f(Math.floor(at / 1000)))
  }
  const codes: number[] = []
  const alnum = (n: number) => {
    codes.length = n
    for (let i = 0; i < n; i++) codes[i] = ALNUM.charCodeAt(int(ALNUM.length))
    return String.fromCharCode(...codes)
  }

  // ----- pools, drawn once with faker --------------------------------------------------------
  const firstNames = Array.from({ length: 200 }, () => faker.person.firstName())
  const lastNames = Array.from({ length: 200 }, () => faker.person.lastName())
  const userAgents = Array.from({ length: 48 }, () => faker.internet.userAgent())
  const ips = [
    ...Array.from({ length: 1500 }, () => faker.internet.ipv4()),
    ...Array.from({ length: 150 }, () => canonicalIp(faker.internet.ipv6())),
  ]
  const apps = ['Element', 'Element X', 'FluffyChat', 'Nheko', 'Cinny', 'SchildiChat', 'Fractal', 'NeoChat']
  const platforms = ['iPhone', 'iPad', 'Android', 'macOS', 'Windows', 'Linux', 'Firefox', 'Chrome', 'Safari']
  const deviceNames = Array.from({ length: 60 }, () => `${pick(apps)} on ${pick(platforms)}`)
  const tokenNames = Array.from({ length: 40 }, () => `${faker.word.adjective()} ${faker.word.noun()} token`)
  const clientNames = Array.from({ length: 30 }, () => `${faker.company.name()} ${pick(['Chat', 'Bridge', 'Bot', 'Dashboard', 'Sync'])}`)
  const domains = Array.from({ length: 20 }, () => faker.internet.domainName())
  const redirectUris = domains.slice(0, 8).map((d) => `https://${d}/sso/callback`)

  const store = new MasStore(options.serverName, { server_name: options.serverName, admin_clients: [], admin_users: [] }, [options.adminClientId])

  // ----- clients ------------------------------------------------------------------------------
  const clientId = ulid()
  const clients: Client[] = []
  const staticClient = (id: string, name: string, secret: string | null, grantTypes: string[], at: Micros): Client => ({
    id,
    kind: 'static',
    name,
    secret,
    authMethod: secret === null ? 'none' : 'client_secret_basic',
    grantTypes,
    redirectUris: [],
    createdAt: at,
  })
  const tClients = E - 400 * DAY
  clients.push(staticClient(options.adminClientId, 'Admin automation', options.adminClientSecret, ['client_credentials'], tClients))
  if (options.hsDelegateClientId && options.hsDelegateClientSecret && options.hsDelegateClientId !== options.adminClientId) {
    clients.push(staticClient(options.hsDelegateClientId, 'Homeserver', options.hsDelegateClientSecret, ['client_credentials'], tClients))
  }
  const nDynamic = Math.max(4, Math.ceil(options.sessions / 2000))
  const clientTimes = Array.from({ length: 3 + nDynamic }, (_, i) => tClients + (i + 1) * HOUR + int(HOUR))
  for (let i = 0; i < clientTimes.length; i++) {
    const at = clientTimes[i]!
    const id = clientId(at)
    if (i < 3) {
      clients.push(staticClient(id, pick(clientNames), `secret-${alnum(24)}`, ["authorization_code", "refresh_token", "client_credentials"], at))
    } else {
      const confidential = chance(0.6)
      const domain = pick(domains)
      clients.push({
        id,
        kind: 'dynamic',
        name: chance(0.8) ? pick(clientNames) : null,
        secret: confidential ? `secret-${alnum(24)}` : null,
        authMethod: confidential ? pick(['client_secret_basic', 'client_secret_post'] as const) : 'none',
        grantTypes: confidential && chance(0.5) ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
        redirectUris: [`https://${domain}/oauth/callback`],
        createdAt: at,
      })
    }
  }
  clients.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  store.clients.load(clients)
  const staticIds = clients.filter((c) => c.kind === 'static' && c.id !== options.hsDelegateClientId).map((c) => c.id)
  const otherStatic = staticIds.filter((id) => id !== options.adminClientId)
  const dynamicUser = clients.filter((c) => c.kind === 'dynamic' && c.grantTypes.includes('authorization_code')).map((c) => c.id)
  const dynamicCc = clients.filter((c) => c.kind === 'dynamic' && c.grantTypes.includes('client_credentials')).map((c) => c.id)

  // ----- users --------------------------------------------------------------------------------
  const nUsers = Math.max(8, Math.ceil(options.sessions / 12))
  const userId = ulid()
  const users: User[] = []
  const taken = new Set<string>()
  const tUsers = E - 380 * DAY
  const userSpan = 80 * DAY
  for (let i = 0; i < nUsers; i++) {
    const at = tUsers + Math.floor(((i + random()) * userSpan) / nUsers)
    let name = `${pick(firstNames)}.${pick(lastNames)}`.toLowerCase().replace(/[^a-z0-9._=/+-]/g, '')
    if (chance(0.5)) name += String(int(100))
    if (name === '' || name.startsWith('_')) name = `user${name}`
    while (taken.has(name)) name += String(int(10))
    taken.add(name)
    // The first user owns the seeded user token: always active and not an admin.
    const special = i === 0 ? 'plain' : pick(['plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'plain', 'admin', 'locked', 'deactivated', 'locked'])
    const lockedAt = special === 'locked' ? E - between(1 * DAY, 30 * DAY) : null
    users.push({
      id: userId(at),
      username: name,
      createdAt: at,
      lockedAt,
      deactivatedAt: special === 'deactivated' ? E - between(2 * HOUR, 12 * HOUR) : null,
      admin: special === 'admin' || i === 1,
      legacyGuest: i === 2,
      password: special === 'deactivated' ? null : SEEDED_PASSWORD,
    })
  }
  store.users.load(users)

  // ----- browser sessions -----------------------------------------------------------------------
  const drafts: { user: number; at: Micros }[] = []
  users.forEach((u, i) => {
    const n = 1 + (chance(0.5) ? 1 : 0)
    for (let k = 0; k < n; k++) drafts.push({ user: i, at: u.createdAt + between(MINUTE, 20 * DAY) })
  })
  drafts.sort((a, b) => a.at - b.at)
  const browserId = ulid()
  const browserOf: BrowserSession[][] = users.map(() => [])
  const browser: BrowserSession[] = drafts.map((d) => {
    const u = users[d.user]!
    const finished = u.deactivatedAt !== null || chance(0.4)
    const finishedAt = finished ? (u.deactivatedAt ?? d.at + between(HOUR, 60 * DAY)) : null
    const active = chance(0.8)
    const s: BrowserSession = {
      id: browserId(d.at),
      userId: u.id,
      createdAt: d.at,
      finishedAt,
      userAgent: pick(userAgents),
      lastActiveAt: active ? between(d.at, finishedAt ?? E - MINUTE) : null,
      lastActiveIp: active ? pick(ips) : null,
    }
    browserOf[d.user]!.push(s)
    return s
  })
  store.userSessions.load(browser)

  // ----- sessions -----------------------------------------------------------------------------
  const n = options.sessions
  const nCompat = Math.floor(n / 3) + (n % 3 > 0 ? 1 : 0)
  const nOAuth2 = Math.max(2, Math.floor(n / 3) + (n % 3 > 1 ? 1 : 0))
  const nPersonal = Math.floor(n / 3)
  const tStart = E - 180 * DAY
  const span = 179 * DAY
  const timeOf = (i: number, count: number) => tStart + Math.floor(((i + random()) * span) / Math.max(1, count))
  /** a session's end and activity, consistent with its user */
  const lifecycle = (u: User, at: Micros, pFinished: number) => {
    let finishedAt: Micros | null = null
    if (u.deactivatedAt !== null) finishedAt = Math.max(at + SECOND, u.deactivatedAt)
    else if (chance(pFinished)) finishedAt = Math.min(E - MINUTE, at + between(MINUTE, 30 * DAY))
    const active = chance(0.7)
    const lastActiveAt = active ? between(at, finishedAt ?? E - MINUTE) : null
    return { finishedAt, lastActiveAt, lastActiveIp: active ? pick(ips) : null }
  }
  const deviceId = () => alnum(10)

  // compat
  const compatId = ulid()
  const compat: CompatSession[] = new Array(nCompat)
  for (let i = 0; i < nCompat; i++) {
    const at = timeOf(i, nCompat)
    const ui = int(users.length)
    const u = users[ui]!
    const life = lifecycle(u, at, 0.3)
    const viaBrowser = chance(0.35) ? pick(browserOf[ui]!) : undefined
    compat[i] = {
      id: compatId(at),
      userId: u.id,
      deviceId: chance(0.97) ? deviceId() : null,
      userSessionId: viaBrowser?.id ?? null,
      redirectUri: viaBrowser && chance(0.5) ? pick(redirectUris) : null,
      createdAt: at,
      userAgent: chance(0.8) ? pick(userAgents) : null,
      lastActiveAt: life.lastActiveAt,
      lastActiveIp: life.lastActiveIp,
      finishedAt: life.finishedAt,
      humanName: chance(0.5) ? pick(deviceNames) : null,
    }
  }
  store.compat.load(compat)

  // OAuth 2.0
  const oauthId = ulid()
  const nRandomOAuth2 = nOAuth2 - 2
  const oauth2: OAuth2Session[] = new Array(nRandomOAuth2)
  for (let i = 0; i < nRandomOAuth2; i++) {
    const at = timeOf(i, nRandomOAuth2)
    const id = oauthId(at)
    if (chance(0.15)) {
      // client credentials: no user, no browser session
      const admin = chance(0.4)
      const client = admin ? options.adminClientId : dynamicCc.length && chance(0.6) ? pick(dynamicCc) : pick(otherStatic)
      const finished = admin ? chance(0.9) : chance(0.3)
      const active = chance(0.5)
      oauth2[i] = {
        id,
        createdAt: at,
        finishedAt: finished ? Math.min(E - MINUTE, at + between(MINUTE, 2 * HOUR)) : null,
        userId: null,
        userSessionId: null,
        clientId: client,
        scope: admin ? 'urn:mas:admin' : pick(['openid', 'urn:mas:graphql:*', 'email openid']),
        userAgent: chance(0.6) ? pick(['curl/8.5.0', 'python-requests/2.32.3', 'Go-http-client/2.0', 'node']) : null,
        lastActiveAt: active ? at + between(SECOND, 5 * MINUTE) : null,
        lastActiveIp: active ? pick(ips) : null,
        humanName: null,
      }
      continue
    }
    const ui = int(users.length)
    const u = users[ui]!
    const life = lifecycle(u, at, 0.3)
    const dev = deviceId()
    const roll = random()
    const scope =
      roll < 0.35
        ? ['openid', 'urn:matrix:org.matrix.msc2967.client:api:*', `urn:matrix:org.matrix.msc2967.client:device:${dev}`]
        : roll < 0.7
          ? ['openid', 'urn:matrix:client:api:*', `urn:matrix:client:device:${dev}`]
          : roll < 0.8
            ? ['openid']
            : roll < 0.85
              ? ['openid', 'email']
              : roll < 0.9
                ? ['urn:mas:graphql:*', 'openid']
                : roll < 0.95
                  ? ['openid', 'urn:mas:admin']
                  : ['openid', 'urn:synapse:admin:*', 'urn:matrix:client:api:*', `urn:matrix:client:device:${dev}`]
    oauth2[i] = {
      id,
      createdAt: at,
      finishedAt: life.finishedAt,
      userId: u.id,
      userSessionId: chance(0.6) ? pick(browserOf[ui]!).id : null,
      clientId: chance(0.5) ? pick(otherStatic) : dynamicUser.length ? pick(dynamicUser) : pick(otherStatic),
      scope: normalizeScope(scope).join(' '),
      userAgent: chance(0.8) ? pick(userAgents) : null,
      lastActiveAt: life.lastActiveAt,
      lastActiveIp: life.lastActiveIp,
      humanName: chance(0.3) ? pick(deviceNames) : null,
    }
  }
  // The sessions behind the configured tokens, newest of all.
  const tAdmin = E - 10 * MINUTE
  const adminSession: OAuth2Session = {
    id: oauthId(tAdmin),
    createdAt: tAdmin,
    finishedAt: null,
    userId: null,
    userSessionId: null,
    clientId: options.adminClientId,
    scope: 'urn:mas:admin',
    userAgent: null,
    lastActiveAt: null,
    lastActiveIp: null,
    humanName: null,
  }
  const tUser = E - 9 * MINUTE
  const tokenUser = users[0]!
  const userSession: OAuth2Session = {
    id: oauthId(tUser),
    createdAt: tUser,
    finishedAt: null,
    userId: tokenUser.id,
    userSessionId: browserOf[0]![0]!.id,
    clientId: otherStatic[0]!,
    scope: 'openid',
    userAgent: pick(userAgents),
    lastActiveAt: null,
    lastActiveIp: null,
    humanName: null,
  }
  oauth2.push(adminSession, userSession)
  store.oauth2.load(oauth2)
  store.addToken({ value: options.adminToken, kind: 'oauth2', sessionId: adminSession.id, createdAt: tAdmin, expiresAt: null, revokedAt: null })
  store.addToken({ value: options.userToken, kind: 'oauth2', sessionId: userSession.id, createdAt: tUser, expiresAt: null, revokedAt: null })

  // personal
  const personalId = ulid()
  const admins = users.filter((u) => u.admin && u.deactivatedAt === null)
  const personal: PersonalSession[] = new Array(nPersonal)
  for (let i = 0; i < nPersonal; i++) {
    const at = timeOf(i, nPersonal)
    const actor = pick(users)
    const roll = random()
    let ownerUserId: string | null = null
    let ownerClientId: string | null = null
    if (roll < 0.55) ownerUserId = actor.id
    else if (roll < 0.7) ownerUserId = (admins.length ? pick(admins) : actor).id
    else if (roll < 0.9) ownerClientId = options.adminClientId
    else ownerClientId = pick(otherStatic)
    const revoked = actor.deactivatedAt !== null || chance(0.25)
    const revokedAt = revoked ? (actor.deactivatedAt ?? Math.min(E - MINUTE, at + between(HOUR, 60 * DAY))) : null
    // active tokens: never expiring, expiring in the future, or already expired (still "active")
    const expiry = revoked ? null : chance(0.4) ? null : at + pick([1, 7, 30, 90, 180, 365]) * DAY
    const active = chance(0.6)
    const scopeRoll = random()
    const scope =
      scopeRoll < 0.3
        ? 'urn:mas:admin'
        : scopeRoll < 0.55
          ? 'openid'
          : scopeRoll < 0.75
            ? 'openid urn:mas:admin'
            : scopeRoll < 0.85
              ? 'urn:mas:graphql:*'
              : scopeRoll < 0.95
                ? 'urn:synapse:admin:*'
                : normalizeScope(['urn:matrix:client:api:*', `urn:matrix:client:device:${deviceId()}`]).join(' ')
    personal[i] = {
      id: personalId(at),
      createdAt: at,
      revokedAt,
      ownerUserId,
      ownerClientId,
      actorUserId: actor.id,
      humanName: pick(tokenNames),
      scope,
      lastActiveAt: active ? between(at, revokedAt ?? E - MINUTE) : null,
      lastActiveIp: active ? pick(ips) : null,
      hasActiveToken: !revoked,
      tokenExpiresAt: expiry,
    }
  }
  store.personal.load(personal)

  // ----- policy data --------------------------------------------------------------------------
  const policyId = ulid()
  const adminNames = admins.slice(0, 3).map((u) => u.username)
  const policies = [
    { at: E - 60 * DAY, data: { admin_clients: [options.adminClientId] } },
    { at: E - 30 * DAY, data: { admin_clients: [options.adminClientId], admin_users: adminNames } },
    {
      at: E - 7 * DAY + 123_456,
      data: { admin_clients: [options.adminClientId], admin_users: adminNames, client_registration: { allow_insecure_uris: false, allow_host_mismatch: false } },
    },
  ]
  store.policyData.load(policies.map((p) => ({ id: policyId(p.at), createdAt: p.at, data: p.data })))
  return store
}
