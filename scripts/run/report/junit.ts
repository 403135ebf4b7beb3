// The JUnit report of a run: one testsuite per suite file, one testcase per check. Deviations pass with
// their reason in system-out (JUnit has no third outcome); files an interruption left unrun are skipped.
import { visible } from '../../../lib/escape.ts'
import type { Assertion, RunReport } from '../results/results.ts'

/** XML text: controls and format characters shown as escapes (lib/escape.ts; XML 1.0 forbids most C0), then entities. */
export function xml(s: string): string {
  return visible(s, { newlines: 'keep' }).replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  )
}

function assertionText(a: Assertion): string {
  return `${a.name}${a.diag ? '\n' + JSON.stringify(a.diag, null, 2) : ''}`
}

const secs = (ms: number) => (ms / 1000).toFixed(3)

export function junit(r: RunReport): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>']
  // JUnit has no place for run-wide figures: the request counts go in a comment a reader can find.
  if (r.requests?.total)
    lines.push(
      `<!-- requests: ${r.requests.total} sent (${xml(
        Object.entries(r.requests.byArea)
          .map(([a, n]) => `${a} ${n}`)
          .join(', '),
      )}); slowest: ${xml(r.requests.slowest.map((e) => `${e.endpoint} p50 ${e.p50Ms} ms max ${e.maxMs} ms x${e.count}`).join('; ')).replace(/--/g, '- -')} -->`,
    )
  lines.push(
    `<testsuites name="admin-conformance" tests="${r.counts.checks}" failures="${r.counts.fail}" skipped="${r.counts.skip}" time="${secs(r.durationMs)}">`,
  )
  for (const s of r.suites) {
    if (r.grep && s.checks.length === 0 && !s.error) continue
    lines.push(
      `  <testsuite name="${xml(s.file)}" tests="${s.checks.length}" failures="${s.fail + (s.error ? 1 : 0)}" skipped="${s.skip}" time="${secs(s.durationMs)}">`,
    )
    for (const c of s.checks) {
      const t = c.durationMs !== undefined ? ` time="${secs(c.durationMs)}"` : ''
      const open = `    <testcase classname="${xml(s.file)}" name="${xml(c.name)}"${t}`
      if (c.outcome === 'skip') lines.push(`${open}><skipped message="${xml(c.skip ?? '')}"/></testcase>`)
      else if (c.outcome === 'fail') {
        const text = c.failures.map(assertionText).join('\n\n')
        lines.push(`${open}><failure message="${xml(c.failures[0]?.name ?? 'failed')}">${xml(text)}</failure></testcase>`)
      } else if (c.outcome === 'deviation') {
        const text = c.deviations.map((d) => `deviation: ${d.reason}\n${assertionText(d)}`).join('\n\n')
        lines.push(`${open}><system-out>${xml(text)}</system-out></testcase>`)
      } else lines.push(`${open}/>`)
    }
    if (s.error)
      lines.push(
        `    <testcase classname="${xml(s.file)}" name="(suite file)"><failure message="the suite file failed">${xml(s.error)}</failure></testcase>`,
      )
    if (s.notRun)
      lines.push(`    <testcase classname="${xml(s.file)}" name="(suite file)"><skipped message="${xml(s.notRun)}"/></testcase>`)
    lines.push('  </testsuite>')
  }
  lines.push('</testsuites>')
  return lines.join('\n') + '\n'
}
