// What the snapshot needs from the schemas (schemas/, read as data): the query parameters of a listing
// with the kind of value each takes, and the field names whose values cannot be compared across runs
// (format date-time, ULIDs). Reading the schemas, not a list of names, keeps new families and new
// filters covered without a change here.
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { SCHEMA_DIR, type JsonSchema } from '../../lib/schema-registry.ts'

export type ParamKind =
  | { kind: 'integer' }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'ulid' }
  | { kind: 'date-time' }
  | { kind: 'string' }
  | { kind: 'array'; items: ParamKind }

export interface QueryParam {
  name: string
  kind: ParamKind
  /** inherited from a shared pagination schema (allOf), or a pagination name of the homeserver */
  paging: boolean
}

const files = new Map<string, JsonSchema>()

function load(file: string): JsonSchema {
  let doc = files.get(file)
  if (!doc) {
    doc = JSON.parse(readFileSync(path.join(SCHEMA_DIR, file), 'utf8')) as JsonSchema
    files.set(file, doc)
  }
  return doc
}

function pointer(doc: JsonSchema, ptr: string): JsonSchema {
  let cur: unknown = doc
  for (const part of ptr.split('/').filter(Boolean)) cur = (cur as Record<string, unknown>)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
  if (!cur || typeof cur !== 'object') throw new Error(`schema pointer ${ptr} not found`)
  return cur as JsonSchema
}

interface At {
  schema: JsonSchema
  file: string
  /** the last $ref followed (its pointer tells a ULID) */
  ref?: string
}

function deref(at: At): At {
  let cur = at
  for (let i = 0; i < 10 && typeof cur.schema.$ref === 'string'; i++) {
    const ref = cur.schema.$ref as string
    const [filepart, ptr = ''] = ref.split('#')
    const file = filepart ? path.posix.join(path.posix.dirname(cur.file), filepart) : cur.file
    cur = { schema: pointer(load(file), ptr), file, ref }
  }
  return cur
}

const ULID_PATTERN = '^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{26}$'

function kindOf(at: At): ParamKind {
  const r = deref(at)
  const s = r.schema
  if (r.ref?.endsWith('/ULID') || s.pattern === ULID_PATTERN) return { kind: 'ulid' }
  if (Array.isArray(s.enum)) return { kind: 'enum', values: s.enum.map(String) }
  // a nullable value (anyOf/oneOf with null, or type [x, 'null']) takes the kind of its other branch
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = (Array.isArray(s[key]) ? s[key] : []) as JsonSchema[]
    const other = branches.filter((b) => b.type !== 'null')
    if (other.length === 1) return kindOf({ schema: other[0]!, file: r.file })
  }
  if (Array.isArray(s.type)) {
    const other = (s.type as string[]).filter((t) => t !== 'null')
    if (other.length === 1) return kindOf({ schema: { ...s, type: other[0] }, file: r.file })
  }
  if (s.type === 'integer' || s.type === 'number') return { kind: 'integer' }
  if (s.type === 'boolean') return { kind: 'boolean' }
  if (s.type === 'array' && s.items && typeof s.items === 'object')
    return { kind: 'array', items: kindOf({ schema: s.items as JsonSchema, file: r.file }) }
  if (s.format === 'date-time') return { kind: 'date-time' }
  return { kind: 'string' }
}

/** The homeserver's pagination parameters (its listings have no shared pagination schema). */
const HS_PAGING = new Set(['from', 'limit', 'dir'])

