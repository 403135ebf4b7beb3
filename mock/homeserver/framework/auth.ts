// Access-token authentication of the homeserver side, with the real server's rules and messages:
// the token comes from `Authorization: Bearer` or `?access_token=` (never both), is looked up locally,
// and, when the mock stands in for a homeserver that delegates auth to the auth service
// (options.hsDelegateUrl), unknown tokens are introspected there. Admin endpoints then require a
// server admin. Everything is checked before any parameter, as on the real server.
import { Agent, request } from '../../../lib/undici-lean.mjs'
import { hsError, type Ctx, type Reply } from '../../core/context.ts'
import type { MockOptions } from '../../core/options.ts'
import type { HsUser } from '../../store/homeserver/index.ts'

export interface Authenticated {
  ok: true
  user: HsUser
  deviceId: string | null
  admin: boolean
}
export type AuthOutcome = Authenticated | { ok: false; reply: Reply }

const SCOPE_ADMIN = 'urn:synapse:admin:*'
const SCOPES_API = ['urn:matrix:client:api:*', 'urn:matrix:org.matrix.msc2967.client:api:*']
const DEVICE_PREFIXES = ['urn:matrix:client:device:', 'urn:matrix:org.matrix.msc2967.client:device:']
/** How long an introspection answer is reused (the real server keeps it 2 minutes; shorter suits tests). */
const CACHE_MS = 10_000
const CACHE_MAX = 10_000
const TIMEOUT_MS = 3_000

interface Introspection {
  active: boolean
  scope: string[]
  username?: string
  deviceId?: string
  /** absolute expiry in ms, from expires_in */
  expiresAt?: number
}

const missing = (message = 'Missing access token'): Reply => hsError(401, 'M_MISSING_TOKEN', message)
const unknownToken = (message = 'Invalid access token passed.'): Reply => hsError(401, 'M_UNKNOWN_TOKEN', message, { soft_logout: false })

/** The token of the request, or the 401 the real server answers (`get_access_token_from_request`). */
export function tokenOf(ctx: Ctx): { token: string } | { reply: Reply } {
  const header = ctx.headers.authorization
  const query = ctx.query.getAll('access_token')
  if (header !== undefined) {
    if (query.length > 0) return { reply: missing('Mixing Authorization headers and access_token query parameters.') }
    const parts = header.split(' ')
    if (parts[0] === 'Bearer' && parts.length === 2) return { token: parts[1]! }
    return { reply: missing('Invalid Authorization header.') }
  }
  if (query.length === 0) return { reply: missing() }
  return { token: query[0]! }
}

export class Authenticator {
  private cache = new Map<string, { at: number; result: Promise<Introspection> }>()
  private agent: Agent | undefined

  constructor(private readonly options: MockOptions) {}

  async authenticate(ctx: Ctx): Promise<AuthOutcome> {
    const got = tokenOf(ctx)
    if ('reply' in got) {
      if (ctx.faults.has('hs-auth-missing-token-403')) return { ok: false, reply: hsError(403, 'M_FORBIDDEN', 'Missing access token') }
      return { ok: false, reply: got.reply }
    }
    const { token } = got
    const store = ctx.world.hs
    const local = store.session(token)
    if (local) {
      const user = store.users.get(local.userId)!
      return { ok: true, user, deviceId: local.deviceId, admin: user.admin }
    }
    // Non-ASCII tokens cannot be valid (the real server would fail to decode them).
    if (!this.options.hsDelegateUrl || token === '' || !/^[\x21-\x7e]+$/.test(token)) return { ok: false, reply: this.unknown(ctx) }
    return this.delegated(ctx, token)
  }

  async requireAdmin(ctx: Ctx): Promise<AuthOutcome> {
    const outcome = await this.authenticate(ctx)
    if (!outcome.ok || outcome.admin || ctx.faults.has('hs-auth-non-admin-allowed')) return outcome
    return { ok: false, reply: hsError(403, 'M_FORBIDDEN', 'You are not a server admin') }
  }

  private unknown(ctx: Ctx, message?: string): Reply {
    const reply = unknownToken(message)
    if (ctx.faults.has('hs-auth-unknown-token-no-soft-logout')) delete (reply.body as Record<string, unknown>).soft_logout
    return reply
  }

