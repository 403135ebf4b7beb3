// The upgrade plan: the steps from one homeserver version to another, rollback floors, changes, reminders.
import { backgroundUpdatesStatusPath, changesBetween, INTERFACE_CHANGES_UP_TO, type ChangeAction } from './changes.ts'
import { compareVersions, formatVersion, toVersion, type Version, type VersionLike, VersionError } from './parse.ts'
import {
  formatRange,
  lookup,
  rollbackFloor,
  rollbackTable,
  TABLES,
  tableName,
  type RollbackRange,
  type RollbackTable,
  type SourceName,
  type TableName,
} from './rollback.ts'

export interface PlanRange {
  from: string
  to: string | null
  floor: string
  source: SourceName
  section: string
}
/**
 * Why a version is a step: `from-range-end` the last version of `from`'s own range (only when that makes
 * the next hop reversible, or may: next floor unknown), `range-end` the last version of a range crossed,
 * `target` the target itself (always the last step).
 */
export type StepKind = 'from-range-end' | 'range-end' | 'target'
export interface PlanStep {
  version: string
  kind: StepKind
  /** the step's rollback range in the plan's table; null beyond the interface table */
  range: PlanRange | null
  rollbackFloor: string | null
  /** the version before this step (`from` for the first step) */
  previous: string
  /** floor(step) <= previous; null when the floor is unknown */
  canRollBackToPrevious: boolean | null
  /**
   * false: no plan could make this hop reversible (the step's floor is newer than every version before
   * its range); true when canRollBackToPrevious is true; null when the floor is unknown.
   */
  rollbackPossibleAtAll: boolean | null
}
export interface UpgradePlan {
  from: string
  to: string
  table: TableName
  /** the target's floor as vX.Y.Z; null when `to` is beyond the interface table (see beyondTable) */
  rollbackFloor: string | null
  /** floor(to) <= from; null when the floor is unknown */
  canRollBackToFrom: boolean | null
  targetRange: PlanRange | null
  /** set only in the default (interface) mode when `to` is newer than that table's last row */
  beyondTable: null | {
    table: 'interface'
    lastRow: PlanRange
    reference: {
      label: string
      rollbackFloor: string
      canRollBackToFrom: boolean
      range: PlanRange
      extrapolated: boolean
      steps: string[]
    } | null
  }
  changes: { version: string; change: string; actions: readonly ChangeAction[]; source: SourceName; section: string }[]
  steps: string[]
  stepDetails: PlanStep[]
  reminders: string[]
  warnings: string[]
}

function planRange(r: { from: Version; to: Version | null }, floor: Version, source: SourceName, section: string): PlanRange {
  return { from: formatVersion(r.from), to: r.to ? formatVersion(r.to) : null, floor: formatVersion(floor), source, section }
}

function rowRange(r: RollbackRange): PlanRange {
  return planRange(r, r.floor, r.source, r.section)
}

/**
 * Index of the row holding `v`; `rows.length` for a version after the interface table's closed last row
 * (the "beyond the table" pseudo-range, whose floor is unknown). Throws VersionError when not covered.
 */
function rowIndex(table: RollbackTable, v: Version, role: string): number {
  const hit = lookup(table, v)
  if (hit === 'beyond') {
    if (table.name === 'interface') return table.rows.length
    throw new VersionError(`unknown rollback range for ${role} ${formatVersion(v)}: newer than the last row of the ${table.name} table`)
  }
  if (hit.kind === 'not-covered') throw new VersionError(`unknown rollback range for ${role} ${formatVersion(v)}: ${hit.reason}`)
  return table.rows.findIndex((r) => compareVersions(r.from, hit.range.from) === 0)
}

/**
 * The stepping plan from `from` to `to` (lib/data/README.md, "Steps", states the rule and why it keeps
 * the most rollback room). With R_a the range of `from`, R_b the range of `to`:
 *  1. the last version of R_a, if from < it and the next range's floor F is unknown or from < F <= it
 *     (then the first hop out of R_a can be rolled back, which it could not be from `from`);
 *  2. the last version of every range strictly between R_a and R_b, oldest first;
 *  3. `to` itself.
 * Same range: [to]; from == to: []. Throws VersionError for a reversed or uncovered range.
 */
