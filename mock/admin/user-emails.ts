// /api/admin/v1/user-emails: list (filters user, email), add, get, delete.
// - list: filter[user] must exist (404 `User ID … not found`); filter[email] matches the whole
//   address case-insensitively (LOWER(email) = LOWER(…)).
// - add: the user first (404), then the address (400 `Email "…" is not valid` + the parser's
//   reason), then uniqueness across all users, case-insensitively (409 `User email "…" already in use`);
//   201 with the canonical links.self.
// - get 404 / delete 404 `User email ID … not found`; delete answers 204 without a body.
import type { Ctx, Reply } from '../core/context.ts'
import { adminErr, bodyRejection, type RouteEntry } from '../core/table.ts'
import { nowMicros, rustDebug } from '../store/mas/index.ts'
import { LIVE, type UserEmail } from '../store/mas/extra.ts'
import { authenticate } from './framework/auth.ts'
import { readJsonBody } from '../mas-http/body.ts'
import { checkUser } from './framework/filters.ts'
import { list, listFilters } from './framework/listing.ts'
import { byId, deleteById, found, notFoundTitle, USER, type Kind } from './framework/by-id.ts'
import { API, fmtTime, resource, single } from './framework/resource.ts'
import { routeError } from '../mas-http/errors.ts'

const SITE = 'mas_handlers::admin::v1::user_emails'
const PATH = `${API}/user-emails`

export const userEmailResource = (e: UserEmail) =>
  resource('user-email', 'user-emails', e.id, { created_at: fmtTime(e.createdAt), user_id: e.userId, email: e.email })

/**
 * Why an address does not parse, in the words of the mail library the service uses, or null when it
 * does: `local@domain`, split at the last `@`; the local part of atext characters and dots, the
 * domain of dot-separated labels (or an address literal in brackets).
 */
export function emailProblem(email: string): string | null {
  const at = email.lastIndexOf('@')
  if (at <= 0 || at === email.length - 1) return 'Missing domain or user'
  const user = email.slice(0, at)
  const domain = email.slice(at + 1)
  if (!/^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$/.test(user)) return 'Invalid email user'
  const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/
  const literal = /^\[[^\[\]\s]+\]$/
  if (!literal.test(domain) && !domain.split('.').every((l) => label.test(l))) return 'Invalid email domain'
  return null
}

const FILTERS = listFilters<'user' | 'email'>([
  { key: 'filter[user]', kind: 'ulid', index: 'user', exists: checkUser },
  {
    key: 'filter[email]',
    kind: 'text',
    index: 'email',
    keyOf: (email) => email.toLowerCase(),
    // the bug: the address compared as written
    test: (ctx, email) => (ctx.faults.has('user-emails-filter-email-case-sensitive') ? (e: UserEmail) => e.email === email : undefined),
  },
])

export function listUserEmails(ctx: Ctx): Reply {
  return list(ctx, {
    site: `${SITE}::list:120`,
    path: PATH,
    filters: FILTERS,
    base: [LIVE],
    collection: ctx.world.mas.extra.emails,
    toResource: userEmailResource,
  })
}

const ADD = {
  name: 'AddUserEmailRequest',
  fields: [
    ['user_id', 'ulid'],
    ['email', 'string'],
  ],
} as const

export function addUserEmail(ctx: Ctx): Reply {
  const auth = authenticate(ctx)
  if (!auth.ok) return auth.reply
  const body = readJsonBody(ctx, ADD)
  if (!body.ok) return body.reply
  const { user_id: userId, email } = body.value as { user_id: string; email: string }
  const site = `${SITE}::add:84`
  const user = found(ctx, site, USER, userId)
  if (!user.ok) return user.reply
  const problem = emailProblem(email)
  if (problem) return routeError(ctx, site, 400, `Email ${rustDebug(email)} is not valid`, problem)
  const extra = ctx.world.mas.extra
  ctx.log.queries += 1
  if (extra.emailInUse(email) && !ctx.faults.has('user-emails-duplicate-accepted'))
    return routeError(ctx, site, 409, `User email ${rustDebug(email)} already in use`)
  const e = extra.addEmail(userId, email, nowMicros(ctx.now()))
  ctx.log.queries += 2
  return single(201, userEmailResource(e))
}

const EMAIL: Kind<UserEmail> = { noun: 'User email', get: (ctx, id) => ctx.world.mas.extra.getEmail(id) }

export function getUserEmail(ctx: Ctx): Reply {
  const e = byId(ctx, `${SITE}::get:37`, EMAIL)
  return e.ok ? single(200, userEmailResource(e.item)) : e.reply
}

export function deleteUserEmail(ctx: Ctx): Reply {
  return deleteById(ctx, `${SITE}::delete:40`, EMAIL, (e) => {
    if (!ctx.faults.has('user-emails-delete-keeps')) ctx.world.mas.extra.removeEmail(e)
  })
}

const TAG = 'user-email'
const NOT_FOUND = adminErr(`The address does not exist (${notFoundTitle(EMAIL, '…')}).`)

/** this family's rows of the admin route table */
export const USER_EMAIL_ENTRIES: RouteEntry[] = [
  {
    method: 'GET',
    pattern: '/user-emails',
    handler: listUserEmails,
    doc: {
      operationId: 'listUserEmails',
      tag: TAG,
      summary: 'List user email addresses',
      security: 'mas-admin',
      description: 'All addresses, oldest first. filter[email] matches the whole address case-insensitively.',
      query: 'admin/user-email#ListQuery',
      responses: {
        '200': { description: 'A page of addresses.', ref: 'admin/user-email#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
        '404': adminErr('The user of filter[user] does not exist.'),
      },
    },
  },
  {
    method: 'POST',
    pattern: '/user-emails',
    handler: addUserEmail,
    doc: {
      operationId: 'addUserEmail',
      tag: TAG,
      summary: 'Add an email address to a user',
      security: 'mas-admin',
      description: 'Checked in this order: the user (404), the address (400), its uniqueness across all users, case-insensitively (409).',
      body: { ref: 'admin/user-email#AddRequest' },
      responses: {
        '201': { description: 'The new address.', ref: 'admin/user-email#Single' },
        '400': adminErr('The address is not valid; the second title says why.'),
        '404': adminErr('The user does not exist.'),
        '409': adminErr('The address is already in use.'),
        '415': bodyRejection(),
        '422': bodyRejection(),
      },
    },
  },
  {
    method: 'GET',
    pattern: '/user-emails/:id',
    handler: getUserEmail,
    doc: {
      operationId: 'getUserEmail',
      tag: TAG,
      summary: 'Get a user email address',
      security: 'mas-admin',
      responses: { '200': { description: 'The address.', ref: 'admin/user-email#Single' }, '404': NOT_FOUND },
    },
  },
  {
    method: 'DELETE',
    pattern: '/user-emails/:id',
    handler: deleteUserEmail,
    doc: {
      operationId: 'deleteUserEmail',
      tag: TAG,
      summary: 'Delete a user email address',
      security: 'mas-admin',
      responses: { '204': { description: 'Deleted (no body).' }, '404': NOT_FOUND },
    },
  },
]
