// How the auth service reads query strings: a struct deserialised from the form-encoded pairs
// (serde_html_form behind axum-extra's Query), with serde_path_to_error messages. Facts it copies:
// - pairs are grouped by key in order of first appearance; fields are read in that order and the
//   first bad one is the error;
// - an empty value counts as absent for an optional field; unknown keys are ignored;
// - a repeated key on a single-valued field is an error ("unsupported value");
// - a list field takes every value, and its errors name the index (`filter[client][0]: …`);
// - ULIDs accept lower case, reject I, L, O, U, and silently drop the two bits above 128;
// - numbers are Rust's u64 parse; dates are chrono's relaxed RFC 3339 parse.
import { encodeTime } from 'ulidx'
import { parseUlid } from '../../mas-http/ulid.ts'

export type FieldKind =
  | { kind: 'ulid' }
  | { kind: 'ulid[]' }
  | { kind: 'string[]' }
  | { kind: 'nonzero' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'datetime' }
  | { kind: 'bool' }

/** A parsed date: microseconds since the epoch (UTC). */
export interface DateValue {
  micros: number
}

export type FieldValue = string | string[] | DateValue | boolean | { digits: string; value: number }

export type StructResult<K extends string> = { ok: true; values: Partial<Record<K, FieldValue>> } | { ok: false; message: string }

/** ULID of the smallest and largest id at a millisecond (storage's min_ulid_at / max_ulid_at). */
export function minUlidAt(ms: number): string {
  return encodeTime(Math.max(0, ms), 10) + '0'.repeat(16)
}
export function maxUlidAt(ms: number): string {
  return encodeTime(Math.max(0, ms), 10) + 'Z'.repeat(16)
}

function parseU64(s: string): { ok: true; digits: string; value: number } | { ok: false; error: string } {
  // Rust's u64::from_str: optional '+', then ASCII digits only.
  const body = s.startsWith('+') ? s.slice(1) : s
  if (body === '') return { ok: false, error: s === '' ? 'cannot parse integer from empty string' : 'invalid digit found in string' }
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    if (c < 48 || c > 57) return { ok: false, error: 'invalid digit found in string' }
  }
  const big = BigInt(body)
  if (big > 18446744073709551615n) return { ok: false, error: 'number too large to fit in target type' }
  return { ok: true, digits: big.toString(), value: big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big) }
}

