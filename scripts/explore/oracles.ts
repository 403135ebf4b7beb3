// What explore holds an answer to. Absolute rules, from the interface and the schemas: no 5xx; an error
// in the area's envelope (the auth service's `{errors:[{title}]}`, the homeserver's `{errcode,error}`);
// a documented status's body matches its schema. And the model: the bundled mock claiming the target's
// release, sent the same request: its status, its errcode and its body's shape (the keys, not the values:
// a real target's data differs from the mock's) must be the target's. Each difference is then classified
// (classify.ts): a defect of the target, a known deviation or defect of its release, or a gap of the model.
import { validate } from '../../lib/schemas.ts'
import type { Operation } from './generate.ts'
import type { Answer, Case } from './cases.ts'

export type RuleId =
  | 'no-5xx'
  | 'error-envelope'
  | 'schema'
  | 'model-status'
  | 'model-errcode'
  | 'model-shape'
  | 'model-links'
  | 'model-text'
  | 'listing-invariant'

/** Rules whose findings are advisory: shown and classified, failing the command only with --strict (decision 0011). */
export const ADVISORY: ReadonlySet<RuleId> = new Set(['model-text'])

export interface Violation {
  rule: RuleId
  /** what was expected, in words */
  expected: string
  /** where the rule comes from */
  source: string
}

export const RULES: Record<RuleId, string> = {
  'no-5xx': 'spec/interface.md: every answer of an operation is one it documents; a 5xx is none (a request cannot crash the server)',
  'error-envelope':
    'spec/interface.md, error envelopes: the auth service answers errors as {"errors":[{"title"}]}, the homeserver as {"errcode","error"}',
  schema: 'schemas/: the body of a documented status matches the schema the route table names for it',
  'model-status': "the model (the bundled mock claiming the target's release) answers this request with another status",
  'model-errcode': "the model (the bundled mock claiming the target's release) answers this request with another errcode",
  'model-shape': "the model (the bundled mock claiming the target's release) answers with a body of other keys",
  'model-links':
    "the model (the bundled mock claiming the target's release) writes links.self of the same request with its query parameters in another order",
  'model-text':
    "the model (the bundled mock claiming the target's release) answers this error with another text (advisory: operators and bots read it, but a wording is not a broken contract; decision 0011)",
  'listing-invariant':
    'spec/interface.md, pagination: a walk reads every item once, in order, as many as the count says; every listed id can be fetched',
}

function errcodeOf(a: Answer): string | undefined {
  const e = (a.json as { errcode?: unknown } | undefined)?.errcode
  return typeof e === 'string' ? e : undefined
}

/** Does the answer carry the area's error envelope? */
export function hasEnvelope(api: 'mas' | 'hs', a: Answer): boolean {
  const j = a.json as Record<string, unknown> | undefined
  if (!j || typeof j !== 'object' || Array.isArray(j)) return false
  if (api === 'hs') return typeof j.errcode === 'string' && typeof j.error === 'string'
  const errors = j.errors
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => e && typeof e === 'object' && typeof (e as { title?: unknown }).title === 'string')
  )
}

/**
 * The auth service's JSON body rejections: axum's stock `Json` extractor answers them in plain text, not
 * in the envelope (../shared/reference/mas-admin-api.md, JSON body errors), at 400, 415 and 422.
 */
const BODY_REJECTION =
  /^(Failed to parse the request body as JSON|Failed to deserialize the JSON body into the target type|Expected request with `Content-Type: application\/json`)/

/**
 * The rules an answer alone breaks. A text answer of the auth service is allowed where the table says its
 * status may be text (the JSON body parser's 415/422), for the body parser's own rejections, and for a
 * method or path it does not route (its router answers those empty, as the real one does).
 */
