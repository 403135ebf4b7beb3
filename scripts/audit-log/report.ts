// The human summary of `audit-log`: counts per activity, the admin actions with who did what to
// which target, GraphQL operations, requesters, malformed lines, and the time range of the input.

// Every text that comes from the log (paths, request ids, requesters and usernames, operations,
// targets, timestamps, the malformed lines' messages) is shown escaped (lib/escape.ts): a log line can
// hold BEL, backspaces, ESC and C1 controls, bidi overrides, anything a terminal obeys.

import { visible as v } from '../../lib/escape.ts'
import { ACTIVITIES, isAdminActivity } from './activities.ts'
import type { AdminActionEntry, AuditResult, TimelineEntry } from './types.ts'

export function fmtInt(n: number): string {
  return n.toLocaleString('en-US')
}

export function timelineLine(e: TimelineEntry): string {
  const extra = [e.operation !== undefined ? `op=${v(e.operation)}` : '', e.clientAddress !== undefined ? `from ${v(e.clientAddress)}` : '']
    .filter((x) => x !== '')
    .join(' ')
  return `  line ${e.line}  ${v(e.timestamp)}  ${v(e.requestId)}  ${v(e.method)} ${v(e.path)} ${e.status}  ${e.activity} ${e.outcome}${extra ? '  ' + extra : ''}`
}

function table(rows: string[][], rightAligned: Set<number>): string[] {
  const widths: number[] = []
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)))
  return rows.map((r) =>
    r
      .map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]!) : i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  )
}

export function humanReport(r: AuditResult, opts: { top: number; requester?: string | undefined }): string {
  const out: string[] = []
  if (opts.requester !== undefined) out.push('')
  out.push(
    `${fmtInt(r.lines)} lines: ${fmtInt(r.requests)} requests (v1.20 ${fmtInt(r.formats['v1.20'])}, pre-v1.20 ${fmtInt(r.formats['pre-v1.20'])}), ` +
      `${fmtInt(r.events)} other events, ${fmtInt(r.blank)} blank, ${fmtInt(r.malformedCount)} malformed`,
  )
  out.push(
    r.timeRange === null ? 'time range: none (no line with a timestamp)' : `time range: ${v(r.timeRange.first)} to ${v(r.timeRange.last)}`,
  )
  out.push('')
  const rows = [['activity', 'requests', 'ok', 'failed']]
  // The admin actions only when there are some: they are many, and most logs have none.
  for (const [i, a] of ACTIVITIES.entries()) {
    if (isAdminActivity(i) && r.activities[a] === 0) continue
    const o = r.outcomes[a]
    rows.push([a, fmtInt(r.activities[a]), fmtInt(o.ok), fmtInt(o.failed)])
  }
  rows.push(['total', fmtInt(r.requests), '', ''])
  out.push(...table(rows, new Set([1, 2, 3])))
  out.push(...adminActionLines(r))

  const ops = Object.entries(r.operations)
  if (ops.length > 0) {
    out.push('', 'GraphQL operations (account self-service):')
    out.push(
      ...table(
        ops.map(([name, n]) => ['  ' + v(name), fmtInt(n)]),
        new Set([1]),
      ),
    )
  }

  const reqs = Object.values(r.requesters)
  if (reqs.length > 0) {
    const shown = reqs.slice(0, opts.top)
    out.push(
      '',
      `requesters (${shown.length < reqs.length ? `top ${shown.length} of ${fmtInt(reqs.length)}` : fmtInt(reqs.length)}, by requests):`,
    )
    const rrows = shown.map((s) => [
      '  ' + v(s.username !== undefined ? `${s.requester}(${s.username})` : s.requester),
      fmtInt(s.requests),
      Object.entries(s.activities)
        .map(([a, n]) => `${a} ${fmtInt(n)}`)
        .join(', '),
    ])
    out.push(...table(rrows, new Set([1])))
  }

  if (r.malformedCount > 0) {
    out.push('', `malformed lines (${fmtInt(r.malformedCount)}):`)
    for (const m of r.malformed) out.push(`  line ${m.line}: ${v(m.error)}`)
    if (r.malformedTruncated) out.push(`  … and ${fmtInt(r.malformedCount - r.malformed.length)} more (raise --max-malformed to list them)`)
  }
  return out.join('\n') + '\n'
}

function adminActionLines(r: AuditResult): string[] {
  if (r.adminActions.length === 0) return []
  const total = ACTIVITIES.reduce((n, a, i) => (isAdminActivity(i) ? n + r.activities[a] : n), 0)
  const out = ['', `admin actions (${fmtInt(total)}, in input order):`]
  out.push(...table(r.adminActions.map(adminActionRow), new Set([0])))
  if (r.adminActionsTruncated) out.push(`  … and ${fmtInt(total - r.adminActions.length)} more (raise --max-admin-actions to list them)`)
  return out
}

function adminActionRow(e: AdminActionEntry): string[] {
  return [`  line ${e.line}`, v(e.timestamp), v(e.requester), e.activity, v(e.target ?? '-'), `${e.status} ${e.outcome}`]
}
