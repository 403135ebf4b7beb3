// The auth service store's writes as data. Each write method of MasStore decides every generated
// value first (ids, token values, timestamps), describes the whole change as one of these entries,
// hands it to the world's recorder (the state journal, when --state is on) and only then applies it
// with applyMasWrite. Replaying a journal calls applyMasWrite with the recorded entries, so the
// replayed store is the same to the byte: nothing is generated twice.
import { MAX_COOKIES } from './records.ts'
import type {
  AccessToken,
  BrowserSession,
  Client,
  CompatSession,
  Micros,
  OAuth2Session,
  PersonalSession,
  PolicyData,
  RegistrationToken,
  TokenChanges,
  UpstreamLink,
  User,
  UserEmail,
} from './records.ts'

/** A collection as a write sees it (structural, so that this file need not import the store back). */
interface WriteCollection<T> {
  get(id: string): T | undefined
  insert(item: T): void
  update(item: T, mutate: (item: T) => void): void
}

/** What applying a write needs of the store: its collections and token bookkeeping (MasStore has them). */
export interface MasWriteTarget {
  readonly users: WriteCollection<User>
  readonly userSessions: WriteCollection<BrowserSession>
  readonly clients: WriteCollection<Client>
  readonly compat: WriteCollection<CompatSession>
  readonly oauth2: WriteCollection<OAuth2Session>
  readonly personal: WriteCollection<PersonalSession>
  readonly policyData: WriteCollection<PolicyData>
  readonly extra: {
    readonly emails: WriteCollection<UserEmail>
    readonly links: WriteCollection<UpstreamLink>
    readonly tokens: WriteCollection<RegistrationToken>
    readonly cookies: Map<string, string>
    readonly upstreamLogins: Map<string, string>
  }
  addToken(t: AccessToken): AccessToken
  addRefreshToken(t: Refresh): void
  lookupRefreshToken(value: string): Refresh | undefined
  lookupAccessToken(value: string): AccessToken | undefined
  activePersonalToken(sessionId: string): AccessToken | undefined
  revokeToken(token: AccessToken, at: Micros): void
}

export type MasWrite =
  | { t: 'mas.user'; user: User; profile?: { displayName?: string; avatarUrl?: string } }
  | { t: 'mas.password'; id: string; password: string }
  | { t: 'mas.browser'; session: BrowserSession }
  | { t: 'mas.browser.finish'; id: string; at: Micros }
  | { t: 'mas.client'; client: Client }
  | { t: 'mas.compat'; session: CompatSession; token: AccessToken }
  | { t: 'mas.compat.finish'; id: string; at: Micros }
  | { t: 'mas.oauth2'; session: OAuth2Session; token: AccessToken; refresh?: Refresh }
  /** the refresh grant: `consumed` is replaced by `refresh`, `revoke` lists the access (and refresh) tokens it ends */
  | { t: 'mas.oauth2.refresh'; at: Micros; consumed: string; token: AccessToken; refresh: Refresh; revoke: string[] }
  | { t: 'mas.oauth2.finish'; id: string; at: Micros }
  | { t: 'mas.personal'; session: PersonalSession; token: AccessToken }
  | { t: 'mas.personal.revoke'; id: string; at: Micros }
  | { t: 'mas.personal.regenerate'; id: string; at: Micros; token: AccessToken; keepOld: boolean }
  | { t: 'mas.policy'; record: PolicyData }
  | { t: 'mas.user.state'; id: string; state: UserState }
  | { t: 'mas.email'; email: UserEmail }
  | { t: 'mas.email.delete'; id: string }
  | { t: 'mas.link'; link: UpstreamLink }
  | { t: 'mas.link.user'; id: string; userId: string }
  | { t: 'mas.link.delete'; id: string }
  | { t: 'mas.regtoken'; token: RegistrationToken }
  | { t: 'mas.regtoken.set'; id: string; changes: TokenChanges }
  | { t: 'mas.cookie'; cookie: string; sessionId: string }
  | { t: 'mas.cookie.delete'; cookie: string }
  | { t: 'mas.upstream.login'; key: string; userId: string }

/** what the admin API's lock / unlock / deactivate / reactivate / set-admin change of a user */
export type UserState = Pick<User, 'lockedAt' | 'deactivatedAt' | 'admin'>

/** the refresh token record (named here, not in the import above, to keep that line as it is) */
type Refresh = import('./records.ts').RefreshToken

export class ReplayError extends Error {}

function need<T>(item: T | undefined, what: string): T {
  if (item === undefined) throw new ReplayError(`${what} does not exist`)
  return item
}

