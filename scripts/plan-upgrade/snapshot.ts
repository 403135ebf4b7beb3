// `plan-upgrade --snapshot FILE`: of the tabled changes between two releases, the ones this deployment
// will meet, judged from its snapshot (admin-conformance snapshot): a change about an operation the
// deployment serves (it answered, not as an unrouted request), about data it holds (a listing that is
// not empty), or about a prefix it still answers under. Rows about configuration, logs or the runtime
// cannot be judged from a snapshot and are listed as such.
import { isUnrouted } from '../diff/compare.ts'
import { normalisePathText, rowsBetween, type Product, type ReleaseRow } from '../common/release-rows.ts'
import type { Observation, Snapshot } from '../snapshot/format.ts'
import type { Version } from '../../lib/versions.ts'

export interface Encounter {
  id: string
  event: string
  source: string
  /** why the deployment meets it (the operations and what they answered), or why it cannot be told */
  evidence: string[]
}

export interface SnapshotEncounters {
  product: Product
  met: Encounter[]
  notMet: Encounter[]
  unobservable: Encounter[]
}

function hasData(o: Observation): boolean {
  const b = o.body ?? {}
  return (
    Object.entries(b).some(([k, v]) => /#length$/.test(k) && v !== 'number:0') ||
    b['$.total'] === 'number:<count>' ||
    b['$.meta.count'] === 'number:<count>'
  )
}

function relates(row: ReleaseRow, o: Observation): boolean {
  if (row.families.some((f) => o.families.includes(f))) return true
  const path = normalisePathText(o.operation.replace(/^\S+ /, ''))
  return row.paths.includes(path)
}

export function encounters(snap: Snapshot, product: Product, from: Version, to: Version): SnapshotEncounters {
  const out: SnapshotEncounters = { product, met: [], notMet: [], unobservable: [] }
  const probes = Object.values(snap.probes).filter((o) => o.api === product)
  for (const row of rowsBetween(product, from, to)) {
    const base = { id: row.id, event: row.event, source: `lib/data/${row.file} (${row.source})` }
    const related = probes.filter((o) => relates(row, o) || (row.families.includes('headers') && o.status !== undefined))
    if (related.length === 0) {
      out.unobservable.push({
        ...base,
        evidence: ['about configuration, logs or the runtime: not visible in a snapshot; check the deployment'],
      })
      continue
    }
    const served = related.filter((o) => o.status !== undefined && !isUnrouted(o) && o.kind !== 'unrouted' && o.kind !== 'legacy-prefix')
    const legacy = related.filter((o) => o.kind === 'legacy-prefix' && o.status !== undefined && !isUnrouted(o))
    const evidence: string[] = []
    for (const o of legacy) evidence.push(`it still answers under a legacy prefix: ${o.method} ${o.request} answered ${o.status}`)
    const withData = served.filter((o) => (o.kind === 'first' || o.kind === 'last') && hasData(o))
    for (const o of withData.slice(0, 2)) evidence.push(`it holds data there: ${o.method} ${o.request} lists items`)
    const ops = [...new Set(served.map((o) => o.operation))]
    if (ops.length) evidence.push(`it serves ${ops.slice(0, 4).join(', ')}${ops.length > 4 ? ` and ${ops.length - 4} more` : ''}`)
    if (evidence.length) out.met.push({ ...base, evidence })
    else
      out.notMet.push({
        ...base,
        evidence: [
          `${row.event.startsWith('added') ? 'new with the upgrade; ' : ''}no operation it concerns is served now: ${[...new Set(related.map((o) => `${o.method} ${o.request} answered ${o.status ?? 'nothing'}`))].slice(0, 3).join('; ')}`,
        ],
      })
  }
  return out
}

export function renderEncounters(e: SnapshotEncounters, file: string, show: (s: string) => string): string {
  const who = e.product === 'mas' ? 'auth service' : 'homeserver'
  const lines = [`What this deployment will meet (${who}, from the snapshot ${show(file)}):`]
  for (const m of e.met) lines.push(`  meets     ${m.id}, ${m.event}`, ...m.evidence.map((x) => `            ${show(x)}`))
  for (const m of e.notMet) lines.push(`  not met   ${m.id}, ${m.event}`, ...m.evidence.map((x) => `            ${show(x)}`))
  if (e.unobservable.length)
    lines.push(
      `  ${e.unobservable.length} more change(s) concern configuration, logs or the runtime: not visible in a snapshot (see the list above)`,
    )
  return lines.join('\n') + '\n'
}
