// Any event line other than a response: its name, target and source line, and its log context.

import { isContextToken, parseUint } from './tokens.ts'
import type { EventLine, Level } from './types.ts'

/** The event of line `s` whose timestamp ends at tsEnd and whose name is [nameStart, nameEnd). */
export function eventLine(s: string, tsEnd: number, level: Level, nameStart: number, nameEnd: number): EventLine {
  const name = s.slice(nameStart, nameEnd)
  const ev: EventLine = { timestamp: s.slice(0, tsEnd), level, name, message: '' }
  const colon = name.lastIndexOf(':')
  if (colon > 0 && colon < name.length - 1 && name.charCodeAt(colon - 1) !== 58 && parseUint(name, colon + 1, name.length) >= 0) {
    ev.target = name.slice(0, colon)
    ev.sourceLine = parseUint(name, colon + 1, name.length)
  } else if (name.includes('::')) {
    ev.target = name
  }
  let p = nameEnd + 1
  if (p >= s.length) return ev
  // The context is there when the next token is <tag>-<n> followed by ' - ' (or ' -' at the end).
  let sp = s.indexOf(' ', p)
  if (sp === -1) sp = s.length
  if (isContextToken(s, p, sp) && s.charCodeAt(sp + 1) === 45 && (sp + 2 === s.length || s.charCodeAt(sp + 2) === 32)) {
    const dash = s.lastIndexOf('-', sp - 1)
    ev.requestId = { method: s.slice(p, dash), counter: parseUint(s, dash + 1, sp) }
    p = Math.min(sp + 3, s.length)
  }
  ev.message = s.slice(p)
  return ev
}
