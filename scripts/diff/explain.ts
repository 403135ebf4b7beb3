// Which changes the release tables explain. A row explains a change when it is dated between the two
// snapshots' releases of that product, it concerns the operation (one of its families, or it names the
// operation's path; a header row any answer's headers), and it names the change's evidence: the field or
// header that changed, a status or text of either side, or the parameter the probe exercises. A route
// gained or lost needs only the first two. Everything else is unexpected.
import { normalisePathText, rowsBetween, versionOf, type Product, type ReleaseRow } from '../common/release-rows.ts'
import type { Snapshot } from '../snapshot/format.ts'
import type { Change, Comparison } from './compare.ts'
import type { Observation } from '../snapshot/format.ts'
import { gapAppliesAt, gapFor, type ModelGap } from '../../lib/model-gaps.ts'

export interface LabelledChange extends Change {
  expected: boolean
  /** the rows that explain it: id, event and source */
  rows: { id: string; event: string; source: string }[]
  /** across deployments, no row explains it and a known model gap covers it (lib/data/model-gaps.json) */
  gap?: { id: string; cause: string; reason: string }
}

export interface GapRow {
  id: string
  product: Product
  operation: string
  cause: string
  reason: string
  /** it covered at least one observed change */
  seen: boolean
}

export interface OperationReport {
  operation: string
  api: Product
  probes: { key: string; request: string; kind: string; auth: string; changes: LabelledChange[] }[]
}

export interface TabledRow {
  id: string
  event: string
  source: string
  /** it explained at least one observed change */
  seen: boolean
  /** a probe of the snapshots concerns it (a family or path of its own); a configuration, log or runtime fact is not */
  observable: boolean
}

export interface Explained {
  operations: OperationReport[]
  expected: number
  unexpected: number
  /** across deployments: changes a known model gap covers (neither expected nor unexpected) */
  knownGaps: number
  /** across deployments: the known model gaps that concern the snapshots' releases */
  gaps: GapRow[]
  /** per product: the versions compared and the tabled rows between them */
  products: { product: Product; before?: string; after?: string; rows: TabledRow[]; note?: string }[]
}

function mentions(text: string, token: string): boolean {
  const t = token.trim()
  if (t.length < 2) return false
  if (/^[A-Za-z0-9_]+$/.test(t)) return new RegExp(`(^|[^A-Za-z0-9_])${t}($|[^A-Za-z0-9_])`, 'i').test(text)
  return text.toLowerCase().includes(t.toLowerCase())
}

/** The words of a recorded value that a table row may quote: the text itself, and the status. */
function valueTokens(v: string | undefined): string[] {
  if (v === undefined) return []
  const out: string[] = []
  for (const part of v.split(' | ')) {
    const m = /^string:"(.*)"$/.exec(part)
    if (m) {
      const text = JSON.parse(`"${m[1]}"`) as string
      if (!/^<[\w-]+>$/.test(text)) out.push(text)
    } else if (/^\d{3}$/.test(part)) out.push(part)
  }
  return out
}

