// The precompiled validators (lib/schema-standalone.ts) against those compiled at run time: the same
// valid flag, the same ajv errors carrying the very same schema objects (parentSchema, schema), the same
// validate() results byte for byte, on a corpus that covers every ref with valid and invalid values (the
// mock's real answers, values sampled from the schemas, and mutations of both). And the module is used
// only for the schemas it was compiled from: missing, foreign, broken or stale, the validators compile.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ValidateFunction } from 'ajv/dist/2020.js'
import {
  ajvValidator,
  fileById,
  loadPrecompiled,
  parseRef,
  pointerEscape,
  precompiledFile,
  schemaAt,
  schemaFingerprint,
} from '../../lib/schema-registry.ts'
import { standaloneModule, writePrecompiled } from '../../lib/schema-standalone.ts'
import { listSchemaRefs, validate, validateWith, type JsonSchema } from '../../lib/schemas.ts'
import { isDocumented, routesAt, type RouteTable } from '../../mock/core/table.ts'
import { adminTable } from '../../mock/admin/routes.ts'
import { homeserverTable } from '../../mock/homeserver/routes.ts'
import { startTestMock } from '../mock/admin/helpers.ts'
import { ADMIN_TOKEN as HS_ADMIN, USER_TOKEN as HS_USER } from '../mock/homeserver/helpers.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const dir = t.testdir({})
const file = writePrecompiled(dir)
const pre = loadPrecompiled(file)
const refs = listSchemaRefs()

t.test('the module: one validator per ref, for these schemas, each schema constant the registry object', async (t) => {
  t.equal(path.basename(file), `${schemaFingerprint()}.cjs`)
  t.ok(pre, 'it loads')
  t.same(Object.keys(pre!).sort(), [...refs].sort(), 'a validator per ref of listSchemaRefs()')
  const text = standaloneModule({ minify: false })
  const constants = [...text.matchAll(/\bconst schema\d+ = ([^;]+);/g)].map((m) => m[1]!)
  t.ok(constants.length > 50, `${constants.length} schema constants`)
  t.same(
    constants.filter((c) => !c.startsWith('schemaAt(')),
    [],
    'no schema is a literal copy',
  )
  t.equal(writePrecompiled(dir), file, 'written once: the existing file is kept')
})

// ---------------------------------------------------------------------------------------------------
// The corpus

type Json = unknown
const corpus = new Map<string, Json[]>(refs.map((r) => [r, []]))
const add = (ref: string, v: Json) =>
  corpus.get(parseRef(ref).file.key + (parseRef(ref).def === undefined ? '' : `#${parseRef(ref).def}`))?.push(v)

/** The schema a $ref names, and the $id of its file (for the $refs inside it). */
function resolve(ref: string, base: string): { schema: JsonSchema; base: string } {
  const url = new URL(ref, base)
  const f = fileById(url.href.replace(/#.*$/, ''))
  if (!f) throw new Error(`unresolved ${ref} from ${base}`)
  return { schema: schemaAt(`${f.key}.json${url.hash ? decodeURIComponent(url.hash) : '#'}`) as JsonSchema, base: f.id }
}

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  'date-time': fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  uri: fc.webUrl(),
  ipv4: fc.ipV4(),
  ipv6: fc.ipV6(),
}

/** Values drawn from a schema: mostly valid (patterns, formats, enums, required keys), not always (not, if/then). */
function arb(s: unknown, base: string, depth = 0): fc.Arbitrary<Json> {
  if (s === true || typeof s !== 'object' || s === null || depth > 12) return fc.jsonValue({ maxDepth: 2 })
  const schema = s as JsonSchema
  if (typeof schema.$ref === 'string') {
    const r = resolve(schema.$ref, base)
    return arb(r.schema, r.base, depth + 1)
  }
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  const alts = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined
  if (alts) {
    // each alternative with the rest of the schema (`{"type": "string", "anyOf": [{"format": "ipv4"}, …]}`)
    const { anyOf: _a, oneOf: _o, ...rest } = schema
    return fc.oneof(
      ...alts.map((a) =>
        typeof a === 'object' && a !== null && !('$ref' in a)
          ? arb(
              { ...rest, ...a, properties: { ...(rest.properties as object), ...((a as JsonSchema).properties as object) } },
              base,
              depth + 1,
            )
          : arb(a, base, depth + 1),
      ),
    )
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((a) => arb(a, base, depth + 1))
    const own = Object.keys(schema).some((k) => ['type', 'properties'].includes(k))
      ? [arb({ ...schema, allOf: undefined }, base, depth + 1)]
      : []
    return fc
      .tuple(...parts, ...own)
      .map((vs) =>
        vs.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v)) ? Object.assign({}, ...vs) : vs[vs.length - 1],
      )
  }
  const types = Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === 'string'
      ? [schema.type]
      : schema.properties
        ? ['object']
        : []
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 })
  return fc.oneof(...types.map((ty) => typed(ty, schema, base, depth)))
}

