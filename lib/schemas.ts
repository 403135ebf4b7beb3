// The one place that turns the JSON Schema files under schemas/ into validators.
//
// Every file under schemas/ (any directory, so files of other areas work too) is read once at import,
// registered with a single Ajv 2020-12 instance (strict mode, all errors, ajv-formats), and compiled
// lazily per ref on first use. A ref names a shape as '<file without .json>#<Def>' (a $defs entry,
// e.g. 'admin/compat-session#Page') or '<file without .json>' (the file's root, e.g. 'admin/error').
//
// The same module also bundles the $defs into one flat namespace (OpenAPI components, generated
// TypeScript types), so that naming and $ref rewriting live here once.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type {
  AdminEnvelopeIncludeCount,
  CompatSessionStatus,
  EventReportDirection,
  OAuth2SessionClientKind,
  OAuth2SessionStatus,
  PersonalSessionStatus,
  SchemaRef,
  SchemaTypes,
} from './types.gen.ts'

export type JsonSchema = { [key: string]: unknown }

export interface SchemaError {
  /** JSON pointer of the offending value in the validated data ('' is the root). */
  instancePath: string
  /** '<file>.json#<pointer>' of the schema keyword that failed, e.g. 'admin/common.json#/$defs/ULID/pattern'. */
  schemaPath: string
  message: string
}

export interface ValidationResult {
  valid: boolean
  errors: SchemaError[]
  /** One line: 'valid', or the ref and the failures, each naming the instance path and the schema path. */
  text: string
}

/** Base of the $id given to schema files that do not declare one (ours all declare one under it). */
export const SCHEMA_ID_BASE = 'https://admin-conformance.invalid/schemas/'

export const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url))

interface LoadedFile {
  key: string // 'admin/compat-session'
  file: string // absolute path
  id: string // $id without fragment
  doc: JsonSchema
}

const files = new Map<string, LoadedFile>()
const filesById = new Map<string, LoadedFile>()
const problems: string[] = []

function walk(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) out.push(...walk(full))
    else if (name.endsWith('.json')) out.push(full)
  }
  return out
}

function stripFragment(id: string): string {
  const hash = id.indexOf('#')
  return hash === -1 ? id : id.slice(0, hash)
}

function isPlainObject(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

// Annotation keywords of the form x-* (x-since, x-removed, ...) are allowed by registering them;
// strict mode stays on for everything else, so a typo like "requried" still fails.
function collectExtensionKeywords(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectExtensionKeywords(item, into)
  } else if (isPlainObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k.startsWith('x-')) into.add(k)
      collectExtensionKeywords(v, into)
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

const ajv = new Ajv2020({
  strict: true,
  allErrors: true,
  // ["string","null"] is the natural way to write a nullable field.
  allowUnionTypes: true,
  // Schemas are registered up front and compiled on demand.
  addUsedSchema: false,
  // Errors then carry parentSchema, which locates the failing keyword exactly even across $refs
  // (Ajv's own schemaPath follows the referencing schema when a $ref is inlined).
  verbose: true,
})
addFormatsModule.default(ajv)

const extensionKeywords = new Set<string>()

for (const file of walk(SCHEMA_DIR)) {
  const key = path.relative(SCHEMA_DIR, file).split(path.sep).join('/').replace(/\.json$/, '')
  let doc: unknown
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    problems.push(`${key}.json: not valid JSON: ${(err as Error).message}`)
    continue
  }
  if (!isPlainObject(doc)) {
    problems.push(`${key}.json: the top level is not a JSON object`)
    continue
  }
  // A missing or relative $id is resolved against the file's place under SCHEMA_ID_BASE.
  const fallback = `${SCHEMA_ID_BASE}${key}.json`
  let id: string
  try {
    id = stripFragment(typeof doc.$id === 'string' ? new URL(doc.$id, fallback).href : fallback)
  } catch {
    problems.push(`${key}.json: $id ${JSON.stringify(doc.$id)} is not a valid URI reference`)
    continue
  }
  if (filesById.has(id)) {
    problems.push(`${key}.json: $id ${id} is already used by ${filesById.get(id)?.key}.json`)
    continue
  }
  if (doc.$id !== id) doc = { ...doc, $id: id }
  const loaded: LoadedFile = { key, file, id, doc: doc as JsonSchema }
  files.set(key, loaded)
  filesById.set(id, loaded)
  collectExtensionKeywords(doc, extensionKeywords)
}

