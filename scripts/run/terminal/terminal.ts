// The human output of a run: one line per suite file as it ends (columns sized to the longest file
// name), each failure with the diagnostics the suites attach (request, status, response, expected,
// rule, curl), then the summary: counts, skip reasons grouped, deviations, data left behind, problems
// and warnings, and a closing line saying what to do next.
import type { Style } from './colour.ts'
import type { Assertion, CheckResult, RunReport, SuiteResult } from '../results/results.ts'

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/** The diagnostics worth reading, in this order; the rest of a suite's fields follow. */
const DIAG_ORDER = [
  'request',
  'status',
  'response',
  'expected',
  'found',
  'rule',
  'release',
  'curl',
  'wanted',
  'diff',
  'schemaPath',
  'instancePath',
  'body',
]
const DIAG_HIDDEN = new Set(['compare', 'todo', 'skip', 'at', 'stack', 'source', 'test', 'diagnostic'])
const MAX_VALUE = 800

function valueText(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v)
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE)}… (${s.length - MAX_VALUE} more characters)` : s
}

/** tap's diff of two one-line values, as expected/found; other diffs stay as they are. */
function compactDiff(d: Record<string, unknown>): Record<string, unknown> {
  if (typeof d.diff !== 'string' || 'expected' in d || 'found' in d) return d
  const lines = d.diff.split('\n').filter((l) => l && !l.startsWith('---') && !l.startsWith('+++') && !l.startsWith('@@'))
  const minus = lines.filter((l) => l.startsWith('-'))
  const plus = lines.filter((l) => l.startsWith('+'))
  if (minus.length !== 1 || plus.length !== 1 || lines.length !== 2) return d
  const { diff: _diff, ...rest } = d
  return { ...rest, expected: minus[0]!.slice(1), found: plus[0]!.slice(1) }
}

/** One failed assertion with its diagnostics, indented. */
export function assertionLines(a: Assertion, indent: string, st: Style): string[] {
  const out = [`${indent}${st.red('-')} ${a.name}`]
  const d = compactDiff(a.diag ?? {})
  const keys = [...DIAG_ORDER.filter((k) => k in d), ...Object.keys(d).filter((k) => !DIAG_ORDER.includes(k) && !DIAG_HIDDEN.has(k))]
  const width = Math.max(0, ...keys.map((k) => k.length))
  for (const k of keys) {
    const text = valueText(d[k])
    const [first, ...rest] = text.split('\n')
    const label = st.dim(`${k}:`.padEnd(width + 1))
    out.push(`${indent}    ${label} ${k === 'curl' ? st.cyan(first!) : first}`)
    while (rest.length && rest[rest.length - 1]!.trim() === '') rest.pop()
    for (const r of rest.slice(0, 20)) out.push(`${indent}    ${' '.repeat(width + 1)} ${r}`)
    if (rest.length > 20) out.push(`${indent}    ${' '.repeat(width + 1)} … (${rest.length - 20} more lines)`)
  }
  return out
}

function checkFailureLines(c: CheckResult, st: Style): string[] {
  const out = [`      ${st.red('✗')} ${c.name}`]
  for (const f of c.failures.slice(0, 3)) out.push(...assertionLines(f, '          ', st))
  if (c.failures.length > 3) out.push(`          (+${c.failures.length - 3} more failed assertions in the report)`)
  return out
}

/** The line of a finished suite file, with its failed checks and their diagnostics below it. */
export function suiteLine(s: SuiteResult, width: number, st: Style): string {
  const mark = s.ok && !s.error ? st.green('ok  ') : st.red('FAIL')
  const parts = [`${s.pass} passed`]
  if (s.fail) parts.push(st.red(`${s.fail} failed`))
  if (s.deviation) parts.push(st.yellow(`${s.deviation} deviation${s.deviation === 1 ? '' : 's'}`))
  if (s.skip) parts.push(`${s.skip} skipped`)
  const lines = [`  ${mark} ${s.file.padEnd(width)}  ${seconds(s.durationMs).padStart(7)}  ${parts.join(', ')}`]
  for (const c of s.checks.filter((c) => c.outcome === 'fail')) lines.push(...checkFailureLines(c, st))
  if (s.error) lines.push(`      ${st.red('✗')} the file failed as a whole: ${s.error}`)
  return lines.join('\n') + '\n'
}

function countsLine(r: RunReport, st: Style): string {
  const c = r.counts
  const parts = [st.green(`${c.pass} passed`), c.fail ? st.red(`${c.fail} failed`) : '0 failed']
  if (c.deviation) parts.push(st.yellow(`${c.deviation} deviation${c.deviation === 1 ? '' : 's'}`))
  parts.push(`${c.skip} skipped`)
  return `${parts.join(', ')} of ${c.checks} checks in ${seconds(r.durationMs)}`
}

/** What to do next, in one line. */
export function nextStep(r: RunReport): string {
  if (r.interrupted) return 'interrupted: the results above are those of the files that finished; run again to check the rest'
  if (r.counts.fail) {
    const first = r.suites.flatMap((s) => s.checks).find((c) => c.outcome === 'fail')
    return `next: read each failure above (its curl line replays it); re-run one check with --grep '${(first?.name ?? '').replace(/'/g, "'\\''")}'`
  }
  if (r.suites.some((s) => s.error))
    return 'next: a suite file crashed or timed out; its output is above (raise --timeout if the target is slow)'
  if (r.requests?.budget) return 'next: raise --max-requests (or drop it) to check the rest'
  if (r.problems.length) return 'next: give what is missing (above), or pass --allow-partial to accept a partial run'
  if (r.counts.skip && !r.target.writes)
    return 'next: all checks that ran passed; the write checks need --allow-writes (use a test deployment)'
  if (r.warnings.length) return 'next: all checks passed, but read the warnings above before trusting the result'
  return 'all selected checks passed'
}

