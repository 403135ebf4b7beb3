// The auth service's records beyond the interface document's sessions: user emails (and, as they
// come, upstream providers and links and registration tokens). They hang off the MasStore they
// belong to (a WeakMap: a reset builds a new MasStore, so a new world starts with new records),
// which keeps store/mas.ts and the World type untouched while their owners refactor them.
import type { MasStore, Micros } from './mas.ts'
import { OrderedCollection } from './ordered.ts'

export interface UserEmail {
  readonly id: string
  readonly userId: string
  readonly email: string
  readonly createdAt: Micros
  /** deleted records leave every bucket (the ordered collection has no removal) */
  deleted: boolean
}

/** the bucket every live record is in: listings query it, so deleted records never show */
export const LIVE = { index: 'live', keys: ['yes'] } as const

export interface UpstreamProvider {
  readonly id: string
  readonly issuer: string | null
  readonly humanName: string | null
  readonly brandName: string | null
  readonly createdAt: Micros
  readonly disabledAt: Micros | null
  readonly registrationTokenRequired: boolean
}

export interface UpstreamLink {
  readonly id: string
  readonly providerId: string
  readonly subject: string
  userId: string | null
  readonly humanAccountName: string | null
  readonly createdAt: Micros
  deleted: boolean
}

export interface RegistrationToken {
  readonly id: string
  readonly token: string
  usageLimit: number | null
  timesUsed: number
  readonly createdAt: Micros
  lastUsedAt: Micros | null
  expiresAt: Micros | null
  revokedAt: Micros | null
}

/** the service's validity: under its usage limit, not revoked, not expired (expires_at >= now) */
export function tokenValid(t: RegistrationToken, now: Micros): boolean {
  return (t.usageLimit === null || t.timesUsed < t.usageLimit) && t.revokedAt === null && (t.expiresAt === null || t.expiresAt >= now)
}

export class MasExtra {
  /** buckets: by user, and by the lower-cased address (the service compares LOWER(email)) */
  readonly emails = new OrderedCollection<UserEmail, 'live' | 'user' | 'email'>({
    indexes: {
      live: { keys: (e) => (e.deleted ? null : 'yes') },
      user: { keys: (e) => (e.deleted ? null : e.userId) },
      email: { keys: (e) => (e.deleted ? null : e.email.toLowerCase()) },
    },
  })

  readonly providers = new OrderedCollection<UpstreamProvider, 'enabled'>({ indexes: { enabled: { keys: (p) => String(p.disabledAt === null) } } })

  readonly links = new OrderedCollection<UpstreamLink, 'live' | 'user' | 'provider' | 'subject'>({
    indexes: {
      live: { keys: (l) => (l.deleted ? null : 'yes') },
      user: { keys: (l) => (l.deleted ? null : l.userId) },
      provider: { keys: (l) => (l.deleted ? null : l.providerId) },
      // provider and subject together: a subject is unique per provider
      subject: { keys: (l) => (l.deleted ? null : `${l.providerId} ${l.subject}`) },
    },
  })

  /** registration tokens; bucketed by token text (unique) */
  readonly tokens = new OrderedCollection<RegistrationToken, 'token'>({ indexes: { token: { keys: (t) => t.token } } })

  constructor(readonly mas: MasStore) {}

  addToken(token: string, usageLimit: number | null, expiresAt: Micros | null, at: Micros): RegistrationToken {
    const t: RegistrationToken = { id: this.mas.newId(at), token, usageLimit, timesUsed: 0, createdAt: at, lastUsedAt: null, expiresAt, revokedAt: null }
    this.tokens.insert(t)
    return t
  }

  getLink(id: string): UpstreamLink | undefined {
    const l = this.links.get(id)
    return l && !l.deleted ? l : undefined
  }

  linkBySubject(providerId: string, subject: string): UpstreamLink | undefined {
    return this.links.bucketLast('subject', `${providerId} ${subject}`)
  }

  addLink(providerId: string, subject: string, userId: string, humanAccountName: string | null, at: Micros): UpstreamLink {
    const l: UpstreamLink = { id: this.mas.newId(at), providerId, subject, userId, humanAccountName, createdAt: at, deleted: false }
    this.links.insert(l)
    return l
  }

  linkToUser(l: UpstreamLink, userId: string): void {
    this.links.update(l, (x) => (x.userId = userId))
  }

  removeLink(l: UpstreamLink): void {
    this.links.update(l, (x) => (x.deleted = true))
  }

  addEmail(userId: string, email: string, at: Micros): UserEmail {
    const e: UserEmail = { id: this.mas.newId(at), userId, email, createdAt: at, deleted: false }
    this.emails.insert(e)
    return e
  }

  getEmail(id: string): UserEmail | undefined {
    const e = this.emails.get(id)
    return e && !e.deleted ? e : undefined
  }

  removeEmail(e: UserEmail): void {
    this.emails.update(e, (x) => (x.deleted = true))
  }

  emailInUse(email: string): boolean {
    return this.emails.bucketSize('email', email.toLowerCase()) > 0
  }
}

const extras = new WeakMap<MasStore, MasExtra>()

/** the extra records of a world's auth service (created empty on first use) */
export function extraOf(mas: MasStore): MasExtra {
  let x = extras.get(mas)
  if (!x) extras.set(mas, (x = new MasExtra(mas)))
  return x
}
