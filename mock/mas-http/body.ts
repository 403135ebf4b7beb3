// JSON request bodies the way the service's framework reads them (axum's `Json` extractor over
// serde_json and a serde-derived struct), with its plain-text rejections:
// - no or another Content-Type → 415 "Expected request with `Content-Type: application/json`";
// - a syntax error → 400 "Failed to parse the request body as JSON: <serde_json message>";
// - a shape error → 422 "Failed to deserialize the JSON body into the target type: [<field>: ]<message>".
// serde_json messages end with " at line L column C"; the parser below reproduces its wording and
// positions for the usual cases. Unknown fields are ignored; the first missing required field in
// declaration order is reported; nesting deeper than 128 is "recursion limit exceeded".
import type { Ctx, Reply } from '../core/context.ts'
import { text } from '../core/context.ts'
import { rustDebug } from '../store/mas/index.ts'
import { parseUlid } from './ulid.ts'

export type JsonNode =
  | { kind: 'null'; end: number }
  | { kind: 'bool'; value: boolean; end: number }
  | { kind: 'number'; raw: string; end: number }
  | { kind: 'string'; value: string; end: number }
  | { kind: 'array'; items: JsonNode[]; end: number }
  | { kind: 'object'; entries: { key: string; value: JsonNode; keyEnd: number }[]; end: number }

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    /** offset of the offending character, or the input length at EOF */
    readonly offset: number,
    readonly eof: boolean,
  ) {
    super(message)
  }
}

const MAX_DEPTH = 128

/** serde_json's "line L column C" of an offset. */
function position(src: string, offset: number, consumed: boolean): string {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < src.length; i++) {
    if (src.charCodeAt(i) === 10) {
      line++
      lineStart = i + 1
    }
  }
  return `line ${line} column ${consumed ? offset - lineStart : offset - lineStart + 1}`
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }

/** serde_json's parser, as far as its error texts and offsets show: one method per grammar rule. */
class JsonTextParser {
  i = 0
  constructor(private readonly src: string) {}

  ws(): void {
    const { src } = this
    while (this.i < src.length) {
      const c = src.charCodeAt(this.i)
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++
      else break
    }
  }
  err(msg: string): never {
    throw new JsonSyntaxError(msg, this.i, false)
  }
  eof(what: string): never {
    throw new JsonSyntaxError(`EOF while parsing ${what}`, this.src.length, true)
  }
  /** the next character, or the EOF error naming `what` */
  peek(what: string): string {
    if (this.i >= this.src.length) this.eof(what)
    return this.src[this.i]!
  }

