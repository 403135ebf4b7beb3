// The compatibility layer's client login and logout (served by the auth service under the client
// API prefix), with its Matrix error bodies:
// - GET  …/login: the login flows;
// - POST …/login m.login.password (identifier m.id.user, or the deprecated `user`, which wins):
//   200 {access_token "mct_…", device_id, user_id} and a new compat session; a wrong username or
//   password, a user without password and a deactivated user all get 403 M_FORBIDDEN "Invalid
//   username/password"; a locked user 401 M_USER_LOCKED. The body need not carry a Content-Type.
//   (refresh_token: true is accepted but no refresh token is issued by the mock.)
// - POST …/logout: finishes the token's session; POST …/logout/all: finishes all compat sessions of
//   the user when the body says "io.element.only_compat_is_fine": true, 404 M_UNRECOGNIZED otherwise.
//   Both schedule a device sync.
import { randomBytes } from 'node:crypto'
import { hsError, type Ctx, type Reply } from '../core/context.ts'
import { MasStore, nowMicros, type CompatSession, type User } from '../store/mas/index.ts'
import { bearerToken } from '../mas-http/bearer.ts'
import { JsonSyntaxError, parseJsonText, toValue } from '../mas-http/body.ts'
import { scheduleDeviceSync } from '../mas-http/jobs.ts'
import { COMPAT_STATUS } from '../store/mas/domain/status.ts'

const BAD_LOGIN = (): Reply => hsError(403, 'M_FORBIDDEN', 'Invalid username/password')
const NOT_JSON = (): Reply => hsError(400, 'M_NOT_JSON', 'Body is not a valid JSON document')
const BAD_JSON = (): Reply => hsError(400, 'M_BAD_JSON', 'JSON fields are not valid')

const DEVICE_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

function newDeviceId(): string {
  let s = ''
  for (const b of randomBytes(10)) s += DEVICE_CHARS[b % DEVICE_CHARS.length]
  return s
}

