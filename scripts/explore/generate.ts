// The cases explore sends, generated from the project's own route tables (every operation the target's
// release has, read as data from the mock's tables as snapshot reads them) and the schemas of their
// query parameters (scripts/snapshot/schema-facts.ts): for each parameter the values it should take, its
// edges (0, 1, -1, page sizes, integers beyond 2^32, 2^63 and 2^64, empty, long, unicode, SQL and LIKE
// wildcards) and values it must refuse (wrong types, malformed ids, conflicting page parameters, foreign
// cursors); for each path the methods it lacks; for each operation the credentials it must refuse. The
// catalog is fixed; fast-check, seeded by --seed, adds random combinations of those values on top, so a
// seed always gives the same cases. Read-only unless writes are allowed: a mutating route is then asked
// only without any credential or body (nothing a server can act on).
import fc from 'fast-check'
import { adminTable } from '../../mock/admin/routes.ts'
import { homeserverTable } from '../../mock/homeserver/routes.ts'
import { mockOptions } from '../../mock/core/options.ts'
import { isDocumented, presentAt, templateOf, type OperationDoc, type RouteEntry } from '../../mock/core/table.ts'
import { MUTATING_METHODS } from '../../lib/http.ts'
import { MODEL_GAPS, gapAppliesAt } from '../../lib/model-gaps.ts'
import { queryParams, type ParamKind, type QueryParam } from '../snapshot/schema-facts.ts'
import type { Api, Case, CaseKind, Value } from './cases.ts'

export interface Operation {
  api: Api
  /** `METHOD /template` */
  key: string
  method: string
  template: string
  doc: OperationDoc
  gate: Pick<RouteEntry, 'since' | 'until'>
}

export const MAS_ADMIN_BASE = '/api/admin/v1'
export const HS_ADMIN_BASE = '/_synapse/admin/v1'
export const MISSING_ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAV'
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

/** Every documented operation of areas A and B in the tables, whatever the release. */
export function allOperations(): Operation[] {
  const options = mockOptions({ adminToken: '-', userToken: '-', hsAdminToken: '-', hsUserToken: '-', adminClientSecret: '-' }, {})
  const out: Operation[] = []
  const add = (api: Api, routes: RouteEntry[], keep: (template: string) => boolean) => {
    for (const e of routes) {
      if (!isDocumented(e.doc)) continue
      const template = templateOf(e.pattern)
      if (!keep(template)) continue
      out.push({
        api,
        key: `${e.method} ${template}`,
        method: e.method,
        template,
        doc: e.doc,
        gate: { ...(e.since ? { since: e.since } : {}), ...(e.until ? { until: e.until } : {}) },
      })
    }
  }
  add('mas', adminTable().routes as RouteEntry[], (t) => t.startsWith(MAS_ADMIN_BASE + '/'))
  // area B: the homeserver's admin API (reports, their event context, server_version, background updates)
  add('hs', homeserverTable(options).routes as RouteEntry[], (t) => t.startsWith(HS_ADMIN_BASE + '/'))
  return out
}

/** The operations a release has (versions undefined: every one that was not removed). */
export function operationsAt(versions: { mas?: string; hs?: string }, apis: { mas: boolean; hs: boolean }): Operation[] {
  return allOperations().filter((o) => apis[o.api] && presentAt(o.gate, o.api === 'mas' ? versions.mas : versions.hs))
}

const LONG = 'a'.repeat(2048)
const UNICODE = 'ünï😀日本\u202egnp.exe'
/** SQL and LIKE wildcards, quoting and escapes: a value a store must take as data */
const SQLISH = ["' OR '1'='1", '%', '_', '\\', '%25']
// (the widest first: among requests of one size the first generated is the one a finding shows)
const INTS = {
  boundary: [
    '99999999999999999999999',
    '18446744073709551616',
    '9223372036854775808',
    '9223372036854775807',
    '4294967296',
    '4294967295',
    '1001',
    '1000',
    '-1',
    '0',
    '1',
  ],
  invalid: ['abc', '1.5', '', ' 1', '1e3', '0x10'],
}

interface Pool {
  valid: Value[]
  boundary: Value[]
  invalid: Value[]
}

