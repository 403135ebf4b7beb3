// /api/admin/v1/users: list (filters admin, legacy-guest, search, status, active-oauth2-client,
// has-active-oauth2-session, has-active-compat-session), add, get, by-username, set-password,
// set-admin, deactivate, reactivate, lock, unlock.
// - The actions never fail on the user's state: locking a locked user keeps its locked_at, unlocking
//   an unlocked one changes nothing (likewise deactivate / reactivate); the only route error is 404
//   `User ID … not found`. Their `links.self` is the action's path.
// - deactivate sets deactivated_at (locked_at is untouched) and runs what the service's
//   deactivation job does, at once: the user's browser, OAuth 2.0 and compatibility sessions end and
//   the personal sessions acting as or owned by the user are revoked.
// - filter[search] is the service's `username ILIKE '%<search>%'`: case-insensitive, and `%` / `_`
//   in the text are wildcards.
// The users collection has only a username index, so the filters are checked item by item (`where`).
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, bodyRejection, masGate, type OperationDoc, type ResponseDoc, type RouteEntry } from '../core/table.ts'
import { nowMicros, rustDebug, type User } from '../store/mas/index.ts'
import { endUserSessions } from '../store/mas/user-lifecycle.ts'
import type { UserState } from '../store/mas/writes.ts'
import { authenticate } from './framework/auth.ts'
import { readJsonBody } from '../mas-http/body.ts'
import { checkClient } from './framework/filters.ts'
import { list, listFilters } from './framework/listing.ts'
import { byId, found, notFoundTitle, pathTarget, USER } from './framework/by-id.ts'
import { API, fmtTime, fmtTimeOrNull, resource, single } from './framework/resource.ts'
import { routeError } from '../mas-http/errors.ts'

const SITE = 'mas_handlers::admin::v1::users'
const PATH = `${API}/users`

export const USER_STATUSES = ['active', 'locked', 'deactivated'] as const

export function userAttributes(u: User): Record<string, unknown> {
  return {
    username: u.username,
    created_at: fmtTime(u.createdAt),
    locked_at: fmtTimeOrNull(u.lockedAt),
    deactivated_at: fmtTimeOrNull(u.deactivatedAt),
    admin: u.admin,
    legacy_guest: u.legacyGuest,
  }
}

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

/** SQL `ILIKE '%<search>%'` as a predicate: `%` any text, `_` one character, case folded. */
export function ilikeContains(search: string): (text: string) => boolean {
  let src = ''
  for (const ch of search.toLowerCase()) src += ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  const re = new RegExp(src, 's')
  return (text) => re.test(text.toLowerCase())
}

function statusTest(ctx: Ctx, status: (typeof USER_STATUSES)[number]): (u: User) => boolean {
  switch (status) {
    case 'active':
      return (u) => u.lockedAt === null && u.deactivatedAt === null
    case 'locked':
      // the bug: "locked" leaves out the users that are also deactivated
      if (ctx.faults.has('users-filter-locked-excludes-deactivated')) return (u) => u.lockedAt !== null && u.deactivatedAt === null
      return (u) => u.lockedAt !== null
    case 'deactivated':
      return (u) => u.deactivatedAt !== null
  }
}

/** a user with an active OAuth 2.0 session (of `client`, when given) */
function activeOAuth2(ctx: Ctx, client?: string): (u: User) => boolean {
  const oauth2 = ctx.world.mas.oauth2
  if (client === undefined) {
    const ids = usersWithActive(oauth2)
    return (u) => ids.has(u.id)
  }
  return (u) => oauth2.bucketSize('userClientStatus', `${u.id}|${client}|active`) > 0
}

// The users with an active session of a kind, derived from its sessions' `userStatus` index once per
// write of the sessions (their generation): a filtered listing checks every user, and at 1,000,000
// sessions looking up 85,000 users' buckets took about 100 ms a request.
const ACTIVE_SUFFIX = '|active'
const activeUsers = new WeakMap<object, { generation: number; ids: Set<string> }>()

