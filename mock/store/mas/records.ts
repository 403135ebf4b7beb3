// The auth service's records as the mock stores them (one interface per table of the real service),
// and what a token stands for. Timestamps are microseconds since the Unix epoch (Postgres precision).
import type { OAuth2SessionClientKind } from '../../../lib/types.gen.ts'

/** microseconds since the Unix epoch */
export type Micros = number

export const nowMicros = (date: Date = new Date()): Micros => date.getTime() * 1000

export interface User {
  readonly id: string
  readonly username: string
  readonly createdAt: Micros
  lockedAt: Micros | null
  deactivatedAt: Micros | null
  /** can_request_admin */
  admin: boolean
  readonly legacyGuest: boolean
  /** the mock keeps passwords in clear: it is a test double */
  password: string | null
}

export interface BrowserSession {
  readonly id: string
  readonly userId: string
  readonly createdAt: Micros
  finishedAt: Micros | null
  readonly userAgent: string | null
  lastActiveAt: Micros | null
  lastActiveIp: string | null
}

/** the schema's client kinds (filter[client-kind]) */
export type ClientKind = OAuth2SessionClientKind
export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none'

export interface Client {
  readonly id: string
  readonly kind: ClientKind
  readonly name: string | null
  readonly secret: string | null
  readonly authMethod: ClientAuthMethod
  readonly grantTypes: readonly string[]
  readonly redirectUris: readonly string[]
  readonly createdAt: Micros
  /** the metadata a dynamic registration gave (echoed by it; client_uri, application_type…); none for seeded clients */
  readonly metadata?: Readonly<Record<string, unknown>>
}

export interface CompatSession {
  readonly id: string
  readonly userId: string
  readonly deviceId: string | null
  readonly userSessionId: string | null
  readonly redirectUri: string | null
  readonly createdAt: Micros
  userAgent: string | null
  lastActiveAt: Micros | null
  lastActiveIp: string | null
  finishedAt: Micros | null
  humanName: string | null
}

export interface OAuth2Session {
  readonly id: string
  readonly createdAt: Micros
  finishedAt: Micros | null
  readonly userId: string | null
  readonly userSessionId: string | null
  readonly clientId: string
  /** space-separated, sorted and de-duplicated, as the service stores it */
  readonly scope: string
  userAgent: string | null
  lastActiveAt: Micros | null
  lastActiveIp: string | null
  humanName: string | null
}

export interface PersonalSession {
  readonly id: string
  readonly createdAt: Micros
  revokedAt: Micros | null
  readonly ownerUserId: string | null
  readonly ownerClientId: string | null
  readonly actorUserId: string
  readonly humanName: string
  readonly scope: string
  lastActiveAt: Micros | null
  lastActiveIp: string | null
  /** the active (not revoked) token exists; false once revoked */
  hasActiveToken: boolean
  /** expiry of the active token; null when it never expires or when there is none */
  tokenExpiresAt: Micros | null
}

export interface PolicyData {
  readonly id: string
  readonly createdAt: Micros
  readonly data: unknown
}

export type TokenKind = 'oauth2' | 'personal' | 'compat'

/** An OAuth 2.0 refresh token (`mar_`): issued with an access token, consumed once by the refresh grant. */
export interface RefreshToken {
  readonly value: string
  readonly sessionId: string
  /** the access token issued with it */
  readonly accessToken: string
  readonly createdAt: Micros
  consumedAt: Micros | null
  /** the refresh token that replaced it when it was consumed */
  next: string | null
  revokedAt: Micros | null
}

export interface AccessToken {
  readonly value: string
  readonly kind: TokenKind
  readonly sessionId: string
  readonly createdAt: Micros
  readonly expiresAt: Micros | null
  revokedAt: Micros | null
}

/** What a token stands for right now (RFC 7662 introspection, and the homeserver's token check). */
export type TokenInfo =
  | { active: false }
  | {
      active: true
      kind: TokenKind
      token: AccessToken
      user: User | null
      /** OAuth 2.0 client of the session (the owner client for a personal session, none for compat) */
      clientId: string | null
      scope: string
      deviceId: string | null
    }

// ----- the records beyond the sessions (kept by ./extra.ts) ----------------------------------

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

/** what an update, revoke or unrevoke of a registration token may change */
export type TokenChanges = Partial<Pick<RegistrationToken, 'expiresAt' | 'usageLimit' | 'revokedAt'>>

/** the service's validity: under its usage limit, not revoked, not expired (expires_at >= now) */
export function tokenValid(t: RegistrationToken, now: Micros): boolean {
  return (t.usageLimit === null || t.timesUsed < t.usageLimit) && t.revokedAt === null && (t.expiresAt === null || t.expiresAt >= now)
}

/** entries kept at most in each browser map (cookies, upstream logins): the oldest is forgotten first, on replay too */
export const MAX_COOKIES = 100_000
