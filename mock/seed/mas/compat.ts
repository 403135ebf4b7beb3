// Seeded compatibility (legacy Matrix login) sessions: active and finished, with or without a
// browser session, SSO redirect, device, user agent, last activity and name.
import type { CompatSession } from '../../store/mas/index.ts'
import { type SeedContext, need } from './context.ts'
import type { SessionPlan } from './sessions.ts'

export function seedCompatSessions(ctx: SeedContext, plan: SessionPlan): void {
  const { d, pools, store } = ctx
  const users = need(ctx.users, 'users')
  const browserOf = need(ctx.browserOf, 'browser sessions')
  const compatId = d.ulid()
  const n = plan.nCompat
  const compat: CompatSession[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const at = plan.timeOf(i, n)
    const ui = d.int(users.length)
    const u = users[ui]!
    const life = plan.lifecycle(u, at, 0.3)
    const viaBrowser = d.chance(0.35) ? d.pick(browserOf[ui]!) : undefined
    compat[i] = {
      id: compatId(at),
      userId: u.id,
      deviceId: d.chance(0.97) ? plan.deviceId() : null,
      userSessionId: viaBrowser?.id ?? null,
      redirectUri: viaBrowser && d.chance(0.5) ? d.pick(pools.redirectUris) : null,
      createdAt: at,
      userAgent: d.chance(0.8) ? d.pick(pools.userAgents) : null,
      lastActiveAt: life.lastActiveAt,
      lastActiveIp: life.lastActiveIp,
      finishedAt: life.finishedAt,
      humanName: d.chance(0.5) ? d.pick(pools.deviceNames) : null,
    }
  }
  store.compat.load(compat)
}
