// Seeded OAuth 2.0 sessions: user-bound ones (static and dynamic clients, device-bound scopes,
// finished ones) and client-credentials ones (no user), plus the sessions behind the configured
// admin token (client credentials of the admin client, scope urn:mas:admin) and user token (scope
// openid), the newest two.
import { normalizeScope, type Micros, type OAuth2Session } from '../../store/mas/index.ts'
import { type SeedContext, need } from './context.ts'
import type { SessionPlan } from './sessions.ts'
import { HOUR_US, MINUTE_US, SECOND_US } from '../time.ts'

function clientCredentialsSession(ctx: SeedContext, id: string, at: Micros): OAuth2Session {
  const { options, E, d, pools } = ctx
  const { dynamicCc, otherStatic } = need(ctx.clients, 'clients')
  const admin = d.chance(0.4)
  const client = admin ? options.adminClientId : dynamicCc.length && d.chance(0.6) ? d.pick(dynamicCc) : d.pick(otherStatic)
  const finished = admin ? d.chance(0.9) : d.chance(0.3)
  const active = d.chance(0.5)
  return {
    id,
    createdAt: at,
    finishedAt: finished ? Math.min(E - MINUTE_US, at + d.between(MINUTE_US, 2 * HOUR_US)) : null,
    userId: null,
    userSessionId: null,
    clientId: client,
    scope: admin ? 'urn:mas:admin' : d.pick(['openid', 'urn:mas:graphql:*', 'email openid']),
    userAgent: d.chance(0.6) ? d.pick(['curl/8.5.0', 'python-requests/2.32.3', 'Go-http-client/2.0', 'node']) : null,
    lastActiveAt: active ? at + d.between(SECOND_US, 5 * MINUTE_US) : null,
    lastActiveIp: active ? d.pick(pools.ips) : null,
    humanName: null,
  }
}

/**
 * The scopes a user-bound session is seeded with, each in its stored form (a sorted set, as
 * normalizeScope makes it) around the place of the session's device id: made once, not sorted per
 * session (the sort and its set were a tenth of what seeding a million sessions allocated). The
 * device id never moves a token: the tokens differ before it.
 */
const USER_SCOPES: readonly (readonly [limit: number, before: string, after: string | null])[] = (
  [
    [0.35, ['openid', 'urn:matrix:org.matrix.msc2967.client:api:*', 'urn:matrix:org.matrix.msc2967.client:device:\0']],
    [0.7, ['openid', 'urn:matrix:client:api:*', 'urn:matrix:client:device:\0']],
    [0.8, ['openid']],
    [0.85, ['openid', 'email']],
    [0.9, ['urn:mas:graphql:*', 'openid']],
    [0.95, ['openid', 'urn:mas:admin']],
    [Infinity, ['openid', 'urn:synapse:admin:*', 'urn:matrix:client:api:*', 'urn:matrix:client:device:\0']],
  ] as const
).map(([limit, tokens]) => {
  const [before, after] = normalizeScope(tokens).join(' ').split('\0') as [string, string?]
  return [limit, before, after ?? null] as const
})

function userScope(roll: number, dev: string): string {
  // joined, not concatenated: a concatenation is a tree of string pieces that the record would keep
  for (const [limit, before, after] of USER_SCOPES) if (roll < limit) return after === null ? before : [before, dev, after].join('')
  throw new Error('unreachable: the last scope has no limit')
}

function userBoundSession(ctx: SeedContext, plan: SessionPlan, id: string, at: Micros): OAuth2Session {
  const { d, pools } = ctx
  const users = need(ctx.users, 'users')
  const browserOf = need(ctx.browserOf, 'browser sessions')
  const { dynamicUser, otherStatic } = need(ctx.clients, 'clients')
  const ui = d.int(users.length)
  const u = users[ui]!
  const life = plan.lifecycle(u, at, 0.3)
  const dev = plan.deviceId()
  const scope = userScope(d.random(), dev)
  return {
    id,
    createdAt: at,
    finishedAt: life.finishedAt,
    userId: u.id,
    userSessionId: d.chance(0.6) ? d.pick(browserOf[ui]!).id : null,
    clientId: d.chance(0.5) ? d.pick(otherStatic) : dynamicUser.length ? d.pick(dynamicUser) : d.pick(otherStatic),
    scope,
    userAgent: d.chance(0.8) ? d.pick(pools.userAgents) : null,
    lastActiveAt: life.lastActiveAt,
    lastActiveIp: life.lastActiveIp,
    humanName: d.chance(0.3) ? d.pick(pools.deviceNames) : null,
  }
}

/** The sessions behind the configured tokens, newest of all. */
function tokenSessions(ctx: SeedContext, oauthId: (at: Micros) => string): [OAuth2Session, OAuth2Session] {
  const { options, E, d, pools } = ctx
  const blank = { finishedAt: null, userSessionId: null, lastActiveAt: null, lastActiveIp: null, humanName: null }
  const tAdmin = E - 10 * MINUTE_US
  const admin: OAuth2Session = {
    id: oauthId(tAdmin),
    createdAt: tAdmin,
    ...blank,
    userId: null,
    clientId: options.adminClientId,
    scope: 'urn:mas:admin',
    userAgent: null,
  }
  const tUser = E - 9 * MINUTE_US
  const user: OAuth2Session = {
    id: oauthId(tUser),
    createdAt: tUser,
    ...blank,
    userId: need(ctx.users, 'users')[0]!.id,
    userSessionId: need(ctx.browserOf, 'browser sessions')[0]![0]!.id,
    clientId: need(ctx.clients, 'clients').otherStatic[0]!,
    scope: 'openid',
    userAgent: d.pick(pools.userAgents),
  }
  return [admin, user]
}

export function seedOAuth2Sessions(ctx: SeedContext, plan: SessionPlan): void {
  const { options, store } = ctx
  const oauthId = ctx.d.ulid()
  const n = plan.nOAuth2 - 2
  const oauth2: OAuth2Session[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const at = plan.timeOf(i, n)
    const id = oauthId(at)
    oauth2[i] = ctx.d.chance(0.15) ? clientCredentialsSession(ctx, id, at) : userBoundSession(ctx, plan, id, at)
  }
  const [admin, user] = tokenSessions(ctx, oauthId)
  oauth2.push(admin, user)
  store.oauth2.load(oauth2)
  store.addToken({
    value: options.adminToken,
    kind: 'oauth2',
    sessionId: admin.id,
    createdAt: admin.createdAt,
    expiresAt: null,
    revokedAt: null,
  })
  store.addToken({
    value: options.userToken,
    kind: 'oauth2',
    sessionId: user.id,
    createdAt: user.createdAt,
    expiresAt: null,
    revokedAt: null,
  })
}
