// Where each fact of a plan comes from, cited in terms a reader can follow without this project's working
// files: the interface document (as recorded in the repository's lib/data/*.json, explained in
// lib/data/README.md) or the upstream project's own docs and changelog. The data files carry an internal
// `section` pointer; plans print these citations instead.
import {
  compareVersions,
  planUpgrade,
  rollbackTable,
  formatVersion,
  type PlanRange,
  type TableName,
  type UpgradePlan,
} from '../../lib/versions.ts'

/** `complete` (default): the interface document's rows, then the newer rows read from the real project. */
export type PlanTable = 'complete' | TableName
export const PLAN_TABLES: readonly PlanTable[] = ['complete', 'interface', 'reference']
export const DEFAULT_PLAN_TABLE: PlanTable = 'complete'

const INTERFACE_RANGES = 'interface document, Versioning > Rollback ranges of the homeserver (lib/data/rollback-ranges.json)'
const INTERFACE_CHANGES = 'interface document, Versioning (lib/data/homeserver-changes.json)'

function upstreamRanges(): string {
  const upTo = rollbackTable({ table: 'reference' }).observedUpTo
  return `Synapse docs/upgrade.md, "Rolling back to older versions" (generated from the release tags by scripts-dev/schema_versions.py), read up to ${upTo ? formatVersion(upTo) : 'the newest release'}`
}

// Pull requests of the homeserver facts the data records from the real project (their changelog entries).
const SYNAPSE_PULLS: Readonly<Record<string, string>> = {
  'v1.79.0': 'PR #15116',
  'v1.94.0': 'PR #16380; docs/admin_api/version_api.md',
  'v1.106.0': 'PR #16920',
  'v1.122.0': 'PR #17948',
  'v1.150.0': 'PR #19548; docs/upgrade.md, "Updated request log format"',
}

export type CitedSource = 'interface' | 'synapse'
export type CitedRange = Omit<PlanRange, 'source' | 'section'> & { source: CitedSource; cite: string }

/** A rollback range with its citation: the interface's own rows, an interface row the real project extends, or a newer row. */
export function citeRange(r: PlanRange): CitedRange {
  const { source: _s, section: _c, ...rest } = r
  if (r.source === 'interface') return { ...rest, source: 'interface', cite: INTERFACE_RANGES }
  const own = rollbackTable({ table: 'interface' }).rows.find(
    (row) => formatVersion(row.from) === r.from && formatVersion(row.floor) === r.floor,
  )
  if (own && own.to && formatVersion(own.to) === r.to) return { ...rest, source: 'interface', cite: INTERFACE_RANGES }
  if (own && own.to) {
    return {
      ...rest,
      source: 'interface',
      cite: `${INTERFACE_RANGES}, ${formatVersion(own.from)}–${formatVersion(own.to)}; extended to ${r.to ?? 'the newest release'} by ${upstreamRanges()}`,
    }
  }
  return { ...rest, source: 'synapse', cite: upstreamRanges() }
}

export function citeChange(c: { version: string; source: string }): { source: CitedSource; cite: string } {
  if (c.source === 'interface') return { source: 'interface', cite: INTERFACE_CHANGES }
  const pull = SYNAPSE_PULLS[c.version]
  return { source: 'synapse', cite: `Synapse ${c.version} changelog${pull ? ` (${pull})` : ''}` }
}

export type CitedPlan = Omit<UpgradePlan, 'table' | 'targetRange' | 'changes' | 'stepDetails' | 'beyondTable'> & {
  table: PlanTable
  tableDescription: string
  targetRange: CitedRange | null
  beyondTable: null | {
    lastRow: CitedRange
    reference: { rollbackFloor: string; canRollBackToFrom: boolean; range: CitedRange; extrapolated: boolean; steps: string[] } | null
  }
  changes: (Omit<UpgradePlan['changes'][number], 'source' | 'section'> & { source: CitedSource; cite: string })[]
  stepDetails: (Omit<UpgradePlan['stepDetails'][number], 'range'> & { range: CitedRange | null })[]
  /** from == to: nothing to upgrade */
  upToDate: boolean
}

export function describeTable(table: PlanTable): string {
  if (table === 'complete')
    return `complete (default): the interface document's rows up to ${interfaceEnd()}, then the newer rows read from the real project (Synapse docs/upgrade.md)`
  if (table === 'interface') return `interface document only (--table interface): ends at ${interfaceEnd()}; later versions get no floor`
  return `the real project's table only (--table reference): ${upstreamRanges()}`
}

function interfaceEnd(): string {
  const last = rollbackTable({ table: 'interface' }).rows.at(-1)!
  return last.to ? formatVersion(last.to) : formatVersion(last.from)
}

/**
 * The plan with each fact cited. `complete` plans with the real project's table, which agrees with the
 * interface document's wherever the document has a row (checked by test/lib/versions) and goes on after
 * it; the rows are then cited by where each one comes from.
 */
export function citedPlan(from: string, to: string, table: PlanTable, hsPrefix: string): CitedPlan {
  const plan = planUpgrade(from, to, { table: table === 'complete' ? 'reference' : table, hsPrefix })
  const warnings =
    table === 'complete'
      ? plan.warnings.filter((w) => !/this plan uses the reference table as asked/.test(w))
      : plan.warnings.map((w) => w.replace(/ with the reference table the steps/, ' with --table complete the steps'))
  return {
    ...plan,
    table,
    tableDescription: describeTable(table),
    targetRange: plan.targetRange ? citeRange(plan.targetRange) : null,
    beyondTable: plan.beyondTable
      ? {
          lastRow: citeRange(plan.beyondTable.lastRow),
          reference: plan.beyondTable.reference
            ? (({ label: _l, ...r }) => ({ ...r, range: citeRange(r.range) }))(plan.beyondTable.reference)
            : null,
        }
      : null,
    changes: plan.changes.map(({ source, section: _s, ...c }) => ({ ...c, ...citeChange({ version: c.version, source }) })),
    stepDetails: plan.stepDetails.map((s) => ({ ...s, range: s.range ? citeRange(s.range) : null })),
    warnings: warnings.map((w) =>
      w.replace(
        /only where the reference gives them/,
        "only where the real project's changelog facts are recorded (lib/data/homeserver-changes.json)",
      ),
    ),
    upToDate: compareVersions(from, to) === 0,
  }
}
