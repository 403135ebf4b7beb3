// The auth service's state: users, browser sessions, clients, the three session kinds, access
// tokens and policy data. Every write of a request goes through one method here, which validates
// nothing (the handlers do that first) and applies the whole change, so a request never leaves a
// half-applied write behind. Timestamps are microseconds since the Unix epoch (Postgres precision).
//
// The homeserver side and the browser-facing routes use the same API: users (findUserByUsername,
// checkPassword, createUser), sessions, and lookupAccessToken/introspect for tokens.
import { randomBytes } from 'node:crypto'
import { monotonicFactory } from 'ulidx'
import { OrderedCollection } from './ordered.ts'
import { rustDebugQuote as rustDebug } from '../../lib/requestlog.ts'

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

export type ClientKind = 'static' | 'dynamic'
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

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

function crc32(s: string): number {
  let c = 0xffffffff
  for (let i = 0; i < s.length; i++) c = CRC_TABLE[(c ^ s.charCodeAt(i)) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The service's 6-character checksum: base62 digits least significant first, left-padded with '0'. */
export function tokenCrc(base: string): string {
  let n = crc32(base)
  let s = ''
  while (n > 0) {
    s += BASE62[n % 62]
    n = Math.floor(n / 62)
  }
  return s.padStart(6, '0')
}

/** A token in the service's format: `<prefix>_<30 alphanumerics>_<crc>`. */
export function generateToken(prefix: 'mat' | 'mar' | 'mct' | 'mcr' | 'mpt'): string {
  const bytes = randomBytes(30)
  let random = ''
  for (const b of bytes) random += BASE62[b % 62]
  const base = `${prefix}_${random}`
  return `${base}_${tokenCrc(base)}`
}

export type TokenFormatCheck =
  | { ok: true; type: 'access' | 'refresh' | 'compat-access' | 'compat-refresh' | 'personal' }
  | { ok: false; error: string }

/** The service's token format check (prefix, lengths, checksum), with its error messages. */
export function checkTokenFormat(token: string): TokenFormatCheck {
  if (token.startsWith('syt_') || isLikelySynapseMacaroon(token)) return { ok: true, type: 'compat-access' }
  if (token.startsWith('syr_')) return { ok: true, type: 'compat-refresh' }
  const parts = token.split('_')
  if (parts.length !== 3) return { ok: false, error: 'invalid token format' }
  const [prefix, random, crc] = parts as [string, string, string]
  // Byte lengths, as the service counts them.
  if (Buffer.byteLength(prefix) !== 3 || Buffer.byteLength(random) !== 30 || Buffer.byteLength(crc) !== 6) {
    return { ok: false, error: 'invalid token format' }
  }
  const types = { mat: 'access', mar: 'refresh', mct: 'compat-access', syt: 'compat-access', mcr: 'compat-refresh', syr: 'compat-refresh', mpt: 'personal' } as const
  const type = (types as Record<string, (typeof types)[keyof typeof types]>)[prefix]
  if (!type) return { ok: false, error: `unknown token prefix ${rustDebug(prefix)}` }
  const canonical = { access: 'mat', refresh: 'mar', 'compat-access': 'mct', 'compat-refresh': 'mcr', personal: 'mpt' }[type]
  const expected = tokenCrc(`${canonical}_${random}`)
  if (crc !== expected) return { ok: false, error: `invalid crc ${rustDebug(crc)}, expected ${rustDebug(expected)}` }
  return { ok: true, type }
}

function isLikelySynapseMacaroon(token: string): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return false
  return Buffer.from(token, 'base64url').subarray(4, 13).toString('latin1') === 'location '
}

/** Rust's `{:?}` of a string: the one copy is the request-log grammar's (lib/requestlog/rust-debug.ts). */
export { rustDebug }

/** A scope token: non-empty printable ASCII without space, `"` and `\`. */
export function isScopeToken(s: string): boolean {
  if (s.length === 0) return false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x21 || c > 0x7e || c === 0x22 || c === 0x5c) return false
  }
  return true
}

