// Every status an operation answers: the row's own statuses (what its handler decides) merged with
// the answers every operation of its area shares, which the row does not repeat: authentication
// (by the operation's security), a path id that is not one, a body the parser refuses, and the
// transport limits of mock/core/limits.ts and dispatch.ts (413 body, 414 query on the auth service,
// 431/400 head).
// 405 is not an operation's answer (it is the answer to a method the path lacks): the path item's
// description says it. 429 is never answered (no rate limit). 5xx only as written below.
import type { JsonSchema } from '../../../lib/schemas.ts'
import { LIMITS } from '../../core/limits.ts'
import { ADMIN_ERROR, HS_ERROR, type OperationDoc } from '../../core/table.ts'

/** What the shared answers depend on. */
export interface Shape {
  area: 'admin' | 'homeserver' | 'client'
  method: string
  path: string
  doc: OperationDoc
}

type Media = Record<string, { schema: JsonSchema }>
export interface Response {
  description: string
  content?: Media
}

const TEXT: Media = { 'text/plain': { schema: { type: 'string' } } }
const mib = (n: number) => `${n / 1024 / 1024} MiB`

/** A shared answer: its description and whether it has a body in the area's error envelope or text. */
interface Shared {
  description: string
  body: 'envelope' | 'text' | 'none'
}

/** The auth service's admin API (mock/admin/framework/auth.ts, mock/mas-http/body.ts, mock/mas-http/ulid.ts pathId). */
function adminShared(s: Shape): Record<string, Shared[]> {
  const out: Record<string, Shared[]> = {}
  const add = (status: string, a: Shared) => (out[status] ??= []).push(a)
  add('400', {
    description:
      "The Authorization header is missing ('Missing authorization header') or not a Bearer token ('Invalid authorization header').",
    body: 'envelope',
  })
  if (s.path.includes('{id}'))
    add('400', { description: "The id in the path is not a ULID: 'Invalid ULID in path', then the parser's message.", body: 'envelope' })
  if (s.doc.body)
    add('400', {
      description:
        "The body is not JSON (plain text): 'Failed to parse the request body as JSON: <message> at line L column C', also past 128 levels of nesting ('recursion limit exceeded').",
      body: 'text',
    })
  add('401', {
    description:
      "The token is refused, with one of these titles: 'Invalid type of access token' (malformed, or not an OAuth 2.0 or personal access token; a second title names the cause), 'Unknown access token', 'Access token revoked' (its session is finished or revoked), 'Access token expired', 'User locked' (its user is locked or deactivated), or 'Missing urn:mas:admin scope'. The real service answers a token without the admin scope with this 401, never 403.",
    body: 'envelope',
  })
  add('413', {
    description: `The body is larger than ${mib(LIMITS.mas.body)} (or the mock's --max-body): 'Failed to buffer the request body: length limit exceeded'.`,
    body: 'text',
  })
  add('414', { description: "The query string is longer than 16 KiB: 'URI Too Long'.", body: 'text' })
  add('431', {
    description: `The head has more than ${LIMITS.mas.headers} header fields or more than ${LIMITS.mas.headBytes} bytes (hyper's limits); empty body.`,
    body: 'none',
  })
  return out
}

/** The homeserver (mock/homeserver/framework/auth.ts, mock/site/dispatch.ts). */
function homeserverShared(s: Shape): Record<string, Shared[]> {
  const out: Record<string, Shared[]> = {}
  const add = (status: string, a: Shared) => (out[status] ??= []).push(a)
  add('400', {
    description: `The head (request line with its query, and header fields) has more than ${LIMITS.hs.headers} header fields or more than ${LIMITS.hs.headBytes} bytes: Twisted's bare 400, no body.`,
    body: 'none',
  })
  if (s.doc.body || s.method === 'post' || s.method === 'put') {
    add('400', {
      description: `The body is not JSON or nests deeper than ${LIMITS.hs.jsonDepth} levels: M_NOT_JSON 'Content not JSON.'.`,
      body: 'envelope',
    })
  }
  if (s.doc.security !== 'none') {
    add('401', {
      description:
        "No token: M_MISSING_TOKEN 'Missing access token' (or 'Invalid Authorization header.' for a header that is not 'Bearer <token>', 'Mixing Authorization headers and access_token query parameters.' for both); an unknown token: M_UNKNOWN_TOKEN 'Invalid access token passed.' with soft_logout false.",
      body: 'envelope',
    })
    add('500', {
      description:
        "Only when the homeserver delegates authentication to an auth service (mock --hs-delegate-url): the introspection names an invalid username, M_UNKNOWN 'Invalid username claim in the introspection result', as the real server answers. No other 5xx unless a fault is injected.",
      body: 'envelope',
    })
    add('503', {
      description:
        "Only when delegating (mock --hs-delegate-url): the auth service cannot be reached, M_UNKNOWN 'Unable to introspect the access token'.",
      body: 'envelope',
    })
  }
  if (s.doc.security === 'hs-admin')
    add('403', { description: "The token's user is not a server admin: M_FORBIDDEN 'You are not a server admin'.", body: 'envelope' })
  add('413', {
    description: `The body is larger than ${mib(LIMITS.hs.body)} (or the mock's --max-body): M_TOO_LARGE 'Request content is too large (>LIMIT)', as Synapse answers a Content-Length past its limit (a body that passes it without one makes Synapse drop the connection instead).`,
    body: 'envelope',
  })
  // No 414: a query past 16 KiB makes the head larger than Twisted takes, so the bare 400 comes first.
  return out
}

function mediaOf(r: { ref?: string; text?: boolean }, refIn: (ref: string) => JsonSchema): Media {
  const m: Media = {}
  if (r.ref) m['application/json'] = { schema: refIn(r.ref) }
  if (r.text) Object.assign(m, TEXT)
  return m
}

/** The operation's responses, by status in order: the row's, then the shared answers folded in. */
export function responsesOf(s: Shape, refIn: (ref: string) => JsonSchema): Record<string, Response> {
  const envelope = s.area === 'admin' ? ADMIN_ERROR : HS_ERROR
  const out: Record<string, Response> = {}
  for (const [status, r] of Object.entries(s.doc.responses)) {
    const content = mediaOf(r, refIn)
    out[status] = Object.keys(content).length > 0 ? { description: r.description, content } : { description: r.description }
  }
  const shared = s.area === 'admin' ? (s.doc.security === 'mas-admin' ? adminShared(s) : {}) : homeserverShared(s)
  for (const [status, answers] of Object.entries(shared)) {
    const r = (out[status] ??= { description: '' })
    for (const a of answers) {
      r.description = r.description ? `${r.description} Also: ${a.description}` : a.description
      if (a.body === 'envelope') r.content = { ...r.content, 'application/json': { schema: refIn(envelope) } }
      if (a.body === 'text') r.content = { ...r.content, ...TEXT }
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)))
}

/** The path item's note on methods it lacks (the router's answer, mock/core/answers.ts and the homeserver's hook). */
export function otherMethods(area: Shape['area']): string {
  return area === 'admin'
    ? 'Any other method on this path: 405 with an Allow header and an empty body.'
    : "Any other method on this path: 405 M_UNRECOGNIZED 'Unrecognized request' (from Synapse v1.78.0; before it 400 M_UNRECOGNIZED, before authentication)."
}
