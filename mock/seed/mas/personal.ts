// Seeded personal sessions: owned by a user (the actor or an admin) or a client (the admin client
// or another static one); active with a never-expiring, expiring or already expired token, or revoked.
import type { PersonalSession } from '../../store/mas/index.ts'
import { type SeedContext, need } from './context.ts'
import type { SessionPlan } from './sessions.ts'
import { DAY_US, HOUR_US, MINUTE_US } from '../time.ts'

function personalScope(roll: number, plan: SessionPlan): string {
  if (roll < 0.3) return 'urn:mas:admin'
  if (roll < 0.55) return 'openid'
  if (roll < 0.75) return 'openid urn:mas:admin'
  if (roll < 0.85) return 'urn:mas:graphql:*'
  if (roll < 0.95) return 'urn:synapse:admin:*'
  // normalizeScope's sorted set, written out: the device id never moves a token
  return ['urn:matrix:client:api:* urn:matrix:client:device:', plan.deviceId()].join('')
}

export function seedPersonalSessions(ctx: SeedContext, plan: SessionPlan): void {
  const { options, E, d, pools, store } = ctx
  const users = need(ctx.users, 'users')
  const { otherStatic } = need(ctx.clients, 'clients')
  const personalId = d.ulid()
  const admins = users.filter((u) => u.admin && u.deactivatedAt === null)
  const n = plan.nPersonal
  const personal: PersonalSession[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const at = plan.timeOf(i, n)
    const actor = d.pick(users)
    const roll = d.random()
    let ownerUserId: string | null = null
    let ownerClientId: string | null = null
    if (roll < 0.55) ownerUserId = actor.id
    else if (roll < 0.7) ownerUserId = (admins.length ? d.pick(admins) : actor).id
    else if (roll < 0.9) ownerClientId = options.adminClientId
    else ownerClientId = d.pick(otherStatic)
    const revoked = actor.deactivatedAt !== null || d.chance(0.25)
    const revokedAt = revoked ? (actor.deactivatedAt ?? Math.min(E - MINUTE_US, at + d.between(HOUR_US, 60 * DAY_US))) : null
    // active tokens: never expiring, expiring in the future, or already expired (still "active")
    const expiry = revoked ? null : d.chance(0.4) ? null : at + d.pick([1, 7, 30, 90, 180, 365]) * DAY_US
    const active = d.chance(0.6)
    const scope = personalScope(d.random(), plan)
    personal[i] = {
      id: personalId(at),
      createdAt: at,
      revokedAt,
      ownerUserId,
      ownerClientId,
      actorUserId: actor.id,
      humanName: d.pick(pools.tokenNames),
      scope,
      lastActiveAt: active ? d.between(at, revokedAt ?? E - MINUTE_US) : null,
      lastActiveIp: active ? d.pick(pools.ips) : null,
      hasActiveToken: !revoked,
      tokenExpiresAt: expiry,
    }
  }
  store.personal.load(personal)
}