function typed(type: string, schema: JsonSchema, base: string, depth: number): fc.Arbitrary<Json> {
  switch (type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer':
    case 'number':
      return fc.integer({
        min: typeof schema.minimum === 'number' ? schema.minimum : -1000,
        max: typeof schema.maximum === 'number' ? schema.maximum : 100000,
      })
    case 'string':
      if (typeof schema.format === 'string' && FORMATS[schema.format]) return FORMATS[schema.format]!
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern, 'u'))
      return fc.string({ minLength: typeof schema.minLength === 'number' ? schema.minLength : 0, maxLength: 12 })
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0
      const items =
        schema.items === undefined || schema.items === false ? fc.jsonValue({ maxDepth: 1 }) : arb(schema.items, base, depth + 1)
      const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems.map((p) => arb(p, base, depth + 1)) : []
      return fc
        .tuple(fc.tuple(...prefix), fc.array(items, { minLength: Math.max(0, min - prefix.length), maxLength: 3 }))
        .map(([a, b]) => [...a, ...b])
    }
    default: {
      const props = { ...((schema.properties ?? {}) as Record<string, unknown>) }
      const required = Array.isArray(schema.required) ? [...(schema.required as string[])] : []
      // keys named by an enum (propertyNames), each with the additionalProperties schema
      const names =
        typeof schema.propertyNames === 'object' && schema.propertyNames !== null
          ? namesOf(schema.propertyNames as JsonSchema, base)
          : undefined
      if (names && typeof schema.additionalProperties === 'object')
        for (const n of names) ((props[n] = schema.additionalProperties), required.push(n))
      const model = Object.fromEntries(
        [...new Set([...Object.keys(props), ...required])].map((k) => [k, arb(props[k] ?? true, base, depth + 1)]),
      )
      return fc.record(model, { requiredKeys: required })
    }
  }
}

function namesOf(s: JsonSchema, base: string): string[] | undefined {
  if (typeof s.$ref === 'string') {
    const r = resolve(s.$ref, base)
    return namesOf(r.schema, r.base)
  }
  return Array.isArray(s.enum) ? (s.enum as string[]) : undefined
}

/** Wrong values at every place of a value: each key removed, each value replaced by others of every type, a key added. */
function mutations(v: Json, out: Json[] = [], at: (x: Json) => Json = (x) => x, depth = 0): Json[] {
  for (const other of [null, true, -1, 1.5, '', 'x', '2022-13-45T99:00:00Z', [], {}, [1], { a: 1 }])
    if (JSON.stringify(other) !== JSON.stringify(v)) out.push(at(other))
  if (depth > 6) return out
  if (Array.isArray(v)) {
    v.forEach((item, i) => mutations(item, out, (x) => at(v.map((y, j) => (j === i ? x : y))), depth + 1))
    if (v.length) out.push(at(v.slice(1)), at([...v, v[0]]))
  } else if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, Json>
    for (const k of Object.keys(o)) {
      const { [k]: _gone, ...rest } = o
      out.push(at(rest))
      mutations(o[k], out, (x) => at({ ...o, [k]: x }), depth + 1)
    }
    out.push(at({ ...o, unexpected_key: 1 }))
  }
  return out
}

