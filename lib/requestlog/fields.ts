// The structured fields of a v1.20 response line: the requester's forms, the GraphQL operation
// type, and the fields this grammar does not know (a newer release may add some), kept verbatim.

import { GRAPHQL_OPERATION_TYPES, KNOWN_FIELDS, REQUESTER_CLIENT, REQUESTER_HOMESERVER, REQUESTER_USER } from './grammar.ts'
import { fail } from './scan-error.ts'

/** Is [v, end) one of GRAPHQL_OPERATION_TYPES? */
export function isOperationType(s: string, v: number, end: number): boolean {
  for (const t of GRAPHQL_OPERATION_TYPES) if (end - v === t.length && s.startsWith(t, v)) return true
  return false
}

/** Validates a requester value at [v, end). */
export function scanRequester(s: string, v: number, end: number): number {
  if (s.startsWith(REQUESTER_USER, v)) {
    const id = v + REQUESTER_USER.length
    if (id === end || s.charCodeAt(id) === 40) return fail('requester', id, 'empty user id')
    const open = s.indexOf('(', id)
    if (open === -1 || open >= end) {
      const close = s.indexOf(')', id)
      if (close !== -1 && close < end) return fail('requester', close, "unbalanced ')' in user requester")
      return 0
    }
    if (s.charCodeAt(end - 1) !== 41) return fail('requester', end - 1, "user requester with '(' must end with ')'")
    if (end - 1 === open + 1) return fail('requester', open + 1, 'empty username in user requester')
    return 0
  }
  if (s.startsWith(REQUESTER_CLIENT, v)) {
    if (end === v + REQUESTER_CLIENT.length) return fail('requester', end, 'empty client id')
    return 0
  }
  if (end - v === REQUESTER_HOMESERVER.length && s.startsWith(REQUESTER_HOMESERVER, v)) return 0
  return fail('requester', v, "expected 'user:<id>', 'user:<id>(<username>)', 'oauth2-client:<id>' or 'homeserver'")
}

/** Collects fields this grammar does not know, from the space before the first of them. */
export function collectExtra(s: string, p: number): Record<string, string> | null {
  const out: Record<string, string> = {}
  const n = s.length
  while (p < n) {
    p++
    const eq = s.indexOf('=', p)
    let end = s.indexOf(' ', p)
    if (end === -1) end = n
    const key = s.slice(p, eq)
    if (!KNOWN_FIELDS.has(key)) {
      if (Object.hasOwn(out, key)) return (fail('fields', p, `duplicate field ${key}`), null)
      out[key] = s.slice(eq + 1, end)
    }
    p = end
  }
  return out
}
