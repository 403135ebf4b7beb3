// The fixed set of requests a snapshot sends, built from the project's route tables (every route of the
// auth service's admin API and of the homeserver's table, whatever the release: a route one release lacks
// is exactly what a diff must see appear) and the schemas of their query parameters. Nothing here depends
// on the target's data size: listings are read at their two ends only, never walked.
import { adminTable } from '../../mock/admin/routes.ts'
import { publicTable } from '../../mock/auth-service/routes.ts'
import { homeserverTable } from '../../mock/homeserver/routes.ts'
import { mockOptions } from '../../mock/core/options.ts'
import { isDocumented, presentAt, templateOf, type RouteEntry, type RouteTable } from '../../mock/core/table.ts'
import { LEGACY_ADMIN_PREFIXES } from '../../lib/versions.ts'
import { MUTATING_METHODS } from '../../lib/http.ts'
import { queryParams, type ParamKind, type QueryParam } from './schema-facts.ts'
import type { Api } from './normalise.ts'

export type ProbeKind =
  | 'first'
  | 'last'
  | 'filter'
  | 'bad-input'
  | 'single'
  | 'missing'
  | 'malformed-id'
  | 'no-token'
  | 'user-token'
  | 'route'
  | 'unrouted'
  | 'legacy-prefix'
  | 'discovery'
export type Auth = 'admin' | 'user' | 'none'

/** How a single-resource probe finds a real id: the first item of a listing (or a document) read before. */
export interface SampleFrom {
  /** key of the probe whose answer holds the sample */
  probe: string
  /** path into that answer's JSON, `*` for "the first item" */
  path: string[]
}

export interface Probe {
  key: string
  api: Api
  /** `METHOD /template` in the default prefixes: the operation of the tables */
  operation: string
  /** the families the operation belongs to (as the release tables' appliesTo name them) */
  families: string[]
  kind: ProbeKind
  method: string
  /** path template in the default prefixes; `{name}` filled from `params` when sent */
  template: string
  params: Record<string, string>
  query: [string, string][]
  auth: Auth
  /** the query parameter this probe exercises, if any */
  subject?: string
  /** the route's row in the tables (with its release gate), if the probe aims at a route */
  gate?: Pick<RouteEntry, 'since' | 'until'>
  sample?: SampleFrom
}

export const MISSING_ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAV'
export const OTHER_MISSING_ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAW'
const PAGE = '5'
const DEFAULT_HS_PREFIX = '/_synapse'
const DEFAULT_CLIENT_PREFIX = '/_matrix'
export const MAS_ADMIN_BASE = '/api/admin/v1'
export const HS_ADMIN_BASE = `${DEFAULT_HS_PREFIX}/admin/v1`

function tables(): { mas: RouteTable; pub: RouteTable; hs: RouteTable } {
  const options = mockOptions({ adminToken: '-', userToken: '-', hsAdminToken: '-', hsUserToken: '-', adminClientSecret: '-' }, {})
  return { mas: adminTable(), pub: publicTable(options), hs: homeserverTable(options) }
}

/** The family of a path as the tables' appliesTo name them: the segment after the API's base, `_` as `-`. */
export function pathFamily(template: string): string | undefined {
  for (const base of [MAS_ADMIN_BASE, HS_ADMIN_BASE]) {
    if (template.startsWith(base + '/'))
      return template
        .slice(base.length + 1)
        .split('/')[0]!
        .replace(/_/g, '-')
  }
  return undefined
}

function familiesOf(template: string, tag: string | undefined, extra: string[] = []): string[] {
  const out = new Set<string>(extra)
  const f = pathFamily(template)
  if (f) out.add(f)
  if (tag) out.add(tag.endsWith('s') ? tag : `${tag}s`)
  return [...out]
}

function valueFor(k: ParamKind, n = 0): string[] {
  switch (k.kind) {
    case 'enum':
      return [k.values[0]!]
    case 'ulid':
      return [n === 0 ? MISSING_ULID : OTHER_MISSING_ULID]
    case 'date-time':
      return ['2020-01-01T00:00:00Z']
    case 'boolean':
      return ['true']
    case 'integer':
      return ['1']
    case 'string':
      return ['admin-conformance-snapshot']
    case 'array':
      return [...valueFor(k.items, 0), ...valueFor(k.items, 1)]
  }
}

function badValues(k: ParamKind): string[] {
  switch (k.kind) {
    case 'enum':
      return ['bogus']
    case 'ulid':
      return ['not-a-ulid']
    case 'date-time':
      return ['not-a-date']
    case 'boolean':
      return ['maybe']
    case 'integer':
      return ['-1', 'abc']
    case 'array':
      return badValues(k.items)
    case 'string':
      return []
  }
}

function queryText(q: [string, string][]): string {
  return q.length ? '?' + q.map(([k, v]) => `${k}=${v}`).join('&') : ''
}

