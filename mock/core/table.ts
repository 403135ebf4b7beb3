// Route tables: one per API. Each entry registers a route together with its handler, its OpenAPI
// description (or the reason it has none) and the versions of its API that have it, so the router and
// the served document (mock/site/openapi/) are built from the same rows and cannot drift (the real auth
// service registers each admin route with its documentation the same way).
import {
  compareVersions,
  parseServerVersionString,
  MAS_FEATURES,
  SYNAPSE_FEATURES,
  type MasFeature,
  type SynapseFeature,
  type Version,
} from '../../lib/versions.ts'
import type { IncomingHttpHeaders } from 'node:http'
import type { Area, Handler, Reply, Route } from './context.ts'
import type { MockOptions } from './options.ts'

/** One documented status: a JSON body schema ref and/or a plain-text body. */
export interface ResponseDoc {
  description: string
  /** schema ref of a JSON body ('admin/compat-session#Single'); none for an empty body */
  ref?: string
  /** the body may also be plain text (the admin API's JSON body parser answers 415/422 in text) */
  text?: boolean
}

/**
 * Who may call an operation, which also decides the authentication answers the document adds:
 * 'mas-admin' (Bearer with urn:mas:admin: 400/401), 'hs-admin' (server admin: 401/403), 'hs-user'
 * (any user: 401), 'none' (no token at all).
 */
export type Security = 'mas-admin' | 'hs-admin' | 'hs-user' | 'none'

export interface OperationDoc {
  operationId: string
  tag: string
  summary: string
  description?: string
  security: Security
  /** ref of an object schema whose properties are the query parameters */
  query?: string
  body?: { ref: string; description?: string }
  /** every status the handler answers with, besides the authentication answers of `security` */
  responses: Record<string, ResponseDoc>
  deprecated?: boolean
}

/** A route outside the described interface says why it is not in the document. */
export interface Undocumented {
  undocumented: string
}

export interface RouteEntry {
  method: string
  /** router pattern (`:name` segments, `:name?` also matches empty, trailing `*`); becomes `{name}` in the document */
  pattern: string
  handler: Handler
  doc: OperationDoc | Undocumented
  /** the envelope of a miss near this route; default: the table's area */
  area?: Area
  /** first version of the table's API with this route */
  since?: string
  /** first version of the table's API without it */
  until?: string
}

/** What the server knows about a request no route took, for the per-area `unrouted` hook. */
export interface Unrouted {
  method: string
  path: string
  /** methods the path has at the claimed version; empty: no route has the path */
  allowed: string[]
  area: Area
  options: MockOptions
}

/** Per-area behaviour the core asks an API for; an API leaves out what it does not change. */
export interface AreaHooks {
  /** the answer to a request no route took (unknown path, or a method the path lacks at this version) */
  unrouted?: (u: Unrouted) => Reply
  /** headers an answer in the area carries besides CORS (the real server's caching habits) */
  headers?: (method: string, reply: Reply, options: MockOptions) => Record<string, string> | undefined
  /** the CORS headers of every answer in the area, replacing the core's (reflecting, --cors-origin) */
  cors?: (method: string, headers: IncomingHttpHeaders, options: MockOptions) => Record<string, string>
  /** the answer to any OPTIONS in the area, before routing (default: 204 to a preflight, else routed) */
  options?: (path: string, options: MockOptions) => Reply
}

export type ApiName = 'mas-admin' | 'mas-public' | 'homeserver' | 'control' | 'core'

export interface RouteTable {
  api: ApiName
  /** the area routes take unless an entry says otherwise */
  area: Area
  /** the version the mock claims for this API; routes are gated on it (undefined: no versions) */
  version?: (options: MockOptions) => string
  routes: RouteEntry[]
  /** hooks this API contributes for an area (the homeserver's unrouted answers, its headers) */
  hooks?: Partial<Record<Area, AreaHooks>>
}

export function isDocumented(doc: RouteEntry['doc']): doc is OperationDoc {
  return !('undocumented' in doc)
}

/** since/until of a feature row of lib/data, for an entry: `{ ...masGate('personal-sessions'), ... }`. */
export function masGate(feature: MasFeature): Pick<RouteEntry, 'since' | 'until'> {
  return gateOf(MAS_FEATURES[feature])
}
export function synapseGate(feature: SynapseFeature): Pick<RouteEntry, 'since' | 'until'> {
  return gateOf(SYNAPSE_FEATURES[feature])
}
function gateOf(f: { since: Version | null; until: Version | null }): Pick<RouteEntry, 'since' | 'until'> {
  const fmt = (v: Version) => `v${v.major}.${v.minor}.${v.patch}`
  return { ...(f.since ? { since: fmt(f.since) } : {}), ...(f.until ? { until: fmt(f.until) } : {}) }
}

/**
 * Is the entry there at `claimed`? An unparsable claimed version counts as the newest (every route
 * that has not been removed is there), as the suites assume for an unknown version.
 */
export function presentAt(entry: Pick<RouteEntry, 'since' | 'until'>, claimed: string | undefined): boolean {
  if (claimed === undefined) return true
  const p = parseServerVersionString(claimed)
  if (!p.ok) return entry.until === undefined
  if (entry.since && compareVersions(p.version, entry.since) < 0) return false
  if (entry.until && compareVersions(p.version, entry.until) >= 0) return false
  return true
}

/** The routes of a table that exist at the version the mock claims for its API, in router form. */
export function routesAt(table: RouteTable, options: MockOptions): Route[] {
  const claimed = table.version?.(options)
  return table.routes
    .filter((e) => presentAt(e, claimed))
    .map((e) => ({ method: e.method, pattern: e.pattern, handler: e.handler, area: e.area ?? table.area }))
}

/** The router pattern as an OpenAPI path template: `:id` and `:id?` become `{id}`. */
export function templateOf(pattern: string): string {
  return pattern.replace(/:([A-Za-z_][A-Za-z0-9_]*)\??/g, '{$1}')
}

// Shorthands the tables share for their error answers.
export const ADMIN_ERROR = 'admin/error'
export const HS_ERROR = 'homeserver/error'
export const adminErr = (description: string): ResponseDoc => ({ description, ref: ADMIN_ERROR })
export const hsErr = (description: string): ResponseDoc => ({ description, ref: HS_ERROR })
export const bodyRejection = (extra = ''): ResponseDoc => ({
  description: `The JSON body parser rejected the body (plain text): 415 without Content-Type application/json, 422 for a missing key or a wrong type.${extra}`,
  text: true,
})
