// Parsing with the real homeserver's semantics: Python `int()`, its query-parameter helpers
// (`parse_integer`, `parse_string`, `parse_enum`) and its JSON body rules, with their exact messages.
import { hsError, type Reply } from '../../core/context.ts'

const ASCII_SPACE = ' \t\n\r\v\f'
/** str.isspace() of Python, for int() on text */
const UNICODE_SPACE = new Set([
  ...ASCII_SPACE,
  '\x1c',
  '\x1d',
  '\x1e',
  '\x1f',
  '\x85',
  '\xa0',
  '\u1680',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
])
for (let c = 0x2000; c <= 0x200a; c++) UNICODE_SPACE.add(String.fromCharCode(c))

const DIGIT = /\p{Nd}/u

/** Value of a Unicode decimal digit: digits come in runs of whole tens, each starting at a zero. */
function digitValue(ch: string): number {
  const cp = ch.codePointAt(0)!
  if (cp >= 48 && cp <= 57) return cp - 48
  let k = 0
  while (k < 100 && DIGIT.test(String.fromCodePoint(cp - k - 1))) k++
  return k % 10
}

/**
 * Python's `int(text)` for base 10: surrounding whitespace, an optional sign, digits with single
 * underscores between them. `bytes` mode is `int(b"...")`: ASCII only. Null where Python raises ValueError.
 */
export function pythonBigInt(text: string, mode: 'bytes' | 'str'): bigint | null {
  const chars = [...text]
  const space = (c: string) => (mode === 'bytes' ? ASCII_SPACE.includes(c) : UNICODE_SPACE.has(c))
  let i = 0
  let j = chars.length
  while (i < j && space(chars[i]!)) i++
  while (j > i && space(chars[j - 1]!)) j--
  let negative = false
  if (chars[i] === '+' || chars[i] === '-') negative = chars[i++] === '-'
  if (i >= j) return null
  let value = 0n
  let prevDigit = false
  for (let k = i; k < j; k++) {
    const c = chars[k]!
    if (c === '_') {
      if (!prevDigit || k === j - 1) return null
      prevDigit = false
      continue
    }
    const isDigit = mode === 'bytes' ? c >= '0' && c <= '9' : DIGIT.test(c)
    if (!isDigit) return null
    value = value * 10n + BigInt(digitValue(c))
    prevDigit = true
  }
  return negative ? -value : value
}

/** pythonBigInt as a number: beyond 2^53 the exact value no longer matters (a huge offset or limit). */
export function pythonInt(text: string, mode: 'bytes' | 'str'): number | null {
  const v = pythonBigInt(text, mode)
  return v === null ? null : Number(v)
}

/** The largest integer SQLite (and PostgreSQL's BIGINT) can bind; the real server fails with 500 beyond it. */
export const MAX_SQL_INTEGER = 2n ** 63n - 1n

/** A query integer past what SQL can bind (the value parsed as the servlet parses it). */
export function beyondSql(raw: string | null): boolean {
  if (raw === null) return false
  const v = pythonBigInt(raw, 'bytes')
  return v !== null && v > MAX_SQL_INTEGER
}

const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s)

export type Parsed<T> = { ok: true; value: T } | { ok: false; reply: Reply }

export interface IntegerRules {
  /** negative numbers pass: before v1.106.0 the parser let them through (the servlets checked them) */
  negative?: boolean
  /** the name quoted in the message, as before v1.106.0 */
  quoted?: boolean
}

/** `parse_integer(request, name, default)` with the messages of the claimed release. */
export function parseInteger(query: URLSearchParams, name: string, dflt: number, rules: IntegerRules = {}): Parsed<number> {
  const raw = query.get(name)
  if (raw === null) return { ok: true, value: dflt }
  // int() of the raw bytes: anything non-ASCII fails like a non-number.
  const v = isAscii(raw) ? pythonInt(raw, 'bytes') : null
  if (v === null)
    return { ok: false, reply: hsError(400, 'M_INVALID_PARAM', `Query parameter ${rules.quoted ? `'${name}'` : name} must be an integer`) }
  if (!rules.negative && v < 0)
    return { ok: false, reply: hsError(400, 'M_INVALID_PARAM', `Query parameter ${name} must be a positive integer.`) }
  return { ok: true, value: v }
}

/** `parse_string(request, name, allowed_values=...)`: first value, ASCII only. */
export function parseString(query: URLSearchParams, name: string, allowed?: readonly string[]): Parsed<string | undefined> {
  const raw = query.get(name)
  if (raw === null) return { ok: true, value: undefined }
  if (!isAscii(raw)) return { ok: false, reply: hsError(400, 'M_UNKNOWN', `Query parameter '${name}' must be ascii`) }
  if (allowed && !allowed.includes(raw)) {
    return {
      ok: false,
      reply: hsError(400, 'M_INVALID_PARAM', `Query parameter '${name}' must be one of [${allowed.map((a) => `'${a}'`).join(', ')}]`),
    }
  }
  return { ok: true, value: raw }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** `parse_json_object_from_request`: 400 M_NOT_JSON for anything that is not JSON, M_BAD_JSON for a non-object. */
export function parseJsonObject(body: Buffer, allowEmpty = false): Parsed<{ value: Record<string, unknown>; text: string }> {
  if (body.length === 0 && allowEmpty) return { ok: true, value: { value: {}, text: '{}' } }
  let text: string
  let value: unknown
  try {
    text = utf8.decode(body)
    value = JSON.parse(text)
  } catch {
    return { ok: false, reply: hsError(400, 'M_NOT_JSON', 'Content not JSON.') }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reply: hsError(400, 'M_BAD_JSON', 'Content must be a JSON object.') }
  }
  return { ok: true, value: { value: value as Record<string, unknown>, text } }
}

/**
 * The raw text of a top-level member of a JSON object text (the last one when repeated, as
 * JSON.parse keeps), so that `1` and `1.0` can be told apart like Python's json does.
 * The text must already have parsed as a JSON object.
 */
export function rawMember(text: string, key: string): string | undefined {
  let i = 0
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const skipString = () => {
    i++ // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
    i++
  }
  const skipValue = () => {
    const c = text[i]
    if (c === '"') return skipString()
    if (c === '{' || c === '[') {
      let depth = 0
      while (i < text.length) {
        const d = text[i]!
        if (d === '"') {
          skipString()
          continue
        }
        if (d === '{' || d === '[') depth++
        else if (d === '}' || d === ']') depth--
        i++
        if (depth === 0) return
      }
      return
    }
    while (i < text.length && !',}] \t\n\r'.includes(text[i]!)) i++
  }
  let found: string | undefined
  ws()
  i++ // '{'
  for (;;) {
    ws()
    if (i >= text.length || text[i] === '}') break
    const keyStart = i
    skipString()
    const k = JSON.parse(text.slice(keyStart, i)) as string
    ws()
    i++ // ':'
    ws()
    const valueStart = i
    skipValue()
    if (k === key) found = text.slice(valueStart, i)
    ws()
    if (text[i] === ',') i++
  }
  return found
}

/** Python `type(v) is int` for a member of a JSON body: a number literal without fraction or exponent. */
export function isJsonInteger(text: string, key: string): boolean {
  const raw = rawMember(text, key)
  return raw !== undefined && /^-?(0|[1-9][0-9]*)$/.test(raw)
}
