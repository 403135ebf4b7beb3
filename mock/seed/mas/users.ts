// Seeded users (a few locked, deactivated, admins, one legacy guest; the first owns the user token)
// and their browser sessions (1–2 each; all finished for a deactivated user).
import type { BrowserSession, Micros, User } from '../../store/mas/index.ts'
import { type SeedContext, need } from './context.ts'
import { DAY_US, HOUR_US, MINUTE_US } from '../time.ts'

/** The password of every seeded user that has one (documented for fixtures: it is a mock). */
export const SEEDED_PASSWORD = 'mock-password'

const SPECIAL = [
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'admin',
  'locked',
  'deactivated',
  'locked',
] as const

export function seedUsers(ctx: SeedContext): void {
  const { options, E, d, pools, store } = ctx
  const nUsers = Math.max(8, Math.ceil(options.sessions / 12))
  const userId = d.ulid()
  const users: User[] = []
  const taken = new Set<string>()
  const tUsers = E - 380 * DAY_US
  const userSpan = 80 * DAY_US
  for (let i = 0; i < nUsers; i++) {
    const at = tUsers + Math.floor(((i + d.random()) * userSpan) / nUsers)
    let name = `${d.pick(pools.firstNames)}.${d.pick(pools.lastNames)}`.toLowerCase().replace(/[^a-z0-9._=/+-]/g, '')
    if (d.chance(0.5)) name += String(d.int(100))
    if (name === '' || name.startsWith('_')) name = `user${name}`
    while (taken.has(name)) name += String(d.int(10))
    taken.add(name)
    // The first user owns the seeded user token: always active and not an admin.
    const special = i === 0 ? 'plain' : d.pick(SPECIAL)
    const lockedAt = special === 'locked' ? E - d.between(1 * DAY_US, 30 * DAY_US) : null
    users.push({
      id: userId(at),
      username: name,
      createdAt: at,
      lockedAt,
      deactivatedAt: special === 'deactivated' ? E - d.between(2 * HOUR_US, 12 * HOUR_US) : null,
      admin: special === 'admin' || i === 1,
      legacyGuest: i === 2,
      password: special === 'deactivated' ? null : SEEDED_PASSWORD,
    })
  }
  store.users.load(users)
  ctx.users = users
}

export function seedBrowserSessions(ctx: SeedContext): void {
  const { E, d, pools, store } = ctx
  const users = need(ctx.users, 'users')
  const drafts: { user: number; at: Micros }[] = []
  users.forEach((u, i) => {
    const n = 1 + (d.chance(0.5) ? 1 : 0)
    for (let k = 0; k < n; k++) drafts.push({ user: i, at: u.createdAt + d.between(MINUTE_US, 20 * DAY_US) })
  })
  drafts.sort((a, b) => a.at - b.at)
  const browserId = d.ulid()
  const browserOf: BrowserSession[][] = users.map(() => [])
  const browser: BrowserSession[] = drafts.map((draft) => {
    const u = users[draft.user]!
    const finished = u.deactivatedAt !== null || d.chance(0.4)
    const finishedAt = finished ? (u.deactivatedAt ?? draft.at + d.between(HOUR_US, 60 * DAY_US)) : null
    const active = d.chance(0.8)
    const s: BrowserSession = {
      id: browserId(draft.at),
      userId: u.id,
      createdAt: draft.at,
      finishedAt,
      userAgent: d.pick(pools.userAgents),
      lastActiveAt: active ? d.between(draft.at, finishedAt ?? E - MINUTE_US) : null,
      lastActiveIp: active ? d.pick(pools.ips) : null,
    }
    browserOf[draft.user]!.push(s)
    return s
  })
  store.userSessions.load(browser)
  ctx.browserOf = browserOf
}