function fieldName(aspect: string): string | undefined {
  if (!aspect.startsWith('body:')) return undefined
  const m = /\.([^.[\]#]+)(?:\[\])*(?:#length)?$/.exec(aspect)
  return m?.[1]
}

function relates(row: ReleaseRow, o: Observation, c: Change): boolean {
  if (row.families.some((f) => o.families.includes(f))) return true
  const path = normalisePathText(o.operation.replace(/^\S+ /, ''))
  if (row.paths.some((p) => p === path)) return true
  return c.kind === 'header' && row.families.includes('headers')
}

function explains(row: ReleaseRow, o: Observation, c: Change): boolean {
  if (!relates(row, o, c)) return false
  if (c.kind === 'route-gained' || c.kind === 'route-lost' || c.kind === 'availability') return true
  const tokens: string[] = []
  if (c.kind === 'header') tokens.push(c.aspect.slice('header:'.length))
  const field = fieldName(c.aspect)
  if (field) tokens.push(field)
  tokens.push(...valueTokens(c.before), ...valueTokens(c.after))
  if (o.subject) tokens.push(o.subject)
  return tokens.some((t) => mentions(row.text, t))
}

/** The gaps that concern a product present in both snapshots, at the release of either side. */
function gapsFor(before: Snapshot, after: Snapshot, gaps: readonly ModelGap[]): (ModelGap & { side: Product })[] {
  const out: (ModelGap & { side: Product })[] = []
  for (const g of gaps) {
    const side: Product = g.product === 'mas' ? 'mas' : 'hs'
    const b = before.target[side]
    const a = after.target[side]
    if (!b || !a) continue
    if (gapAppliesAt(g, b.version) || gapAppliesAt(g, a.version)) out.push({ ...g, side })
  }
  return out
}

/**
 * Label each change: expected when a table row explains it; with `gaps` (the across-deployments mode),
 * a known model gap when a gap covers it; unexpected otherwise.
 */
export function explain(before: Snapshot, after: Snapshot, cmp: Comparison, gaps?: readonly ModelGap[]): Explained {
  const products: Explained['products'] = []
  const rowsOf = new Map<Product, ReleaseRow[]>()
  for (const product of ['mas', 'hs'] as const) {
    const b = before.target[product]
    const a = after.target[product]
    if (!b && !a) continue
    const vb = versionOf(b?.version)
    const va = versionOf(a?.version)
    if (!vb || !va) {
      products.push({
        product,
        ...(b?.version ? { before: b.version } : {}),
        ...(a?.version ? { after: a.version } : {}),
        rows: [],
        note: 'a release is not known on one side: no table row can explain a change',
      })
      rowsOf.set(product, [])
      continue
    }
    const rows = rowsBetween(product, vb, va)
    rowsOf.set(product, rows)
    const observed = Object.values({ ...before.probes, ...after.probes }).filter((o) => o.api === product)
    const families = new Set(observed.flatMap((o) => o.families))
    const paths = new Set(observed.map((o) => normalisePathText(o.operation.replace(/^\S+ /, ''))))
    const observable = (r: ReleaseRow) =>
      r.families.includes('headers') || r.families.some((f) => families.has(f)) || r.paths.some((p) => paths.has(p))
    products.push({
      product,
      before: b!.version!,
      after: a!.version!,
      rows: rows.map((r) => ({
        id: r.id,
        event: r.event,
        source: `lib/data/${r.file} (${r.source})`,
        seen: false,
        observable: observable(r),
      })),
    })
  }
  const seen = new Set<string>()
  const byOp = new Map<string, OperationReport>()
  let expected = 0
  let unexpected = 0
  let knownGaps = 0
  const applicable = gaps ? gapsFor(before, after, gaps) : []
  const gapsSeen = new Set<string>()
  for (const p of cmp.probes) {
    const o = p.observation
    const rows = rowsOf.get(o.api) ?? []
    const labelled = p.changes.map((c): LabelledChange => {
      const hits = rows.filter((r) => explains(r, o, c))
      for (const h of hits) seen.add(h.id)
      const gap = hits.length ? undefined : gapFor(applicable, o.api === 'mas' ? 'mas' : 'synapse', o.operation, c.aspect)
      if (hits.length) expected++
      else if (gap) {
        knownGaps++
        gapsSeen.add(gap.id)
      } else unexpected++
      return {
        ...c,
        expected: hits.length > 0,
        rows: hits.map((r) => ({ id: r.id, event: r.event, source: `lib/data/${r.file} (${r.source})` })),
        ...(gap ? { gap: { id: gap.id, cause: gap.cause, reason: gap.reason } } : {}),
      }
    })
    const opKey = `${o.api} ${o.operation}`
    let op = byOp.get(opKey)
    if (!op) byOp.set(opKey, (op = { operation: o.operation, api: o.api, probes: [] }))
    op.probes.push({ key: p.key, request: `${o.method} ${o.request}`, kind: o.kind, auth: o.auth, changes: labelled })
  }
  for (const pr of products) for (const r of pr.rows) r.seen = seen.has(r.id)
  // a gap of an operation no probe asked (a method the mock does not model, met by explore) is not listed as unseen
  const probed = new Set(cmp.probes.map((p) => `${p.observation.api} ${p.observation.operation}`))
  const gapRows: GapRow[] = applicable
    .filter((g) => probed.has(`${g.side} ${g.operation}`))
    .map((g) => ({
      id: g.id,
      product: g.side,
      operation: g.operation,
      cause: g.cause,
      reason: g.reason,
      seen: gapsSeen.has(g.id),
    }))
  return { operations: [...byOp.values()], expected, unexpected, knownGaps, gaps: gapRows, products }
}
