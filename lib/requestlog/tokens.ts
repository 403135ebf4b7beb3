// Small character-level tests shared by the formatter and the scanners.

import { MAX_DIGITS, RE_TRACE_ID } from './grammar.ts'

const TRACE_ID_RE = new RegExp(`^${RE_TRACE_ID}$`)

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

export function isTraceId(s: string): boolean {
  return TRACE_ID_RE.test(s)
}

/** `<tag>-<digits>` where the tag is non-empty and has no spaces. */
export function isContextToken(s: string, from: number, to: number): boolean {
  const dash = s.lastIndexOf('-', to - 1)
  if (dash <= from || dash >= to - 1) return false
  for (let i = dash + 1; i < to; i++) if (!isDigit(s.charCodeAt(i))) return false
  for (let i = from; i < dash; i++) {
    const c = s.charCodeAt(i)
    if (c <= 32 || c === 34) return false
  }
  return true
}

/** Digits at [p, to) as a safe integer, or -1. */
export function parseUint(s: string, p: number, to: number): number {
  if (p >= to || to - p > MAX_DIGITS) return -1
  let v = 0
  for (let i = p; i < to; i++) {
    const d = s.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v <= Number.MAX_SAFE_INTEGER ? v : -1
}

export function num2(s: string, p: number): number {
  return (s.charCodeAt(p) - 48) * 10 + (s.charCodeAt(p + 1) - 48)
}
