// What the three session kinds share when seeded: how `options.sessions` splits across them, their
// creation times (spread over the 180 days before the epoch), and a session's end and activity,
// consistent with its user (all sessions of a deactivated user are finished).
import type { Micros, User } from '../../store/mas/index.ts'
import type { SeedContext } from './context.ts'
import { DAY_US, MINUTE_US, SECOND_US } from '../time.ts'

export interface SessionPlan {
  nCompat: number
  nOAuth2: number
  nPersonal: number
  /** creation time of the i-th of `count` sessions */
  timeOf(i: number, count: number): Micros
  /** a session's end and activity, consistent with its user */
  lifecycle(u: User, at: Micros, pFinished: number): { finishedAt: Micros | null; lastActiveAt: Micros | null; lastActiveIp: string | null }
  deviceId(): string
}

export function sessionPlan(ctx: SeedContext): SessionPlan {
  const { options, E, d, pools } = ctx
  const n = options.sessions
  const tStart = E - 180 * DAY_US
  const span = 179 * DAY_US
  return {
    nCompat: Math.floor(n / 3) + (n % 3 > 0 ? 1 : 0),
    nOAuth2: Math.max(2, Math.floor(n / 3) + (n % 3 > 1 ? 1 : 0)),
    nPersonal: Math.floor(n / 3),
    timeOf: (i, count) => tStart + Math.floor(((i + d.random()) * span) / Math.max(1, count)),
    lifecycle: (u, at, pFinished) => {
      let finishedAt: Micros | null = null
      if (u.deactivatedAt !== null) finishedAt = Math.max(at + SECOND_US, u.deactivatedAt)
      else if (d.chance(pFinished)) finishedAt = Math.min(E - MINUTE_US, at + d.between(MINUTE_US, 30 * DAY_US))
      const active = d.chance(0.7)
      const lastActiveAt = active ? d.between(at, finishedAt ?? E - MINUTE_US) : null
      return { finishedAt, lastActiveAt, lastActiveIp: active ? d.pick(pools.ips) : null }
    },
    deviceId: () => d.alnum(10),
  }
}
