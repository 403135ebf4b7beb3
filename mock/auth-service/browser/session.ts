// The browser sessions of the account UI: the cookie holds an opaque random id mapped to a browser
// session by the store (MasStore.extra, recorded like every write: --state keeps them across
// restarts); a reset of the world drops them all.
// Pending registrations and upstream links live here too, each map bounded.
import type { Ctx, Reply } from '../../core/context.ts'
import { MasStore, nowMicros, type BrowserSession, type User } from '../../store/mas/index.ts'
import { redirect } from './html.ts'
import { cookieValue, opaqueId, requesterOf } from './request.ts'

export const SESSION_COOKIE = 'mas-session'
export const CLEAR_COOKIE = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`
const cookieHeader = (value: string) => `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax`

export interface PendingRegistration {
  username: string
  password: string
  /** where to go once registered (an authorization grant to continue) */
  next?: string
}

export interface UpstreamLink {
  provider: string
  subject: string
}

export class BrowserState {
  readonly registrations = new Map<string, PendingRegistration>()
  readonly links = new Map<string, UpstreamLink>()

  /** The active browser session of the request's cookie, and its user (who must still be active). */
  session(ctx: Ctx): { cookie: string; session: BrowserSession; user: User } | undefined {
    const cookie = cookieValue(ctx, SESSION_COOKIE)
    if (cookie === undefined) return undefined
    const id = ctx.world.mas.extra.cookieSession(cookie)
    if (id === undefined) return undefined
    ctx.log.queries += 2
    const store = ctx.world.mas
    const s = store.getBrowserSession(id)
    if (!s || s.finishedAt !== null) return undefined
    const user = store.getUser(s.userId)
    if (!user || !MasStore.isUserActive(user)) return undefined
    ctx.log.fetched += 2
    return { cookie, session: s, user }
  }

  /** Starts a browser session for `user` and answers 303 with the cookie. */
  logIn(ctx: Ctx, user: User, location: string): Reply {
    const ua = ctx.headers['user-agent']
    const s = ctx.world.mas.createBrowserSession(user.id, nowMicros(ctx.now()), {
      userAgent: typeof ua === 'string' ? ua : null,
      ip: ctx.clientAddress ?? null,
    })
    const cookie = opaqueId()
    ctx.world.mas.extra.bindCookie(cookie, s.id)
    ctx.log.queries += 2
    ctx.log.requester = requesterOf(user)
    return redirect(location, { 'set-cookie': cookieHeader(cookie) })
  }
}