  /** The delegated path: introspect at the auth service, as a homeserver using it for auth does. */
  private async delegated(ctx: Ctx, token: string): Promise<AuthOutcome> {
    let info: Introspection
    try {
      info = await this.introspect(token)
    } catch {
      return { ok: false, reply: hsError(503, 'M_UNKNOWN', 'Unable to introspect the access token') }
    }
    if (!info.active || (info.expiresAt !== undefined && Date.now() >= info.expiresAt))
      return { ok: false, reply: this.unknown(ctx, 'Token is not active') }
    if (!SCOPES_API.some((s) => info.scope.includes(s)))
      return { ok: false, reply: this.unknown(ctx, "Token doesn't grant access to the Matrix C-S API") }
    if (!info.username || !/^[a-z0-9._=\-/+]+$/.test(info.username)) {
      // The real server answers 500 here too: the auth service sent something it cannot use.
      return { ok: false, reply: hsError(500, 'M_UNKNOWN', 'Invalid username claim in the introspection result') }
    }
    // The real server expects the auth service to have provisioned the user; the mock creates it on first
    // sight, with the display name Synapse registers by default (the localpart).
    const store = ctx.world.hs
    const user =
      store.users.get(`@${info.username}:${store.serverName}`) ??
      store.addUser(info.username, { displayName: info.username, createdTs: Date.now() })
    return { ok: true, user, deviceId: info.deviceId ?? null, admin: info.scope.includes(SCOPE_ADMIN) }
  }

  private introspect(token: string): Promise<Introspection> {
    const now = Date.now()
    const hit = this.cache.get(token)
    if (hit && now - hit.at < CACHE_MS) return hit.result
    if (this.cache.size >= CACHE_MAX) {
      for (const [k, v] of this.cache) if (now - v.at >= CACHE_MS) this.cache.delete(k)
      if (this.cache.size >= CACHE_MAX) this.cache.clear()
    }
    const result = this.fetchIntrospection(token)
    this.cache.set(token, { at: now, result })
    // Failures are not cached: the next request tries again.
    result.catch(() => {
      if (this.cache.get(token)?.result === result) this.cache.delete(token)
    })
    return result
  }

  private async fetchIntrospection(token: string): Promise<Introspection> {
    const { hsDelegateUrl, hsDelegateClientId, hsDelegateClientSecret } = this.options
    const url = new URL('oauth2/introspect', hsDelegateUrl!.endsWith('/') ? hsDelegateUrl : hsDelegateUrl + '/')
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
    // client_secret_basic as a homeserver configured with a client id does; with only a secret, the
    // shared-secret Bearer form of the stable integration.
    if (hsDelegateClientId) {
      const enc = (s: string) => encodeURIComponent(s)
      headers.authorization = 'Basic ' + Buffer.from(`${enc(hsDelegateClientId)}:${enc(hsDelegateClientSecret ?? '')}`).toString('base64')
    } else if (hsDelegateClientSecret) headers.authorization = `Bearer ${hsDelegateClientSecret}`
    this.agent ??= new Agent({ connect: { timeout: TIMEOUT_MS }, keepAliveTimeout: 10_000 })
    const res = await request(url, {
      method: 'POST',
      headers,
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      dispatcher: this.agent,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    })
    const text = await res.body.text()
    if (res.statusCode !== 200) throw new Error(`introspection answered ${res.statusCode}`)
    const raw: unknown = JSON.parse(text)
    if (typeof raw !== 'object' || raw === null || typeof (raw as { active?: unknown }).active !== 'boolean')
      throw new Error('introspection answer has no boolean active')
    const o = raw as Record<string, unknown>
    const scope = typeof o.scope === 'string' ? o.scope.split(' ').filter(Boolean) : []
    const info: Introspection = { active: o.active === true, scope }
    if (typeof o.username === 'string') info.username = o.username
    if (typeof o.device_id === 'string') info.deviceId = o.device_id
    else {
      const devices = scope.flatMap((s) => DEVICE_PREFIXES.filter((p) => s.startsWith(p)).map((p) => s.slice(p.length)))
      if (devices.length === 1 && devices[0]) info.deviceId = devices[0]
    }
    if (typeof o.expires_in === 'number' && Number.isFinite(o.expires_in)) info.expiresAt = Date.now() + o.expires_in * 1000
    return info
  }

  async close(): Promise<void> {
    await this.agent?.close()
  }
}
