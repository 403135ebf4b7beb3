// The auth service's state: users, browser sessions, clients, the three session kinds, access
// tokens and policy data. Every write of a request goes through one method here, which validates
// nothing (the handlers do that first), generates what the write needs (ids, token values), and
// hands the whole change to `write()` as one entry (./writes.ts): recorded first (the state
// journal), then applied, so a request never leaves a half-applied write behind and a replay
// rebuilds the same records.
//
// The homeserver side and the browser-facing routes use the same API: users (findUserByUsername,
// checkPassword, createUser), sessions, and lookupAccessToken/introspect for tokens.
import { monotonicFactory } from 'ulidx'
import { OrderedCollection } from '../ordered.ts'
import { generateToken } from './domain/token.ts'
import { deviceOfScope, normalizeScope } from './domain/scope.ts'
import { mergePolicyData } from './domain/policy-data.ts'
import { COMPAT_STATUS, OAUTH2_STATUS, PERSONAL_STATUS } from './domain/status.ts'
import { applyMasWrite, type MasWrite, type UserState } from './writes.ts'
import { MasExtra } from './extra.ts'
import type { Recorder } from '../recorder.ts'
import type {
  AccessToken,
  BrowserSession,
  Client,
  CompatSession,
  Micros,
  OAuth2Session,
  PersonalSession,
  PolicyData,
  RefreshToken,
  TokenInfo,
  User,
} from './records.ts'

export * from './records.ts'
// The domain helpers live in ./domain/ (one concept per file); re-exported here for the handlers
// that import them with the store.
export { tokenCrc, generateToken, checkTokenFormat, type TokenFormatCheck } from './domain/token.ts'
export { isScopeToken, parseScope, normalizeScope, deviceOfScope, scopeHasToken } from './domain/scope.ts'
export { mergePolicyData } from './domain/policy-data.ts'
/** Rust's `{:?}` of a string: one implementation, the request-log grammar's. */
export { rustDebugQuote as rustDebug } from '../../../lib/requestlog.ts'

type CompatIndex = 'user' | 'userSession' | 'status' | 'userStatus'
type OAuth2Index = 'user' | 'client' | 'clientKind' | 'userSession' | 'scope' | 'status' | 'userStatus' | 'userClientStatus'
type PersonalIndex = 'ownerUser' | 'ownerClient' | 'actor' | 'scope' | 'status' | 'expires'

