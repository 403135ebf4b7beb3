// What explore sends and keeps: one request case (an operation of the route tables with its path values,
// query, credential and body), the answer it got, and the text forms a person reads (the request line, a
// curl line whose token comes from an environment variable).
export type Api = 'mas' | 'hs'
/** who sends: the admin token, the non-admin token, no Authorization header, or a token that is no token */
export type Auth = 'admin' | 'user' | 'none' | 'malformed'
/** how the case was made: a value the target should take, an edge, a value it must refuse, a method or credential it must refuse */
export type CaseKind = 'valid' | 'boundary' | 'invalid' | 'method' | 'auth' | 'random'

/** A path or query value: literal, or "the first item's field of this listing" (resolved on each side). */
export type Value = string | { sample: string; field: string }

export interface Case {
  api: Api
  /** `METHOD /template` of the route tables (default prefixes); for a method case the path's routed operation */
  operation: string
  method: string
  /** path template in the default prefixes; `{name}` filled from `params` */
  template: string
  params: Record<string, Value>
  query: [string, Value][]
  auth: Auth
  kind: CaseKind
  /** what the case tries, in words ("report_id beyond 2^64") */
  note: string
  /** JSON text of a body (only with --allow-writes), or raw text */
  body?: string
}

/** A case with every sample resolved: what was really sent to one side. */
export interface SentRequest {
  method: string
  /** path and query as sent, in the side's prefixes */
  path: string
  auth: Auth
  body?: string
}

export interface Answer {
  status: number
  contentType: string
  /** the body's JSON, if it was JSON */
  json?: unknown
  /** the body's text, bounded */
  text: string
  /** the Date header: the target's clock, for the oracles that compare a time with now */
  date?: string
}

export const MALFORMED_TOKEN = 'admin-conformance-not-a-token'
const DEFAULT_HS_PREFIX = '/_synapse'
const DEFAULT_CLIENT_PREFIX = '/_matrix'

export interface Prefixes {
  hsPrefix: string
  clientPrefix: string
}

/** A query value as the API's own links write it: brackets readable, the rest percent-encoded. */
function enc(s: string): string {
  return encodeURIComponent(s).replace(/%5B/g, '[').replace(/%5D/g, ']')
}

/** The path and query of a case with its values, in the side's prefixes. */
export function pathOf(c: Case, values: (v: Value) => string | undefined, prefixes: Prefixes): string | undefined {
  let missing = false
  const val = (v: Value) => {
    const s = values(v)
    if (s === undefined) missing = true
    return s ?? ''
  }
  let path = c.template.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(val(c.params[n] ?? '')))
  if (c.api === 'hs') {
    if (path.startsWith(DEFAULT_HS_PREFIX + '/')) path = prefixes.hsPrefix + path.slice(DEFAULT_HS_PREFIX.length)
    else if (path.startsWith(DEFAULT_CLIENT_PREFIX + '/')) path = prefixes.clientPrefix + path.slice(DEFAULT_CLIENT_PREFIX.length)
  }
  const q = c.query.map(([k, v]) => `${enc(k)}=${enc(val(v))}`).join('&')
  if (missing) return undefined
  return q ? `${path}?${q}` : path
}

/** Literal values only (no sample): for the case's own text before it is sent. */
export function literal(v: Value): string {
  return typeof v === 'string' ? v : `<first ${v.field} of ${v.sample}>`
}

/** `GET /path?query` of a case in the default prefixes, samples as placeholders. */
export function caseLine(c: Case): string {
  const p = pathOf(c, literal, { hsPrefix: DEFAULT_HS_PREFIX, clientPrefix: DEFAULT_CLIENT_PREFIX })!
  return `${c.method} ${p} [${c.auth}]${c.body !== undefined ? ` body ${c.body.length > 80 ? c.body.slice(0, 80) + '…' : c.body}` : ''}`
}

/** A shell word in single quotes. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * A curl line that replays a sent request: the token comes from the environment variable that holds it
 * (never printed); the malformed token is harmless and shown as it is.
 */
export function curlLine(api: Api, base: string, r: SentRequest): string {
  const parts = ['curl', '-sS', '-i', '-g']
  if (r.method !== 'GET') parts.push('-X', r.method)
  parts.push(sq(base.replace(/\/+$/, '') + r.path))
  const env =
    api === 'mas' ? (r.auth === 'admin' ? 'MAS_ADMIN_TOKEN' : 'MAS_USER_TOKEN') : r.auth === 'admin' ? 'HS_ADMIN_TOKEN' : 'HS_USER_TOKEN'
  if (r.auth === 'admin' || r.auth === 'user') parts.push('-H', `"Authorization: Bearer \$${env}"`)
  if (r.auth === 'malformed') parts.push('-H', sq(`Authorization: Bearer ${MALFORMED_TOKEN}`))
  if (r.body !== undefined) parts.push('-H', sq('content-type: application/json'), '--data-raw', sq(r.body))
  return parts.join(' ')
}