  str(): string {
    const { src } = this
    this.i++ // opening quote
    let out = ''
    for (;;) {
      const c = this.peek('a string').charCodeAt(0)
      if (c === 34) {
        this.i++
        return out
      }
      if (c < 0x20) this.err('control character (\\u0000-\\u001F) found while parsing a string')
      if (c !== 92) {
        out += src[this.i++]
        continue
      }
      this.i++
      const e = this.peek('a string')
      if (e in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[e]
        this.i++
      } else if (e === 'u') {
        const hex = src.slice(this.i + 1, this.i + 5)
        if (hex.length < 4) this.eof('a string')
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          this.i += 1 + [...hex].findIndex((h) => !/[0-9a-fA-F]/.test(h))
          this.err('invalid escape')
        }
        out += String.fromCharCode(parseInt(hex, 16))
        this.i += 5
      } else this.err('invalid escape')
    }
  }

  private digit(): boolean {
    const c = this.src.charCodeAt(this.i)
    return c >= 48 && c <= 57
  }
  private digits(): void {
    if (this.i >= this.src.length) this.eof('a value')
    if (!this.digit()) this.err('invalid number')
    while (this.digit()) this.i++
  }

  num(): JsonNode {
    const { src } = this
    const start = this.i
    if (src[this.i] === '-') this.i++
    if (this.i >= src.length) this.eof('a value')
    if (src[this.i] === '0') {
      this.i++
      if (this.digit()) this.err('invalid number')
    } else if (this.digit()) while (this.digit()) this.i++
    else this.err('invalid number')
    if (src[this.i] === '.') {
      this.i++
      this.digits()
    }
    if (src[this.i] === 'e' || src[this.i] === 'E') {
      this.i++
      if (src[this.i] === '+' || src[this.i] === '-') this.i++
      this.digits()
    }
    return { kind: 'number', raw: src.slice(start, this.i), end: this.i }
  }

  ident(word: string, node: JsonNode): JsonNode {
    for (let k = 0; k < word.length; k++) {
      if (this.peek('a value') !== word[k]) this.err(k === 0 ? 'expected value' : 'expected ident')
      this.i++
    }
    return { ...node, end: this.i }
  }

  array(depth: number): JsonNode {
    if (depth >= MAX_DEPTH) this.err('recursion limit exceeded')
    this.i++
    const items: JsonNode[] = []
    this.ws()
    if (this.peek('a list') === ']') {
      this.i++
      return { kind: 'array', items, end: this.i }
    }
    for (;;) {
      items.push(this.value(depth + 1))
      this.ws()
      const c = this.peek('a list')
      if (c === ',') {
        this.i++
        this.ws()
        if (this.src[this.i] === ']') this.err('trailing comma')
        continue
      }
      if (c === ']') {
        this.i++
        return { kind: 'array', items, end: this.i }
      }
      this.err('expected `,` or `]`')
    }
  }

  object(depth: number): JsonNode {
    if (depth >= MAX_DEPTH) this.err('recursion limit exceeded')
    this.i++
    const entries: { key: string; value: JsonNode; keyEnd: number }[] = []
    this.ws()
    if (this.peek('an object') === '}') {
      this.i++
      return { kind: 'object', entries, end: this.i }
    }
    for (;;) {
      this.ws()
      const q = this.peek('an object')
      if (q !== '"') this.err(q === '}' && entries.length > 0 ? 'trailing comma' : 'key must be a string')
      const key = this.str()
      const keyEnd = this.i
      this.ws()
      if (this.peek('an object') !== ':') this.err('expected `:`')
      this.i++
      entries.push({ key, value: this.value(depth + 1), keyEnd })
      this.ws()
      const c = this.peek('an object')
      if (c === ',') {
        this.i++
        continue
      }
      if (c === '}') {
        this.i++
        return { kind: 'object', entries, end: this.i }
      }
      this.err('expected `,` or `}`')
    }
  }

  value(depth: number): JsonNode {
    this.ws()
    const c = this.peek('a value')
    if (c === '"') {
      const v = this.str()
      return { kind: 'string', value: v, end: this.i }
    }
    if (c === '-' || (c >= '0' && c <= '9')) return this.num()
    if (c === 't') return this.ident('true', { kind: 'bool', value: true, end: 0 })
    if (c === 'f') return this.ident('false', { kind: 'bool', value: false, end: 0 })
    if (c === 'n') return this.ident('null', { kind: 'null', end: 0 })
    if (c === '[') return this.array(depth)
    if (c === '{') return this.object(depth)
    return this.err('expected value')
  }
}

export function parseJsonText(src: string): JsonNode {
  const p = new JsonTextParser(src)
  const root = p.value(0)
  p.ws()
  if (p.i < src.length) p.err('trailing characters')
  return root
}

/** serde's description of an unexpected JSON value. */
function unexpected(n: JsonNode): string {
  switch (n.kind) {
    case 'null':
      return 'null'
    case 'bool':
      return `boolean \`${n.value}\``
    case 'number':
      return /[.eE]/.test(n.raw) || !Number.isSafeInteger(Number(n.raw)) ? `floating point \`${floatText(n.raw)}\`` : `integer \`${n.raw}\``
    case 'string':
      return `string ${rustDebug(n.value)}`
    case 'array':
      return 'sequence'
    case 'object':
      return 'map'
  }
}

function floatText(raw: string): string {
  const f = Number(raw)
  return Number.isInteger(f) && Math.abs(f) < 1e16 ? `${f}.0` : String(f)
}

/** Plain JSON value of a node (for free-form fields). */
export function toValue(n: JsonNode): unknown {
  switch (n.kind) {
    case 'null':
      return null
    case 'bool':
      return n.value
    case 'number':
      return Number(n.raw)
    case 'string':
      return n.value
    case 'array':
      return n.items.map(toValue)
    case 'object': {
      // the last duplicate wins, as with serde_json::Value
      const o: Record<string, unknown> = {}
      for (const e of n.entries)
        Object.defineProperty(o, e.key, { value: toValue(e.value), enumerable: true, writable: true, configurable: true })
      return o
    }
  }
}

