// Precompiled validators (decision 0004): every ref's validator compiled once with ajv and written as code
// (ajv's standalone code), so that a run's processes load them instead of compiling them at each start.
//
// The module is CommonJS, <fingerprint>.cjs in the user's cache or a packed package's dist/validators/ (lib/schema-registry.ts names it and loads
// it, synchronously, since validate() is synchronous): `fingerprint`, `refs`, and `create(schemaAt)`
// which returns the validators by ref ('admin/common#ULID', 'admin/error').
//
// Identity: ajv's standalone code writes each schema a validator needs as a literal (`const schema31 =
// {...}`), and with `verbose` the errors carry `parentSchema: schema31.properties.n`, a copy. lib/schemas.ts
// locates the failing keyword by the identity of that object (schemaLocation), so copies would change the
// schema paths of the messages. Here each such constant is written instead as `schemaAt('<location>')`,
// the registry's own frozen object at that location: the errors carry the very objects the compiled
// validators' errors carry, and every message stays byte for byte the same (test/lib/schema-standalone.test.ts).
import { mkdirSync, renameSync, rmSync, writeFileSync, existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import {
  ajvWithSchemas,
  linearErrors,
  listSchemaRefs,
  parseRef,
  PRECOMPILED_DIR,
  pointerEscape,
  precompiledFile,
  schemaFingerprint,
  schemaLoadProblems,
  schemaLocation,
} from './schema-registry.ts'

const require = createRequire(import.meta.url)

/** An older module is removed only after this long unused: a run of the older schemas may still load it. */
const OLD_MODULE_MS = 10 * 60_000

interface ScopeName {
  prefix: string
  value?: { ref: unknown; code?: unknown }
}

/**
 * The precompiled validators' module text for the schemas as loaded. Throws when a schema does not load
 * or compile. Minified with esbuild when it is there (a third less to parse at each start: 1.6 → 1.1 MB).
 */
export function standaloneModule(opts: { minify?: boolean } = {}): string {
  const problems = schemaLoadProblems()
  if (problems.length) throw new Error(`the schemas do not load: ${problems.join('; ')}`)
  const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js')).default
  const { _ } = require('ajv/dist/compile/codegen/index.js') as typeof import('ajv/dist/compile/codegen/index.js')
  const ajv = ajvWithSchemas({ source: true })
  const refs = listSchemaRefs()
  const byRef: Record<string, string> = {}
  for (const ref of refs) {
    const { file, def } = parseRef(ref)
    const uri = def === undefined ? file.id : `${file.id}#/$defs/${pointerEscape(def)}`
    if (!ajv.getSchema(uri)) throw new Error(`schema '${ref}' could not be resolved (${uri})`)
    byRef[ref] = uri
  }
  // Every schema constant of the code: the registry's object at its location, not a copy.
  const values = (ajv.scope as unknown as { _values: Record<string, Map<unknown, ScopeName> | undefined> })._values
  for (const name of values.schema?.values() ?? []) {
    const obj = name.value?.ref
    const where = typeof obj === 'object' && obj !== null ? schemaLocation(obj) : undefined
    if (where !== undefined && name.value) name.value.code = _`schemaAt(${where})`
  }
  // (ajv's code.process option is not applied to standalone code: the same rewrite here)
  const code = linearErrors(standaloneCode(ajv, byRef).replace(/^"use strict";/, ''))
  // A schema the code needs that is not the registry's (it would be a copy): refuse, never write a module
  // whose messages could differ.
  const copy = /\bconst (schema\d+) = (?!schemaAt\()/.exec(code)
  if (copy) throw new Error(`precompiled validators: ${copy[1]} is not a schema object of the registry`)
  const fingerprint = schemaFingerprint()
  const text = [
    '"use strict";',
    `// The validators of every schema ref, precompiled by lib/schema-standalone.ts for the schemas of`,
    `// fingerprint ${fingerprint} (lib/schema-registry.ts). Generated: do not edit.`,
    `exports.fingerprint = ${JSON.stringify(fingerprint)};`,
    `exports.refs = ${JSON.stringify(refs)};`,
    'exports.create = function create(schemaAt) {',
    'const exports = Object.create(null);',
    code,
    'return exports;',
    '};',
    '',
  ].join('\n')
  if (opts.minify === false) return text
  try {
    const { transformSync } = require('esbuild') as typeof import('esbuild')
    const header = text.slice(0, text.indexOf('exports.fingerprint'))
    return header + transformSync(text, { minify: true, format: 'cjs', target: 'node20', legalComments: 'none' }).code
  } catch {
    return text
  }
}

/**
 * The precompiled validators' file for the schemas as loaded, written now when there is none (atomic: a
 * concurrent process sees the whole file or none). Modules of other fingerprints unused for a while are
 * removed. Throws when it cannot compile or write (the validators are then compiled at run time).
 */
export function writePrecompiled(dir?: string): string {
  const existing = dir === undefined ? precompiledFile() : undefined
  if (existing !== undefined && existsSync(existing)) return existing
  dir ??= PRECOMPILED_DIR
  if (dir === undefined) throw new Error('no folder to write the precompiled validators to')
  const file = precompiledFile(dir)
  if (existsSync(file)) return file
  const text = standaloneModule()
  mkdirSync(dir, { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(tmp, text)
    renameSync(tmp, file)
  } finally {
    rmSync(tmp, { force: true })
  }
  const now = Date.now()
  for (const name of readdirSync(dir)) {
    const old = path.join(dir, name)
    // (and the V8 code caches of older modules, lib/code-cache.ts)
    if (old === file || name.startsWith(`${path.basename(file)}.`) || !/^[0-9a-f]+\.cjs(\.[0-9a-f]{8}\.v8cache)?$/.test(name)) continue
    try {
      if (now - statSync(old).mtimeMs > OLD_MODULE_MS) rmSync(old, { force: true })
    } catch {
      // removed by another process meanwhile
    }
  }
  return file
}
