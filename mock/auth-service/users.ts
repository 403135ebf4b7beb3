// The admin API's user endpoints the fixtures need: add (201; 409 "User already exists", 400
// "Username is not valid"), get by id, get by username, set-password (204; 400 "Password is too
// weak" unless skip_password_check). The real service also provisions the user on the homeserver;
// the mock's homeserver side keeps its own users, so nothing is called.
import type { Ctx, Reply } from '../core/context.ts'
import { nowMicros, rustDebug, type User } from '../store/mas.ts'
import { authenticate } from '../admin/framework/auth.ts'
import { readJsonBody } from '../admin/framework/body.ts'
import { pathId } from '../admin/framework/pagination.ts'
import { API, resource, routeError, single, titleWithId, userAttributes } from '../admin/framework/resource.ts'

const SITE = 'mas_handlers::admin::v1::users'

export const userResource = (u: User) => resource('user', 'users', u.id, userAttributes(u))

/** the service's username rule: 1–255 bytes of [a-z0-9=_\-./+], not starting with `_` */
export function isValidUsername(name: string): boolean {
  return name.length > 0 && Buffer.byteLength(name) <= 255 && !name.startsWith('_') && /^[a-z0-9=_\-./+]+$/.test(name)
}

/**
 * Stand-in for the zxcvbn score the service asks for (minimum_password_complexity 3): at least 8
 * characters, and at least 12 unless three character classes are mixed.
 */
export function isPasswordStrongEnough(password: string): boolean {
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((r) => r.test(password)).length
  return password.length >= 12 || (password.length >= 8 && classes >= 3)
}

const ADD = {
  name: 'AddUserRequest',
  fields: [
    ['username', 'string'],
    ['skip_homeserver_check', 'bool?'],
    ['displayname', 'string?'],
    ['avatar_url', 'string?'],
  ],
} as const

export function addUser(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const body = readJsonBody(ctx, ADD)
  if (!body.ok) return body.reply
  const username = body.value.username as string
  const site = `${SITE}::add:82`
  const store = ctx.world.mas
  ctx.log.queries += 1
  if (store.findUserByUsername(username)) return routeError(ctx, site, 409, 'User already exists')
  if (!isValidUsername(username)) return routeError(ctx, site, 400, 'Username is not valid')
  const user = store.createUser(username, nowMicros(ctx.now()))
  ctx.log.queries += 1
  return single(201, userResource(user))
}

export function getUser(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  ctx.log.queries += 1
  const user = ctx.world.mas.getUser(id.id)
  if (!user) return routeError(ctx, `${SITE}::get:38`, 404, titleWithId(ctx, `User ID ${id.id} not found`, 'User not found'))
  return single(200, userResource(user))
}

export function getUserByUsername(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const username = ctx.params.username ?? ''
  ctx.log.queries += 1
  const user = ctx.world.mas.findUserByUsername(username)
  if (!user) return routeError(ctx, `${SITE}::by_username:38`, 404, `User with username ${rustDebug(username)} not found`)
  return single(200, userResource(user), `${API}/users/by-username/${username}`)
}

const SET_PASSWORD = {
  name: 'Request',
  fields: [
    ['password', 'string'],
    ['skip_password_check', 'bool?'],
  ],
} as const

export function setUserPassword(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const id = pathId(ctx, ctx.params.id)
  if (!id.ok) return id.reply
  const body = readJsonBody(ctx, SET_PASSWORD)
  if (!body.ok) return body.reply
  const site = `${SITE}::set_password:47`
  const store = ctx.world.mas
  ctx.log.queries += 1
  const user = store.getUser(id.id)
  if (!user) return routeError(ctx, site, 404, titleWithId(ctx, `User ID ${id.id} not found`, 'User not found'))
  const { password, skip_password_check: skip } = body.value as { password: string; skip_password_check: boolean | null }
  if (skip !== true && !isPasswordStrongEnough(password)) return routeError(ctx, site, 400, 'Password is too weak')
  store.setPassword(user, password)
  ctx.log.queries += 1
  return { status: 204 }
}