/** The query parameters of `ref` ('admin/compat-session#ListQuery'), own properties after inherited ones. */
export function queryParams(ref: string): QueryParam[] {
  const [name, def] = ref.split('#')
  const file = `${name}.json`
  const root = pointer(load(file), `/$defs/${def}`)
  const out: QueryParam[] = []
  const add = (schema: JsonSchema, f: string, paging: boolean) => {
    for (const [p, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      out.push({ name: p, kind: kindOf({ schema: sub, file: f }), paging: paging || HS_PAGING.has(p) })
    }
  }
  for (const part of (root.allOf ?? []) as JsonSchema[]) {
    const r = deref({ schema: part, file })
    add(r.schema, r.file, true)
  }
  add(root, file, false)
  return out
}

export interface FieldRule {
  placeholder: string
  /** why the field's value is not compared: the schema fact or the known name */
  why: string
}

const fieldRules = new Map<string, Record<string, FieldRule>>()

/** The schema folder of each API the snapshot reads: the auth service's admin API, the homeserver's. */
export const SCHEMA_FOLDERS = { mas: 'admin', hs: 'homeserver' } as const

/** Field names whose values the API's schemas mark as ids or timestamps (format date-time, a ULID). */
export function schemaFieldRules(api: keyof typeof SCHEMA_FOLDERS): Record<string, FieldRule> {
  const known = fieldRules.get(api)
  if (known) return known
  const out: Record<string, FieldRule> = {}
  const walk = (node: unknown, file: string, depth: number): void => {
    if (!node || typeof node !== 'object' || depth > 40) return
    if (Array.isArray(node)) return node.forEach((n) => walk(n, file, depth + 1))
    const o = node as JsonSchema
    if (o.properties && typeof o.properties === 'object') {
      for (const [name, sub] of Object.entries(o.properties as Record<string, JsonSchema>)) {
        if (name.includes('[')) continue
        let k: ParamKind
        try {
          k = kindOf({ schema: sub, file })
        } catch {
          continue
        }
        const direct = k.kind === 'array' ? k.items : k
        if (direct.kind === 'date-time' && !out[name])
          out[name] = { placeholder: '<date-time>', why: `format date-time in schemas/${file}` }
        if (direct.kind === 'ulid' && !out[name]) out[name] = { placeholder: '<ulid>', why: `a ULID in schemas/${file}` }
      }
    }
    for (const v of Object.values(o)) walk(v, file, depth + 1)
  }
  const dir = SCHEMA_FOLDERS[api]
  for (const f of readdirSync(path.join(SCHEMA_DIR, dir))
    .filter((n) => n.endsWith('.json'))
    .sort())
    walk(load(`${dir}/${f}`), `${dir}/${f}`, 0)
  fieldRules.set(api, out)
  return out
}

const mapFields = new Map<string, Map<string, string>>()

/**
 * The fields whose schema is a map or free-form (an object with no properties of its own: an event's
 * content, hashes and signatures, the background updates by database, a policy's data): their
 * keys are data, not shape. Each as the path suffix that names it (`.content`; `.attributes.data` where
 * the name alone also names a field that is not a map) and the schema file that says so.
 */
export function schemaMapFields(api: keyof typeof SCHEMA_FOLDERS): Map<string, string> {
  const known = mapFields.get(api)
  if (known) return known
  const maps: { name: string; parent: string | undefined; file: string }[] = []
  const notMaps = new Set<string>()
  const walk = (node: unknown, file: string, depth: number, parent: string | undefined): void => {
    if (!node || typeof node !== 'object' || depth > 40) return
    if (Array.isArray(node)) return node.forEach((n) => walk(n, file, depth + 1, parent))
    const o = node as JsonSchema
    if (o.properties && typeof o.properties === 'object') {
      for (const [name, sub] of Object.entries(o.properties as Record<string, JsonSchema>)) {
        let s: JsonSchema
        try {
          s = deref({ schema: sub, file }).schema
        } catch {
          continue
        }
        if (s.type === 'object' && s.additionalProperties !== false && !s.properties) maps.push({ name, parent, file })
        else notMaps.add(name)
        walk(sub, file, depth + 1, name)
      }
    }
    for (const [k, v] of Object.entries(o)) if (k !== 'properties') walk(v, file, depth + 1, parent)
  }
  const dir = SCHEMA_FOLDERS[api]
  for (const f of readdirSync(path.join(SCHEMA_DIR, dir))
    .filter((n) => n.endsWith('.json'))
    .sort())
    walk(load(`${dir}/${f}`), `${dir}/${f}`, 0, undefined)
  const out = new Map<string, string>()
  for (const m of maps) {
    const suffix = notMaps.has(m.name) ? (m.parent ? `.${m.parent}.${m.name}` : undefined) : `.${m.name}`
    if (suffix && !out.has(suffix)) out.set(suffix, `schemas/${m.file}`)
  }
  mapFields.set(api, out)
  return out
}