function keyOf(
  api: Api,
  method: string,
  template: string,
  params: Record<string, string>,
  q: [string, string][],
  auth: Auth,
  tag?: string,
): string {
  const path = template.replace(/\{(\w+)\}/g, (_, n: string) => `{${n}:${params[n] === undefined ? '' : (tag ?? 'value')}}`)
  return `${api} ${method} ${path}${queryText(q)} [${auth}]`
}

/** The two ends of a listing: page[first]/page[last] for the auth service, dir=b/dir=f for the homeserver. */
function ends(params: QueryParam[]): [ProbeKind, [string, string][]][] {
  const names = new Set(params.map((p) => p.name))
  if (names.has('page[first]') && names.has('page[last]'))
    return [
      ['first', [['page[first]', PAGE]]],
      ['last', [['page[last]', PAGE]]],
    ]
  if (names.has('limit') && names.has('dir'))
    return [
      ['first', [['limit', PAGE]]],
      [
        'last',
        [
          ['limit', PAGE],
          ['dir', 'f'],
        ],
      ],
    ]
  return [['first', []]]
}

interface OpInfo {
  api: Api
  entry: RouteEntry
  template: string
  tag?: string
  security: string
}

function operationsOf(api: Api, table: RouteTable, keep: (e: RouteEntry) => boolean): OpInfo[] {
  return (table.routes as RouteEntry[]).filter(keep).map((entry) => {
    const doc = isDocumented(entry.doc) ? entry.doc : undefined
    return { api, entry, template: templateOf(entry.pattern), tag: doc?.tag, security: doc?.security ?? 'none' }
  })
}

