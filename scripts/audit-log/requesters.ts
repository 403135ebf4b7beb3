// Requester keys: how lines are grouped per requester, and what a --requester selector matches.

import { NO_REQUESTER, UNKNOWN_REQUESTER } from './activities.ts'

/**
 * user:<id>(<name>) -> user:<id>; other forms are their own key. Requesters are counted as printed
 * and folded with this at the end (slicing the username off on every line would cost more).
 */
export function requesterKey(printed: string): string {
  if (printed.charCodeAt(printed.length - 1) !== 41 /* ) */ || !printed.startsWith('user:')) return printed
  const open = printed.indexOf('(')
  return open === -1 ? printed : printed.slice(0, open)
}

/** The requester keys a selector matches: the key itself, or for a bare id both the user and the client. */
export function requesterSelector(sel: string): Set<string> {
  const s = sel.trim()
  if (s === NO_REQUESTER || s === '-') return new Set([NO_REQUESTER])
  if (s === UNKNOWN_REQUESTER) return new Set([UNKNOWN_REQUESTER])
  if (s === 'homeserver') return new Set(['homeserver'])
  if (s.startsWith('user:')) {
    const open = s.indexOf('(')
    return new Set([open === -1 ? s : s.slice(0, open)])
  }
  if (s.startsWith('oauth2-client:')) return new Set([s])
  // A bare id matches a user or a client with that id.
  return new Set([`user:${s}`, `oauth2-client:${s}`])
}