/** Parses a space-separated scope like the service (single spaces only); null when invalid. */
export function parseScope(s: string): string[] | null {
  const tokens = s.split(' ')
  if (!tokens.every(isScopeToken)) return null
  return normalizeScope(tokens)
}

/** the stored form: a sorted set (byte order) */
export function normalizeScope(tokens: Iterable<string>): string[] {
  return [...new Set(tokens)].sort()
}

const DEVICE_SCOPE_PREFIXES = ['urn:matrix:client:device:', 'urn:matrix:org.matrix.msc2967.client:device:']

export function deviceOfScope(scope: string): string | null {
  for (const token of scope.split(' ')) {
    for (const p of DEVICE_SCOPE_PREFIXES) if (token.startsWith(p) && token.length > p.length) return token.slice(p.length)
  }
  return null
}

/** whether a space-separated scope holds a token (no split: this runs per scanned item) */
export function scopeHasToken(scope: string, token: string): boolean {
  let from = 0
  for (;;) {
    const i = scope.indexOf(token, from)
    if (i === -1) return false
    const end = i + token.length
    if ((i === 0 || scope.charCodeAt(i - 1) === 32) && (end === scope.length || scope.charCodeAt(end) === 32)) return true
    from = i + 1
  }
}

/** Static policy data from the configuration, into which POST policy-data is merged. */
export function mergePolicyData(base: unknown, update: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const kind = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string'
  const rec = (left: unknown, right: unknown): unknown => {
    const kl = kind(left)
    const kr = kind(right)
    if (kl === 'object' && kr === 'object') {
      const out: Record<string, unknown> = { ...(left as Record<string, unknown>) }
      for (const [k, v] of Object.entries(right as Record<string, unknown>)) out[k] = Object.hasOwn(out, k) ? rec(out[k], v) : v
      return out
    }
    if (kl === 'array' && kr === 'array') return [...(left as unknown[]), ...(right as unknown[])]
    if (kl === kr && kl !== 'null') return right
    if (kl === 'null' || kr === 'null') return right
    throw new MergeError(`Cannot merge a ${kr} into a ${kl}`)
  }
  try {
    return { ok: true, value: rec(base, update) }
  } catch (e) {
    if (e instanceof MergeError) return { ok: false, error: e.message }
    throw e
  }
}

class MergeError extends Error {}

type CompatIndex = 'user' | 'userSession' | 'status'
type OAuth2Index = 'user' | 'client' | 'clientKind' | 'userSession' | 'scope' | 'status'
type PersonalIndex = 'ownerUser' | 'ownerClient' | 'actor' | 'scope' | 'status' | 'expires'

export class MasStore {
  readonly users = new OrderedCollection<User, 'username'>({ indexes: { username: { keys: (u) => u.username } } })
  readonly userSessions = new OrderedCollection<BrowserSession, 'user'>({ indexes: { user: { keys: (s) => s.userId } } })
  readonly clients = new OrderedCollection<Client, 'kind'>({ indexes: { kind: { keys: (c) => c.kind } } })
  readonly compat: OrderedCollection<CompatSession, CompatIndex, 'lastActive'>
  readonly oauth2: OrderedCollection<OAuth2Session, OAuth2Index, 'lastActive'>
  readonly personal: OrderedCollection<PersonalSession, PersonalIndex, 'expiresAt'>
  readonly policyData = new OrderedCollection<PolicyData>()
  private readonly tokens = new Map<string, AccessToken>()
  /** the active token of a personal session, when the mock knows its value */
  private readonly personalTokens = new Map<string, AccessToken>()
  private readonly newUlid = monotonicFactory()