/**
 * A field's Rust type as serde reads it: `T` is required and rejects null; `T?` is `Option<T>` (missing or
 * null is None); `T=` is `#[serde(default)] T` (missing is the default, null is refused as any other
 * wrong type: "invalid type: null, expected a boolean").
 */
export type FieldType = 'string' | 'string?' | 'ulid' | 'u32?' | 'bool' | 'bool?' | 'bool=' | 'any'

export interface StructSpec {
  /** the struct's serde name, used in "expected struct X" */
  name: string
  /** fields in declaration order */
  fields: readonly (readonly [string, FieldType])[]
}

/** Checks one field's value; the error is serde's message without the position. */
function fieldValue(t: FieldType, n: JsonNode): { ok: true; value: unknown } | { ok: false; error: string } {
  const wrong = (expected: string) => ({ ok: false as const, error: `invalid type: ${unexpected(n)}, expected ${expected}` })
  if ((t === 'u32?' || t === 'bool?' || t === 'string?') && n.kind === 'null') return { ok: true, value: null }
  switch (t) {
    case 'any':
      return { ok: true, value: toValue(n) }
    case 'string':
    case 'string?':
      return n.kind === 'string' ? { ok: true, value: n.value } : wrong('a string')
    case 'ulid': {
      if (n.kind !== 'string') return wrong('a string')
      const u = parseUlid(n.value)
      return u.ok ? { ok: true, value: u.value } : { ok: false, error: u.error }
    }
    case 'bool':
    case 'bool?':
    case 'bool=':
      return n.kind === 'bool' ? { ok: true, value: n.value } : wrong('a boolean')
    case 'u32?': {
      if (n.kind !== 'number' || /[.eE]/.test(n.raw)) return wrong('u32')
      const big = BigInt(n.raw)
      if (big < 0n || big > 4294967295n) return { ok: false, error: `invalid value: integer \`${n.raw}\`, expected u32` }
      return { ok: true, value: Number(big) }
    }
  }
}

export type BodyResult = { ok: true; value: Record<string, unknown> } | { ok: false; reply: Reply }

/** axum's `json_content_type`: application/json or application/*+json, parameters allowed. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false
  const mime = header.split(';')[0]!.trim().toLowerCase()
  const m = /^application\/([^/\s]+)$/.exec(mime)
  return m !== null && (m[1] === 'json' || m[1]!.endsWith('+json'))
}

/** Reads the request body into a struct, or the framework's plain-text rejection. */
export function readJsonBody(ctx: Ctx, spec: StructSpec): BodyResult {
  const ct = ctx.headers['content-type']
  if (!isJsonContentType(ct)) return { ok: false, reply: text(415, 'Expected request with `Content-Type: application/json`') }
  const src = ctx.body.toString('utf8')
  let root: JsonNode
  try {
    root = parseJsonText(src)
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e
    return { ok: false, reply: text(400, `Failed to parse the request body as JSON: ${e.message} at ${position(src, e.offset, e.eof)}`) }
  }
  const data = (msg: string, end: number): BodyResult => ({
    ok: false,
    reply: text(422, `Failed to deserialize the JSON body into the target type: ${msg} at ${position(src, end, true)}`),
  })
  if (root.kind !== 'object') return data(`invalid type: ${unexpected(root)}, expected struct ${spec.name}`, root.end)
  const value: Record<string, unknown> = {}
  const seen = new Set<string>()
  for (const e of root.entries) {
    const field = spec.fields.find(([name]) => name === e.key)
    if (!field) continue
    if (seen.has(e.key)) return data(`duplicate field \`${e.key}\``, e.keyEnd)
    seen.add(e.key)
    const r = fieldValue(field[1], e.value)
    if (!r.ok) return data(`${e.key}: ${r.error}`, e.value.end)
    value[e.key] = r.value
  }
  for (const [name, t] of spec.fields) {
    if (seen.has(name)) continue
    if (t === 'string' || t === 'ulid' || t === 'any' || t === 'bool') return data(`missing field \`${name}\``, root.end)
    value[name] = t === 'bool=' ? false : null
  }
  return { ok: true, value }
}