export function summaryLines(r: RunReport, st: Style): string[] {
  const lines = ['']
  if (r.skipReasons.length) {
    lines.push('skipped:')
    const w = Math.max(...r.skipReasons.map((s) => String(s.count).length))
    for (const s of r.skipReasons) lines.push(`  ${String(s.count).padStart(w)} × ${s.reason}`)
    lines.push('')
  }
  const deviating = r.suites.flatMap((s) => s.checks.filter((c) => c.outcome === 'deviation').map((c) => ({ s, c })))
  if (deviating.length) {
    lines.push(st.yellow("deviations (known differences and known defects of the target's release; --strict counts them as failures):"))
    for (const { s, c } of deviating)
      lines.push(`  ~ ${s.file}: ${c.name}`, ...[...new Set(c.deviations.map((d) => d.reason))].map((reason) => `      ${reason}`))
    lines.push('')
  }
  if (r.leftovers.length && r.target.mock) {
    // The bundled mock is discarded at exit: what the checks could not remove goes with it.
    lines.push(`data the checks could not remove: ${r.leftovers.length} item(s), discarded with the bundled mock`, '')
  } else if (r.leftovers.length) {
    lines.push(st.yellow(`data left behind on the target (${r.leftovers.length}): remove it by hand`))
    for (const l of r.leftovers) lines.push(`  ! ${l.what}${l.reason ? ` (${l.reason})` : ''}  [${l.file}]`)
    lines.push('')
  }
  const failed = r.suites.flatMap((s) => s.checks.filter((c) => c.outcome === 'fail').map((c) => `${s.file}: ${c.name}`))
  for (const s of r.suites) if (s.error) failed.push(`${s.file}: ${s.error}`)
  if (failed.length) lines.push(st.red('failed:'), ...failed.map((f) => `  ${st.red('✗')} ${f}`), '')
  const notRun = r.suites.filter((s) => s.notRun)
  if (notRun.length) {
    const why = [...new Set(notRun.map((s) => (/deadline/.test(s.notRun!) ? "the run's deadline passed" : 'interrupted')))].join('; ')
    lines.push(`not run (${why}): ${notRun.map((s) => s.file).join(', ')}`, '')
  }
  lines.push(...requestLines(r))
  for (const p of r.problems) lines.push(`${st.red('not a pass:')} ${p}`)
  for (const w of r.warnings) lines.push(`${st.yellow('warning:')} ${w}`)
  if (r.problems.length || r.warnings.length) lines.push('')
  lines.push(countsLine(r, st))
  lines.push(r.ok ? st.green(nextStep(r)) : st.bold(nextStep(r)))
  return lines
}

/** Requests sent per area and the slowest endpoints (method + templated path; count, p50, max). */
export function requestLines(r: RunReport): string[] {
  const q = r.requests
  if (!q || q.total === 0) return []
  const areas = Object.entries(q.byArea)
    .sort((a, b) => b[1] - a[1])
    .map(([a, n]) => `${a} ${n}`)
  const lines = [`requests: ${q.total} sent (${areas.join(', ')})`]
  if (q.slowest.length) {
    lines.push('slowest endpoints (median, max, count):')
    const w = Math.max(...q.slowest.map((e) => e.endpoint.length))
    for (const e of q.slowest) lines.push(`  ${e.endpoint.padEnd(w)}  ${ms(e.p50Ms).padStart(8)}  ${ms(e.maxMs).padStart(8)}  × ${e.count}`)
  }
  lines.push('')
  return lines
}

function ms(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(1)} ms`
}