  constructor(
    readonly serverName: string,
    /** the configuration's policy data: the base of every merge */
    readonly staticPolicyData: Record<string, unknown>,
    /** clients allowed urn:mas:admin by client_credentials, besides the policy data's admin_clients */
    readonly configuredAdminClients: readonly string[],
  ) {
    const clientKind = (id: string) => this.clients.get(id)?.kind
    this.compat = new OrderedCollection<CompatSession, CompatIndex, 'lastActive'>({
      indexes: {
        user: { keys: (s) => s.userId },
        userSession: { keys: (s) => s.userSessionId },
        status: { keys: (s) => (s.finishedAt === null ? 'active' : 'finished') },
      },
      ranges: { lastActive: { value: (s) => s.lastActiveAt } },
    })
    this.oauth2 = new OrderedCollection<OAuth2Session, OAuth2Index, 'lastActive'>({
      indexes: {
        user: { keys: (s) => s.userId },
        client: { keys: (s) => s.clientId },
        clientKind: { keys: (s) => clientKind(s.clientId) },
        userSession: { keys: (s) => s.userSessionId },
        scope: { keys: (s) => (s.scope === '' ? null : s.scope.split(' ')) },
        status: { keys: (s) => (s.finishedAt === null ? 'active' : 'finished') },
      },
      ranges: { lastActive: { value: (s) => s.lastActiveAt } },
    })
    this.personal = new OrderedCollection<PersonalSession, PersonalIndex, 'expiresAt'>({
      indexes: {
        ownerUser: { keys: (s) => s.ownerUserId },
        ownerClient: { keys: (s) => s.ownerClientId },
        actor: { keys: (s) => s.actorUserId },
        scope: { keys: (s) => (s.scope === '' ? null : s.scope.split(' ')) },
        status: { keys: (s) => (s.revokedAt === null ? 'active' : 'revoked') },
        expires: { keys: (s) => (s.tokenExpiresAt === null ? 'false' : 'true') },
      },
      ranges: { expiresAt: { value: (s) => s.tokenExpiresAt } },
    })
  }

  /** a new ULID for an object created at `at` (monotonic within one millisecond) */
  newId(at: Micros): string {
    return this.newUlid(Math.floor(at / 1000))
  }

  // ----- users -------------------------------------------------------------------------------

  getUser(id: string): User | undefined {
    return this.users.get(id)
  }

  findUserByUsername(username: string): User | undefined {
    return this.users.bucketLast('username', username)
  }

  /** not locked and not deactivated: may log in and use OAuth 2.0 tokens */
  static isUserActive(u: User): boolean {
    return u.lockedAt === null && u.deactivatedAt === null
  }

  createUser(username: string, at: Micros, opts: { admin?: boolean; password?: string | null } = {}): User {
    const user: User = {
      id: this.newId(at),
      username,
      createdAt: at,
      lockedAt: null,
      deactivatedAt: null,
      admin: opts.admin ?? false,
      legacyGuest: false,
      password: opts.password ?? null,
    }
    this.users.insert(user)
    return user
  }

  setPassword(user: User, password: string): void {
    user.password = password
  }

  /** the user when the username exists and the password matches (whatever its lock state) */
  checkPassword(username: string, password: string): User | undefined {
    const user = this.findUserByUsername(username)
    return user && user.password !== null && user.password === password ? user : undefined
  }

  // ----- browser sessions ---------------------------------------------------------------------

  getBrowserSession(id: string): BrowserSession | undefined {
    return this.userSessions.get(id)
  }

  /** a browser login (the `user_session_id` of sessions it starts) */
  createBrowserSession(userId: string, at: Micros, opts: { userAgent?: string | null; ip?: string | null } = {}): BrowserSession {
    const session: BrowserSession = {
      id: this.newId(at),
      userId,
      createdAt: at,
      finishedAt: null,
      userAgent: opts.userAgent ?? null,
      lastActiveAt: at,
      lastActiveIp: opts.ip ?? null,
    }
    this.userSessions.insert(session)
    return session
  }

  finishBrowserSession(session: BrowserSession, at: Micros): void {
    this.userSessions.update(session, (s) => (s.finishedAt = at))
  }

  // ----- clients ------------------------------------------------------------------------------

  getClient(id: string): Client | undefined {
    return this.clients.get(id)
  }

  registerClient(c: Omit<Client, 'id' | 'createdAt'>, at: Micros): Client {
    const client: Client = { id: this.newId(at), createdAt: at, ...c }
    this.clients.insert(client)
    return client
  }