export function absoluteViolations(c: Case, op: Operation | undefined, a: Answer): Violation[] {
  const out: Violation[] = []
  if (a.status >= 500)
    out.push({ rule: 'no-5xx', expected: 'no 5xx: an answer the operation documents (for a bad value a 4xx)', source: RULES['no-5xx'] })
  const doc = c.kind === 'method' ? undefined : op?.doc.responses[String(a.status)]
  if (a.status >= 400) {
    const textAllowed =
      c.api === 'mas' &&
      (c.kind === 'method' ||
        a.status === 405 ||
        doc?.text === true ||
        (doc === undefined && a.json === undefined && a.text === '') ||
        ([400, 415, 422].includes(a.status) && BODY_REJECTION.test(a.text)))
    if (!hasEnvelope(c.api, a) && !(textAllowed && a.json === undefined)) {
      out.push({
        rule: 'error-envelope',
        expected: c.api === 'hs' ? 'a JSON body {"errcode": "M_…", "error": "…"}' : 'a JSON body {"errors": [{"title": "…"}]}',
        source: RULES['error-envelope'],
      })
    }
  }
  if (doc?.ref && a.json !== undefined && !(a.status >= 400 && !hasEnvelope(c.api, a))) {
    const r = validate(doc.ref, a.json)
    if (!r.valid) out.push({ rule: 'schema', expected: `a body matching ${doc.ref}: ${r.text}`, source: RULES.schema })
  } else if (doc?.ref && a.status < 300 && a.json === undefined) {
    out.push({ rule: 'schema', expected: `a JSON body matching ${doc.ref}`, source: RULES.schema })
  }
  return out
}

/**
 * Objects whose keys are data, not shape: an event's content, its signatures and hashes (keyed by server
 * and algorithm), its unsigned section, the background updates (keyed by database).
 */
const FREE_FORM = new Set(['content', 'signatures', 'hashes', 'unsigned', 'current_updates', 'state_key'])

/** The keys of a body down to three levels, first item of each array; values are left out. */
export function shapeOf(v: unknown, depth = 0, into = new Set<string>(), at = ''): Set<string> {
  if (depth > 3 || v === null || typeof v !== 'object') return into
  if (Array.isArray(v)) {
    if (v.length > 0) shapeOf(v[0], depth + 1, into, `${at}[]`)
    return into
  }
  for (const [k, x] of Object.entries(v)) {
    into.add(`${at}.${k}`)
    if (!FREE_FORM.has(k)) shapeOf(x, depth + 1, into, `${at}.${k}`)
  }
  return into
}

/**
 * How much a listing holds: its top-level arrays' lengths and its counts. Keys that come and go with the
 * data (a next_token, a links.next while more pages follow) are only compared between answers of one size.
 */
function sizeOf(v: unknown): string {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return ''
  const o = v as Record<string, unknown>
  const meta = o.meta as Record<string, unknown> | undefined
  return JSON.stringify([
    Object.entries(o)
      .filter(([, x]) => Array.isArray(x))
      .map(([k, x]) => [k, (x as unknown[]).length]),
    o.total,
    meta?.count,
  ])
}

/** Keys one side has and the other lacks, only below arrays and objects both sides fill. */
export function shapeDifference(target: unknown, model: unknown): { onlyTarget: string[]; onlyModel: string[] } {
  const t = shapeOf(target)
  const m = shapeOf(model)
  // a key below a prefix one side does not fill (an empty list, a null) is not compared
  const filled = (s: Set<string>, key: string) => {
    const parent = key.slice(0, Math.max(key.lastIndexOf('.'), 0)).replace(/\[\]$/, '')
    return parent === '' || (s.has(parent) && [...s].some((k) => k.startsWith(parent + '.') || k.startsWith(parent + '[].')))
  }
  const onlyTarget = [...t].filter((k) => !m.has(k) && filled(m, k))
  const onlyModel = [...m].filter((k) => !t.has(k) && filled(t, k))
  return { onlyTarget, onlyModel }
}

