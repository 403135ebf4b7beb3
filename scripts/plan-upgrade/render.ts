// Text output of plan-upgrade: the homeserver plan and the auth service's notes, each fact with its source.
import type { CitedPlan, CitedRange } from './sources.ts'
import type { MasNotes } from './mas.ts'

function yesNo(b: boolean | null): string {
  return b === null ? 'unknown' : b ? 'possible' : 'NOT possible'
}

function rangeText(r: { from: string; to: string | null }): string {
  return `${r.from}${r.to ? `–${r.to}` : ' onward'}`
}

function rollbackLines(plan: CitedPlan): string[] {
  const out = ['Rollback']
  if (plan.rollbackFloor !== null && plan.targetRange) {
    const r: CitedRange = plan.targetRange
    out.push(`  ${plan.to} is in the range ${rangeText(r)}, which can be rolled back to ${plan.rollbackFloor} at the earliest.`)
    if (!plan.upToDate)
      out.push(
        `  Rollback to ${plan.from} after the upgrade: ${yesNo(plan.canRollBackToFrom)}${plan.canRollBackToFrom === false ? ` (${plan.from} is older than ${plan.rollbackFloor})` : ''}.`,
      )
    out.push(`  [source: ${r.cite}]`)
  } else if (plan.beyondTable) {
    const l = plan.beyondTable.lastRow
    out.push(`  ${plan.to} is beyond the interface document's rollback table (its last row: ${rangeText(l)} → ${l.floor}).`)
    out.push(`  No rollback floor is assumed with --table interface, so whether ${plan.from} stays reachable is unknown.`)
    const ref = plan.beyondTable.reference
    if (ref)
      out.push(
        `  The default table (--table complete) answers: ${plan.to} is in ${rangeText(ref.range)} → ${ref.rollbackFloor}; rollback to ${plan.from}: ${yesNo(ref.canRollBackToFrom)} [source: ${ref.range.cite}].`,
      )
  }
  return out
}

function changeLines(plan: CitedPlan): string[] {
  if (plan.changes.length === 0) return [`Changes after ${plan.from} up to ${plan.to}: none listed.`]
  const out = [`Changes after ${plan.from} up to ${plan.to} (oldest first)`]
  for (const c of plan.changes) {
    out.push(`  ${c.version}  ${c.change}  [${c.cite}]`)
    for (const a of c.actions) out.push(`      - ${a.kind}: ${a.detail}`)
  }
  return out
}

function stepLines(plan: CitedPlan): string[] {
  if (plan.stepDetails.length === 0) return []
  const out = [
    'Steps (the last version of each incompatible schema range crossed, then the target: each hop can be rolled back to the step before it whenever any plan could allow it)',
  ]
  const width = Math.max(...plan.stepDetails.map((s) => s.version.length))
  plan.stepDetails.forEach((s, i) => {
    const last = i === plan.stepDetails.length - 1
    const range = s.range ? `range ${rangeText(s.range)}, floor ${s.rollbackFloor}` : 'beyond the rollback table, floor unknown'
    const back =
      s.canRollBackToPrevious === null
        ? `rollback to ${s.previous} unknown`
        : s.canRollBackToPrevious
          ? `rollback to ${s.previous} possible`
          : `rollback to ${s.previous} NOT possible${s.rollbackPossibleAtAll === false ? ' (no plan avoids this: the floor is newer than every earlier release)' : ''}`
    out.push(`  ${String(i + 1).padStart(2)}. ${s.version.padEnd(width)}  ${last ? '(target) ' : ''}${range}; ${back}`)
  })
  out.push('')
  return out
}

export function renderPlan(plan: CitedPlan, fromNote?: string): string {
  const out: string[] = [`Upgrade plan ${plan.from} → ${plan.to}`]
  if (fromNote) out.push(fromNote)
  out.push(`Rollback table: ${plan.tableDescription}`, '')
  if (plan.upToDate) {
    out.push(`Nothing to upgrade: ${plan.to} is the version running now.`, '')
    out.push(...rollbackLines(plan))
    return out.join('\n') + '\n'
  }
  out.push(...rollbackLines(plan), '', ...changeLines(plan), '', ...stepLines(plan))
  out.push(plan.steps.length > 1 ? 'Between steps' : 'Reminder')
  for (const r of plan.reminders) out.push(`  - ${r}`)
  if (plan.warnings.length > 0) {
    out.push('', 'Warnings')
    for (const w of plan.warnings) out.push(`  - ${w}`)
  }
  return out.join('\n') + '\n'
}

export function renderMas(m: MasNotes): string {
  const out = [`Auth service (MAS) ${m.from} → ${m.to}`]
  if (m.upToDate) return out.concat([`  Nothing to upgrade: ${m.to} is the version running now.`]).join('\n') + '\n'
  if (m.changes.length === 0) out.push(`  Admin API and request log: no recorded change after ${m.from} up to ${m.to}.`)
  else {
    out.push('  Admin API and request log (oldest first)')
    for (const c of m.changes) out.push(`    ${c.version}  ${c.change}  [${c.cite}]`)
  }
  out.push('  Upgrade notes')
  for (const n of m.notes) out.push(`    - ${n.text} [${n.cite}]`)
  return out.join('\n') + '\n'
}