for (const keyword of [...extensionKeywords].sort()) ajv.addKeyword({ keyword, schemaType: ['string', 'number', 'boolean', 'object', 'array', 'null'] })

// Where each schema object sits: 'admin/common.json#/$defs/ULID'. Errors are mapped back through it.
const locations = new WeakMap<object, string>()

function indexLocations(node: unknown, where: string): void {
  if (typeof node !== 'object' || node === null || locations.has(node)) return
  locations.set(node, where)
  for (const [k, v] of Object.entries(node)) indexLocations(v, `${where}/${pointerEscape(k)}`)
}

for (const f of [...files.values()]) {
  try {
    ajv.addSchema(f.doc)
    deepFreeze(f.doc)
    indexLocations(f.doc, `${f.key}.json#`)
  } catch (err) {
    problems.push(`${f.key}.json: ${(err as Error).message}`)
    files.delete(f.key)
    filesById.delete(f.id)
  }
}

/** Files that could not be loaded (bad JSON, duplicate $id, not a valid schema). Empty when all is well. */
export function schemaLoadProblems(): readonly string[] {
  return problems
}

/** Keys of all loaded files, e.g. ['admin/common', 'admin/compat-session', ...]. */
export function listSchemaFiles(): string[] {
  return [...files.keys()]
}

const META_KEYS = new Set(['$schema', '$id', '$defs', 'definitions', 'title', 'description', '$comment', 'examples'])

/** True when the file's root is itself a shape (not only a container of $defs). */
function rootIsShape(doc: JsonSchema): boolean {
  return Object.keys(doc).some((k) => !META_KEYS.has(k) && !k.startsWith('x-'))
}

function defsOf(doc: JsonSchema): Record<string, JsonSchema> {
  const defs = doc.$defs
  return isPlainObject(defs) ? (defs as Record<string, JsonSchema>) : {}
}

/** Every ref that names a shape: 'file#Def' for each $defs entry, plus 'file' when the root is a shape. */
export function listSchemaRefs(): string[] {
  const refs: string[] = []
  for (const f of files.values()) {
    if (rootIsShape(f.doc)) refs.push(f.key)
    for (const def of Object.keys(defsOf(f.doc))) refs.push(`${f.key}#${def}`)
  }
  return refs
}

interface ParsedRef {
  ref: string
  file: LoadedFile
  def: string | undefined
}

function parseRef(ref: string): ParsedRef {
  if (typeof ref !== 'string' || ref === '') throw new TypeError('schema ref must be a non-empty string')
  const hash = ref.indexOf('#')
  const key = hash === -1 ? ref : ref.slice(0, hash)
  const def = hash === -1 ? undefined : ref.slice(hash + 1)
  const file = files.get(key.replace(/\.json$/, ''))
  if (!file) {
    throw new Error(`unknown schema file '${key}' in ref '${ref}'; known files: ${listSchemaFiles().join(', ')}`)
  }
  if (def !== undefined) {
    const defs = defsOf(file.doc)
    if (!Object.hasOwn(defs, def)) {
      throw new Error(`schema file '${file.key}' has no $defs entry '${def}' (ref '${ref}'); it has: ${Object.keys(defs).join(', ')}`)
    }
  }
  return { ref, file, def }
}