/** Applies one write. Throws ReplayError when it names a record that does not exist (a journal that does not fit the world). */
export function applyMasWrite(store: MasWriteTarget, w: MasWrite): void {
  switch (w.t) {
    case 'mas.user':
      return store.users.insert(w.user)
    case 'mas.password':
      need(store.users.get(w.id), `user ${w.id}`).password = w.password
      return
    case 'mas.browser':
      return store.userSessions.insert(w.session)
    case 'mas.browser.finish': {
      const s = need(store.userSessions.get(w.id), `browser session ${w.id}`)
      return store.userSessions.update(s, (x) => (x.finishedAt = w.at))
    }
    case 'mas.client':
      return store.clients.insert(w.client)
    case 'mas.compat':
      store.compat.insert(w.session)
      store.addToken(w.token)
      return
    case 'mas.compat.finish': {
      const s = need(store.compat.get(w.id), `compat session ${w.id}`)
      return store.compat.update(s, (x) => (x.finishedAt = w.at))
    }
    case 'mas.oauth2':
      store.oauth2.insert(w.session)
      store.addToken(w.token)
      if (w.refresh) store.addRefreshToken(w.refresh)
      return
    case 'mas.oauth2.refresh': {
      const old = need(store.lookupRefreshToken(w.consumed), 'refresh token')
      if (old.consumedAt === null) old.consumedAt = w.at
      old.next = w.refresh.value
      for (const v of w.revoke) {
        const access = store.lookupAccessToken(v)
        if (access && access.revokedAt === null) store.revokeToken(access, w.at)
        const refresh = store.lookupRefreshToken(v)
        if (refresh && refresh.revokedAt === null) refresh.revokedAt = w.at
      }
      store.addToken(w.token)
      store.addRefreshToken(w.refresh)
      return
    }
    case 'mas.oauth2.finish': {
      const s = need(store.oauth2.get(w.id), `OAuth 2.0 session ${w.id}`)
      return store.oauth2.update(s, (x) => (x.finishedAt = w.at))
    }
    case 'mas.personal':
      store.personal.insert(w.session)
      store.addToken(w.token)
      return
    case 'mas.personal.revoke': {
      const s = need(store.personal.get(w.id), `personal session ${w.id}`)
      const token = store.activePersonalToken(s.id)
      if (token) store.revokeToken(token, w.at)
      return store.personal.update(s, (x) => {
        x.revokedAt = w.at
        x.hasActiveToken = false
        x.tokenExpiresAt = null
      })
    }
    case 'mas.personal.regenerate': {
      const s = need(store.personal.get(w.id), `personal session ${w.id}`)
      const old = store.activePersonalToken(s.id)
      if (old && !w.keepOld) store.revokeToken(old, w.at)
      store.addToken(w.token)
      return store.personal.update(s, (x) => {
        x.hasActiveToken = true
        x.tokenExpiresAt = w.token.expiresAt
      })
    }
    case 'mas.policy':
      return store.policyData.insert(w.record)
    default:
      return applyExtraWrite(store, w)
  }
}

/** sets a key of a map kept to MAX_COOKIES entries (the oldest is forgotten first) */
function bounded(map: Map<string, string>, key: string, value: string): void {
  map.set(key, value)
  if (map.size > MAX_COOKIES) map.delete(map.keys().next().value as string)
}

/** The writes of the records beyond the sessions (users' states, emails, links, registration tokens, cookies). */
function applyExtraWrite(store: MasWriteTarget, w: MasWrite): void {
  const x = store.extra
  switch (w.t) {
    case 'mas.user.state': {
      const u = need(store.users.get(w.id), `user ${w.id}`)
      return store.users.update(u, (y) => {
        y.lockedAt = w.state.lockedAt
        y.deactivatedAt = w.state.deactivatedAt
        y.admin = w.state.admin
      })
    }
    case 'mas.email':
      return x.emails.insert(w.email)
    case 'mas.email.delete':
      return x.emails.update(need(x.emails.get(w.id), `user email ${w.id}`), (e) => (e.deleted = true))
    case 'mas.link':
      return x.links.insert(w.link)
    case 'mas.link.user':
      return x.links.update(need(x.links.get(w.id), `upstream link ${w.id}`), (l) => (l.userId = w.userId))
    case 'mas.link.delete':
      return x.links.update(need(x.links.get(w.id), `upstream link ${w.id}`), (l) => (l.deleted = true))
    case 'mas.regtoken':
      return x.tokens.insert(w.token)
    case 'mas.regtoken.set': {
      const changes = w.changes
      return x.tokens.update(need(x.tokens.get(w.id), `registration token ${w.id}`), (t) => {
        if (changes.expiresAt !== undefined) t.expiresAt = changes.expiresAt
        if (changes.usageLimit !== undefined) t.usageLimit = changes.usageLimit
        if (changes.revokedAt !== undefined) t.revokedAt = changes.revokedAt
      })
    }
    case 'mas.cookie':
      return bounded(x.cookies, w.cookie, w.sessionId)
    case 'mas.cookie.delete':
      x.cookies.delete(w.cookie)
      return
    case 'mas.upstream.login':
      return bounded(x.upstreamLogins, w.key, w.userId)
    default:
      throw new ReplayError(`unknown write ${JSON.stringify((w as { t: unknown }).t)}`)
  }
}