/** Every probe of a snapshot, in the order they are sent (listings before the singles that sample them). */
export function snapshotPlan(apis: { mas: boolean; hs: boolean }): Probe[] {
  const t = tables()
  const ops: OpInfo[] = []
  if (apis.mas) {
    ops.push(...operationsOf('mas', t.mas, () => true))
    // discovery documents of the auth service
    ops.push(...operationsOf('mas', t.pub, (e) => e.method === 'GET' && e.pattern.startsWith('/.well-known/')))
  }
  if (apis.hs) {
    ops.push(
      ...operationsOf('hs', t.hs, (e) => {
        if (isDocumented(e.doc)) return true
        // discovery: parameterless GETs of the client API and the well-known document
        return (
          e.method === 'GET' &&
          !e.pattern.includes(':') &&
          (e.pattern.startsWith('/.well-known/') || /\/(versions|auth_issuer|auth_metadata)$/.test(e.pattern))
        )
      }),
    )
  }
  const probes: Probe[] = []
  const singles: Probe[] = []
  const listingFirst = new Map<string, string>()
  const add = (p: Omit<Probe, 'key'>, tag?: string, into = probes) => {
    const key = keyOf(p.api, p.method, p.template, p.params, p.query, p.auth, tag)
    into.push({ key, ...p })
    return key
  }
  for (const op of ops) {
    const { api, entry, template } = op
    const method = entry.method
    const operation = `${method} ${template}`
    const paramNames = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    const doc = isDocumented(entry.doc) ? entry.doc : undefined
    const discovery = !doc
    const base = {
      api,
      operation,
      families: familiesOf(template, op.tag, discovery && api === 'hs' ? ['client-discovery'] : []),
      method,
      template,
      gate: { since: entry.since, until: entry.until },
    }
    const adminAuth: Auth = op.security === 'none' ? 'none' : op.security === 'hs-user' ? 'user' : 'admin'
    if (MUTATING_METHODS.has(method)) {
      // read-only: a mutating route is asked without any credential, which says whether the release routes it
      const params = Object.fromEntries(paramNames.map((n) => [n, missingValue(n)]))
      add({ ...base, kind: 'route', params, query: [], auth: 'none' }, 'missing')
      continue
    }
    if (discovery) {
      add({ ...base, kind: 'discovery', params: {}, query: [], auth: template.endsWith('/background_updates/enabled') ? 'admin' : 'none' })
      continue
    }
    if (paramNames.length === 0) {
      const qp = doc?.query ? queryParams(doc.query) : []
      let firstKey: string | undefined
      for (const [kind, q] of ends(qp)) {
        const k = add({ ...base, kind, params: {}, query: q, auth: adminAuth })
        firstKey ??= k
      }
      listingFirst.set(template, firstKey!)
      const [, ...rest] = ends(qp)
      for (const f of qp.filter((p) => !p.paging)) {
        const values = valueFor(f.kind)
        for (const [kind, q] of [ends(qp)[0]!, ...rest]) {
          void kind
          add({
            ...base,
            kind: 'filter',
            subject: f.name,
            params: {},
            query: [...q, ...values.map((v) => [f.name, v] as [string, string])],
            auth: adminAuth,
          })
        }
      }
      for (const p of qp) {
        for (const bad of badValues(p.kind))
          add({ ...base, kind: 'bad-input', subject: p.name, params: {}, query: [[p.name, bad]], auth: adminAuth })
      }
      if (adminAuth !== 'none') {
        add({ ...base, kind: 'no-token', params: {}, query: [], auth: 'none' })
        if (adminAuth === 'admin') add({ ...base, kind: 'user-token', params: {}, query: [], auth: 'user' })
      }
      continue
    }
    // a single resource: a real one (sampled from its listing), a missing one, a malformed id
    const last = paramNames[paramNames.length - 1]!
    const parent = template.slice(0, template.lastIndexOf('/'))
    const parentOf = parent.endsWith('/by-username') ? parent.slice(0, -'/by-username'.length) : parent
    const sampleProbe = listingFirst.get(parentOf) ?? listingFirst.get(`${parentOf}/latest`)
    // the item's own key: a username, a room's room_id (the homeserver's room list), else its id
    const sampleField = last === 'username' ? 'username' : last === 'roomId' ? 'room_id' : 'id'
    if (sampleProbe) {
      singles.push({
        key: keyOf(api, method, template, { [last]: 'sample' }, [], adminAuth, 'sample'),
        ...base,
        kind: 'single',
        params: { [last]: '' },
        query: [],
        auth: adminAuth,
        sample: { probe: sampleProbe, path: [sampleField] },
      })
    }
    add({ ...base, kind: 'missing', params: { [last]: missingValue(last) }, query: [], auth: adminAuth }, 'missing', singles)
    const malformed = malformedValue(last)
    if (malformed !== undefined)
      add({ ...base, kind: 'malformed-id', params: { [last]: malformed }, query: [], auth: adminAuth }, 'malformed', singles)
    if (adminAuth !== 'none') {
      add({ ...base, kind: 'no-token', params: { [last]: missingValue(last) }, query: [], auth: 'none' }, 'missing', singles)
      if (adminAuth === 'admin')
        add({ ...base, kind: 'user-token', params: { [last]: missingValue(last) }, query: [], auth: 'user' }, 'missing', singles)
    }
  }
  probes.push(...singles)
  // unrouted requests: an unknown path under each admin base, and the homeserver's legacy admin prefixes
  const unrouted = (api: Api, template: string, families: string[], kind: ProbeKind, method = 'GET') =>
    add({
      api,
      operation: `${method} ${template}`,
      families,
      kind,
      method,
      template,
      params: {},
      query: [],
      auth: method === 'GET' ? 'admin' : 'none',
    })
  if (apis.mas) {
    unrouted('mas', `${MAS_ADMIN_BASE}/admin-conformance-no-such-route`, ['admin-prefix'], 'unrouted')
  }
  if (apis.hs) {
    unrouted('hs', `${HS_ADMIN_BASE}/admin_conformance_no_such_route`, ['admin-prefix', 'event-reports', 'server-version'], 'unrouted')
    // a known path with a method no release routes there (405 or 400, by release)
    unrouted('hs', `${HS_ADMIN_BASE}/server_version`, ['admin-prefix', 'server-version'], 'unrouted', 'PUT')
    for (const prefix of LEGACY_ADMIN_PREFIXES) unrouted('hs', `${prefix}/event_reports`, ['admin-prefix'], 'legacy-prefix')
  }
  return probes
}

function missingValue(name: string): string {
  if (name === 'report_id') return '1000000000'
  if (name === 'username') return 'admin-conformance-missing'
  if (name === 'id' || name.endsWith('Id') === false) return MISSING_ULID
  return name === 'roomId' ? '!admin-conformance-missing:invalid' : name === 'eventId' ? '$admin-conformance-missing' : MISSING_ULID
}

function malformedValue(name: string): string | undefined {
  if (name === 'report_id') return 'abc'
  if (name === 'id') return 'not-a-ulid'
  return undefined
}

/** Does the release's table have the route (`unknown` when the version is not known)? */
export function declaredAt(p: Probe, version: string | undefined): boolean | 'unknown' {
  if (!p.gate) return true
  if (version === undefined) return 'unknown'
  return presentAt(p.gate, version)
}

/** The path to send: the template with its values, in the target's prefixes. */
export function pathToSend(p: Probe, prefixes: { hsPrefix: string; clientPrefix: string }): string {
  let path = p.template.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(p.params[n] ?? ''))
  if (p.api === 'hs') {
    if (path.startsWith(DEFAULT_HS_PREFIX + '/')) path = prefixes.hsPrefix + path.slice(DEFAULT_HS_PREFIX.length)
    else if (path.startsWith(DEFAULT_CLIENT_PREFIX + '/')) path = prefixes.clientPrefix + path.slice(DEFAULT_CLIENT_PREFIX.length)
  }
  return path
}
