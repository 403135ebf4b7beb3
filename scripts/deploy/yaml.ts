// A tiny YAML emitter for the generated configuration files. Every string is written double-quoted with
// JSON escapes (valid in YAML 1.1 and 1.2 alike), so no value can be misread as a number, a boolean or a
// YAML 1.1 "yes/no/on/off"; keys are plain only when they cannot be misread either.

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/
// YAML 1.1 reads these as booleans or null even as keys.
const AMBIGUOUS = /^(y|n|yes|no|on|off|true|false|null)$/i

function key(k: string): string {
  return PLAIN_KEY.test(k) && !AMBIGUOUS.test(k) ? k : JSON.stringify(k)
}

function scalar(v: unknown): string {
  if (v === null) return 'null'
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`cannot write ${v} to YAML`)
    return String(v)
  }
  throw new TypeError(`cannot write a ${typeof v} to YAML`)
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function entries(o: Record<string, unknown>): [string, unknown][] {
  return Object.entries(o).filter(([, v]) => v !== undefined)
}

function emit(v: unknown, indent: string, out: string[]): void {
  if (Array.isArray(v)) {
    for (const item of v) {
      if (isPlainObject(item) && entries(item).length > 0) {
        // "- " then the mapping's first key on the same line, the rest aligned under it.
        const sub: string[] = []
        emit(item, indent + '  ', sub)
        out.push(indent + '- ' + sub[0]!.slice(indent.length + 2), ...sub.slice(1))
      } else if (Array.isArray(item) && item.length > 0) {
        out.push(indent + '-')
        emit(item, indent + '  ', out)
      } else {
        out.push(indent + '- ' + inline(item))
      }
    }
    return
  }
  if (isPlainObject(v)) {
    for (const [k, val] of entries(v)) {
      if ((isPlainObject(val) && entries(val).length > 0) || (Array.isArray(val) && val.length > 0)) {
        out.push(`${indent}${key(k)}:`)
        emit(val, indent + '  ', out)
      } else {
        out.push(`${indent}${key(k)}: ${inline(val)}`)
      }
    }
    return
  }
  out.push(indent + scalar(v))
}

function inline(v: unknown): string {
  if (Array.isArray(v)) return '[]' // only empty arrays are written inline
  if (isPlainObject(v)) return '{}'
  return scalar(v)
}

/** YAML text of a JSON-like value (objects, arrays, strings, finite numbers, booleans, null). */
export function toYaml(value: unknown, header?: string): string {
  const out: string[] = []
  if (header) for (const line of header.split('\n')) out.push(`# ${line}`.trimEnd())
  if (isPlainObject(value) || Array.isArray(value)) {
    if ((isPlainObject(value) && entries(value).length === 0) || (Array.isArray(value) && value.length === 0)) out.push(inline(value))
    else emit(value, '', out)
  } else out.push(scalar(value))
  return out.join('\n') + '\n'
}