function usersWithActive(sessions: {
  generation: number
  bucketKeys(index: 'userStatus'): Iterable<string>
  bucketSize(index: 'userStatus', key: string): number
}): Set<string> {
  let e = activeUsers.get(sessions)
  if (e === undefined || e.generation !== sessions.generation) {
    const ids = new Set<string>()
    for (const k of sessions.bucketKeys('userStatus'))
      if (k.endsWith(ACTIVE_SUFFIX) && sessions.bucketSize('userStatus', k) > 0) ids.add(k.slice(0, -ACTIVE_SUFFIX.length))
    e = { generation: sessions.generation, ids }
    activeUsers.set(sessions, e)
  }
  return e.ids
}

// The filters in the service's order; one a release does not have yet is an unknown key to it, which
// the service ignores (lib/data/mas-features.json). The users collection has only a username index,
// so each filter checks the users one by one.
const FILTERS = listFilters([
  { key: 'filter[admin]', kind: 'holds', holds: () => (u: User) => u.admin },
  { key: 'filter[legacy-guest]', kind: 'holds', holds: () => (u: User) => u.legacyGuest, since: 'users-filter-search' },
  {
    key: 'filter[search]',
    kind: 'text',
    since: 'users-filter-search',
    test: (ctx, search) => {
      // the bug: the search compared as written
      const m = ctx.faults.has('users-search-case-sensitive') ? (name: string) => name.includes(search) : ilikeContains(search)
      return (u: User) => m(u.username)
    },
  },
  {
    key: 'filter[status]',
    kind: 'enum',
    values: USER_STATUSES,
    test: (ctx, status) => statusTest(ctx, status as (typeof USER_STATUSES)[number]),
  },
  {
    key: 'filter[active-oauth2-client]',
    kind: 'ulid[]',
    exists: checkClient,
    since: 'users-filter-sessions',
    test: (ctx, clients) => {
      const of = clients.map((c) => activeOAuth2(ctx, c))
      return (u: User) => of.some((active) => active(u))
    },
  },
  { key: 'filter[has-active-oauth2-session]', kind: 'holds', holds: (ctx) => activeOAuth2(ctx), since: 'users-filter-sessions' },
  {
    key: 'filter[has-active-compat-session]',
    kind: 'holds',
    holds: (ctx) => {
      const ids = usersWithActive(ctx.world.mas.compat)
      return (u: User) => ids.has(u.id)
    },
    since: 'users-filter-sessions',
  },
])

export function listUsers(ctx: Ctx): Reply {
  return list(ctx, { site: `${SITE}::list:130`, path: PATH, filters: FILTERS, collection: ctx.world.mas.users, toResource: userResource })
}