function topLevelDifference(target: unknown, model: unknown): { onlyTarget: string[]; onlyModel: string[] } {
  const keys = (v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.entries(v)
          .filter(([, x]) => x !== null && typeof x === 'object')
          .map(([k]) => `.${k}`)
      : []
  const t = keys(target)
  const m = keys(model)
  const all = (v: unknown) => new Set(v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((k) => `.${k}`) : [])
  return { onlyTarget: t.filter((k) => !all(model).has(k)), onlyModel: m.filter((k) => !all(target).has(k)) }
}

/** An error's text: the homeserver's `error`, the auth service's first title. */
export function errorText(a: Answer): string | undefined {
  const j = a.json as { error?: unknown; errors?: { title?: unknown }[] } | undefined
  if (!j || typeof j !== 'object') return undefined
  if (typeof j.error === 'string') return j.error
  const t = Array.isArray(j.errors) ? j.errors[0]?.title : undefined
  return typeof t === 'string' ? t : undefined
}

/**
 * A text with its data put aside: ULIDs, Matrix ids (users, rooms, events, aliases) and numbers, which a
 * real server's own items give (a sampled id differs per side), are one placeholder each.
 */
export function textForm(s: string): string {
  return s
    .replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, '<ulid>')
    .replace(/[@!#$][^\s"':,]+(:[^\s"',]+)?/g, '<matrix-id>')
    .replace(/-?\d+/g, '<n>')
}

/** The names of links.self's query parameters, in order. */
function selfOrder(a: Answer): string[] | undefined {
  const self = (a.json as { links?: { self?: unknown } } | undefined)?.links?.self
  if (typeof self !== 'string') return undefined
  const q = self.split('?')[1]
  return q === undefined ? [] : q.split('&').map((kv) => decodeURIComponent(kv.split('=')[0]!))
}

/** Do two answers agree as far as explore compares (status, errcode, keys, links.self's order, error text)? */
export function alike(a: Answer, b: Answer): boolean {
  return modelViolations(a, b).length === 0
}

/** The differences between the target's answer and the model's. */
export function modelViolations(target: Answer, model: Answer): Violation[] {
  if (target.status !== model.status)
    return [
      {
        rule: 'model-status',
        expected: `${model.status}${errcodeOf(model) ? ` ${errcodeOf(model)}` : ''} (the model's answer)`,
        source: RULES['model-status'],
      },
    ]
  const te = errcodeOf(target)
  const me = errcodeOf(model)
  if (target.status >= 400 && me !== undefined && te !== me)
    return [{ rule: 'model-errcode', expected: `errcode ${me} (the model's answer)`, source: RULES['model-errcode'] }]
  if (target.json !== undefined && model.json !== undefined) {
    // answers of another size: only the top-level keys that hold a list or an object (a `data` that should
    // not be there), not those that come and go with the data (a next_token)
    const same = sizeOf(target.json) === sizeOf(model.json)
    const d = same ? shapeDifference(target.json, model.json) : topLevelDifference(target.json, model.json)
    if (d.onlyTarget.length || d.onlyModel.length) {
      const parts = [
        d.onlyModel.length ? `keys ${d.onlyModel.slice(0, 5).join(', ')}` : '',
        d.onlyTarget.length ? `no keys ${d.onlyTarget.slice(0, 5).join(', ')}` : '',
      ].filter(Boolean)
      return [{ rule: 'model-shape', expected: `${parts.join(' and ')} (as the model's answer)`, source: RULES['model-shape'] }]
    }
  }
  // the release writes links.self's parameters in its own order; the model's for the same request is it
  const ts = selfOrder(target)
  const ms = selfOrder(model)
  if (ts && ms && ts.join('&') !== ms.join('&'))
    return [
      {
        rule: 'model-links',
        expected: `links.self with its parameters in the order ${ms.join(', ') || '(none)'} (as the model's answer; the target wrote ${ts.join(', ')})`,
        source: RULES['model-links'],
      },
    ]
  if (target.status >= 400) {
    const tt = errorText(target)
    const mt = errorText(model)
    if (tt !== undefined && mt !== undefined && textForm(tt) !== textForm(mt))
      return [{ rule: 'model-text', expected: `the text ${JSON.stringify(mt)} (the model's answer)`, source: RULES['model-text'] }]
  }
  return []
}
