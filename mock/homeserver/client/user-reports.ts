// POST /_matrix/client/v3/users/{userId}/report (MSC4260, since v1.133.0, v3 only; gated in
// routes.ts): any authenticated user files a report against a user. The real server's order: auth,
// a JSON object body, `reason` a string (its body model, with pydantic's messages), the length limit,
// then two silent drops — a target that is not on this server, or no such user — both answered
// 200 {} like a stored report, so that a reporter cannot probe which users exist.
import { hsError, type Ctx, type Reply, type Route } from '../../core/context.ts'
import type { Authenticator } from '../framework/auth.ts'
import { parseJsonObject } from '../framework/parse.ts'

const MAX_REASON = 1000
/** The pydantic release the real 1.160.0 runs (it shows in the message's link). */
const PYDANTIC = '2.14'

/** Python's repr() of a decoded JSON value, as pydantic prints `input_value`. */
export function pythonRepr(v: unknown): string {
  if (v === null) return 'None'
  if (v === true) return 'True'
  if (v === false) return 'False'
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pythonFloat(v)
  if (typeof v === 'string') return pythonStr(v)
  if (Array.isArray(v)) return `[${v.map(pythonRepr).join(', ')}]`
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pythonStr(k)}: ${pythonRepr(x)}`)
    .join(', ')}}`
}

function pythonFloat(v: number): string {
  const s = String(v)
  return /[.e]/.test(s) ? s.replace(/e([+-])(\d)$/, 'e$10$2') : `${s}.0`
}

function pythonStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'"
  let out = q
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (ch === '\\') out += '\\\\'
    else if (ch === q) out += `\\${q}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`
    else out += ch
  }
  return out + q
}

function pythonType(v: unknown): string {
  if (v === null) return 'NoneType'
  if (typeof v === 'boolean') return 'bool'
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float'
  if (Array.isArray(v)) return 'list'
  return typeof v === 'object' ? 'dict' : 'str'
}

function validationError(kind: 'missing' | 'string_type', input: unknown): string {
  const what = kind === 'missing' ? 'Field required' : 'Input should be a valid string'
  return `1 validation error for PostBody\nreason\n  ${what} [type=${kind}, input_value=${pythonRepr(input)}, input_type=${pythonType(input)}]\n    For further information visit https://errors.pydantic.dev/${PYDANTIC}/v/${kind}`
}

async function report(ctx: Ctx, auth: Authenticator): Promise<Reply> {
  const who = await auth.authenticate(ctx)
  if (!who.ok) return who.reply
  const parsed = parseJsonObject(ctx.body)
  if (!parsed.ok) return parsed.reply
  const body = parsed.value.value
  if (!('reason' in body)) return hsError(400, 'M_MISSING_PARAM', validationError('missing', body))
  const reason = body.reason
  if (typeof reason !== 'string') return hsError(400, 'M_BAD_JSON', validationError('string_type', reason))
  // Python's len(): code points, not UTF-16 units.
  if ([...reason].length > MAX_REASON && !ctx.faults.has('client-user-report-long-reason-accepted')) {
    return hsError(400, 'M_BAD_JSON', 'Reason must be less than 1000 characters')
  }
  const store = ctx.world.hs
  const target = ctx.params.userId ?? ''
  const colon = target.indexOf(':')
  const local = colon >= 0 && target.slice(colon + 1) === store.serverName
  const known = store.users.has(target) || (ctx.faults.has('client-user-report-unknown-target-stored') && target.startsWith('@'))
  if (local && known) {
    store.addUserReport({ targetUserId: target, userId: who.user.userId, reason, receivedTs: ctx.now().getTime() })
    ctx.log.queries += 2 // the user lookup and the insert
  }
  return { status: 200, body: {} }
}

export function clientUserReportRoutes(clientBase: string, auth: Authenticator): Route[] {
  // An empty user id reaches the handler (the real pattern is `[^/]*`) and is dropped like an unknown user.
  return [{ method: 'POST', pattern: `${clientBase}/v3/users/:userId?/report`, area: 'hs', handler: (ctx: Ctx) => report(ctx, auth) }]
}