// the mock's real answers, by the ref its route documents for the status
const tm = await startTestMock(t, { seed: 7, sessions: 30, reports: 5, hsAdminToken: HS_ADMIN, hsUserToken: HS_USER })
const tables: RouteTable[] = [adminTable(), homeserverTable(tm.mock.options)]
const answers: { ref: string; body: Json }[] = []
const idsOf = (body: any): string[] =>
  (Array.isArray(body?.data)
    ? body.data.slice(0, 2).map((d: any) => d?.id)
    : Array.isArray(body?.event_reports)
      ? body.event_reports.slice(0, 2).map((d: any) => String(d?.id))
      : []
  ).filter(Boolean)
for (const table of tables) {
  const routes = routesAt(table, tm.mock.options)
  const docs = new Map(table.routes.map((e) => [`${e.method} ${e.pattern}`, e.doc]))
  const lists = new Map<string, string[]>()
  for (const pass of [0, 1]) {
    for (const r of routes.filter((r) => r.method === 'GET' && r.pattern.includes(':') === (pass === 1))) {
      const doc = docs.get(`GET ${r.pattern}`)
      if (!doc || !isDocumented(doc)) continue
      const params = r.pattern.replace(/\/:[^/]+.*$/, '')
      const paths =
        pass === 0
          ? [r.pattern]
          : [...(lists.get(params) ?? []), '01FSHN9AG0MZAA6S4AF7CTV32E', 'not-an-id'].map((id) =>
              r.pattern.replace(/:[A-Za-z_]+\??/, encodeURIComponent(id)),
            )
      for (const p of paths.filter((p) => !p.includes(':'))) {
        for (const token of [undefined, null]) {
          const res = p.startsWith('/_synapse') ? await tm.get(p, token === null ? null : HS_ADMIN) : await tm.get(p, token)
          const ref =
            doc.responses[String(res.status)]?.ref ??
            (res.status === 401 || res.status === 403 ? (p.startsWith('/_synapse') ? 'homeserver/error' : 'admin/error') : undefined)
          if (res.body === undefined || ref === undefined) continue
          answers.push({ ref, body: res.body })
          if (pass === 0 && res.status === 200) lists.set(r.pattern, idsOf(res.body))
        }
      }
    }
  }
}

/** Every object inside a value (each entry of a listing, its attributes, ...). */
function nested(v: Json, out: Json[] = []): Json[] {
  if (typeof v === 'object' && v !== null)
    for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) (out.push(x), nested(x, out))
  return out
}
const refsOfFile = (ref: string) => refs.filter((r) => r.split('#')[0] === ref.split('#')[0])
// a personal session created: the one write whose answer has shapes of its own (Created)
{
  const user = tm.world().mas.users.all()[0]!
  for (const body of [
    { actor_user_id: user.id, human_name: 'CI token', scope: 'urn:mas:admin', expires_in: 3600 },
    { actor_user_id: user.id, human_name: 'x', scope: 'openid' },
  ]) {
    const res = await tm.post('/api/admin/v1/personal-sessions', body)
    if (res.status === 201 || res.status === 200) answers.push({ ref: 'admin/personal-session#Created', body: res.body })
  }
}

// the package's data files (lib/data/*.json, checked against schemas/versions/*), whole and each entry
// against each ref of its schema file
for (const name of readdirSync(path.join(ROOT, 'lib', 'data')).filter((n) => n.endsWith('.json'))) {
  const data = JSON.parse(readFileSync(path.join(ROOT, 'lib', 'data', name), 'utf8')) as { $schema: string }
  const key = `versions/${path.basename(data.$schema, '.json')}`
  const own = refsOfFile(key)
  add(key, data)
  for (const m of mutations(data).slice(0, 300)) add(key, m)
  for (const v of nested(data).slice(0, 200)) for (const r of own) add(r, v)
}