function enumError(value: string, values: readonly string[]): string {
  const quoted = values.map((v) => `\`${v}\``)
  const expected = quoted.length === 1 ? quoted[0] : quoted.length === 2 ? `${quoted[0]} or ${quoted[1]}` : `one of ${quoted.join(', ')}`
  return `unknown variant \`${value}\`, expected ${expected}`
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

type DateResult = { ok: true; value: DateValue } | { ok: false; error: string }
type Step = number | 'ok' | 'short' | 'bad'
const TOO_SHORT = { ok: false as const, error: 'premature end of input' }
const INVALID = { ok: false as const, error: 'input contains invalid characters' }
const OUT = { ok: false as const, error: 'input is out of range' }

/** A cursor over the text with chrono's two failure kinds: too short, or a wrong character. */
class DateScanner {
  i = 0
  constructor(readonly s: string) {}
  digits(n: number): number | 'short' | 'bad' {
    let v = 0
    for (let k = 0; k < n; k++) {
      if (this.i >= this.s.length) return 'short'
      const c = this.s.charCodeAt(this.i)
      if (c < 48 || c > 57) return 'bad'
      v = v * 10 + (c - 48)
      this.i++
    }
    return v
  }
  lit(chars: string): 'ok' | 'short' | 'bad' {
    if (this.i >= this.s.length) return 'short'
    if (!chars.includes(this.s[this.i]!)) return 'bad'
    this.i++
    return 'ok'
  }
  atDigit(): boolean {
    const c = this.s.charCodeAt(this.i)
    return c >= 48 && c <= 57
  }
}

const failed = (r: Step): typeof TOO_SHORT | typeof INVALID | undefined => (r === 'short' ? TOO_SHORT : r === 'bad' ? INVALID : undefined)

/** `.123456789`: nanoseconds (0 without a fraction), or the failure. */
function fraction(sc: DateScanner): number | typeof TOO_SHORT | typeof INVALID {
  if (sc.s[sc.i] !== '.') return 0
  sc.i++
  let nanos = 0
  let n = 0
  let scale = 100_000_000
  while (sc.atDigit()) {
    nanos += (sc.s.charCodeAt(sc.i) - 48) * scale
    scale = Math.floor(scale / 10)
    sc.i++
    n++
  }
  if (n === 0) return sc.i >= sc.s.length ? TOO_SHORT : INVALID
  return nanos
}

/** `Z`/`z` or `±HH[[:]MM]`: the offset in minutes, or the failure. */
function offset(sc: DateScanner): number | { ok: false; error: string } {
  const c = sc.s[sc.i]
  if (c === 'Z' || c === 'z') {
    sc.i++
    return 0
  }
  if (c !== '+' && c !== '-') return INVALID
  const sign = c === '-' ? -1 : 1
  sc.i++
  const h = sc.digits(2)
  if (typeof h !== 'number') return failed(h)!
  let m = 0
  if (sc.s[sc.i] === ':' || sc.atDigit()) {
    if (sc.s[sc.i] === ':') sc.i++
    const mm = sc.digits(2)
    if (typeof mm !== 'number') return failed(mm)!
    m = mm
  }
  if (h > 23 || m > 59) return OUT
  return sign * (h * 60 + m)
}

/** The fields as an instant, or out of range; a leap second (:60) overflows into the next, as chrono does. */
function instant(fields: number[], nanos: number, offsetMinutes: number): DateResult {
  const [year, month, day, hour, minute, second] = fields as [number, number, number, number, number, number]
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
  if (month < 1 || month > 12) return OUT
  const dim = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!
  if (day < 1 || day > dim || hour > 23 || minute > 59 || second > 60) return OUT
  // setUTCFullYear, not Date.UTC: the latter maps years 0-99 to 1900-1999.
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  d.setUTCHours(hour, minute, Math.min(second, 59), 0)
  const ms = d.getTime() - offsetMinutes * 60_000
  const micros = ms * 1000 + (second === 60 ? 1_000_000 : 0) + Math.floor(nanos / 1000)
  return { ok: true, value: { micros } }
}

/**
 * chrono's `DateTime<Utc>::from_str` (relaxed RFC 3339): `YYYY-MM-DD`, `T`/`t`/space, `HH:MM:SS`,
 * optional fraction, optional spaces, then `Z`/`z` or `±HH:MM` / `±HHMM` / `±HH`. Errors carry
 * chrono's messages.
 */
export function parseDateTime(s: string): DateResult {
  const sc = new DateScanner(s)
  const fields: number[] = []
  const steps: (() => Step)[] = [
    () => sc.digits(4),
    () => sc.lit('-'),
    () => sc.digits(2),
    () => sc.lit('-'),
    () => sc.digits(2),
    () => sc.lit('Tt '),
    () => sc.digits(2),
    () => sc.lit(':'),
    () => sc.digits(2),
    () => sc.lit(':'),
    () => sc.digits(2),
  ]
  for (const step of steps) {
    const r = step()
    const bad = failed(r)
    if (bad) return bad
    if (typeof r === 'number') fields.push(r)
  }
  const nanos = fraction(sc)
  if (typeof nanos !== 'number') return nanos
  while (s[sc.i] === ' ') sc.i++
  if (sc.i >= s.length) return TOO_SHORT
  const minutes = offset(sc)
  if (typeof minutes !== 'number') return minutes
  if (s.slice(sc.i).trim() !== '') return { ok: false, error: 'trailing input' }
  return instant(fields, nanos, minutes)
}

/** chrono's `%Y-%m-%dT%H:%M:%SZ` of a date: whole seconds, UTC. */
export function formatDateFilter(v: DateValue): string {
  return new Date(Math.floor(v.micros / 1_000_000) * 1000).toISOString().slice(0, 19) + 'Z'
}

const grouped = new WeakMap<URLSearchParams, Map<string, string[]>>()

/** Groups the pairs by key in order of first appearance (once per request: pagination and filters share it). */
export function groupPairs(query: URLSearchParams): Map<string, string[]> {
  const cached = grouped.get(query)
  if (cached) return cached
  const groups = new Map<string, string[]>()
  for (const [k, v] of query) {
    const g = groups.get(k)
    if (g) g.push(v)
    else groups.set(k, [v])
  }
  grouped.set(query, groups)
  return groups
}

/** Deserialises the declared fields from the grouped pairs; the message is `<path>: <error>`. */
export function parseStruct<K extends string>(groups: Map<string, string[]>, fields: Record<K, FieldKind>): StructResult<K> {
  const values: Partial<Record<K, FieldValue>> = {}
  for (const [key, raw] of groups) {
    if (!Object.hasOwn(fields, key)) continue
    const k = key as K
    const f = fields[k]
    if (f.kind === 'ulid[]' || f.kind === 'string[]') {
      const out: string[] = []
      for (let n = 0; n < raw.length; n++) {
        const v = raw[n]!
        if (f.kind === 'string[]') out.push(v)
        else {
          const u = parseUlid(v)
          if (!u.ok) return { ok: false, message: `${key}[${n}]: ${u.error}` }
          out.push(u.value)
        }
      }
      values[k] = out
      continue
    }
    if (raw.length > 1) return { ok: false, message: `${key}: unsupported value` }
    const v = raw[0]!
    if (v === '') continue
    switch (f.kind) {
      case 'ulid': {
        const u = parseUlid(v)
        if (!u.ok) return { ok: false, message: `${key}: ${u.error}` }
        values[k] = u.value
        break
      }
      case 'nonzero': {
        const n = parseU64(v)
        if (!n.ok) return { ok: false, message: `${key}: ${n.error}` }
        if (n.value === 0) return { ok: false, message: `${key}: invalid value: integer \`0\`, expected a nonzero usize` }
        values[k] = { digits: n.digits, value: n.value }
        break
      }
      case 'enum':
        if (!f.values.includes(v)) return { ok: false, message: `${key}: ${enumError(v, f.values)}` }
        values[k] = v
        break
      case 'datetime': {
        const d = parseDateTime(v)
        if (!d.ok) return { ok: false, message: `${key}: ${d.error}` }
        values[k] = d.value
        break
      }
      case 'bool':
        if (v !== 'true' && v !== 'false') return { ok: false, message: `${key}: provided string was not \`true\` or \`false\`` }
        values[k] = v === 'true'
        break
    }
  }
  return { ok: true, values }
}

/** The titles of a query rejection: the handler's title, then the rejection's source chain. */
export function rejectionTitles(title: string, message: string): string[] {
  return [title, `Failed to deserialize query string: ${message}`, message, message]
}
