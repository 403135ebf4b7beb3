// The one place that turns the JSON Schema files under schemas/ into validators.
//
// Every file under schemas/ (any directory, so files of other areas work too) is read once at import,
// registered with a single Ajv 2020-12 instance (strict mode, all errors, ajv-formats), and compiled
// lazily per ref on first use. A ref names a shape as '<file without .json>#<Def>' (a $defs entry,
// e.g. 'admin/compat-session#Page') or '<file without .json>' (the file's root, e.g. 'admin/error').
//
// The same module also bundles the $defs into one flat namespace (OpenAPI components, generated
// TypeScript types), so that naming and $ref rewriting live here once.
//
// This file is the facade and the validators; the parts live beside it (importers use this file):
//   schema-registry.ts  loading the files, refs, schemaFor
//   schema-enums.ts     enum values read from the schemas
//   schema-bundle.ts    schemaName and bundleSchemas (flat namespace, $refs rewritten)
//   schema-standalone.ts  the validators precompiled once per state of the schemas (the user cache; dist/validators/ when packed),
//                       used instead of compiling here when there is a module for these schemas

import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js'
import type { SchemaRef, SchemaTypes } from './types.gen.ts'
import {
  ajvValidator,
  fileById,
  isPlainObject,
  parseRef,
  type ParsedRef,
  pointerEscape,
  precompiledValidators,
  schemaLocation,
} from './schema-registry.ts'

export {
  type JsonSchema,
  listSchemaFiles,
  listSchemaRefs,
  SCHEMA_DIR,
  SCHEMA_ID_BASE,
  schemaFor,
  schemaLoadProblems,
} from './schema-registry.ts'
export {
  COMPAT_SESSION_STATUSES,
  EVENT_REPORT_DIRECTIONS,
  INCLUDE_COUNT_VALUES,
  OAUTH2_CLIENT_KINDS,
  OAUTH2_SESSION_STATUSES,
  PERSONAL_SESSION_STATUSES,
  USER_SESSION_STATUSES,
} from './schema-enums.ts'
export { type Bundle, bundleSchemas, schemaName } from './schema-bundle.ts'

export interface SchemaError {
  /** JSON pointer of the offending value in the validated data ('' is the root). */
  instancePath: string
  /** '<file>.json#<pointer>' of the schema keyword that failed, e.g. 'admin/common.json#/$defs/ULID/pattern'. */
  schemaPath: string
  message: string
}

export interface ValidationResult {
  valid: boolean
  /** the first MAX_KEPT_ERRORS failures (a hostile page can hold hundreds of thousands) */
  errors: SchemaError[]
  /** how many failures there were in all (errors holds at most MAX_KEPT_ERRORS of them; past the first
   * 1,000 (KEPT_ERRORS) the count includes the wrapper errors the first 1,000 leave out) */
  errorCount: number
  /** One line: 'valid', or the ref and the failures, each naming the instance path and the schema path. */
  text: string
}

const validators = new Map<string, ValidateFunction>()

function validatorFor(parsed: ParsedRef): ValidateFunction {
  const cacheKey = parsed.def === undefined ? parsed.file.key : `${parsed.file.key}#${parsed.def}`
  let fn = validators.get(cacheKey) ?? precompiledValidators()?.[cacheKey]
  if (fn) return fn
  fn = compiledValidator(parsed, cacheKey)
  validators.set(cacheKey, fn)
  return fn
}

/** The validator compiled here by ajv (not the precompiled one): `validate` and tests compare the two. */
function compiledValidator(parsed: ParsedRef, cacheKey: string): ValidateFunction {
  let fn: ValidateFunction | undefined
  const uri = parsed.def === undefined ? parsed.file.id : `${parsed.file.id}#/$defs/${pointerEscape(parsed.def)}`
  try {
    fn = ajvValidator(uri)
  } catch (err) {
    throw new Error(`schema '${cacheKey}' does not compile: ${(err as Error).message}`)
  }
  if (!fn) throw new Error(`schema '${cacheKey}' could not be resolved (${uri})`)
  return fn
}

/** Which validators `validate` uses: those precompiled for these schemas (lib/schema-standalone.ts), or compiled here. */
export function validatorSource(): 'precompiled' | 'compiled' {
  return precompiledValidators() ? 'precompiled' : 'compiled'
}

/** Compile a ref now (tests use it to check that every schema compiles). */
export function compileSchema(ref: string): void {
  validatorFor(parseRef(ref))
}

