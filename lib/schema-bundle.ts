// Bundling: all $defs in one flat namespace with $refs rewritten, for OpenAPI and type generation
// (re-exported by lib/schemas.ts). Naming and $ref rewriting live here once.
import {
  defsOf,
  fileById,
  isPlainObject,
  type JsonSchema,
  loadedFiles,
  type LoadedFile,
  META_KEYS,
  parseRef,
  rootIsShape,
} from './schema-registry.ts'

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
        const targetFile = fileById(hash === -1 ? target : target.slice(0, hash))
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

  for (const f of loadedFiles().values()) {
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