export function planSteps(from: VersionLike, to: VersionLike, opts?: { table?: TableName }): PlanStep[] {
  const a = toVersion(from)
  const b = toVersion(to)
  if (compareVersions(a, b) > 0) throw new VersionError(`reversed range: ${formatVersion(a)} is newer than ${formatVersion(b)}`)
  if (compareVersions(a, b) === 0) return []
  const table = rollbackTable(opts)
  const rows = table.rows
  const ia = rowIndex(table, a, 'from')
  const ib = rowIndex(table, b, 'to')
  const picks: { v: Version; kind: StepKind; row: number }[] = []
  if (ia < ib) {
    const own = rows[ia]! // ia < ib <= rows.length, so R_a is a real row
    const nextFloor = rows[ia + 1]?.floor ?? null // null: the next range is beyond the table
    if (
      own.to !== null &&
      compareVersions(a, own.to) < 0 &&
      (nextFloor === null || (compareVersions(nextFloor, a) > 0 && compareVersions(nextFloor, own.to) <= 0))
    ) {
      picks.push({ v: own.to, kind: 'from-range-end', row: ia })
    }
    for (let i = ia + 1; i < ib; i++) {
      const r = rows[i]!
      // Only a table's last row may be open-ended, and a crossed row is never the last one.
      if (r.to !== null) picks.push({ v: r.to, kind: 'range-end', row: i })
    }
  }
  picks.push({ v: b, kind: 'target', row: ib })

  let previous = a
  return picks.map(({ v, kind, row }) => {
    const r = rows[row]
    const prev = formatVersion(previous)
    let step: PlanStep
    if (!r) {
      step = {
        version: formatVersion(v),
        kind,
        range: null,
        rollbackFloor: null,
        previous: prev,
        canRollBackToPrevious: null,
        rollbackPossibleAtAll: null,
      }
    } else {
      const can = compareVersions(r.floor, previous) <= 0
      // The newest version before this range is the previous row's last one; if even that is older than
      // the floor, no plan can make this hop reversible.
      const before = rows[row - 1]?.to ?? null
      const atAll = can || (before !== null && compareVersions(r.floor, before) <= 0)
      step = {
        version: formatVersion(v),
        kind,
        range: rowRange(r),
        rollbackFloor: formatVersion(r.floor),
        previous: prev,
        canRollBackToPrevious: can,
        rollbackPossibleAtAll: atAll,
      }
    }
    previous = v
    return step
  })
}

/** The versions of `planSteps` (the upgrade plan's `steps`). */
export function stepsBetween(from: VersionLike, to: VersionLike, opts?: { table?: TableName }): string[] {
  return planSteps(from, to, opts).map((s) => s.version)
}

function requireCovered(v: Version, role: string, table: TableName): void {
  const r = rollbackFloor(v, { table })
  if (r.kind === 'not-covered') throw new VersionError(`unknown rollback range for ${role} ${formatVersion(v)}: ${r.reason}`)
}

