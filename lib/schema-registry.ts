// The schema files under schemas/, loaded once: read, registered with the one Ajv instance, frozen, and
// their refs ('<file>#<Def>' or '<file>') resolved. lib/schemas.ts (validation and the public facade),
// lib/schema-enums.ts and lib/schema-bundle.ts build on it; importers use lib/schemas.ts.
//
// Every file under schemas/ (any directory, so files of other areas work too) is read at import and
// registered with a single Ajv 2020-12 instance (strict mode, all errors, ajv-formats); validators are
// compiled lazily per ref on first use (lib/schemas.ts).
//
// Precompiled validators (decision 0004): lib/schema-standalone.ts writes every ref's validator, compiled
// once, into <fingerprint>.cjs: a packed package carries it in dist/validators/, a checkout keeps it in
// the user's cache (lib/package-paths.mjs). The fingerprint covers every schema file's text, ajv's
// and ajv-formats' versions and the sources of this file and the generator, so an edited schema (or a
// changed option) names another file: a stale module is never found. When the file for the current
// fingerprint exists, no Ajv instance is made at all (ajv is not even loaded) unless a validator has
// to be compiled after all; AC_SCHEMA_VALIDATORS=compile ignores the file.

import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Ajv2020, Options, ValidateFunction } from 'ajv/dist/2020.js'
import { packageCacheDir, prebuiltDir } from './package-paths.mjs'
import { requireCached } from './code-cache.ts'

export type JsonSchema = { [key: string]: unknown }

/** Base of the $id given to schema files that do not declare one (ours all declare one under it). */
export const SCHEMA_ID_BASE = 'https://admin-conformance.invalid/schemas/'

export const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url))

/**
 * Where the precompiled validators are written: <fingerprint>.cjs, one file per state of the schemas, in
 * the user's cache; undefined where there is none (then they are compiled at each start).
 */
export const PRECOMPILED_DIR: string | undefined = (() => {
  try {
    return packageCacheDir('validators')
  } catch {
    return undefined
  }
})()
/** The packed package's own, built when it was packed (read-only; found first). */
const PACKED_DIR = ((dist) => dist && path.join(dist, 'validators'))(prebuiltDir())

// ajv is CommonJS: loaded synchronously, and only when a validator is compiled here.
const require = createRequire(import.meta.url)

