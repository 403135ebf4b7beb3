// The schema files under schemas/, loaded once: read, registered with the one Ajv instance, frozen, and
// their refs ('<file>#<Def>' or '<file>') resolved. lib/schemas.ts (validation and the public facade),
// lib/schema-enums.ts and lib/schema-bundle.ts build on it; importers use lib/schemas.ts.
//
// Every file under schemas/ (any directory, so files of other areas work too) is read at import and
// registered with a single Ajv 2020-12 instance (strict mode, all errors, ajv-formats); validators are
// compiled lazily per ref on first use (lib/schemas.ts).

import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

export type JsonSchema = { [key: string]: unknown }

/** Base of the $id given to schema files that do not declare one (ours all declare one under it). */
export const SCHEMA_ID_BASE = 'https://admin-conformance.invalid/schemas/'

export const SCHEMA_DIR = fileURLToPath(new URL('../schemas/', import.meta.url))

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
  // Compiled at every run start (the suite workers, the mock): unoptimised code compiles in about 60%
  // of the time and validates these small documents as fast (issue 16).
  code: { optimize: false },
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

/** Ajv's validator for a schema URI (compiled on first call; throws when the schema does not compile). */
export function ajvValidator(uri: string): ValidateFunction | undefined {
  return ajv.getSchema(uri)
}
