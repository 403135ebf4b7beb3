// Compare two snapshots probe by probe: statuses, headers, fields added, removed or retyped, values, and
// routes gained or lost (a probe that was unrouted on one side and routed on the other is one change,
// not a cascade of body differences). What the noise measured varies by itself is left out.
import { aspectsOf } from '../snapshot/aspects.ts'
import type { Observation, Snapshot } from '../snapshot/format.ts'
import { acrossView, typesAgree } from './across.ts'

/**
 * `same-deployment`: one deployment before and after a change, values compared; `across-deployments`:
 * two deployments of (say) one release holding different data, only what a model can promise (across.ts).
 */
export type CompareMode = 'same-deployment' | 'across-deployments'

export type ChangeKind =
  'route-gained' | 'route-lost' | 'availability' | 'status' | 'header' | 'field-added' | 'field-removed' | 'field-retyped' | 'value'

export interface Change {
  kind: ChangeKind
  aspect: string
  before?: string
  after?: string
}

export interface ProbeDiff {
  key: string
  observation: Observation
  changes: Change[]
}

export interface Comparison {
  probes: ProbeDiff[]
  /** changes left out because the noise says they vary by themselves */
  noiseSuppressed: number
  /** probes only one snapshot has (snapshots of different tool versions): not compared */
  onlyBefore: string[]
  onlyAfter: string[]
}

/** No route answered: 405, M_UNRECOGNIZED, or the auth service's bare 404. */
export function isUnrouted(o: Observation): boolean {
  if (o.status === undefined) return false
  if (o.status === 405) return true
  if (o.body?.['$.errcode'] === 'string:"M_UNRECOGNIZED"') return true
  return o.api === 'mas' && o.status === 404 && !Object.keys(o.body ?? {}).some((k) => k.startsWith('$.errors'))
}

function types(v: string): string {
  return [...new Set(v.split(' | ').map((x) => x.split(':')[0]))].sort().join('|')
}

export function compareObservations(
  a0: Observation,
  b0: Observation,
  noise: ReadonlySet<string>,
  mode: CompareMode = 'same-deployment',
): { changes: Change[]; suppressed: number } {
  if (noise.has('*')) return { changes: [], suppressed: 1 }
  const across = mode === 'across-deployments'
  const a = across ? acrossView(a0) : a0
  const b = across ? acrossView(b0) : b0
  // (an error body stays whole in the across view: its values are compared as they are)
  const shapes = across && a.body !== a0.body && b.body !== b0.body
  const x = aspectsOf(a)
  const y = aspectsOf(b)
  let suppressed = 0
  const keep = (c: Change): Change[] => {
    if (noise.has(c.aspect)) {
      suppressed++
      return []
    }
    return [c]
  }
  if (a.status !== undefined && b.status !== undefined && isUnrouted(a) !== isUnrouted(b)) {
    return {
      changes: keep({ kind: isUnrouted(a) ? 'route-gained' : 'route-lost', aspect: 'status', before: x.status, after: y.status }),
      suppressed,
    }
  }
  if ((a.status === undefined) !== (b.status === undefined)) {
    return { changes: keep({ kind: 'availability', aspect: 'status', before: x.status, after: y.status }), suppressed }
  }
  const changes: Change[] = []
  for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
    const before = x[k]
    const after = y[k]
    if (before === after) continue
    if (shapes && k.startsWith('body:') && before !== undefined && after !== undefined && typesAgree(before, after)) continue
    let kind: ChangeKind
    if (k === 'status') kind = 'status'
    else if (k.startsWith('header:')) kind = 'header'
    else if (before === undefined) kind = 'field-added'
    else if (after === undefined) kind = 'field-removed'
    else kind = types(before) !== types(after) ? 'field-retyped' : 'value'
    changes.push(...keep({ kind, aspect: k, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }))
  }
  return { changes, suppressed }
}

/** Noise per probe: the union of what the snapshots recorded and what a second "before" shows. */
export function noiseOf(...parts: (Record<string, string[]> | undefined)[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const p of parts) {
    for (const [key, aspects] of Object.entries(p ?? {})) {
      let s = out.get(key)
      if (!s) out.set(key, (s = new Set()))
      for (const a of aspects) s.add(a)
    }
  }
  return out
}

export function compareSnapshots(
  before: Snapshot,
  after: Snapshot,
  noise: Map<string, Set<string>>,
  mode: CompareMode = 'same-deployment',
): Comparison {
  const out: Comparison = { probes: [], noiseSuppressed: 0, onlyBefore: [], onlyAfter: [] }
  const none = new Set<string>()
  for (const key of Object.keys(before.probes)) {
    const a = before.probes[key]!
    const b = after.probes[key]
    if (!b) {
      out.onlyBefore.push(key)
      continue
    }
    const { changes, suppressed } = compareObservations(a, b, noise.get(key) ?? none, mode)
    out.noiseSuppressed += suppressed
    if (changes.length) out.probes.push({ key, observation: b, changes })
  }
  for (const key of Object.keys(after.probes)) if (!before.probes[key]) out.onlyAfter.push(key)
  return out
}