export class MasStore {
  readonly users = new OrderedCollection<User, 'username'>({ indexes: { username: { keys: (u) => u.username } } })
  readonly userSessions = new OrderedCollection<BrowserSession, 'user'>({ indexes: { user: { keys: (s) => s.userId } } })
  readonly clients = new OrderedCollection<Client, 'kind'>({ indexes: { kind: { keys: (c) => c.kind } } })
  readonly compat: OrderedCollection<CompatSession, CompatIndex, 'lastActive'>
  readonly oauth2: OrderedCollection<OAuth2Session, OAuth2Index, 'lastActive'>
  readonly personal: OrderedCollection<PersonalSession, PersonalIndex, 'expiresAt'>
  readonly policyData = new OrderedCollection<PolicyData>()
  /** emails, upstream providers and links, registration tokens, browser cookies (./extra.ts) */
  readonly extra: MasExtra = new MasExtra(
    (at) => this.newId(at),
    (w) => this.write(w),
  )
  private readonly tokens = new Map<string, AccessToken>()
  private readonly refreshTokens = new Map<string, RefreshToken>()
  /** the active token of a personal session, when the mock knows its value */
  private readonly personalTokens = new Map<string, AccessToken>()
  private readonly newUlid = monotonicFactory()
  /** where writes are recorded before they are applied (the state journal); none while seeding */
  recorder: Recorder | null = null

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
        status: { keys: (s) => COMPAT_STATUS.of(s.finishedAt) },
        // `<user>|<status>`: the users filters ask "has an active session?" once per user (O(1) each).
        // Composite keys are joined, not concatenated: a concatenation is a tree of string pieces
        // (32 bytes each) that the bucket's key keeps for ever; join makes one flat string.
        userStatus: { keys: (s) => [s.userId, COMPAT_STATUS.of(s.finishedAt)].join('|') },
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
        status: { keys: (s) => OAUTH2_STATUS.of(s.finishedAt) },
        userStatus: { keys: (s) => (s.userId === null ? null : [s.userId, OAUTH2_STATUS.of(s.finishedAt)].join('|')) },
        userClientStatus: { keys: (s) => (s.userId === null ? null : [s.userId, s.clientId, OAUTH2_STATUS.of(s.finishedAt)].join('|')) },
      },
      ranges: { lastActive: { value: (s) => s.lastActiveAt } },
    })
    this.personal = new OrderedCollection<PersonalSession, PersonalIndex, 'expiresAt'>({
      indexes: {
        ownerUser: { keys: (s) => s.ownerUserId },
        ownerClient: { keys: (s) => s.ownerClientId },
        actor: { keys: (s) => s.actorUserId },
        scope: { keys: (s) => (s.scope === '' ? null : s.scope.split(' ')) },
        status: { keys: (s) => PERSONAL_STATUS.of(s.revokedAt) },
        expires: { keys: (s) => (s.tokenExpiresAt === null ? 'false' : 'true') },
      },
      ranges: { expiresAt: { value: (s) => s.tokenExpiresAt } },
    })
  }

  /** Records a write, then applies it: the one way records change after seeding. */
  private write(w: MasWrite): void {
    this.recorder?.record(w)
    applyMasWrite(this, w)
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

  /** `profile`: what the creation asks the homeserver to set on the new account (the admin API's displayname, avatar_url). */
  createUser(
    username: string,
    at: Micros,
    opts: { admin?: boolean; password?: string | null; profile?: { displayName?: string; avatarUrl?: string } } = {},
  ): User {
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
    this.write(opts.profile ? { t: 'mas.user', user, profile: opts.profile } : { t: 'mas.user', user })
    return user
  }

  /** the admin API's user actions: lock, unlock, deactivate, reactivate, set-admin */
  setUserState(user: User, state: UserState): void {
    this.write({
      t: 'mas.user.state',
      id: user.id,
      state: { lockedAt: state.lockedAt, deactivatedAt: state.deactivatedAt, admin: state.admin },
    })
  }

  setPassword(user: User, password: string): void {
    this.write({ t: 'mas.password', id: user.id, password })
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
    this.write({ t: 'mas.browser', session })
    return session
  }

  finishBrowserSession(session: BrowserSession, at: Micros): void {
    this.write({ t: 'mas.browser.finish', id: session.id, at })
  }

  // ----- clients ------------------------------------------------------------------------------

  getClient(id: string): Client | undefined {
    return this.clients.get(id)
  }

  registerClient(c: Omit<Client, 'id' | 'createdAt'>, at: Micros): Client {
    const client: Client = { id: this.newId(at), createdAt: at, ...c }
    this.write({ t: 'mas.client', client })
    return client
  }

  /** client ids allowed to obtain urn:mas:admin by client_credentials (config + latest policy data) */
  adminClients(): Set<string> {
    const set = new Set(this.configuredAdminClients)
    const latest = this.policyData.last()
    const merged = latest ? mergePolicyData(this.staticPolicyData, latest.data) : { ok: true as const, value: this.staticPolicyData }
    const list =
      merged.ok && typeof merged.value === 'object' && merged.value !== null
        ? (merged.value as Record<string, unknown>).admin_clients
        : undefined
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

  addRefreshToken(t: RefreshToken): void {
    this.refreshTokens.set(t.value, t)
  }

  lookupRefreshToken(value: string): RefreshToken | undefined {
    return this.refreshTokens.get(value)
  }

  /** The session a token belongs to. */
  sessionOf(t: AccessToken): CompatSession | OAuth2Session | PersonalSession | undefined {
    return t.kind === 'compat'
      ? this.compat.get(t.sessionId)
      : t.kind === 'oauth2'
        ? this.oauth2.get(t.sessionId)
        : this.personal.get(t.sessionId)
  }

  /** Whether a token is usable now, with what it grants (introspection rules of the service). */
  introspect(value: string, now: Micros): TokenInfo {
    const token = this.tokens.get(value)
    if (!token || token.revokedAt !== null || (token.expiresAt !== null && token.expiresAt < now)) return { active: false }
    if (token.kind === 'oauth2') {
      const s = this.oauth2.get(token.sessionId)
      if (!s || s.finishedAt !== null) return { active: false }
      const user = s.userId === null ? null : (this.users.get(s.userId) ?? null)
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
    if (s.deviceId !== null)
      scope.push(`urn:matrix:client:device:${s.deviceId}`, `urn:matrix:org.matrix.msc2967.client:device:${s.deviceId}`)
    return { active: true, kind: 'compat', token, user, clientId: null, scope: normalizeScope(scope).join(' '), deviceId: s.deviceId }
  }

  /** the active token of a personal session, when the mock knows its value */
  activePersonalToken(sessionId: string): AccessToken | undefined {
    return this.personalTokens.get(sessionId)
  }

  /** Marks a token revoked (part of a write: called by applyMasWrite, not by handlers). */
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
    const token: AccessToken = {
      value: generateToken('mct'),
      kind: 'compat',
      sessionId: session.id,
      createdAt: at,
      expiresAt: null,
      revokedAt: null,
    }
    this.write({ t: 'mas.compat', session, token })
    return { session, token }
  }

  finishCompatSession(session: CompatSession, at: Micros): void {
    this.write({ t: 'mas.compat.finish', id: session.id, at })
  }

  // ----- OAuth 2.0 sessions ---------------------------------------------------------------------

  createOAuth2Session(
    s: {
      clientId: string
      userId: string | null
      scope: string
      userAgent: string | null
      userSessionId?: string | null
      withRefreshToken?: boolean
    },
    at: Micros,
    tokenTtlSeconds: number | null,
  ): { session: OAuth2Session; token: AccessToken; refresh?: RefreshToken } {
    const session: OAuth2Session = {
      id: this.newId(at),
      createdAt: at,
      finishedAt: null,
      userId: s.userId,
      userSessionId: s.userSessionId ?? null,
      clientId: s.clientId,
      scope: s.scope,
      userAgent: s.userAgent,
      lastActiveAt: null,
      lastActiveIp: null,
      humanName: null,
    }
    const token: AccessToken = {
      value: generateToken('mat'),
      kind: 'oauth2',
      sessionId: session.id,
      createdAt: at,
      expiresAt: tokenTtlSeconds === null ? null : at + tokenTtlSeconds * 1_000_000,
      revokedAt: null,
    }
    if (!s.withRefreshToken) {
      this.write({ t: 'mas.oauth2', session, token })
      return { session, token }
    }
    const refresh = this.newRefreshToken(session.id, token.value, at)
    this.write({ t: 'mas.oauth2', session, token, refresh })
    return { session, token, refresh }
  }

  private newRefreshToken(sessionId: string, accessToken: string, at: Micros): RefreshToken {
    return { value: generateToken('mar'), sessionId, accessToken, createdAt: at, consumedAt: null, next: null, revokedAt: null }
  }

  /**
   * The refresh grant: a new token pair for the session of `consumed`, which is marked consumed;
   * `revoke` lists tokens it ends (the consumed token's access token, a lost pair of a double refresh).
   */
  refreshOAuth2Session(
    consumed: RefreshToken,
    revoke: string[],
    at: Micros,
    tokenTtlSeconds: number,
  ): { token: AccessToken; refresh: RefreshToken } {
    const token: AccessToken = {
      value: generateToken('mat'),
      kind: 'oauth2',
      sessionId: consumed.sessionId,
      createdAt: at,
      expiresAt: at + tokenTtlSeconds * 1_000_000,
      revokedAt: null,
    }
    const refresh = this.newRefreshToken(consumed.sessionId, token.value, at)
    this.write({ t: 'mas.oauth2.refresh', at, consumed: consumed.value, token, refresh, revoke })
    return { token, refresh }
  }

  finishOAuth2Session(session: OAuth2Session, at: Micros): void {
    this.write({ t: 'mas.oauth2.finish', id: session.id, at })
  }

  // ----- personal sessions ----------------------------------------------------------------------

  createPersonalSession(
    s: {
      ownerUserId: string | null
      ownerClientId: string | null
      actorUserId: string
      humanName: string
      scope: string
      expiresIn: number | null
    },
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
    const token: AccessToken = {
      value: generateToken('mpt'),
      kind: 'personal',
      sessionId: session.id,
      createdAt: at,
      expiresAt,
      revokedAt: null,
    }
    this.write({ t: 'mas.personal', session, token })
    return { session, token }
  }

  /** Revokes the session and its active token; the token's expiry no longer shows. */
  revokePersonalSession(session: PersonalSession, at: Micros): void {
    this.write({ t: 'mas.personal.revoke', id: session.id, at })
  }

  /** Replaces the active token: the old one is revoked (unless `keepOld`, a fault), a new one issued. */
  regeneratePersonalSession(session: PersonalSession, expiresIn: number | null, at: Micros, keepOld = false): AccessToken {
    const expiresAt = expiresIn === null ? null : at + expiresIn * 1_000_000
    const token: AccessToken = {
      value: generateToken('mpt'),
      kind: 'personal',
      sessionId: session.id,
      createdAt: at,
      expiresAt,
      revokedAt: null,
    }
    this.write({ t: 'mas.personal.regenerate', id: session.id, at, token, keepOld })
    return token
  }

  // ----- policy data ----------------------------------------------------------------------------

  setPolicyData(data: unknown, at: Micros): PolicyData {
    const record: PolicyData = { id: this.newId(at), createdAt: at, data }
    this.write({ t: 'mas.policy', record })
    return record
  }
}