for (const { ref, body } of answers) {
  add(ref, body)
  for (const m of mutations(body).slice(0, 250)) add(ref, m)
  // each entry of the answer against each shape of its schema file
  for (const v of nested(body).slice(0, 40)) for (const r of refsOfFile(ref)) add(r, v)
}
for (const [i, ref] of refs.entries()) {
  const { file: f, def } = parseRef(ref)
  const schema = def === undefined ? f.doc : schemaAt(`${f.key}.json#/$defs/${pointerEscape(def)}`)
  const samples = fc.sample(arb(schema, f.id), { numRuns: 8, seed: 1000 + i })
  for (const s of samples) {
    add(ref, s)
    for (const m of mutations(s).slice(0, 60)) add(ref, m)
  }
  for (const s of fc.sample(fc.anything({ maxDepth: 2 }), { numRuns: 5, seed: 2000 + i })) add(ref, s)
}

// ---------------------------------------------------------------------------------------------------

/** ajv's errors with the schema objects named by location and kept for an identity check. */
function same(t: Test, a: ValidateFunction, b: ValidateFunction, v: Json, what: string): boolean {
  const va = a(v)
  const vb = b(v)
  if (va !== vb) return t.fail(`${what}: valid ${va} vs ${vb}`) as false
  const ea = a.errors ?? []
  const eb = b.errors ?? []
  if (ea.length !== eb.length) return t.fail(`${what}: ${ea.length} vs ${eb.length} errors`) as false
  for (const [i, x] of ea.entries()) {
    const y = eb[i]!
    const { parentSchema: pa, schema: sa, data: da, ...ra } = x
    const { parentSchema: pb, schema: sb, data: db, ...rb } = y
    if (pa !== pb) return t.fail(`${what}: error ${i} parentSchema is another object`) as false
    if ((typeof sa === 'object' && sa !== null ? sa !== sb : !Object.is(sa, sb)) || da !== db)
      return t.fail(`${what}: error ${i} schema or data differ`) as false
    if (JSON.stringify(ra) !== JSON.stringify(rb))
      return t.fail(`${what}: error ${i}: ${JSON.stringify(ra)} vs ${JSON.stringify(rb)}`) as false
  }
  return true
}

t.test('precompiled and compiled validators agree on every value of the corpus', async (t) => {
  t.ok(pre, 'the module loads')
  if (!pre) return
  let values = 0
  let errors = 0
  const valid = new Set<string>()
  const invalid = new Set<string>()
  let mismatches = 0
  for (const [ref, vs] of corpus) {
    const { file: f, def } = parseRef(ref)
    const compiled = ajvValidator(def === undefined ? f.id : `${f.id}#/$defs/${pointerEscape(def)}`)!
    for (const v of vs) {
      values++
      if (!same(t, compiled, pre[ref]!, v, ref)) mismatches++
      const a = validateWith('compiled', ref, v)
      const b = validateWith(pre, ref, v)
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        mismatches++
        t.fail(`${ref}: ${a.text} vs ${b.text}`)
      }
      errors += a.errors.length
      ;(a.valid ? valid : invalid).add(ref)
      if (mismatches > 5) return
    }
  }
  t.equal(mismatches, 0, `${values} values, ${errors} errors, all the same (valid, ajv errors with the same schema objects, text)`)
  t.same(
    refs.filter((r) => !invalid.has(r)),
    [],
    'every ref rejected some value',
  )
  t.same(
    refs.filter((r) => !valid.has(r)).map((r) => `${r}: ${validate(r, corpus.get(r)![0]).text}`),
    [],
    `every ref accepted some value (${valid.size} of ${refs.length})`,
  )
  t.ok(answers.length > 20, `${answers.length} answers of the mock among them`)
  t.ok(
    answers.every((a) => validate(a.ref, a.body).valid),
    'the answers match their documented refs',
  )
})

