// JSON helpers of the core that cannot fail on deep input: a nesting-depth scan of raw bytes (to bound
// what is accepted at parse time) and a serialiser that falls back to an explicit stack where
// JSON.stringify overflows the call stack (about 4,000 levels in node 20).

/** Does the JSON text nest deeper than `limit` (arrays and objects, strings skipped)? Invalid JSON is left to the parser. */
export function nestsDeeperThan(body: Buffer, limit: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (inString) {
      if (c === 0x5c /* \ */) i++
      else if (c === 0x22 /* " */) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--
  }
  return false
}

type Frame = ({ kind: 'array'; items: unknown[] } | { kind: 'object'; entries: [string, unknown][] }) & {
  ref: object
  at: number
  written: number
}

/** What JSON.stringify would write for a leaf (undefined: nothing), after toJSON. */
function leaf(value: unknown): string | undefined | null {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null'
    case 'boolean':
      return String(value)
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt')
    default:
      return value === null ? 'null' : null // null: a container
  }
}

function prepared(value: unknown, key: string): unknown {
  const v = value as { toJSON?: (key: string) => unknown } | null
  return v !== null && typeof v === 'object' && typeof v.toJSON === 'function' ? v.toJSON(key) : value
}

/** JSON.stringify without recursion (no replacer, no indentation); throws on a cycle or a BigInt, like it. */
export function stringifyIteratively(root: unknown): string | undefined {
  const first = prepared(root, '')
  const top = leaf(first)
  if (top !== null) return top
  let out = ''
  const stack: Frame[] = []
  const seen = new Set<object>()
  const open = (v: object) => {
    if (seen.has(v)) throw new TypeError('Converting circular structure to JSON')
    seen.add(v)
    if (Array.isArray(v)) {
      out += '['
      stack.push({ kind: 'array', items: v, ref: v, at: 0, written: 0 })
    } else {
      out += '{'
      stack.push({ kind: 'object', entries: Object.entries(v), ref: v, at: 0, written: 0 })
    }
  }
  open(first as object)
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!
    const length = f.kind === 'array' ? f.items.length : f.entries.length
    if (f.at >= length) {
      out += f.kind === 'array' ? ']' : '}'
      seen.delete(f.ref)
      stack.pop()
      continue
    }
    const index = f.at++
    const key = f.kind === 'array' ? String(index) : f.entries[index]![0]
    const value = prepared(f.kind === 'array' ? f.items[index] : f.entries[index]![1], key)
    const text = leaf(value)
    if (text === undefined && f.kind === 'object') continue // skipped member
    if (f.written++ > 0) out += ','
    if (f.kind === 'object') out += `${JSON.stringify(key)}:`
    if (text === null) open(value as object)
    else out += text ?? 'null' // undefined in an array: null
  }
  return out
}

/** JSON text of a value, or null when it has none (a cycle, a BigInt). Never throws. */
export function safeStringify(value: unknown): string | null {
  try {
    return JSON.stringify(value) ?? null
  } catch (e) {
    if (!(e instanceof RangeError)) return null
  }
  try {
    return stringifyIteratively(value) ?? null
  } catch {
    return null
  }
}
