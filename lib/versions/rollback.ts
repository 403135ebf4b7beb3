// Rollback ranges (lib/data/rollback-ranges.json): the earliest version each release can be rolled back to.
import rollbackData from '../data/rollback-ranges.json' with { type: 'json' }
import type { RollbackRangesSource, RollbackRangesTable } from '../types.gen.ts'
import {
  compareVersions,
  formatVersion,
  parseServerVersionString,
  parseVersion,
  toVersion,
  type Version,
  type VersionLike,
  VersionError,
} from './parse.ts'

export type TableName = 'interface' | 'reference'
export type SourceName = RollbackRangesSource
export const TABLE_NAMES: readonly TableName[] = ['interface', 'reference']
export const DEFAULT_TABLE: TableName = rollbackData.default as TableName

export interface RollbackRange {
  readonly from: Version
  /** null: open-ended (the newest row of a table computed from release tags) */
  readonly to: Version | null
  readonly floor: Version
  readonly source: SourceName
  readonly section: string
}
export interface RollbackTable {
  readonly name: TableName
  readonly source: SourceName
  readonly section: string
  readonly note: string | null
  /** newest release the table was computed from (reference table only) */
  readonly observedUpTo: Version | null
  readonly rows: readonly RollbackRange[]
}

export interface FloorHit {
  kind: 'floor'
  beyondTable?: false
  table: TableName
  floor: Version
  range: { from: Version; to: Version | null }
  source: SourceName
  section: string
  /** true when the version is newer than the newest release the (open-ended) table was computed from */
  extrapolated: boolean
}
export interface FloorBeyondTable {
  kind: 'beyond-table'
  beyondTable: true
  table: 'interface'
  /** the interface table's last row; the version is newer than its end */
  lastRow: RollbackRange
  /** what the reference table says, for display only: never used as the floor in this mode */
  reference: FloorHit | FloorNotCovered
}
export interface FloorNotCovered {
  kind: 'not-covered'
  notCovered: true
  table: TableName
  reason: string
  previousRow: RollbackRange | null
  nextRow: RollbackRange | null
}
export type FloorResult = FloorHit | FloorBeyondTable | FloorNotCovered

function loadTable(name: TableName): RollbackTable {
  const t = rollbackData.tables[name] as RollbackRangesTable
  const rows = t.rows.map((r) =>
    Object.freeze({
      from: parseVersion(r.from),
      to: r.to === null ? null : parseVersion(r.to),
      floor: parseVersion(r.floor),
      source: r.source,
      section: r.section,
    }),
  )
  // Invariants the JSON Schema cannot express; broken data must fail loudly at import, not answer wrongly.
  rows.forEach((r, i) => {
    const where = `lib/data/rollback-ranges.json tables.${name}.rows[${i}]`
    if (r.to !== null && compareVersions(r.from, r.to) > 0) throw new Error(`${where}: from is after to`)
    if (compareVersions(r.floor, r.from) > 0) throw new Error(`${where}: floor is after from`)
    if (r.to === null && i !== rows.length - 1) throw new Error(`${where}: only the last row may be open-ended`)
    const prev = rows[i - 1]
    if (prev && (prev.to === null || compareVersions(prev.to, r.from) >= 0))
      throw new Error(`${where}: overlaps or precedes the previous row`)
  })
  return Object.freeze({
    name,
    source: t.source,
    section: t.section,
    note: t.note ?? null,
    observedUpTo: t.observedUpTo ? parseVersion(t.observedUpTo) : null,
    rows: Object.freeze(rows),
  })
}

// Exported for the upgrade plan (plan.ts); not part of lib/versions.ts.
export const TABLES: Readonly<Record<TableName, RollbackTable>> = Object.freeze({
  interface: loadTable('interface'),
  reference: loadTable('reference'),
})

export function tableName(opts?: { table?: TableName }): TableName {
  const name = opts?.table ?? DEFAULT_TABLE
  if (!TABLE_NAMES.includes(name)) throw new VersionError(`unknown rollback table ${JSON.stringify(name)}: use 'interface' or 'reference'`)
  return name
}

export function rollbackTable(opts?: { table?: TableName }): RollbackTable {
  return TABLES[tableName(opts)]
}

export function formatRange(r: { from: Version; to: Version | null }): string {
  return r.to === null ? `${formatVersion(r.from)} onward` : `${formatVersion(r.from)}–${formatVersion(r.to)}`
}

export function lookup(table: RollbackTable, v: Version): FloorHit | FloorNotCovered | 'beyond' {
  const rows = table.rows
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    if (compareVersions(v, r.from) < 0) {
      const prev = rows[i - 1] ?? null
      const reason = prev
        ? `${formatVersion(v)} falls between the rollback ranges ${formatRange(prev)} and ${formatRange(r)}; no such release is listed in the ${table.name} table`
        : `${formatVersion(v)} is older than the first rollback range (${formatRange(r)}) of the ${table.name} table`
      return { kind: 'not-covered', notCovered: true, table: table.name, reason, previousRow: prev, nextRow: r }
    }
    if (r.to === null || compareVersions(v, r.to) <= 0) {
      const extrapolated = r.to === null && table.observedUpTo !== null && compareVersions(v, table.observedUpTo) > 0
      return {
        kind: 'floor',
        table: table.name,
        floor: r.floor,
        range: { from: r.from, to: r.to },
        source: r.source,
        section: r.section,
        extrapolated,
      }
    }
  }
  return 'beyond'
}

/**
 * The earliest version `v` can be rolled back to. Default table: the interface document's; a version after
 * its last row is reported as beyond the table (with the reference table's answer attached, never used).
 * A version before the first row or between two rows gives `not-covered`. Throws VersionError on bad text.
 */
export function rollbackFloor(v: VersionLike, opts?: { table?: TableName }): FloorResult {
  const version = toVersion(v)
  const table = rollbackTable(opts)
  const hit = lookup(table, version)
  if (hit !== 'beyond') return hit
  const lastRow = table.rows[table.rows.length - 1]!
  if (table.name !== 'interface') {
    // Only the interface table is closed at the top; kept for completeness should the data change.
    return {
      kind: 'not-covered',
      notCovered: true,
      table: table.name,
      reason: `${formatVersion(version)} is newer than the last rollback range (${formatRange(lastRow)})`,
      previousRow: lastRow,
      nextRow: null,
    }
  }
  const ref = lookup(TABLES.reference, version)
  return {
    kind: 'beyond-table',
    beyondTable: true,
    table: 'interface',
    lastRow,
    reference:
      ref === 'beyond'
        ? {
            kind: 'not-covered',
            notCovered: true,
            table: 'reference',
            reason: `${formatVersion(version)} is not covered by the reference table either`,
            previousRow: null,
            nextRow: null,
          }
        : ref,
  }
}

export type RunningFloor = { ok: true; version: Version; build: string | null; result: FloorResult } | { ok: false; reason: string }

/** For pre-upgrade checks: the floor of the version a live homeserver reports in `server_version`. */
export function floorForRunningVersion(serverVersion: unknown, opts?: { table?: TableName }): RunningFloor {
  const p = parseServerVersionString(serverVersion)
  if (!p.ok) return { ok: false, reason: p.reason }
  return { ok: true, version: p.version, build: p.build, result: rollbackFloor(p.version, opts) }
}