function pointerEscape(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** The schema JSON a ref names (frozen; do not mutate). */
export function schemaFor(ref: string): JsonSchema {
  const { file, def } = parseRef(ref)
  return def === undefined ? file.doc : (defsOf(file.doc)[def] as JsonSchema)
}

const validators = new Map<string, ValidateFunction>()

function validatorFor(parsed: ParsedRef): ValidateFunction {
  const cacheKey = parsed.def === undefined ? parsed.file.key : `${parsed.file.key}#${parsed.def}`
  let fn = validators.get(cacheKey)
  if (fn) return fn
  const uri = parsed.def === undefined ? parsed.file.id : `${parsed.file.id}#/$defs/${pointerEscape(parsed.def)}`
  try {
    fn = ajv.getSchema(uri)
  } catch (err) {
    throw new Error(`schema '${cacheKey}' does not compile: ${(err as Error).message}`)
  }
  if (!fn) throw new Error(`schema '${cacheKey}' could not be resolved (${uri})`)
  validators.set(cacheKey, fn)
  return fn
}

/** Compile a ref now (tests use it to check that every schema compiles). */
export function compileSchema(ref: string): void {
  validatorFor(parseRef(ref))
}

// The location of the failing keyword: the indexed location of the schema object that holds it, plus
// the keyword. Falls back to Ajv's schemaPath made readable ('<file>.json#<pointer>').
function errorSchemaPath(e: ErrorObject, parsed: ParsedRef): string {
  const holder = e.parentSchema
  const where = typeof holder === 'object' && holder !== null ? locations.get(holder) : undefined
  if (where !== undefined) return e.keyword === 'false schema' ? where : `${where}/${e.keyword}`
  if (e.schemaPath.startsWith('#')) {
    const base = parsed.def === undefined ? '' : `/$defs/${pointerEscape(parsed.def)}`
    return `${parsed.file.key}.json#${base}${e.schemaPath.slice(1)}`
  }
  const hash = e.schemaPath.indexOf('#')
  const known = filesById.get(hash === -1 ? e.schemaPath : e.schemaPath.slice(0, hash))
  return known ? `${known.key}.json${hash === -1 ? '#' : e.schemaPath.slice(hash)}` : e.schemaPath
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>
  if (e.propertyName !== undefined) return `must NOT have property '${e.propertyName}'`
  switch (e.keyword) {
    case 'additionalProperties':
      return `must NOT have additional property '${String(p.additionalProperty)}'`
    case 'unevaluatedProperties':
      return `must NOT have unevaluated property '${String(p.unevaluatedProperty)}'`
    case 'enum':
      return `must be one of ${JSON.stringify(p.allowedValues)}`
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`
    case 'false schema':
      return 'must not be present'
    case 'not':
      // {"not": {}} is how the schemas forbid a key (a bare false could not be located in errors).
      return isPlainObject(e.schema) && Object.keys(e.schema).length === 0 ? 'must not be present' : 'must NOT be valid'
    default:
      return (e.message ?? e.keyword).replace(/\s+/g, ' ')
  }
}

const TEXT_MAX_ERRORS = 4

/**
 * Validate a value against a ref such as 'admin/compat-session#Page' or 'admin/error'.
 * Throws only for an unknown ref or a schema that does not compile (programming errors).
 */
export function validate(ref: string, value: unknown): ValidationResult {
  const parsed = parseRef(ref)
  const fn = validatorFor(parsed)
  if (fn(value)) return { valid: true, errors: [], text: 'valid' }
  const errors: SchemaError[] = (fn.errors ?? [])
    // The wrapper error of propertyNames repeats what the inner error (which names the key) says.
    .filter((e) => e.keyword !== 'propertyNames')
    .map((e) => ({
      instancePath: e.instancePath,
      schemaPath: errorSchemaPath(e, parsed),
      message: describe(e),
    }))
  const shown = errors
    .slice(0, TEXT_MAX_ERRORS)
    .map((e) => `${e.instancePath === '' ? '(root)' : e.instancePath} ${e.message} [${e.schemaPath}]`)
  const more = errors.length > TEXT_MAX_ERRORS ? `; (+${errors.length - TEXT_MAX_ERRORS} more)` : ''
  return { valid: false, errors, text: `${ref}: ${shown.join('; ')}${more}` }
}

/** Like validate, but throws an Error whose message is the one-line text when the value does not match. */
export function assertValid(ref: string, value: unknown): void {
  const result = validate(ref, value)
  if (!result.valid) throw new Error(result.text)
}

// ---------------------------------------------------------------------------------------------------
// Enum values, read from the schemas so that code never repeats them.

function enumOf<T extends string>(ref: string): readonly T[] {
  const values = schemaFor(ref).enum
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
    throw new Error(`schema '${ref}' is not a string enum`)
  }
  return Object.freeze([...values]) as readonly T[]
}

/** filter[status] of compat sessions: active, finished. */
export const COMPAT_SESSION_STATUSES = enumOf<CompatSessionStatus>('admin/compat-session#Status')
/** filter[status] of OAuth 2.0 sessions: active, finished. */
export const OAUTH2_SESSION_STATUSES = enumOf<OAuth2SessionStatus>('admin/oauth2-session#Status')
/** filter[status] of personal sessions: active, revoked. */
export const PERSONAL_SESSION_STATUSES = enumOf<PersonalSessionStatus>('admin/personal-session#Status')
/** filter[client-kind] of OAuth 2.0 sessions: dynamic, static. */
export const OAUTH2_CLIENT_KINDS = enumOf<OAuth2SessionClientKind>('admin/oauth2-session#ClientKind')
/** The count query parameter of every listing: true, false, only. */
export const INCLUDE_COUNT_VALUES = enumOf<AdminEnvelopeIncludeCount>('admin/envelope#IncludeCount')
/** dir of the event report listing: b (newest first, default), f (oldest first). */
export const EVENT_REPORT_DIRECTIONS = enumOf<EventReportDirection>('homeserver/event-report#Direction')

// ---------------------------------------------------------------------------------------------------
// Bundling: all $defs in one flat namespace with $refs rewritten, for OpenAPI and type generation.

const WORDS: Record<string, string> = { oauth2: 'OAuth2' }
// File stems that say nothing on their own get their area as a prefix, so that names stay stable
// when another area adds a file with the same stem.
const GENERIC_STEMS = new Set(['common', 'error', 'envelope', 'index', 'types', 'defs'])

function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => WORDS[w.toLowerCase()] ?? w.charAt(0).toUpperCase() + w.slice(1))
    .join('')
}

function filePrefix(key: string): string {
  const parts = key.split('/')
  const stem = parts[parts.length - 1] ?? key
  if (parts.length > 1 && GENERIC_STEMS.has(stem)) return pascal(parts.slice(0, -1).join('-')) + pascal(stem)
  return pascal(stem)
}

/**
 * The flat name of a ref, used for OpenAPI components and TypeScript types:
 * 'admin/compat-session#Attributes' -> 'CompatSessionAttributes', 'admin/site-config#SiteConfig' ->
 * 'SiteConfig', 'admin/error' -> 'AdminError', 'admin/common#ULID' -> 'AdminCommonULID'.
 * A file root that is only a $ref to one of its own $defs has that def's name.
 */
export function schemaName(ref: string): string {
  const { file, def } = parseRef(ref)
  const prefix = filePrefix(file.key)
  if (def === undefined) {
    const alias = ownDefAlias(file)
    return alias === undefined ? prefix : schemaName(`${file.key}#${alias}`)
  }
  const stemName = pascal(file.key.split('/').pop() ?? '')
  return def === stemName ? prefix : prefix + pascal(def)
}

function ownDefAlias(file: LoadedFile): string | undefined {
  const ref = file.doc.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return undefined
  const rest = ref.slice('#/$defs/'.length)
  if (rest.includes('/')) return undefined
  const onlyRef = Object.keys(file.doc).every((k) => k === '$ref' || META_KEYS.has(k) || k.startsWith('x-'))
  return onlyRef ? rest.replace(/~1/g, '/').replace(/~0/g, '~') : undefined
}

function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return doc
  let node: unknown = doc
  for (const raw of pointer.slice(1).split('/')) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    if (Array.isArray(node)) node = node[Number(seg)]
    else if (isPlainObject(node)) node = node[seg]
    else return undefined
  }
  return node
}

