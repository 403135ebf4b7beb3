// The users family's rows of the admin route table (mock/admin/routes.ts spreads them in): handlers,
// OpenAPI descriptions with every status each handler answers, and the versions that have them.
import { adminErr, bodyRejection, masGate, type OperationDoc, type ResponseDoc, type RouteEntry } from '../core/table.ts'
import { addUser, deactivateUser, getUser, getUserByUsername, listUsers, lockUser, reactivateUser, setUserAdmin, setUserPassword, unlockUser } from './users.ts'

const TAG = 'user'
const NOT_FOUND = adminErr('The user does not exist (User ID … not found).')
/** One of the five actions: 200 with the user, 404; plus the body statuses when it reads one. */
function action(operationId: string, summary: string, what: string, body?: { ref: string; statuses: Record<string, ResponseDoc> }): OperationDoc {
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

export const USER_ENTRIES: RouteEntry[] = [
  {
    method: 'GET', pattern: '/users', handler: listUsers,
    doc: { operationId: 'listUsers', tag: TAG, summary: 'List users', security: 'mas-admin',
      description: 'All users, including locked and deactivated ones, oldest first. filter[search] matches the username like SQL ILIKE \'%text%\' (case-insensitive; % and _ are wildcards).',
      query: 'admin/user#ListQuery',
      responses: {
        '200': { description: 'A page of users.', ref: 'admin/user#Page' },
        '400': adminErr('Invalid pagination or filter parameters.'),
        '404': adminErr('A client of filter[active-oauth2-client] does not exist.'),
      } },
  },
  {
    method: 'POST', pattern: '/users', handler: addUser,
    doc: { operationId: 'createUser', tag: TAG, summary: 'Create a user', security: 'mas-admin',
      body: { ref: 'admin/user#AddRequest' },
      responses: {
        '201': { description: 'The new user.', ref: 'admin/user#Single' },
        '400': adminErr('Username is not valid.'),
        '409': adminErr('User already exists.'),
        '415': bodyRejection(),
        '422': bodyRejection(),
      } },
  },
  {
    method: 'GET', pattern: '/users/:id', handler: getUser,
    doc: { operationId: 'getUser', tag: TAG, summary: 'Get a user', security: 'mas-admin',
      responses: { '200': { description: 'The user.', ref: 'admin/user#Single' }, '404': NOT_FOUND } },
  },
  {
    method: 'GET', pattern: '/users/by-username/:username', handler: getUserByUsername,
    doc: { operationId: 'getUserByUsername', tag: TAG, summary: 'Get a user by its username', security: 'mas-admin',
      responses: { '200': { description: 'The user; links.self is the by-username path.', ref: 'admin/user#Single' }, '404': adminErr('No user has this username.') } },
  },
  {
    method: 'POST', pattern: '/users/:id/set-password', handler: setUserPassword,
    doc: { operationId: 'setUserPassword', tag: TAG, summary: "Set a user's password", security: 'mas-admin',
      body: { ref: 'admin/user#SetPasswordRequest' },
      responses: {
        '204': { description: 'The password was set (no body).' },
        '400': adminErr('Password is too weak (unless skip_password_check).'),
        '403': adminErr('Password auth is disabled in the configuration (never in the mock, whose password login is on).'),
        '404': NOT_FOUND,
        '415': bodyRejection(),
        '422': bodyRejection(),
      } },
  },
  {
    method: 'POST', pattern: '/users/:id/set-admin', handler: setUserAdmin,
    doc: action('userSetAdmin', 'Set or clear the admin flag of a user', 'Sets can_request_admin.', { ref: 'admin/user#SetAdminRequest', statuses: { '415': bodyRejection(), '422': bodyRejection() } }),
  },
  {
    method: 'POST', pattern: '/users/:id/deactivate', handler: deactivateUser,
    doc: action('deactivateUser', 'Deactivate a user',
      "Sets deactivated_at (the first time only; locked_at is untouched) and ends the user's browser, OAuth 2.0, compatibility and personal sessions. The body is optional: without a Content-Type header none is read.",
      { ref: 'admin/user#DeactivateRequest', statuses: { '400': bodyRejection(), '415': bodyRejection(), '422': bodyRejection() } }),
  },
  { method: 'POST', pattern: '/users/:id/reactivate', handler: reactivateUser, ...masGate('users-reactivate'), doc: action('reactivateUser', 'Reactivate a user', 'Clears deactivated_at; a lock stays.') },
  { method: 'POST', pattern: '/users/:id/lock', handler: lockUser, doc: action('lockUser', 'Lock a user', 'Sets locked_at (the first time only).') },
  { method: 'POST', pattern: '/users/:id/unlock', handler: unlockUser, doc: action('unlockUser', 'Unlock a user', 'Clears locked_at.') },
]
