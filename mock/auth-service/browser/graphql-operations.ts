// GraphQL operations of the account page (the names the bundled frontend sends).
import type { Ctx } from '../../core/context.ts'
import { nowMicros, type BrowserSession, type User } from '../../store/mas/index.ts'
import type { Reply } from '../../core/context.ts'
import { selectOperation, type GraphqlOperation } from './graphql-document.ts'
import { requesterOf } from './request.ts'
import type { BrowserState } from './session.ts'

const lcFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1)

/** A session id as the API shows it (`compat_session:<ulid>`) or the bare ULID. */
function bareId(v: unknown, prefix: string): string | undefined {
  if (typeof v !== 'string') return undefined
  return v.startsWith(prefix + ':') ? v.slice(prefix.length + 1) : v
}

export function runOperation(
  ctx: Ctx,
  op: GraphqlOperation,
  variables: Record<string, unknown>,
  user: User,
  current: BrowserSession,
): Record<string, unknown> {
  const store = ctx.world.mas
  const input = typeof variables.input === 'object' && variables.input !== null ? (variables.input as Record<string, unknown>) : variables
  const at = nowMicros(ctx.now())
  if (op.type !== 'mutation') {
    ctx.log.queries += 1
    return { data: { viewer: { __typename: 'User', id: `user:${user.id}`, username: user.username } } }
  }
  const name = op.name ?? ''
  const field = lcFirst(name)
  ctx.log.queries += 2
  switch (name) {
    case 'EndBrowserSession': {
      const id = bareId(input.browserSessionId ?? input.id, 'browser_session') ?? current.id
      const s = store.getBrowserSession(id)
      if (!s || s.userId !== user.id || s.finishedAt !== null) return { data: { [field]: { status: 'NOT_FOUND' } } }
      store.finishBrowserSession(s, at)
      return { data: { [field]: { status: 'FINISHED' } } }
    }
    case 'EndCompatSession': {
      const s = store.compat.get(bareId(input.compatSessionId ?? input.id, 'compat_session') ?? '')
      if (!s || s.userId !== user.id || s.finishedAt !== null) return { data: { [field]: { status: 'NOT_FOUND' } } }
      store.finishCompatSession(s, at)
      return { data: { [field]: { status: 'FINISHED' } } }
    }
    case 'EndOAuth2Session': {
      const s = store.oauth2.get(bareId(input.oauth2SessionId ?? input.id, 'oauth2_session') ?? '')
      if (!s || s.userId !== user.id || s.finishedAt !== null) return { data: { [field]: { status: 'NOT_FOUND' } } }
      store.finishOAuth2Session(s, at)
      return { data: { [field]: { status: 'FINISHED' } } }
    }
    case 'AddEmail':
      return typeof input.email === 'string' && /^[^@\s]+@[^@\s]+$/.test(input.email)
        ? { data: { [field]: { status: 'ADDED' } } }
        : { data: { [field]: { status: 'INVALID' } } }
    case 'SetDisplayName': {
      // As the real mutation: the owner or an admin; a name of more than 256 bytes, or empty, is
      // INVALID; null removes it. The name lives on the homeserver only (through the link, if any).
      // (the mock reads no schema: without a userId it is the viewer's own name)
      const target = input.userId === undefined ? user : store.users.get(bareId(input.userId, 'user') ?? '')
      if (!target || (target.id !== user.id && !user.admin)) return { data: null, errors: [{ message: 'Unauthorized', path: [field] }] }
      const name = input.displayName ?? null
      if (name !== null && (typeof name !== 'string' || name === '' || Buffer.byteLength(name) > 256))
        return { data: { [field]: { status: 'INVALID', user: null } } }
      const hs = ctx.world.hs
      const profile =
        hs.users.get(`@${target.username}:${hs.serverName}`) ??
        hs.addUser(target.username, { displayName: target.username, createdTs: ctx.now().getTime() })
      hs.setDisplayName(profile, name)
      return { data: { [field]: { status: 'SET', user: { __typename: 'User', id: `user:${target.id}` } } } }
    }
    case 'DoVerifyEmail':
    case 'RemoveEmail':
    case 'ChangePassword':
    case 'RecoverPassword':
    case 'DeactivateUser':
    case 'AllowCrossSigningReset':
    case 'SetCompatSessionName':
    case 'SetOAuth2SessionName':
      // Attempted; the mock keeps no emails, names or keys, so it reports the operation as not allowed.
      return { data: null, errors: [{ message: `${name} is not supported by the mock`, path: [field] }] }
    default:
      return { data: null, errors: [{ message: `Unknown mutation ${name || '(unnamed)'}` }] }
  }
}

/** POST /graphql: the operation named for the log, run with the cookie's session; failures in the body with 200, as the real API does. */
export function graphql(b: BrowserState, ctx: Ctx): Reply {
  const badRequest = (message: string): Reply => ({ status: 400, body: { data: null, errors: [{ message }] } })
  let body: unknown
  try {
    body = JSON.parse(ctx.body.toString('utf8'))
  } catch {
    return badRequest('Invalid GraphQL request: the body is not JSON')
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return badRequest('Invalid GraphQL request: expected an object')
  const req = body as { query?: unknown; operationName?: unknown; variables?: unknown }
  if (typeof req.query !== 'string') return badRequest('Invalid GraphQL request: missing query')
  if (req.operationName !== undefined && req.operationName !== null && typeof req.operationName !== 'string')
    return badRequest('Invalid GraphQL request: bad operationName')
  const variables =
    typeof req.variables === 'object' && req.variables !== null && !Array.isArray(req.variables)
      ? (req.variables as Record<string, unknown>)
      : {}
  const selected = selectOperation(req.query, typeof req.operationName === 'string' ? req.operationName : undefined)
  if (!selected.ok) return { status: 200, body: { data: null, errors: [{ message: selected.message }] } }
  const op = selected.op
  ctx.log.graphqlOperationType = op.type
  if (op.name !== undefined) ctx.log.graphqlOperationName = op.name
  const s = b.session(ctx)
  if (!s) {
    // The real API answers 200 and reports the failure in the body.
    if (op.type === 'query') return { status: 200, body: { data: { viewer: { __typename: 'Anonymous', id: 'anonymous' } } } }
    return { status: 200, body: { data: null, errors: [{ message: 'Unauthorized', extensions: { code: 'UNAUTHORIZED' } }] } }
  }
  ctx.log.requester = requesterOf(s.user)
  return { status: 200, body: runOperation(ctx, op, variables, s.user, s.session) }
}