  /** client ids allowed to obtain urn:mas:admin by client_credentials (config + latest policy data) */
  adminClients(): Set<string> {
    const set = new Set(this.configuredAdminClients)
    const latest = this.policyData.last()
    const merged = latest ? mergePolicyData(this.staticPolicyData, latest.data) : { ok: true as const, value: this.staticPolicyData }
    const list = merged.ok && typeof merged.value === 'object' && merged.value !== null ? (merged.value as Record<string, unknown>).admin_clients : undefined
    if (Array.isArray(list)) for (const id of list) if (typeof id === 'string') set.add(id)
    return set
  }

  // ----- tokens -------------------------------------------------------------------------------

  /** Registers a token whose value is known (seeding, configured tokens, issued tokens). */
  addToken(t: AccessToken): AccessToken {
    this.tokens.set(t.value, t)
    if (t.kind === 'personal' && t.revokedAt === null) this.personalTokens.set(t.sessionId, t)
    return t
  }

  lookupAccessToken(value: string): AccessToken | undefined {
    return this.tokens.get(value)
  }

  /** The session a token belongs to. */
  sessionOf(t: AccessToken): CompatSession | OAuth2Session | PersonalSession | undefined {
    return t.kind === 'compat' ? this.compat.get(t.sessionId) : t.kind === 'oauth2' ? this.oauth2.get(t.sessionId) : this.personal.get(t.sessionId)
  }

  /** Whether a token is usable now, with what it grants (introspection rules of the service). */
  introspect(value: string, now: Micros): TokenInfo {
    const token = this.tokens.get(value)
    if (!token || token.revokedAt !== null || (token.expiresAt !== null && token.expiresAt < now)) return { active: false }
    if (token.kind === 'oauth2') {
      const s = this.oauth2.get(token.sessionId)
      if (!s || s.finishedAt !== null) return { active: false }
      const user = s.userId === null ? null : this.users.get(s.userId) ?? null
      if (user && !MasStore.isUserActive(user)) return { active: false }
      return { active: true, kind: 'oauth2', token, user, clientId: s.clientId, scope: s.scope, deviceId: deviceOfScope(s.scope) }
    }
    if (token.kind === 'personal') {
      const s = this.personal.get(token.sessionId)
      if (!s || s.revokedAt !== null) return { active: false }
      const user = this.users.get(s.actorUserId) ?? null
      if (!user || user.deactivatedAt !== null) return { active: false }
      return { active: true, kind: 'personal', token, user, clientId: s.ownerClientId, scope: s.scope, deviceId: deviceOfScope(s.scope) }
    }
    const s = this.compat.get(token.sessionId)
    if (!s || s.finishedAt !== null) return { active: false }
    const user = this.users.get(s.userId) ?? null
    if (!user || !MasStore.isUserActive(user)) return { active: false }
    const scope = ['urn:matrix:client:api:*', 'urn:matrix:org.matrix.msc2967.client:api:*']
    if (s.deviceId !== null) scope.push(`urn:matrix:client:device:${s.deviceId}`, `urn:matrix:org.matrix.msc2967.client:device:${s.deviceId}`)
    return { active: true, kind: 'compat', token, user, clientId: null, scope: normalizeScope(scope).join(' '), deviceId: s.deviceId }
  }

  revokeToken(token: AccessToken, at: Micros): void {
    token.revokedAt = at
    if (token.kind === 'personal' && this.personalTokens.get(token.sessionId) === token) this.personalTokens.delete(token.sessionId)
  }

  // ----- compat sessions ------------------------------------------------------------------------

  createCompatSession(
    s: { userId: string; deviceId: string; humanName: string | null; userAgent: string | null; lastActiveIp: string | null },
    at: Micros,
  ): { session: CompatSession; token: AccessToken } {
    const session: CompatSession = {
      id: this.newId(at),
      userId: s.userId,
      deviceId: s.deviceId,
      userSessionId: null,
      redirectUri: null,
      createdAt: at,
      userAgent: s.userAgent,
      // a login is activity
      lastActiveAt: at,
      lastActiveIp: s.lastActiveIp,
      finishedAt: null,
      humanName: s.humanName,
    }
    this.compat.insert(session)
    const token = this.addToken({ value: generateToken('mct'), kind: 'compat', sessionId: session.id, createdAt: at, expiresAt: null, revokedAt: null })
    return { session, token }
  }