export interface LoadedFile {
  readonly key: string // 'admin/compat-session'
  readonly file: string // absolute path
  readonly id: string // $id without fragment
  readonly doc: JsonSchema
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

export function isPlainObject(v: unknown): v is JsonSchema {
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

/** The options of every Ajv instance of the registry (the generator's adds code.source). */
const AJV_OPTIONS: Options = {
  strict: true,
  allErrors: true,
  // ["string","null"] is the natural way to write a nullable field.
  allowUnionTypes: true,
  // Schemas are registered up front and compiled on demand.
  addUsedSchema: false,
  // Errors then carry parentSchema, which locates the failing keyword exactly even across $refs
  // (Ajv's own schemaPath follows the referencing schema when a $ref is inlined).
  verbose: true,
  // Compiled at run start where no precompiled module is (tsx runs without a build, a package that
  // cannot be written to): unoptimised code compiles in about 60% of the time and validates these small
  // documents as fast (decision 0004).
  // Errors gathered in place (linearErrors): ajv's own code copies the list at every failing $ref.
  code: { optimize: false, process: (code: string) => linearErrors(code) },
}

/**
 * Errors a validation holds as objects: past them each further error is counted (a slot in the list,
 * pointing at the first error) but not kept, so that 565,000 errors of a hostile page (72,000 tiny
 * invalid items) cost a few MiB instead of exhausting the heap. Far above what a result describes.
 */
export const KEPT_ERRORS = 1000

/**
 * ajv's code appends a $ref'd validator's errors with `vErrors = vErrors === null ? v.errors :
 * vErrors.concat(v.errors)`: a copy of the whole list per failing item, quadratic in the answer (a page
 * of 16,000 tiny invalid items took 14.5 s). Rewritten to push in place, linear, the first KEPT_ERRORS
 * errors as they are and the count of the rest (the $ref'd validator lets go of its list); the compiled
 * and the precompiled validators (which get it too) still agree.
 */
export function linearErrors(code: string): string {
  return code.replace(
    /vErrors = vErrors === null \? ([\w$]+)\.errors : vErrors\.concat\(\1\.errors\);/g,
    (_m, v: string) =>
      `if (vErrors === null) vErrors = ${v}.errors; else for (const e$ of ${v}.errors) vErrors.push(vErrors.length < ${KEPT_ERRORS} ? e$ : vErrors[0]); ${v}.errors = null;`,
  )
}

const extensionKeywords = new Set<string>()
// The fingerprint of the precompiled validators: what they were compiled from and with.
const fingerprintHash = createHash('sha256')
for (const dep of ['ajv', 'ajv-formats'])
  fingerprintHash.update(`${dep}@${(require(`${dep}/package.json`) as { version: string }).version}\0`)
for (const own of ['schema-registry.ts', 'schema-standalone.ts'])
  fingerprintHash.update(`${own}\0${readFileSync(new URL(`./${own}`, import.meta.url), 'utf8')}\0`)

for (const file of walk(SCHEMA_DIR)) {
  const key = path
    .relative(SCHEMA_DIR, file)
    .split(path.sep)
    .join('/')
    .replace(/\.json$/, '')
  let doc: unknown
  try {
    const text = readFileSync(file, 'utf8')
    fingerprintHash.update(`${key}\0${text}\0`)
    doc = JSON.parse(text)
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

const fingerprint = fingerprintHash.digest('hex').slice(0, 24)

/**
 * A new Ajv instance with the registry's options, ajv-formats and the x-* keywords (no schema added).
 * `source`: keep each validator's code (ajv's standalone code needs it; lib/schema-standalone.ts).
 */
export function newAjv(opts: { source?: boolean } = {}): Ajv2020 {
  const { Ajv2020: AjvClass } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')
  const addFormats = require('ajv-formats') as typeof import('ajv-formats').default
  const ajv = new AjvClass({ ...AJV_OPTIONS, code: { ...AJV_OPTIONS.code, ...(opts.source ? { source: true } : {}) } })
  addFormats(ajv)
  for (const keyword of [...extensionKeywords].sort())
    ajv.addKeyword({ keyword, schemaType: ['string', 'number', 'boolean', 'object', 'array', 'null'] })
  return ajv
}

// Where each schema object sits: 'admin/common.json#/$defs/ULID'. Errors are mapped back through it.
const locations = new WeakMap<object, string>()

function indexLocations(node: unknown, where: string): void {
  if (typeof node !== 'object' || node === null || locations.has(node)) return
  locations.set(node, where)
  for (const [k, v] of Object.entries(node)) indexLocations(v, `${where}/${pointerEscape(k)}`)
}

/**
 * The file of the precompiled validators for the schemas as loaded (it may not exist): `dir`'s, else the
 * packed package's when it has one, else the cache's.
 */
export function precompiledFile(dir?: string): string {
  const name = `${fingerprint}.cjs`
  if (dir !== undefined) return path.join(dir, name)
  if (PACKED_DIR !== undefined && existsSync(path.join(PACKED_DIR, name))) return path.join(PACKED_DIR, name)
  if (PRECOMPILED_DIR === undefined) throw new Error('no cache folder for the precompiled validators')
  return path.join(PRECOMPILED_DIR, name)
}

/** What the precompiled validators must have been compiled from: the schemas, ajv, the options. */
export function schemaFingerprint(): string {
  return fingerprint
}

// A precompiled module exists for exactly these schemas: it was written only when every file loaded
// and compiled (lib/schema-standalone.ts), so the files need not be registered with ajv now.
const precompiledAtStart =
  process.env.AC_SCHEMA_VALIDATORS !== 'compile' &&
  problems.length === 0 &&
  (PACKED_DIR !== undefined || PRECOMPILED_DIR !== undefined) &&
  existsSync(precompiledFile())

let ajv: Ajv2020 | undefined
if (!precompiledAtStart) {
  ajv = newAjv()
  for (const f of [...files.values()]) {
    try {
      ajv.addSchema(f.doc)
    } catch (err) {
      problems.push(`${f.key}.json: ${(err as Error).message}`)
      files.delete(f.key)
      filesById.delete(f.id)
    }
  }
}
for (const f of files.values()) {
  deepFreeze(f.doc)
  indexLocations(f.doc, `${f.key}.json#`)
}

/** Every loaded file registered with a new Ajv instance (the registry's own, or the generator's). */
export function ajvWithSchemas(opts: { source?: boolean } = {}): Ajv2020 {
  const instance = newAjv(opts)
  for (const f of files.values()) instance.addSchema(f.doc)
  return instance
}

/** Files that could not be loaded (bad JSON, duplicate $id, not a valid schema). Empty when all is well. */
export function schemaLoadProblems(): readonly string[] {
  return problems
}

/** Keys of all loaded files, e.g. ['admin/common', 'admin/compat-session', ...]. */
export function listSchemaFiles(): string[] {
  return [...files.keys()]
}

export const META_KEYS = new Set(['$schema', '$id', '$defs', 'definitions', 'title', 'description', '$comment', 'examples'])

/** True when the file's root is itself a shape (not only a container of $defs). */
export function rootIsShape(doc: JsonSchema): boolean {
  return Object.keys(doc).some((k) => !META_KEYS.has(k) && !k.startsWith('x-'))
}

export function defsOf(doc: JsonSchema): Record<string, JsonSchema> {
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

export interface ParsedRef {
  ref: string
  file: LoadedFile
  def: string | undefined
}

export function parseRef(ref: string): ParsedRef {
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

export function pointerEscape(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** The schema JSON a ref names (frozen; do not mutate). */
export function schemaFor(ref: string): JsonSchema {
  const { file, def } = parseRef(ref)
  return def === undefined ? file.doc : (defsOf(file.doc)[def] as JsonSchema)
}

// Read-only access for the validators (lib/schemas.ts) and the bundler (lib/schema-bundle.ts).

/** The loaded files by key ('admin/compat-session'), in load order. */
export function loadedFiles(): ReadonlyMap<string, LoadedFile> {
  return files
}

/** The loaded file whose $id (without fragment) is `id`. */
export function fileById(id: string): LoadedFile | undefined {
  return filesById.get(id)
}

/** Where a schema object sits, e.g. 'admin/common.json#/$defs/ULID'; undefined for objects not in a file. */
export function schemaLocation(node: object): string | undefined {
  return locations.get(node)
}

/** The schema object at a location given by schemaLocation ('admin/common.json#/$defs/ULID'): the very object. */
export function schemaAt(location: string): object {
  const hash = location.indexOf('#')
  const file = files.get(location.slice(0, hash).replace(/\.json$/, ''))
  let node: unknown = file?.doc
  for (const part of location
    .slice(hash + 1)
    .split('/')
    .slice(1)) {
    node =
      typeof node === 'object' && node !== null
        ? (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
        : undefined
  }
  if (hash === -1 || typeof node !== 'object' || node === null) throw new Error(`no schema object at ${location}`)
  return node
}

/** Ajv's validator for a schema URI (compiled on first call; throws when the schema does not compile). */
export function ajvValidator(uri: string): ValidateFunction | undefined {
  // precompiled validators at start, but one had to be compiled after all: the registry's instance now
  ajv ??= ajvWithSchemas()
  return ajv.getSchema(uri)
}

export interface PrecompiledModule {
  fingerprint: string
  refs: string[]
  create(schemaAt: (location: string) => object): Record<string, ValidateFunction>
}

let precompiled: Record<string, ValidateFunction> | null | undefined

/**
 * The validators of a precompiled module (lib/schema-standalone.ts) for these schemas, by ref
 * ('admin/common#ULID', 'admin/error'); undefined when there is none, it is not for these schemas
 * (fingerprint), or it does not load. `file`: another module than the current one (tests).
 */
export function loadPrecompiled(file = precompiledFile()): Record<string, ValidateFunction> | undefined {
  try {
    // With V8's code cache, kept in the validators' cache folder (a packed package's own folder is
    // read-only); another module (tests) without.
    const cacheDir = file === precompiledFile() ? PRECOMPILED_DIR : undefined
    const mod = requireCached(file, cacheDir).exports as PrecompiledModule
    if (mod.fingerprint !== fingerprint || typeof mod.create !== 'function') return undefined
    return mod.create(schemaAt)
  } catch {
    return undefined
  }
}

/** The precompiled validators in use (loaded on first call), or undefined: then validators are compiled. */
export function precompiledValidators(): Record<string, ValidateFunction> | undefined {
  if (precompiled === undefined) precompiled = (precompiledAtStart && loadPrecompiled()) || null
  return precompiled ?? undefined
}
