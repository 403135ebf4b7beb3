// Seeds the auth service's extra records (mock/store/mas/extra.ts), deterministic per seed, after
// the users exist: most users have one or two email addresses (a few none), some addresses in mixed
// case (the service matches them case-insensitively); four upstream OAuth 2.0 providers (one
// disabled) and links of about half the users to them, plus a few links without a user; eight
// registration tokens, one in each state (unused, partly used, used up, expired, revoked, unlimited;
// the expiries to come are years after the epoch, so that they stay valid whatever the date).
import { seededRandom } from '../random.ts'
import { monotonicUlid } from './random.ts'
import { DAY_US, MINUTE_US } from '../time.ts'
import type { SeedSettings } from '../settings.ts'
import type { MasStore, Micros } from '../../store/mas/index.ts'
import { type UpstreamLink, type UserEmail } from '../../store/mas/extra.ts'

const DOMAINS = ['example.org', 'mail.example.com', 'Example.NET', 'corp.example']

/** ids for records planned at `times`, made in time order so that each id carries its own time */
export function idsFor(times: Micros[], random: () => number): string[] {
  const make = monotonicUlid(random)
  const order = times.map((t, i) => [t, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const out: string[] = new Array(times.length)
  for (const [t, i] of order) out[i] = make(Math.floor(t / 1000))
  return out
}

function seedEmails(store: MasStore, options: SeedSettings): void {
  const random = seededRandom(options.seed, 0xe3a11)
  const E: Micros = options.epoch.getTime() * 1000
  const planned: Omit<UserEmail, 'id'>[] = []
  const taken = new Set<string>()
  for (const u of store.users.all()) {
    const n = random() < 0.1 ? 0 : random() < 0.7 ? 1 : 2
    for (let k = 0; k < n; k++) {
      const domain = DOMAINS[Math.floor(random() * DOMAINS.length)]!
      const local = k === 0 ? u.username : `${u.username.split('.')[0]}+${Math.floor(random() * 1000)}`
      const email = random() < 0.15 ? `${local}@${domain}`.replace(/^./, (c) => c.toUpperCase()) : `${local}@${domain}`
      const at = Math.min(E - MINUTE_US, u.createdAt + Math.floor(k === 0 ? random() * 10 * MINUTE_US : random() * 60 * DAY_US))
      if (taken.has(email.toLowerCase())) continue
      taken.add(email.toLowerCase())
      planned.push({ userId: u.id, email, createdAt: at, deleted: false })
    }
  }
  const ids = idsFor(
    planned.map((p) => p.createdAt),
    random,
  )
  // Literals in the store's own field order, not spreads: a spread gave each record a hidden class
  // of its own (two V8 objects more per record, tens of MiB at a million sessions).
  const emails = planned
    .map((p, i): UserEmail => ({ id: ids[i]!, userId: p.userId, email: p.email, createdAt: p.createdAt, deleted: false }))
    .sort((a, b) => (a.id < b.id ? -1 : 1))
  store.extra.emails.load(emails)
}

const PROVIDERS = [
  { issuer: 'https://accounts.example.com', humanName: 'Example Accounts', brandName: 'google' },
  { issuer: 'https://gitlab.example.org', humanName: 'GitLab', brandName: 'gitlab' },
  { issuer: 'https://sso.corp.example/realms/staff', humanName: 'Staff SSO', brandName: null },
  { issuer: null, humanName: 'GitHub', brandName: 'github' },
]

/** four providers (the third disabled, the second requiring a registration token) and their links */
function seedUpstream(store: MasStore, options: SeedSettings): void {
  const random = seededRandom(options.seed, 0x0a7b5)
  const E: Micros = options.epoch.getTime() * 1000
  const x = store.extra
  const pTimes = PROVIDERS.map((_, i) => E - 400 * DAY_US + i * DAY_US + Math.floor(random() * DAY_US))
  const pIds = idsFor(pTimes, random)
  x.providers.load(
    PROVIDERS.map((p, i) => ({
      id: pIds[i]!,
      issuer: p.issuer,
      humanName: p.humanName,
      brandName: p.brandName,
      createdAt: pTimes[i]!,
      disabledAt: i === 2 ? E - 30 * DAY_US : null,
      registrationTokenRequired: i === 1,
    })),
  )
  const planned: { providerId: string; subject: string; userId: string | null; humanAccountName: string | null; createdAt: Micros }[] = []
  for (const u of store.users.all()) {
    if (random() < 0.55) continue
    const p = Math.floor(random() * PROVIDERS.length)
    const subject = String(100000 + Math.floor(random() * 900000)) + u.id.slice(-4).toLowerCase()
    planned.push({
      providerId: pIds[p]!,
      subject,
      userId: u.id,
      humanAccountName: random() < 0.7 ? `${u.username}@${new URL(PROVIDERS[p]!.issuer ?? 'https://github.com').hostname}` : null,
      createdAt: u.createdAt + Math.floor(random() * 5 * MINUTE_US),
    })
  }
  // logins upstream that never finished registering: links without a user
  for (let i = 0; i < 3; i++)
    planned.push({
      providerId: pIds[i % 2]!,
      subject: `pending-${i}-${Math.floor(random() * 1e6)}`,
      userId: null,
      humanAccountName: null,
      createdAt: E - Math.floor((1 + random() * 20) * DAY_US),
    })
  const ids = idsFor(
    planned.map((p) => p.createdAt),
    random,
  )
  const links = planned.map((p, i): UpstreamLink => ({
    id: ids[i]!,
    providerId: p.providerId,
    subject: p.subject,
    userId: p.userId,
    humanAccountName: p.humanAccountName,
    createdAt: p.createdAt,
    deleted: false,
  }))
  x.links.load(links.sort((a, b) => (a.id < b.id ? -1 : 1)))
}

/** registration tokens in every state: unused, partly used, used up, expired, revoked, unlimited */
function seedTokens(store: MasStore, options: SeedSettings): void {
  const random = seededRandom(options.seed, 0x70c3e)
  const E: Micros = options.epoch.getTime() * 1000
  const text = () =>
    Array.from({ length: 12 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(random() * 62)]).join('')
  const kinds: { limit: number | null; used: number; expires: Micros | null; revoked: boolean }[] = [
    { limit: 5, used: 0, expires: null, revoked: false },
    { limit: 10, used: 3, expires: E + 3650 * DAY_US, revoked: false },
    { limit: 2, used: 2, expires: null, revoked: false },
    { limit: null, used: 1, expires: E - 5 * DAY_US, revoked: false },
    { limit: 3, used: 1, expires: null, revoked: true },
    { limit: null, used: 17, expires: null, revoked: false },
    { limit: 1, used: 0, expires: E - 1 * DAY_US, revoked: true },
    { limit: null, used: 0, expires: E + 5000 * DAY_US, revoked: false },
  ]
  const times = kinds.map((_, i) => E - (60 - i * 6) * DAY_US + Math.floor(random() * DAY_US))
  const ids = idsFor(times, random)
  store.extra.tokens.load(
    kinds.map((k, i) => ({
      id: ids[i]!,
      token: text(),
      usageLimit: k.limit,
      timesUsed: k.used,
      createdAt: times[i]!,
      lastUsedAt: k.used > 0 ? times[i]! + Math.floor((1 + random() * 3) * DAY_US) : null,
      expiresAt: k.expires,
      revokedAt: k.revoked ? times[i]! + 4 * DAY_US : null,
    })),
  )
}

export function seedMasExtra(store: MasStore, options: SeedSettings): MasStore {
  seedEmails(store, options)
  seedUpstream(store, options)
  seedTokens(store, options)
  return store
}
