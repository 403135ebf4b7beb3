// The view of an observation that two different deployments of one release can share: what a model can
// promise, not the data it holds (decision 0009). Kept: the status, the recorded headers, an error body
// whole (errcode, error text), the body's field set and each field's types. Left out: array lengths and
// every other value (rooms, names, ids, messages differ from one deployment to another). Below a field
// the schemas declare a map or free-form object (an event's content, signatures, hashes; the background
// updates by database) keys and types are data too: only the object's presence is compared.
import { schemaMapFields } from '../snapshot/schema-facts.ts'
import type { Observation } from '../snapshot/format.ts'

/** What `--across-deployments` compares and what it leaves out, for the report and the help. */
export const ACROSS_RULES = [
  'statuses, routes, recorded headers, and error bodies (errcode, error, errors) as they are',
  'other body fields by presence and types (null on one side agrees with any type: it is data)',
  'array lengths are not compared; a next link or cursor is: give both sides more than a page, or neither',
  'a field the schemas declare a map or free-form object (event content, signatures): presence only',
]

/** An answer whose body is an error: compared whole, since its code and text are what a model promises. */
function isErrorBody(body: Record<string, string>): boolean {
  return '$.errcode' in body || Object.keys(body).some((k) => k.startsWith('$.errors'))
}

function typesOf(v: string): string[] {
  return v.split(' | ').map((x) => x.split(':')[0]!)
}

function collapse(p: string, maps: readonly string[]): string {
  let cut = -1
  for (const m of maps) {
    const i = p.indexOf(`${m}.`)
    if (i >= 0 && (cut < 0 || i < cut)) cut = i + m.length
  }
  return cut < 0 ? p : p.slice(0, cut)
}

/** The observation as `--across-deployments` compares it: body values become their sorted types. */
export function acrossView(o: Observation): Observation {
  if (!o.body || '$text' in o.body || '$empty' in o.body || isErrorBody(o.body)) return o
  const maps = [...schemaMapFields(o.api === 'mas' ? 'mas' : 'hs').keys()]
  const merged = new Map<string, Set<string>>()
  for (const [p, v] of Object.entries(o.body)) {
    if (p.endsWith('#length')) continue
    const key = collapse(p, maps)
    let s = merged.get(key)
    if (!s) merged.set(key, (s = new Set()))
    if (key !== p) s.add('object')
    else for (const t of typesOf(v)) s.add(t)
  }
  const body: Record<string, string> = {}
  for (const [p, s] of merged) body[p] = [...s].sort().join('|')
  return { ...o, body }
}

/** Do two type sets of one field agree, across deployments? `null` alone agrees with anything. */
export function typesAgree(a: string, b: string): boolean {
  const x = a.split('|').filter((t) => t !== 'null')
  const y = b.split('|').filter((t) => t !== 'null')
  if (x.length === 0 || y.length === 0) return true
  return x.join('|') === y.join('|')
}
