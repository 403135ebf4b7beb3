// The auth service's records beyond the interface document's sessions: user emails, upstream
// providers and links, registration tokens, and the browser's session cookies (their types are in
// ./records.ts). MasStore owns one MasExtra (`store.extra`), built with it, so a reset (a new
// MasStore) starts with new records.
// Like every write of the store, each change here is described as one MasWrite entry
// (./writes.ts), recorded through the store (the state journal) and only then applied.
import type { Micros, RegistrationToken, TokenChanges, UpstreamLink, UpstreamProvider, UserEmail } from './records.ts'
import type { MasWrite } from './writes.ts'
import { OrderedCollection } from '../ordered.ts'

export {
  LIVE,
  MAX_COOKIES,
  tokenValid,
  type RegistrationToken,
  type TokenChanges,
  type UpstreamLink,
  type UpstreamProvider,
  type UserEmail,
} from './records.ts'

export class MasExtra {
  /** buckets: by user, and by the lower-cased address (the service compares LOWER(email)) */
  readonly emails = new OrderedCollection<UserEmail, 'live' | 'user' | 'email'>({
    indexes: {
      live: { keys: (e) => (e.deleted ? null : 'yes') },
      user: { keys: (e) => (e.deleted ? null : e.userId) },
      email: { keys: (e) => (e.deleted ? null : e.email.toLowerCase()) },
    },
  })

  readonly providers = new OrderedCollection<UpstreamProvider, 'enabled'>({
    indexes: { enabled: { keys: (p) => String(p.disabledAt === null) } },
  })

  readonly links = new OrderedCollection<UpstreamLink, 'live' | 'user' | 'provider' | 'subject'>({
    indexes: {
      live: { keys: (l) => (l.deleted ? null : 'yes') },
      user: { keys: (l) => (l.deleted ? null : l.userId) },
      provider: { keys: (l) => (l.deleted ? null : l.providerId) },
      // provider and subject together: a subject is unique per provider
      subject: { keys: (l) => (l.deleted ? null : [l.providerId, l.subject].join(' ')) },
    },
  })

  /** registration tokens; bucketed by token text (unique) */
  readonly tokens = new OrderedCollection<RegistrationToken, 'token'>({ indexes: { token: { keys: (t) => t.token } } })

  /** browser cookie value → browser session id (insertion order: the oldest is evicted first) */
  readonly cookies = new Map<string, string>()

  /** `<provider>\n<subject>` of an upstream login through the account UI → the user it registered */
  readonly upstreamLogins = new Map<string, string>()

  constructor(
    /** the store's id generator (a ULID at a time) */
    private readonly newId: (at: Micros) => string,
    /** the store's one way to change records: recorded, then applied */
    private readonly write: (w: MasWrite) => void,
  ) {}

  // ----- registration tokens ----------------------------------------------------------------

  addToken(token: string, usageLimit: number | null, expiresAt: Micros | null, at: Micros): RegistrationToken {
    const t: RegistrationToken = {
      id: this.newId(at),
      token,
      usageLimit,
      timesUsed: 0,
      createdAt: at,
      lastUsedAt: null,
      expiresAt,
      revokedAt: null,
    }
    this.write({ t: 'mas.regtoken', token: t })
    return t
  }

  /** Sets the given fields of a token (an absent field keeps its value). */
  changeToken(t: RegistrationToken, changes: TokenChanges): void {
    this.write({ t: 'mas.regtoken.set', id: t.id, changes })
  }

  // ----- upstream links ---------------------------------------------------------------------

  getLink(id: string): UpstreamLink | undefined {
    const l = this.links.get(id)
    return l && !l.deleted ? l : undefined
  }

  linkBySubject(providerId: string, subject: string): UpstreamLink | undefined {
    return this.links.bucketLast('subject', `${providerId} ${subject}`)
  }

  addLink(providerId: string, subject: string, userId: string, humanAccountName: string | null, at: Micros): UpstreamLink {
    const l: UpstreamLink = { id: this.newId(at), providerId, subject, userId, humanAccountName, createdAt: at, deleted: false }
    this.write({ t: 'mas.link', link: l })
    return l
  }

  linkToUser(l: UpstreamLink, userId: string): void {
    this.write({ t: 'mas.link.user', id: l.id, userId })
  }

  removeLink(l: UpstreamLink): void {
    this.write({ t: 'mas.link.delete', id: l.id })
  }

  // ----- user emails ------------------------------------------------------------------------

  addEmail(userId: string, email: string, at: Micros): UserEmail {
    const e: UserEmail = { id: this.newId(at), userId, email, createdAt: at, deleted: false }
    this.write({ t: 'mas.email', email: e })
    return e
  }

  getEmail(id: string): UserEmail | undefined {
    const e = this.emails.get(id)
    return e && !e.deleted ? e : undefined
  }

  removeEmail(e: UserEmail): void {
    this.write({ t: 'mas.email.delete', id: e.id })
  }

  emailInUse(email: string): boolean {
    return this.emails.bucketSize('email', email.toLowerCase()) > 0
  }

  // ----- browser cookies --------------------------------------------------------------------

  /** the browser session a cookie stands for */
  cookieSession(cookie: string): string | undefined {
    return this.cookies.get(cookie)
  }

  bindCookie(cookie: string, sessionId: string): void {
    this.write({ t: 'mas.cookie', cookie, sessionId })
  }

  unbindCookie(cookie: string): void {
    this.write({ t: 'mas.cookie.delete', cookie })
  }

  /** the user an upstream account registered through the account UI, if any */
  upstreamLoginUser(provider: string, subject: string): string | undefined {
    return this.upstreamLogins.get(`${provider}\n${subject}`)
  }

  recordUpstreamLogin(provider: string, subject: string, userId: string): void {
    this.write({ t: 'mas.upstream.login', key: `${provider}\n${subject}`, userId })
  }
}