t.test('a missing, foreign or broken module is not used', async (t) => {
  t.equal(loadPrecompiled(path.join(dir, 'none.cjs')), undefined, 'missing')
  const text = readFileSync(file, 'utf8')
  const foreign = path.join(dir, 'foreign.cjs')
  writeFileSync(foreign, text.replaceAll(schemaFingerprint(), '0'.repeat(24)))
  t.equal(loadPrecompiled(foreign), undefined, 'compiled for other schemas (fingerprint)')
  const broken = path.join(dir, 'broken.cjs')
  writeFileSync(broken, text.slice(0, text.length / 2))
  t.equal(loadPrecompiled(broken), undefined, 'cut short')
  t.equal(standaloneModule(), text, 'the same schemas give the same module')
})

// A copy of the package's lib/ and schemas/ in a scratch folder: precompiled, then a schema edited.
t.test('schemas edited: the old module is not used, the edit is', async (t) => {
  const pkg = t.testdir({})
  for (const d of ['lib', 'schemas']) cpSync(path.join(ROOT, d), path.join(pkg, d), { recursive: true })
  cpSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'))
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'), 'dir')
  mkdirSync(path.join(pkg, 'dist'))
  const probe = path.join(pkg, 'probe.ts')
  writeFileSync(
    probe,
    [
      "import { validate, validatorSource } from './lib/schemas.ts'",
      "import { precompiledFile } from './lib/schema-registry.ts'",
      "import { writePrecompiled } from './lib/schema-standalone.ts'",
      "if (process.argv[2] === 'write') writePrecompiled()",
      "else console.log(JSON.stringify({ source: validatorSource(), file: precompiledFile(), r: validate('admin/common#ULID', '01FSHN9AG0MZAA6S4AF7CTV32E') }))",
    ].join('\n'),
  )
  // A cache folder of its own: the user's holds the modules other runs wrote for the same schemas.
  const cache = path.join(pkg, 'cache')
  const run = (...args: string[]) =>
    execFileSync(process.execPath, ['--import=tsx', probe, ...args], {
      cwd: pkg,
      encoding: 'utf8',
      env: { ...process.env, AC_SCHEMA_VALIDATORS: '', XDG_CACHE_HOME: cache },
    })
  const before = JSON.parse(run())
  t.equal(before.source, 'compiled', 'no module yet: compiled')
  run('write')
  const fresh = JSON.parse(run())
  t.same([fresh.source, fresh.file, fresh.r.valid], ['precompiled', before.file, true], 'written: used')
  const common = path.join(pkg, 'schemas', 'admin', 'common.json')
  writeFileSync(common, readFileSync(common, 'utf8').replace('"^[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{26}$"', '"^[0-9]{26}$"'))
  const edited = JSON.parse(run())
  t.equal(edited.source, 'compiled', 'a schema edited: the module of the old schemas is not used')
  t.not(edited.file, before.file, 'another fingerprint')
  t.equal(edited.r.valid, false, 'the edit counts')
  t.match(edited.r.text, /admin\/common\.json#\/\$defs\/ULID\/pattern/)
  run('write')
  const again = JSON.parse(run())
  t.same([again.source, again.r.valid], ['precompiled', false], 'precompiled again for the edited schemas')
})

t.test('a precompiled module in use gives validate() its results', async (t) => {
  t.equal(precompiledFile(dir), file)
  const r = validate('admin/common#ULID', 'x')
  t.same(r, validateWith(pre!, 'admin/common#ULID', 'x'))
})

t.test('errors are gathered in place, not copied per failing item; a result keeps the first 100 and counts all', async (t) => {
  // ajv's own code concatenated the whole list at each failing $ref: quadratic in a page of tiny invalid items
  const text = standaloneModule({ minify: false })
  t.notMatch(text, /vErrors\.concat\(/, 'the precompiled code never copies the error list')
  const page = { meta: { count: 5000 }, data: Array.from({ length: 5000 }, () => ({})), links: { self: '/x' } }
  const a = validateWith(pre!, 'admin/user#Page', page)
  const b = validateWith('compiled', 'admin/user#Page', page)
  t.equal(a.valid, false)
  t.ok(a.errorCount >= 5000, `${a.errorCount} failures counted`)
  t.equal(a.errors.length, 100, 'the first 100 kept')
  t.same(a, b, 'the precompiled and the compiled validators agree')
})
