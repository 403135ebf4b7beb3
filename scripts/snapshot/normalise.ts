// Values that cannot be compared across runs (ids, timestamps, tokens, cursors, counts that move) are
// replaced by placeholders before a body is recorded, and the snapshot says how (its normalisation
// section): field names the schemas mark (schema-facts.ts), known names of the homeserver's API, and
// patterns recognised anywhere in a string (an id inside an error text or a link).
import { schemaFieldRules, type FieldRule } from './schema-facts.ts'

export type Api = 'mas' | 'hs'

/** Known names beyond what the schemas say (the homeserver's API has integer ids, offsets and ms timestamps). */
const KNOWN_FIELDS: Record<string, FieldRule> = {
  next_token: { placeholder: '<cursor>', why: 'an offset that moves with the data' },
  prev_token: { placeholder: '<cursor>', why: 'an offset that moves with the data' },
  total: { placeholder: '<count>', why: 'a count that moves with the data (0 is kept)' },
  count: { placeholder: '<count>', why: 'a count that moves with the data (0 is kept)' },
  id: { placeholder: '<id>', why: 'an id' },
  received_ts: { placeholder: '<timestamp>', why: 'a time in ms' },
  origin_server_ts: { placeholder: '<timestamp>', why: 'a time in ms' },
  ts: { placeholder: '<timestamp>', why: 'a time in ms' },
  valid_until_ts: { placeholder: '<timestamp>', why: 'a time in ms (the signing keys are valid for a while from now)' },
  age: { placeholder: '<duration>', why: 'a duration that moves' },
  server_version: { placeholder: '<version>', why: 'the release itself (recorded in the snapshot header)' },
  python_version: { placeholder: '<version>', why: 'a runtime version' },
  version: { placeholder: '<version>', why: 'the release itself (recorded in the snapshot header)' },
  access_token: { placeholder: '<token>', why: 'a secret' },
  refresh_token: { placeholder: '<token>', why: 'a secret' },
  token: { placeholder: '<token>', why: 'a secret (registration token)' },
  client_secret: { placeholder: '<token>', why: 'a secret' },
  score: { placeholder: '<number>', why: 'data of a report' },
  reason: { placeholder: '<text>', why: 'data of a report' },
}

/** Patterns recognised inside any string, in this order. */
export const VALUE_PATTERNS: readonly { name: string; re: RegExp; placeholder: string }[] = [
  { name: 'token', re: /\b(?:mat|mar|mct|mcr|mpt|syt|syr|secret)_[A-Za-z0-9_]{8,}/g, placeholder: '<token>' },
  { name: 'date-time', re: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, placeholder: '<date-time>' },
  { name: 'ulid', re: /\b[0-9A-HJKMNP-TV-Z]{26}\b/g, placeholder: '<ulid>' },
  { name: 'matrix-user-id', re: /@[A-Za-z0-9._=\-/+]+:[A-Za-z0-9.-]+(?::\d+)?/g, placeholder: '<user-id>' },
  { name: 'matrix-room-id', re: /![A-Za-z0-9._=\-/+]+:[A-Za-z0-9.-]+(?::\d+)?/g, placeholder: '<room-id>' },
  { name: 'matrix-event-id', re: /\$[A-Za-z0-9_+/=-]{10,}(?::[A-Za-z0-9.-]+)?/g, placeholder: '<event-id>' },
  // A whole value of standard base64 (signing keys, signatures): `+` and `/` end the word match below.
  { name: 'base64', re: /^[A-Za-z0-9+/]{40,}={0,2}$/g, placeholder: '<opaque>' },
  { name: 'opaque', re: /\b[A-Za-z0-9_-]{40,}\b/g, placeholder: '<opaque>' },
]

export interface NormalisationSection {
  /** per API: field name → placeholder and why */
  fields: Record<Api, Record<string, FieldRule>>
  patterns: { name: string; placeholder: string; pattern: string }[]
  arrays: string
  headers: string
  text: string
  urls: string
}

export function normalisationSection(): NormalisationSection {
  return {
    fields: { mas: fieldRules('mas'), hs: fieldRules('hs') },
    patterns: VALUE_PATTERNS.map((p) => ({ name: p.name, placeholder: p.placeholder, pattern: p.re.source })),
    arrays:
      'an array is recorded as its length (path#length) and its items merged (path[]): a field seen with one value keeps it, with several keeps up to 4 distinct values sorted, more: the type and *',
    headers: `only these headers are recorded: ${RECORDED_HEADERS.join(', ')} and every access-control-*; their values pass the same patterns, and server's release number becomes <version>`,
    text: `a body that is not JSON is recorded as its first ${TEXT_LIMIT} characters after the patterns`,
    urls: "the target's own base URLs become <mas-url> and <hs-url> (<target-url> when both are one), before the patterns",
  }
}