  finishCompatSession(session: CompatSession, at: Micros): void {
    this.compat.update(session, (s) => (s.finishedAt = at))
  }

  // ----- OAuth 2.0 sessions ---------------------------------------------------------------------

  createOAuth2Session(
    s: { clientId: string; userId: string | null; scope: string; userAgent: string | null },
    at: Micros,
    tokenTtlSeconds: number | null,
  ): { session: OAuth2Session; token: AccessToken } {
    const session: OAuth2Session = {
      id: this.newId(at),
      createdAt: at,
      finishedAt: null,
      userId: s.userId,
      userSessionId: null,
      clientId: s.clientId,
      scope: s.scope,
      userAgent: s.userAgent,
      lastActiveAt: null,
      lastActiveIp: null,
      humanName: null,
    }
    this.oauth2.insert(session)
    const token = this.addToken({
      value: generateToken('mat'),
      kind: 'oauth2',
      sessionId: session.id,
      createdAt: at,
      expiresAt: tokenTtlSeconds === null ? null : at + tokenTtlSeconds * 1_000_000,
      revokedAt: null,
    })
    return { session, token }
  }

  finishOAuth2Session(session: OAuth2Session, at: Micros): void {
    this.oauth2.update(session, (s) => (s.finishedAt = at))
  }

  // ----- personal sessions ----------------------------------------------------------------------

  createPersonalSession(
    s: { ownerUserId: string | null; ownerClientId: string | null; actorUserId: string; humanName: string; scope: string; expiresIn: number | null },
    at: Micros,
  ): { session: PersonalSession; token: AccessToken } {
    const expiresAt = s.expiresIn === null ? null : at + s.expiresIn * 1_000_000
    const session: PersonalSession = {
      id: this.newId(at),
      createdAt: at,
      revokedAt: null,
      ownerUserId: s.ownerUserId,
      ownerClientId: s.ownerClientId,
      actorUserId: s.actorUserId,
      humanName: s.humanName,
      scope: s.scope,
      lastActiveAt: null,
      lastActiveIp: null,
      hasActiveToken: true,
      tokenExpiresAt: expiresAt,
    }
    this.personal.insert(session)
    const token = this.addToken({ value: generateToken('mpt'), kind: 'personal', sessionId: session.id, createdAt: at, expiresAt, revokedAt: null })
    return { session, token }
  }

  /** Revokes the session and its active token; the token's expiry no longer shows. */
  revokePersonalSession(session: PersonalSession, at: Micros): void {
    const token = this.personalTokens.get(session.id)
    if (token) this.revokeToken(token, at)
    this.personal.update(session, (s) => {
      s.revokedAt = at
      s.hasActiveToken = false
      s.tokenExpiresAt = null
    })
  }

  /** Replaces the active token: the old one is revoked (unless `keepOld`, a fault), a new one issued. */
  regeneratePersonalSession(session: PersonalSession, expiresIn: number | null, at: Micros, keepOld = false): AccessToken {
    const old = this.personalTokens.get(session.id)
    if (old && !keepOld) this.revokeToken(old, at)
    const expiresAt = expiresIn === null ? null : at + expiresIn * 1_000_000
    const token = this.addToken({ value: generateToken('mpt'), kind: 'personal', sessionId: session.id, createdAt: at, expiresAt, revokedAt: null })
    this.personal.update(session, (s) => {
      s.hasActiveToken = true
      s.tokenExpiresAt = expiresAt
    })
    return token
  }

  // ----- policy data ----------------------------------------------------------------------------

  setPolicyData(data: unknown, at: Micros): PolicyData {
    const record: PolicyData = { id: this.newId(at), createdAt: at, data }
    this.policyData.insert(record)
    return record
  }
}