/** A listing whose ids a ULID filter names: `filter[user]` → the users listing, `filter[client]` → oauth2-clients. */
function listingFor(filter: string, listings: string[]): string | undefined {
  const m = /^filter\[([\w-]+?)(?:-id)?\]$/.exec(filter)
  if (!m) return undefined
  const name = m[1]!.replace(/^(owner|actor)-/, '').replace(/^(owner|actor)_/, '')
  return listings.find((l) => l.endsWith(`/${name}s`)) ?? listings.find((l) => l.endsWith(`-${name}s`))
}

function poolOf(p: QueryParam, api: Api, listings: string[]): Pool {
  const k: ParamKind = p.kind.kind === 'array' ? p.kind.items : p.kind
  switch (k.kind) {
    case 'integer':
      return { valid: ['5'], boundary: INTS.boundary, invalid: INTS.invalid }
    case 'boolean':
      return { valid: ['true', 'false'], boundary: [], invalid: ['maybe', 'TRUE', '1', ''] }
    case 'enum':
      return {
        valid: k.values,
        boundary: [],
        invalid: ['bogus', k.values[0]!.toUpperCase() === k.values[0] ? k.values[0]!.toLowerCase() : k.values[0]!.toUpperCase(), ''],
      }
    case 'ulid': {
      const listing = listingFor(p.name, listings)
      // a cursor from another API (a homeserver offset) and a ULID of no item here
      return {
        valid: listing ? [{ sample: listing, field: 'id' }] : [MISSING_ULID],
        boundary: [MISSING_ULID, '00000000000000000000000000', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'],
        invalid: [
          'not-a-ulid',
          MISSING_ULID.toLowerCase(),
          MISSING_ULID.slice(0, 25),
          MISSING_ULID + 'A',
          '8ZZZZZZZZZZZZZZZZZZZZZZZZZ',
          '10',
          '',
        ],
      }
    }
    case 'date-time':
      return {
        valid: ['2020-01-01T00:00:00Z'],
        boundary: ['1970-01-01T00:00:00Z', '9999-12-31T23:59:59Z'],
        invalid: ['not-a-date', '2020-13-01T00:00:00Z', ''],
      }
    case 'string':
      return { valid: [api === 'hs' ? '@' : 'a'], boundary: ['', LONG, UNICODE, ...SQLISH], invalid: [] }
    case 'array':
      return { valid: [], boundary: [], invalid: [] }
  }
}

/** Values of a path parameter: a real one (sampled from its listing), edges, malformed ones. */
function pathPool(name: string, sample: { sample: string; field: string } | undefined): Pool {
  const valid: Value[] = sample ? [sample] : []
  if (name === 'report_id') {
    return { valid, boundary: [...INTS.boundary, '1000000000'], invalid: ['abc', '1.5', '%', '_', "1' OR '1'='1", UNICODE] }
  }
  if (name === 'username') return { valid, boundary: ['admin-conformance-missing', UNICODE, LONG, ...SQLISH], invalid: [] }
  if (name === 'roomId') return { valid, boundary: ['!admin-conformance-missing:invalid'], invalid: ['not-a-room', ...SQLISH.slice(0, 2)] }
  if (name === 'eventId') return { valid, boundary: ['$admin-conformance-missing'], invalid: ['not-an-event', ...SQLISH.slice(0, 2)] }
  return {
    valid,
    boundary: [MISSING_ULID, '00000000000000000000000000', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ'],
    invalid: ['not-a-ulid', MISSING_ULID.slice(0, 25), MISSING_ULID + 'A', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ', UNICODE, ...SQLISH],
  }
}

/** A harmless value for a path parameter: an id no item has. */
function missingValue(name: string): string {
  if (name === 'report_id') return '1000000000'
  if (name === 'username') return 'admin-conformance-missing'
  if (name === 'roomId') return '!admin-conformance-missing:invalid'
  if (name === 'eventId') return '$admin-conformance-missing'
  return MISSING_ULID
}

function show(v: Value): string {
  if (typeof v !== 'string') return `a real ${v.field}`
  if (v === '') return 'empty'
  if (v.length > 40) return `${v.length} characters`
  return JSON.stringify(v)
}

export interface GenerateOptions {
  versions: { mas?: string; hs?: string }
  apis: { mas: boolean; hs: boolean }
  allowWrites: boolean
  seed: number
  /** random combinations drawn per listing (fast-check) */
  random: number
}

/** The listing a single resource's id is sampled from, and the field that holds it. */
export function sampleSource(op: Operation, listings: string[]): { sample: string; field: string } | undefined {
  const names = [...op.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
  const last = names[names.length - 1]
  if (!last || names.length > 1 || !op.template.endsWith(`{${last}}`)) return undefined
  let parent = op.template.slice(0, op.template.lastIndexOf('/'))
  if (parent.endsWith('/by-username')) parent = parent.slice(0, -'/by-username'.length)
  if (!listings.includes(parent)) return undefined
  return { sample: parent, field: last === 'username' ? 'username' : 'id' }
}

/** Every case of a run, in a fixed order for a seed. */
export function generate(o: GenerateOptions): Case[] {
  const ops = operationsAt(o.versions, o.apis)
  const listings = ops.filter((op) => op.method === 'GET' && !op.template.includes('{') && op.doc.query).map((op) => op.template)
  const out: Case[] = []
  const seen = new Set<string>()
  const add = (op: Operation, kind: CaseKind, note: string, c: Partial<Case>) => {
    const k: Case = {
      api: op.api,
      operation: op.key,
      method: op.method,
      template: op.template,
      params: {},
      query: [],
      auth: 'admin',
      kind,
      note,
      ...c,
    }
    const id = JSON.stringify([k.method, k.template, k.params, k.query, k.auth, k.body])
    if (seen.has(id)) return
    seen.add(id)
    out.push(k)
  }
  const security = (op: Operation) => op.doc.security
  for (const op of ops) {
    const names = [...op.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    const missing = Object.fromEntries(names.map((n) => [n, missingValue(n)]))
    const mutating = MUTATING_METHODS.has(op.method)
    if (mutating) {
      // read-only: no credential and no body; the answer still says how the route treats strangers
      add(op, 'auth', 'no credential', { params: missing, auth: 'none' })
      if (!o.allowWrites) continue
      add(op, 'auth', 'a malformed token', { params: missing, auth: 'malformed' })
      if (security(op) !== 'none') add(op, 'auth', 'a non-admin token', { params: missing, auth: 'user' })
      // writes allowed: only what a conformant server refuses (an id of no item, bodies of the wrong shape)
      if (names.length) add(op, 'boundary', 'an id of no item', { params: missing, ...(op.doc.body ? { body: '{}' } : {}) })
      if (op.doc.body) {
        for (const [body, note] of [
          ['[]', 'a JSON array as body'],
          ['{"admin-conformance":1}', 'an object of unknown keys'],
          ['not json', 'a body that is not JSON'],
        ] as const) {
          if (names.length === 0 || !op.template.endsWith('}')) add(op, 'invalid', note, { params: missing, body })
        }
      }
      continue
    }
    const qp = op.doc.query ? queryParams(op.doc.query) : []
    // the request that should simply work
    if (names.length === 0) add(op, 'valid', 'no parameters', {})
    const src = sampleSource(op, listings)
    if (names.length > 0) {
      const last = names[names.length - 1]!
      const pool = pathPool(last, src)
      for (const [kind, values] of [
        ['valid', pool.valid],
        ['boundary', pool.boundary],
        ['invalid', pool.invalid],
      ] as const) {
        for (const v of values) add(op, kind, `${last} ${show(v)}`, { params: { ...missing, [last]: v } })
      }
    }
    for (const p of qp) {
      const pool = poolOf(p, op.api, listings)
      for (const [kind, values] of [
        ['valid', pool.valid],
        ['boundary', pool.boundary],
        ['invalid', pool.invalid],
      ] as const) {
        for (const v of values) add(op, kind, `${p.name} ${show(v)}`, { params: missing, query: [[p.name, v]] })
      }
    }
    // conflicting page parameters and foreign cursors
    const has = (n: string) => qp.some((p) => p.name === n)
    if (has('page[first]') && has('page[last]'))
      add(op, 'invalid', 'page[first] with page[last]', {
        params: missing,
        query: [
          ['page[first]', '2'],
          ['page[last]', '2'],
        ],
      })
    if (has('page[before]') && has('page[after]'))
      add(op, 'invalid', 'page[before] with page[after]', {
        params: missing,
        query: [
          ['page[after]', MISSING_ULID],
          ['page[before]', '00000000000000000000000000'],
        ],
      })
    if (has('page[after]')) {
      const foreign = listings.find((l) => l !== op.template && l.startsWith(MAS_ADMIN_BASE))
      if (foreign)
        add(op, 'invalid', 'a cursor of another listing', { params: missing, query: [['page[after]', { sample: foreign, field: 'id' }]] })
      add(op, 'invalid', 'a homeserver offset as cursor', { params: missing, query: [['page[after]', '100']] })
    }
    if (has('from')) add(op, 'invalid', 'an auth-service cursor as offset', { params: missing, query: [['from', MISSING_ULID]] })
    if (has('count') && has('page[first]'))
      add(op, 'boundary', 'count=only with page[first]', {
        params: missing,
        query: [
          ['count', 'only'],
          ['page[first]', '1'],
        ],
      })
    if (has('limit') && has('from'))
      add(op, 'boundary', 'from past the end', {
        params: missing,
        query: [
          ['from', '1000000'],
          ['limit', '1'],
        ],
      })
    // credentials the operation must refuse
    if (security(op) !== 'none') {
      add(op, 'auth', 'no credential', { params: missing, auth: 'none' })
      add(op, 'auth', 'a malformed token', { params: missing, auth: 'malformed' })
      if (security(op) !== 'hs-user') add(op, 'auth', 'a non-admin token', { params: missing, auth: 'user' })
    }
    // random combinations of the values above, drawn by fast-check from the seed
    if (qp.length > 1 && o.random > 0) {
      const byName = qp
        .map((p) => {
          const pool = poolOf(p, op.api, listings)
          return { name: p.name, values: [...pool.valid, ...pool.boundary, ...pool.invalid] }
        })
        .filter((p) => p.values.length > 0)
      const arb = fc
        .uniqueArray(fc.constantFrom(...byName), { minLength: 2, maxLength: Math.min(4, byName.length), selector: (p) => p.name })
        .chain((ps) => fc.tuple(...ps.map((p) => fc.constantFrom(...p.values).map((v) => [p.name, v] as [string, Value]))))
      const seed = o.seed ^ hash(op.key)
      for (const query of fc.sample(arb, { seed, numRuns: o.random }))
        add(op, 'random', `random: ${query.map(([k, v]) => `${k} ${show(v)}`).join(', ')}`, { params: missing, query })
    }
  }
  // methods a path does not have at this release
  const byPath = new Map<string, { api: Api; methods: Set<string>; op: Operation }>()
  for (const op of ops) {
    const e = byPath.get(op.template) ?? { api: op.api, methods: new Set<string>(), op }
    e.methods.add(op.method)
    if (op.method === 'GET') e.op = op
    byPath.set(op.template, e)
  }
  for (const [template, e] of byPath) {
    const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    const params = Object.fromEntries(names.map((n) => [n, missingValue(n)]))
    // a method the real release routes but the model does not model is a known gap, not one the path lacks
    const unmodelled = (m: string) =>
      MODEL_GAPS.some(
        (g) =>
          g.product === (e.api === 'mas' ? 'mas' : 'synapse') &&
          g.operation === `${m} ${template}` &&
          g.aspects.includes('*') &&
          gapAppliesAt(g, e.api === 'mas' ? o.versions.mas : o.versions.hs),
      )
    for (const m of METHODS.filter((x) => !e.methods.has(x) && !unmodelled(x))) {
      // mutating methods without any credential unless writes are allowed (a conformant server acts on nothing)
      const auth = MUTATING_METHODS.has(m) && !o.allowWrites ? 'none' : 'admin'
      out.push({
        api: e.api,
        operation: e.op.key,
        method: m,
        template,
        params,
        query: [],
        auth,
        kind: 'method',
        note: `${m}, which the path does not have`,
      })
    }
  }
  // routes the release does not have at all (added later, or removed): the release must not route them
  for (const op of allOperations().filter((x) => o.apis[x.api] && !byPath.has(x.template))) {
    const names = [...op.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    const params = Object.fromEntries(names.map((n) => [n, missingValue(n)]))
    const auth = MUTATING_METHODS.has(op.method) && !o.allowWrites ? 'none' : 'admin'
    out.push({
      api: op.api,
      operation: op.key,
      method: op.method,
      template: op.template,
      params,
      query: [],
      auth,
      kind: 'method',
      note: 'a route this release does not have',
    })
  }
  return out
}

function hash(s: string): number {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619)
  return h | 0
}