/** The target's floor against `from` (or, beyond the interface table, the reference table's answer); adds warnings. */
function targetFloor(
  a: Version,
  b: Version,
  table: TableName,
  warnings: string[],
): Pick<UpgradePlan, 'rollbackFloor' | 'canRollBackToFrom' | 'targetRange' | 'beyondTable'> {
  const toS = formatVersion(b)
  const target = rollbackFloor(b, { table })
  let rollbackFloorS: string | null = null
  let canRollBackToFrom: boolean | null = null
  let targetRange: PlanRange | null = null
  let beyondTable: UpgradePlan['beyondTable'] = null
  if (target.kind === 'floor') {
    rollbackFloorS = formatVersion(target.floor)
    canRollBackToFrom = compareVersions(target.floor, a) <= 0
    targetRange = planRange(target.range, target.floor, target.source, target.section)
    if (target.extrapolated) {
      warnings.push(
        `${toS} is newer than the newest release the ${table} table was computed from (${formatVersion(TABLES[table].observedUpTo!)}); its floor ${rollbackFloorS} holds only if no later release raised the schema compatibility version.`,
      )
    }
    if (table === 'reference' && TABLES.interface.rows.at(-1)!.to && compareVersions(b, TABLES.interface.rows.at(-1)!.to!) > 0) {
      warnings.push(
        `${toS} is beyond the interface document's rollback table; this plan uses the reference table as asked (--table reference).`,
      )
    }
  } else if (target.kind === 'beyond-table') {
    const ref = target.reference
    const refTable = TABLES.reference
    beyondTable = {
      table: 'interface',
      lastRow: rowRange(target.lastRow),
      reference:
        ref.kind === 'floor'
          ? {
              label: `reference table (${refTable.section}; computed from releases up to ${refTable.observedUpTo ? formatVersion(refTable.observedUpTo) : 'unknown'}) — not the default; use --table reference to plan with it`,
              rollbackFloor: formatVersion(ref.floor),
              canRollBackToFrom: compareVersions(ref.floor, a) <= 0,
              range: planRange(ref.range, ref.floor, ref.source, ref.section),
              extrapolated: ref.extrapolated,
              steps: stepsBetween(a, b, { table: 'reference' }),
            }
          : null,
    }
    warnings.push(
      `${toS} is beyond the interface document's rollback table (last row ${formatRange(target.lastRow)} → ${formatVersion(target.lastRow.floor)}); no rollback floor is assumed.`,
    )
    const own = stepsBetween(a, b, { table })
    const refSteps = beyondTable.reference?.steps ?? null
    const differ = refSteps !== null && refSteps.join() !== own.join()
    warnings.push(
      `Incompatible schema ranges after ${formatVersion(target.lastRow.to!)} are not known from the interface table, so no step can be planned inside them${differ ? `; with the reference table the steps would be ${refSteps.join(', ')}` : ''}.`,
    )
  }
  return { rollbackFloor: rollbackFloorS, canRollBackToFrom, targetRange, beyondTable }
}

export function planUpgrade(from: VersionLike, to: VersionLike, opts?: { table?: TableName; hsPrefix?: string }): UpgradePlan {
  const a = toVersion(from)
  const b = toVersion(to)
  const table = tableName(opts)
  if (compareVersions(a, b) > 0) {
    throw new VersionError(
      `reversed range: from ${formatVersion(a)} is newer than to ${formatVersion(b)}; plan-upgrade plans upgrades only (a rollback's limit is the rollback floor of the running version)`,
    )
  }
  requireCovered(a, 'from', table)
  requireCovered(b, 'to', table)
  const fromS = formatVersion(a)
  const toS = formatVersion(b)
  const warnings: string[] = []

  const { rollbackFloor: rollbackFloorS, canRollBackToFrom, targetRange, beyondTable } = targetFloor(a, b, table, warnings)

  if (compareVersions(b, INTERFACE_CHANGES_UP_TO) > 0) {
    warnings.push(
      `Changes after ${formatVersion(INTERFACE_CHANGES_UP_TO)} are listed only where the reference gives them; read the homeserver's upgrade notes for ${compareVersions(a, INTERFACE_CHANGES_UP_TO) > 0 ? fromS : formatVersion(INTERFACE_CHANGES_UP_TO)}–${toS}.`,
    )
  }

  const stepDetails = planSteps(a, b, { table })
  const steps = stepDetails.map((s) => s.version)

  const statusPath = backgroundUpdatesStatusPath(opts?.hsPrefix ?? '/_synapse')
  const reminders =
    compareVersions(a, b) === 0
      ? ['Nothing to upgrade: from and to are the same version.']
      : [
          `Read the upgrade notes of every version after ${fromS} up to ${toS}; installing every version in between is not required.`,
          'Each new version runs its database migrations when it starts, and the server does not start until they have finished.',
          `Before the next step, wait until that version's background updates have finished (GET ${statusPath} answers "current_updates": {}), so that they do not stack up.`,
        ]

  return {
    from: fromS,
    to: toS,
    table,
    rollbackFloor: rollbackFloorS,
    canRollBackToFrom,
    targetRange,
    beyondTable,
    changes: changesBetween(a, b).map((r) => ({
      version: r.version,
      change: r.change,
      actions: r.actions,
      source: r.source,
      section: r.section,
    })),
    steps,
    stepDetails,
    reminders,
    warnings,
  }
}