// The location of the failing keyword: the indexed location of the schema object that holds it, plus
// the keyword. Falls back to Ajv's schemaPath made readable ('<file>.json#<pointer>').
function errorSchemaPath(e: ErrorObject, parsed: ParsedRef): string {
  const holder = e.parentSchema
  const where = typeof holder === 'object' && holder !== null ? schemaLocation(holder) : undefined
  if (where !== undefined) return e.keyword === 'false schema' ? where : `${where}/${e.keyword}`
  if (e.schemaPath.startsWith('#')) {
    const base = parsed.def === undefined ? '' : `/$defs/${pointerEscape(parsed.def)}`
    return `${parsed.file.key}.json#${base}${e.schemaPath.slice(1)}`
  }
  const hash = e.schemaPath.indexOf('#')
  const known = fileById(hash === -1 ? e.schemaPath : e.schemaPath.slice(0, hash))
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
/** failures a result keeps (described, with their paths); the rest are only counted */
export const MAX_KEPT_ERRORS = 100

/**
 * Validate a value against a ref such as 'admin/compat-session#Page' or 'admin/error'.
 * Throws only for an unknown ref or a schema that does not compile (programming errors).
 */
export function validate(ref: string, value: unknown): ValidationResult {
  const parsed = parseRef(ref)
  return resultOf(validatorFor(parsed), parsed, value)
}

/**
 * validate() with a given set of validators by ref (e.g. from loadPrecompiled), or those compiled here
 * when `validators` is 'compiled' (tests prove both give the same results).
 */
export function validateWith(
  validators: Readonly<Record<string, ValidateFunction>> | 'compiled',
  ref: string,
  value: unknown,
): ValidationResult {
  const parsed = parseRef(ref)
  const cacheKey = parsed.def === undefined ? parsed.file.key : `${parsed.file.key}#${parsed.def}`
  const fn = validators === 'compiled' ? compiledValidator(parsed, cacheKey) : validators[cacheKey]
  if (!fn) throw new Error(`no validator for '${cacheKey}'`)
  return resultOf(fn, parsed, value)
}

/** Items of one array a validation looks at in one call (see resultOf). */
export const VALIDATION_CHUNK = 1000

/**
 * The validators collect every error (allErrors), so a page of 80,000 invalid items gave ajv 300,000
 * error objects at once: a suite worker's heap bound (decision 0004) was gone. A top-level array longer
 * than VALIDATION_CHUNK is validated a chunk at a time, in the object it came in; the first chunk with
 * an error is the last one checked, and errorCount is then a lower bound. Every item of a valid value is
 * still checked. (A bound on the whole array, maxItems or uniqueItems across chunks, would be missed:
 * no listing schema has one.)
 */
function resultOf(fn: ValidateFunction, parsed: ParsedRef, value: unknown): ValidationResult {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const big = Object.entries(value).find(([, v]) => Array.isArray(v) && v.length > VALIDATION_CHUNK)
    if (big) {
      const [key, items] = big as [string, unknown[]]
      for (let i = 0; i < items.length; i += VALIDATION_CHUNK) {
        const r = resultOfWhole(fn, parsed, { ...value, [key]: items.slice(i, i + VALIDATION_CHUNK) }, key, i)
        if (!r.valid || i + VALIDATION_CHUNK >= items.length) return r
      }
    }
  }
  return resultOfWhole(fn, parsed, value)
}

function resultOfWhole(fn: ValidateFunction, parsed: ParsedRef, value: unknown, chunked?: string, offset = 0): ValidationResult {
  const ref = parsed.ref
  if (fn(value)) return { valid: true, errors: [], errorCount: 0, text: 'valid' }
  // The wrapper error of propertyNames repeats what the inner error (which names the key) says.
  const all = (fn.errors ?? []).filter((e) => e.keyword !== 'propertyNames')
  // ajv's list is dropped with the validator's next call; only the first few are described and kept
  fn.errors = null
  // a chunk's item paths renumbered to the item's place in the whole array
  const prefix = chunked === undefined ? undefined : `/${chunked.replace(/~/g, '~0').replace(/\//g, '~1')}/`
  const place = (path: string) => {
    if (prefix === undefined || !path.startsWith(prefix)) return path
    const rest = path.slice(prefix.length)
    const slash = rest.indexOf('/')
    const n = Number(slash < 0 ? rest : rest.slice(0, slash))
    return Number.isInteger(n) ? `${prefix}${n + offset}${slash < 0 ? '' : rest.slice(slash)}` : path
  }
  const errors: SchemaError[] = all.slice(0, MAX_KEPT_ERRORS).map((e) => ({
    instancePath: place(e.instancePath),
    schemaPath: errorSchemaPath(e, parsed),
    message: describe(e),
  }))
  const shown = errors
    .slice(0, TEXT_MAX_ERRORS)
    .map((e) => `${e.instancePath === '' ? '(root)' : e.instancePath} ${e.message} [${e.schemaPath}]`)
  const more = all.length > TEXT_MAX_ERRORS ? `; (+${all.length - TEXT_MAX_ERRORS} more)` : ''
  return { valid: false, errors, errorCount: all.length, text: `${ref}: ${shown.join('; ')}${more}` }
}

/** Like validate, but throws an Error whose message is the one-line text when the value does not match. */
export function assertValid(ref: string, value: unknown): void {
  const result = validate(ref, value)
  if (!result.valid) throw new Error(result.text)
}

/** Type guard over validate: true when the value matches the ref, narrowing it to the generated type. */
export function isValid<R extends SchemaRef>(ref: R, value: unknown): value is SchemaTypes[R] {
  return validate(ref, value).valid
}