const rulesCache = new Map<Api, Record<string, FieldRule>>()
function fieldRules(api: Api): Record<string, FieldRule> {
  let r = rulesCache.get(api)
  if (!r) {
    r = { ...KNOWN_FIELDS, ...schemaFieldRules(api) }
    rulesCache.set(api, r)
  }
  return r
}

export const RECORDED_HEADERS = [
  'content-type',
  'allow',
  'www-authenticate',
  'cache-control',
  'location',
  'server',
  'x-content-type-options',
  'x-frame-options',
  'referrer-policy',
  'cross-origin-resource-policy',
]
const TEXT_LIMIT = 300

/** The target's own base URLs and their placeholders: a deployment that moves keeps its behaviour. */
export type Bases = readonly (readonly [string, string])[]

/** A string with the target's base URLs and every recognised value replaced by placeholders. */
export function normaliseText(s: string, bases: Bases = []): string {
  let out = s
  for (const [url, placeholder] of bases) if (url) out = out.split(url).join(placeholder)
  for (const p of VALUE_PATTERNS) out = out.replace(p.re, p.placeholder)
  return out
}

/** The recorded headers of an answer, normalised. */
export function normaliseHeaders(headers: Record<string, string>, bases: Bases = []): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(headers).sort()) {
    if (!RECORDED_HEADERS.includes(name) && !name.startsWith('access-control-')) continue
    let v = normaliseText(headers[name]!, bases)
    if (name === 'server') v = v.replace(/\d+(?:\.\d+)+\S*/g, '<version>')
    out[name] = v
  }
  return out
}

function leaf(api: Api, key: string | undefined, v: unknown, bases: Bases): string {
  const rule = key !== undefined ? fieldRules(api)[key] : undefined
  if (v === null) return 'null'
  if (rule && typeof v !== 'object') {
    if (rule.placeholder === '<count>' && v === 0) return 'number:0'
    return `${typeof v}:${rule.placeholder}`
  }
  if (typeof v === 'string') return `string:${JSON.stringify(normaliseText(v, bases))}`
  return `${typeof v}:${String(v)}`
}

/**
 * A JSON body as a flat map of paths to normalised values: `$.data[].attributes.status` →
 * `string:"active"`; arrays as their length and their items merged; object keys sorted.
 */
export function flattenBody(api: Api, body: unknown, bases: Bases = []): Record<string, string> {
  const values = new Map<string, Set<string>>()
  const put = (p: string, v: string) => {
    let s = values.get(p)
    if (!s) values.set(p, (s = new Set()))
    s.add(v)
  }
  const walk = (p: string, key: string | undefined, v: unknown, depth: number) => {
    if (depth > 32) return put(p, 'too-deep')
    if (Array.isArray(v)) {
      put(`${p}#length`, `number:${v.length}`)
      for (const item of v) walk(`${p}[]`, key, item, depth + 1)
      return
    }
    if (v && typeof v === 'object') {
      const keys = Object.keys(v).sort()
      if (keys.length === 0) put(p, 'object:{}')
      // (an object whose keys are ids, such as a map of sessions by id, is recorded by its shape)
      for (const k of keys) walk(`${p}.${normaliseText(k)}`, k, (v as Record<string, unknown>)[k], depth + 1)
      return
    }
    put(p, leaf(api, key, v, bases))
  }
  walk('$', undefined, body, 0)
  const out: Record<string, string> = {}
  for (const [p, set] of values) {
    const vs = [...set].sort()
    if (vs.length === 1) out[p] = vs[0]!
    else if (vs.length <= 4) out[p] = vs.join(' | ')
    else out[p] = [...new Set(vs.map((x) => `${x.split(':')[0]}:*`))].sort().join(' | ')
  }
  return out
}

/** A body that is not JSON: its first characters, normalised. */
export function normaliseBodyText(text: string, bases: Bases = []): string {
  return normaliseText(text.length > TEXT_LIMIT ? text.slice(0, TEXT_LIMIT) + '…' : text, bases)
}