const ADD = {
  name: 'AddUserRequest',
  fields: [
    ['username', 'string'],
    ['skip_homeserver_check', 'bool='],
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
  // The real service provisions the user on its homeserver before it answers, with the display name
  // and avatar asked for (Synapse registers the localpart as display name when none is given).
  const displayName = body.value.displayname as string | null | undefined
  const avatarUrl = body.value.avatar_url as string | null | undefined
  const profile = { ...(typeof displayName === 'string' ? { displayName } : {}), ...(typeof avatarUrl === 'string' ? { avatarUrl } : {}) }
  const user = store.createUser(username, nowMicros(ctx.now()), Object.keys(profile).length ? { profile } : {})
  ctx.world.hs.addUser(username, { displayName: profile.displayName ?? username, createdTs: ctx.now().getTime() })
  ctx.log.queries += 1
  return single(201, userResource(user))
}

export function getUser(ctx: Ctx): Reply {
  const u = byId(ctx, `${SITE}::get:38`, USER)
  return u.ok ? single(200, userResource(u.item)) : u.reply
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
  const id = pathTarget(ctx)
  if (!id.ok) return id.reply
  const body = readJsonBody(ctx, SET_PASSWORD)
  if (!body.ok) return body.reply
  const site = `${SITE}::set_password:47`
  const store = ctx.world.mas
  const target = found(ctx, site, USER, id.id)
  if (!target.ok) return target.reply
  const user = target.item
  const { password, skip_password_check: skip } = body.value as { password: string; skip_password_check: boolean | null }
  if (skip !== true && !isPasswordStrongEnough(password)) return routeError(ctx, site, 400, 'Password is too weak')
  store.setPassword(user, password)
  ctx.log.queries += 1
  return { status: 204 }
}

/**
 * One of the five actions: the user (or its 404), then its new state as one recorded write
 * (`change` returns it from the current one), then what follows (`after`, the deactivation job).
 */
function action(
  ctx: Ctx,
  name: string,
  line: number,
  change: (u: UserState, now: number) => UserState,
  readBody?: (ctx: Ctx) => Reply | undefined,
  after?: (u: User, now: number) => void,
): Reply {
  const id = pathTarget(ctx)
  if (!id.ok) return id.reply
  if (readBody) {
    const bad = readBody(ctx)
    if (bad) return bad
  }
  const u = found(ctx, `${SITE}::${name.replace('-', '_')}:${line}`, USER, id.id)
  if (!u.ok) return u.reply
  const user = u.item
  const now = nowMicros(ctx.now())
  ctx.world.mas.setUserState(user, change({ lockedAt: user.lockedAt, deactivatedAt: user.deactivatedAt, admin: user.admin }, now))
  after?.(user, now)
  ctx.log.queries += 2
  return single(200, userResource(user), `${PATH}/${user.id}/${name}`)
}

const SET_ADMIN = { name: 'UserSetAdminRequest', fields: [['admin', 'bool']] } as const

export function setUserAdmin(ctx: Ctx): Reply {
  let admin = false
  return action(
    ctx,
    'set-admin',
    60,
    (u) => ({ ...u, admin: ctx.faults.has('users-set-admin-ignored') ? u.admin : admin }),
    (c) => {
      // `admin` is a required bool: missing, null and wrong types are the body parser's 422s
      const typed = readJsonBody(c, SET_ADMIN)
      if (!typed.ok) return typed.reply
      admin = typed.value.admin as boolean
      return undefined
    },
  )
}

const DEACTIVATE = { name: 'DeactivateUserRequest', fields: [['skip_erase', 'bool=']] } as const

export function deactivateUser(ctx: Ctx): Reply {
  return action(
    ctx,
    'deactivate',
    71,
    (u, now) => ({
      admin: u.admin,
      deactivatedAt: u.deactivatedAt === null || ctx.faults.has('users-deactivate-resets-time') ? now : u.deactivatedAt,
      lockedAt: ctx.faults.has('users-deactivate-locks') ? (u.lockedAt ?? now) : u.lockedAt,
    }),
    // the body is optional: without a Content-Type header none is read
    (c) =>
      c.headers['content-type'] === undefined
        ? undefined
        : (() => {
            const b = readJsonBody(c, DEACTIVATE)
            return b.ok ? undefined : b.reply
          })(),
    (u, now) => {
      if (!ctx.faults.has('users-deactivate-keeps-sessions')) endUserSessions(ctx.world.mas, u.id, now)
    },
  )
}

export function reactivateUser(ctx: Ctx): Reply {
  return action(ctx, 'reactivate', 74, (u) => ({
    ...u,
    deactivatedAt: null,
    lockedAt: ctx.faults.has('users-reactivate-unlocks') ? null : u.lockedAt,
  }))
}

export function lockUser(ctx: Ctx): Reply {
  return action(ctx, 'lock', 63, (u, now) => ({
    ...u,
    lockedAt: u.lockedAt === null || ctx.faults.has('users-lock-resets-time') ? now : u.lockedAt,
  }))
}

export function unlockUser(ctx: Ctx): Reply {
  return action(ctx, 'unlock', 63, (u) => ({ ...u, lockedAt: ctx.faults.has('users-unlock-noop') ? u.lockedAt : null }))
}

const TAG = 'user'
const NOT_FOUND = adminErr(`The user does not exist (${notFoundTitle(USER, '…')}).`)
/** One of the five actions: 200 with the user, 404; plus the body statuses when it reads one. */
function actionDoc(
  operationId: string,
  summary: string,
  what: string,
  body?: { ref: string; statuses: Record<string, ResponseDoc> },
): OperationDoc {
  return {
    operationId,
    tag: TAG,
    summary,
    security: 'mas-admin',
    description: `${what} Never refused for the user's current state. links.self is the requested path (ending in the action).`,
    ...(body ? { body: { ref: body.ref } } : {}),
    responses: { '200': { description: 'The user after the action.', ref: 'admin/user#Single' }, '404': NOT_FOUND, ...body?.statuses },
  }
}

/** this family's rows of the admin route table */
export const USER_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/users',
    handler: listUsers,
    doc: {
      operationId: 'listUsers',
      tag: TAG,
      summary: 'List users',
      security: 'mas-admin',
      description:
        "All users, including locked and deactivated ones, oldest first. filter[search] matches the username like SQL ILIKE '%text%' (case-insensitive; % and _ are wildcards).",
      query: 'admin/user#ListQuery',
      responses: {
        '200': { description: 'A page of users.', ref: 'admin/user#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
        '404': adminErr('A client of filter[active-oauth2-client] does not exist.'),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/users',
    handler: addUser,
    doc: {
      operationId: 'createUser',
      tag: TAG,
      summary: 'Create a user',
      security: 'mas-admin',
      body: { ref: 'admin/user#AddRequest' },
      responses: {
        '201': { description: 'The new user.', ref: 'admin/user#Single' },
        '400': adminErr('Username is not valid.'),
        '409': adminErr('User already exists.'),
        '415': bodyRejection(),
        '422': bodyRejection(),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/users/:id',
    handler: getUser,
    doc: {
      operationId: 'getUser',
      tag: TAG,
      summary: 'Get a user',
      security: 'mas-admin',
      responses: { '200': { description: 'The user.', ref: 'admin/user#Single' }, '404': NOT_FOUND },
    },
  },
  {
    method: 'GET',
    pattern: '/users/by-username/:username',
    handler: getUserByUsername,
    doc: {
      operationId: 'getUserByUsername',
      tag: TAG,
      summary: 'Get a user by its username',
      security: 'mas-admin',
      responses: {
        '200': { description: 'The user; links.self is the by-username path.', ref: 'admin/user#Single' },
        '404': adminErr('No user has this username.'),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/users/:id/set-password',
    handler: setUserPassword,
    doc: {
      operationId: 'setUserPassword',
      tag: TAG,
      summary: "Set a user's password",
      security: 'mas-admin',
      body: { ref: 'admin/user#SetPasswordRequest' },
      responses: {
        '204': { description: 'The password was set (no body).' },
        '400': adminErr('Password is too weak (unless skip_password_check).'),
        '403': adminErr('Password auth is disabled in the configuration (never in the mock, whose password login is on).'),
        '404': NOT_FOUND,
        '415': bodyRejection(),
        '422': bodyRejection(),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/users/:id/set-admin',
    handler: setUserAdmin,
    doc: actionDoc('userSetAdmin', 'Set or clear the admin flag of a user', 'Sets can_request_admin.', {
      ref: 'admin/user#SetAdminRequest',
      statuses: { '415': bodyRejection(), '422': bodyRejection() },
    }),
  },
  {
    method: 'POST',
    pattern: '/users/:id/deactivate',
    handler: deactivateUser,
    doc: actionDoc(
      'deactivateUser',
      'Deactivate a user',
      "Sets deactivated_at (the first time only; locked_at is untouched) and ends the user's browser, OAuth 2.0, compatibility and personal sessions. The body is optional: without a Content-Type header none is read.",
      { ref: 'admin/user#DeactivateRequest', statuses: { '400': bodyRejection(), '415': bodyRejection(), '422': bodyRejection() } },
    ),
  },
  {
    method: 'POST',
    pattern: '/users/:id/reactivate',
    handler: reactivateUser,
    ...masGate('users-reactivate'),
    doc: actionDoc('reactivateUser', 'Reactivate a user', 'Clears deactivated_at; a lock stays.'),
  },
  {
    method: 'POST',
    pattern: '/users/:id/lock',
    handler: lockUser,
    doc: actionDoc('lockUser', 'Lock a user', 'Sets locked_at (the first time only).'),
  },
  { method: 'POST', pattern: '/users/:id/unlock', handler: unlockUser, doc: actionDoc('unlockUser', 'Unlock a user', 'Clears locked_at.') },
]
