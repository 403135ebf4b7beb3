// The `requester=` field: user:<id>(<username>) | user:<id> | oauth2-client:<id> | homeserver.

import type { Requester } from './types.ts'

export function formatRequester(r: Requester): string {
  switch (r.kind) {
    case 'user':
      return r.username === undefined ? `user:${r.id}` : `user:${r.id}(${r.username})`
    case 'oauth2-client':
      return `oauth2-client:${r.id}`
    case 'homeserver':
      return 'homeserver'
  }
}

/** Parses a requester value as printed; throws a RangeError naming the problem for anything else. */
export function parseRequester(s: string): Requester {
  const r = requesterOrError(s)
  if (typeof r === 'string') throw new RangeError(`bad requester ${JSON.stringify(s)}: ${r}`)
  return r
}

/** The requester, or a message saying what is wrong with `s`. */
export function requesterOrError(s: string): Requester | string {
  if (s === 'homeserver') return { kind: 'homeserver' }
  if (s.startsWith('user:')) {
    const open = s.indexOf('(', 5)
    if (open === -1) {
      if (s.length === 5) return 'empty user id'
      if (s.indexOf(')', 5) !== -1) return "unbalanced ')' in user requester"
      return { kind: 'user', id: s.slice(5) }
    }
    if (open === 5) return 'empty user id'
    if (s.charCodeAt(s.length - 1) !== 41 /* ) */) return "user requester with '(' must end with ')'"
    const username = s.slice(open + 1, s.length - 1)
    if (username.length === 0) return 'empty username in user requester'
    return { kind: 'user', id: s.slice(5, open), username }
  }
  if (s.startsWith('oauth2-client:')) {
    if (s.length === 14) return 'empty client id'
    return { kind: 'oauth2-client', id: s.slice(14) }
  }
  return "expected 'user:<id>', 'user:<id>(<username>)', 'oauth2-client:<id>' or 'homeserver'"
}