/** MatrixJsonBody: any content type; not JSON → M_NOT_JSON. */
function jsonBody(ctx: Ctx): { ok: true; value: unknown } | { ok: false; reply: Reply } {
  try {
    return { ok: true, value: toValue(parseJsonText(ctx.body.toString('utf8'))) }
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { ok: false, reply: NOT_JSON() }
    throw e
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function loginFlows(): Reply {
  return {
    status: 200,
    body: {
      flows: [
        { type: 'm.login.password' },
        { type: 'm.login.sso', oauth_aware_preferred: true, 'org.matrix.msc3824.delegated_oidc_compatibility': true },
        { type: 'm.login.token' },
      ],
    },
  }
}

export function login(ctx: Ctx): Reply {
  const parsed = jsonBody(ctx)
  if (!parsed.ok) return parsed.reply
  const b = parsed.value
  if (!isRecord(b) || typeof b.type !== 'string') return BAD_JSON()
  const optString = (v: unknown) => v === undefined || v === null || typeof v === 'string'
  if (
    !optString(b.device_id) ||
    !optString(b.initial_device_display_name) ||
    (b.refresh_token !== undefined && typeof b.refresh_token !== 'boolean')
  )
    return BAD_JSON()
  if (b.type === 'm.login.token') {
    if (typeof b.token !== 'string') return BAD_JSON()
    // the mock issues no login tokens
    return hsError(403, 'M_FORBIDDEN', 'Invalid login token')
  }
  if (b.type !== 'm.login.password') return hsError(400, 'M_UNKNOWN', 'Invalid login type')
  if (
    typeof b.password !== 'string' ||
    !optString(b.user) ||
    (b.identifier !== undefined && b.identifier !== null && !isRecord(b.identifier))
  )
    return BAD_JSON()
  let name: string
  if (typeof b.user === 'string') name = b.user
  else if (isRecord(b.identifier)) {
    if (typeof b.identifier.type !== 'string') return BAD_JSON()
    if (b.identifier.type !== 'm.id.user') return hsError(400, 'M_UNKNOWN', 'Unsupported login identifier')
    if (typeof b.identifier.user !== 'string') return BAD_JSON()
    name = b.identifier.user
  } else return hsError(400, 'M_BAD_JSON', "Missing property 'identifier")

  const store = ctx.world.mas
  // a full user ID of this server names its localpart
  const suffix = `:${store.serverName}`
  const username = name.startsWith('@') && name.endsWith(suffix) ? name.slice(1, -suffix.length) : name
  ctx.log.queries += 2
  const user = store.checkPassword(username, b.password)
  if (!user || user.deactivatedAt !== null) return BAD_LOGIN()
  if (user.lockedAt !== null) return hsError(401, 'M_USER_LOCKED', 'User account has been locked')
  const ua = ctx.headers['user-agent']
  const deviceId = typeof b.device_id === 'string' && b.device_id !== '' ? b.device_id : newDeviceId()
  const { session, token } = store.createCompatSession(
    {
      userId: user.id,
      deviceId,
      humanName: typeof b.initial_device_display_name === 'string' ? b.initial_device_display_name : null,
      userAgent: typeof ua === 'string' ? ua : null,
      lastActiveIp: ctx.clientAddress ?? null,
    },
    nowMicros(ctx.now()),
  )
  ctx.log.queries += 3
  ctx.log.requester = { kind: 'user', id: user.id, username: user.username }
  return { status: 200, body: { access_token: token.value, device_id: session.deviceId, user_id: `@${user.username}${suffix}` } }
}

/** The compat session behind the request's token, or the logout endpoints' 401s. */
function compatCaller(ctx: Ctx): { ok: true; session: CompatSession; user: User } | { ok: false; reply: Reply } {
  const got = bearerToken(ctx.headers.authorization)
  if ('error' in got) {
    return {
      ok: false,
      reply:
        got.error === 'missing'
          ? hsError(401, 'M_MISSING_TOKEN', 'Missing access token')
          : hsError(401, 'M_UNKNOWN_TOKEN', 'Invalid access token'),
    }
  }
  const invalid = { ok: false as const, reply: hsError(401, 'M_UNKNOWN_TOKEN', 'Invalid access token') }
  const store = ctx.world.mas
  const t = store.lookupAccessToken(got.token)
  if (!t) return invalid
  const now = nowMicros(ctx.now())
  if (t.kind !== 'compat' || t.revokedAt !== null || (t.expiresAt !== null && t.expiresAt < now)) return invalid
  const session = store.compat.get(t.sessionId)
  if (!session || session.finishedAt !== null) return invalid
  const user = store.getUser(session.userId)
  if (!user) return invalid
  ctx.log.queries += 3
  ctx.log.requester = { kind: 'user', id: user.id, username: user.username }
  return { ok: true, session, user }
}

export function logout(ctx: Ctx): Reply {
  const caller = compatCaller(ctx)
  if (!caller.ok) return caller.reply
  const store = ctx.world.mas
  store.finishCompatSession(caller.session, nowMicros(ctx.now()))
  scheduleDeviceSync(ctx, caller.user.id, `compat-session ${caller.session.id}/logout`)
  return { status: 200, body: {} }
}

export function logoutAll(ctx: Ctx): Reply {
  let onlyCompat = false
  if (ctx.body.length > 0) {
    const parsed = jsonBody(ctx)
    if (!parsed.ok) return parsed.reply
    if (!isRecord(parsed.value)) return BAD_JSON()
    const flag = parsed.value['io.element.only_compat_is_fine']
    if (flag !== undefined && typeof flag !== 'boolean') return BAD_JSON()
    onlyCompat = flag === true
  }
  const caller = compatCaller(ctx)
  if (!caller.ok) return caller.reply
  if (!MasStore.isUserActive(caller.user)) return hsError(401, 'M_UNKNOWN_TOKEN', 'Invalid access token')
  if (!onlyCompat) return hsError(404, 'M_UNRECOGNIZED', 'The /logout/all endpoint is not supported by this deployment')
  const store = ctx.world.mas
  const now = nowMicros(ctx.now())
  const active = store.compat.page(
    {
      in: [
        { index: 'user', keys: [caller.user.id] },
        { index: 'status', keys: [COMPAT_STATUS.active] },
      ],
    },
    'forward',
    Number.MAX_SAFE_INTEGER,
  )
  for (const s of active.items) store.finishCompatSession(s, now)
  scheduleDeviceSync(ctx, caller.user.id, `user ${caller.user.id}/logout-all`)
  return { status: 200, body: {} }
}