export interface Bundle {
  /** name -> schema with every $ref rewritten to refPrefix + name. */
  schemas: Record<string, JsonSchema>
  /** ref ('file#Def' or 'file') -> name, for the refs that were bundled. */
  names: Map<string, string>
}

/**
 * Bundle the shapes of the selected files (and whatever they reference, transitively) into one flat
 * namespace. `refPrefix` is what a rewritten $ref starts with: '#/components/schemas/' or '#/$defs/'.
 */
export function bundleSchemas(opts: { refPrefix: string; include?: (fileKey: string) => boolean }): Bundle {
  const include = opts.include ?? (() => true)
  const schemas: Record<string, JsonSchema> = {}
  const names = new Map<string, string>()
  const owner = new Map<string, string>() // name -> ref, to detect clashes
  const queue: string[] = []

  // A root that is an alias of its own def is that def.
  const canonicalRef = (ref: string): string => {
    const { file, def } = parseRef(ref)
    if (def !== undefined) return ref
    const alias = ownDefAlias(file)
    return alias === undefined ? ref : `${file.key}#${alias}`
  }

  const enqueue = (ref: string): string => {
    const canon = canonicalRef(ref)
    const name = schemaName(canon)
    const known = owner.get(name)
    if (known === undefined) {
      owner.set(name, canon)
      queue.push(canon)
    } else if (known !== canon) {
      throw new Error(`schema name clash: '${known}' and '${canon}' both map to '${name}'`)
    }
    names.set(ref, name)
    return name
  }

  const rewrite = (node: unknown, file: LoadedFile, seen: Set<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => rewrite(n, file, seen))
    if (!isPlainObject(node)) return node
    const out: JsonSchema = {}
    for (const [k, v] of Object.entries(node)) {
      if (k === '$schema' || k === '$id') continue
      if (k === '$ref' && typeof v === 'string') {
        const target = new URL(v, file.id).href
        const hash = target.indexOf('#')
        const targetFile = filesById.get(hash === -1 ? target : target.slice(0, hash))
        if (!targetFile) throw new Error(`${file.key}.json: $ref '${v}' points outside the schema files`)
        const pointer = hash === -1 ? '' : decodeURIComponent(target.slice(hash + 1))
        const defMatch = /^\/\$defs\/([^/]+)$/.exec(pointer)
        if (pointer === '' || defMatch) {
          const def = defMatch?.[1]?.replace(/~1/g, '/').replace(/~0/g, '~')
          out.$ref = opts.refPrefix + enqueue(def === undefined ? canonicalRef(targetFile.key) : `${targetFile.key}#${def}`)
        } else {
          // A pointer below a def: inline the target (rewritten in its own file's context).
          const key = `${targetFile.id}#${pointer}`
          if (seen.has(key)) throw new Error(`${file.key}.json: recursive deep $ref '${v}' cannot be bundled`)
          const inlined = resolvePointer(targetFile.doc, pointer)
          if (inlined === undefined) throw new Error(`${file.key}.json: $ref '${v}' does not resolve`)
          Object.assign(out, rewrite(inlined, targetFile, new Set([...seen, key])))
        }
        continue
      }
      out[k] = rewrite(v, file, seen)
    }
    return out
  }

  for (const f of files.values()) {
    if (!include(f.key)) continue
    if (rootIsShape(f.doc)) enqueue(f.key)
    for (const def of Object.keys(defsOf(f.doc))) enqueue(`${f.key}#${def}`)
  }
  for (let ref = queue.shift(); ref !== undefined; ref = queue.shift()) {
    const { file, def } = parseRef(ref)
    const source = def === undefined ? rootWithoutDefs(file.doc) : defsOf(file.doc)[def]
    schemas[schemaName(ref)] = rewrite(source, file, new Set()) as JsonSchema
  }
  return { schemas, names }
}

function rootWithoutDefs(doc: JsonSchema): JsonSchema {
  const { $defs: _defs, definitions: _definitions, ...rest } = doc
  return rest
}

/** Type guard over validate: true when the value matches the ref, narrowing it to the generated type. */
export function isValid<R extends SchemaRef>(ref: R, value: unknown): value is SchemaTypes[R] {
  return validate(ref, value).valid
}
