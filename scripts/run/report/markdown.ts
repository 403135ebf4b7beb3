// The Markdown report of a run, written from the results (not from tap's Markdown reporter, which put
// the target's text in ``` blocks that a line of three backticks from the target closed, and names
// outside any block, so that a target's headings, images and links rendered). Here every text that
// can hold a target's bytes is either inside a fenced block whose fence is longer than any run of
// backticks in it, or escaped: every ASCII punctuation character backslash-escaped (no emphasis, link,
// image, heading, HTML or autolink can start), control and format characters shown as escapes.
import { visible } from '../../../lib/escape.ts'
import type { Assertion, CheckResult, RunReport } from '../results/results.ts'
import { nextStep, seconds } from '../terminal/terminal.ts'

/** Text outside a code block: every ASCII punctuation escaped, so none of it is Markdown or HTML. */
export function mdText(s: string): string {
  return visible(s).replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`)
}

/** A fenced block that its content cannot close: the fence is longer than any backtick run inside. */
export function mdBlock(content: string, info = 'text'): string {
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((r) => r.length))
  const fence = '`'.repeat(Math.max(3, longest + 1))
  return `${fence}${info}\n${content}\n${fence}`
}

/** A code span in a table cell: nothing in it renders; its delimiter is longer than any backtick run inside. */
export function mdCode(s: string): string {
  const text = visible(s).replace(/\|/g, '\\|')
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length))
  const tick = '`'.repeat(longest + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${tick}${pad}${text}${pad}${tick}`
}

const HIDDEN = new Set(['at', 'stack', 'source', 'test', 'compare', 'todo', 'diagnostic'])

function diagBlock(a: Assertion): string {
  const d = a.diag ?? {}
  const lines = Object.keys(d)
    .filter((k) => !HIDDEN.has(k))
    .map((k) => {
      const v = d[k]
      const text = typeof v === 'string' ? v : JSON.stringify(v, null, 2)
      return `${visible(k)}: ${visible(text ?? 'undefined', { newlines: 'keep' })}`
    })
  return lines.length ? mdBlock(lines.join('\n')) : ''
}

function checkLines(c: CheckResult): string[] {
  const mark = { pass: 'pass', fail: '**FAIL**', skip: 'skip', deviation: '*deviation*' }[c.outcome]
  const out = [`- ${mark}: ${mdText(c.name)}${c.outcome === 'skip' && c.skip ? ` (${mdText(c.skip)})` : ''}`]
  const details: Assertion[] = c.outcome === 'fail' ? c.failures : c.outcome === 'deviation' ? c.deviations : []
  for (const a of details) {
    out.push('', `  - ${mdText(a.name)}${'reason' in a ? ` (deviation: ${mdText(String(a.reason))})` : ''}`, '')
    const block = diagBlock(a)
    if (block) out.push(block, '')
  }
  return out
}

export function markdownReport(r: RunReport): string {
  const c = r.counts
  const verdict = r.interrupted ? 'INTERRUPTED' : r.ok ? 'PASSED' : 'FAILED'
  const out = [
    `# admin\\-conformance ${mdText(r.version)}: run ${mdText(r.runId)}`,
    '',
    `**${verdict}**: ${c.pass} passed, ${c.fail} failed, ${c.deviation} deviations, ${c.skip} skipped of ${c.checks} checks in ${seconds(r.durationMs)} (exit code ${r.exitCode})`,
    '',
  ]
  if (r.target.mas) out.push(`- auth service ${mdText(r.target.mas.url)} (version ${mdText(r.target.mas.version ?? 'unknown')})`)
  if (r.target.hs) out.push(`- homeserver ${mdText(r.target.hs.url)} (server\\_version ${mdText(r.target.hs.version ?? 'unknown')})`)
  out.push(
    `- writes ${r.target.writes ? 'on' : 'off'}${r.target.mock ? ' (bundled mock)' : ''}; areas ${mdText(r.areas.join(', '))}${r.grep ? `; checks matching ${mdText(r.grep)}` : ''}`,
    '',
    mdText(nextStep(r)),
    '',
  )
  if (r.problems.length) out.push('## Not a pass', '', ...r.problems.map((p) => `- ${mdText(p)}`), '')
  if (r.warnings.length) out.push('## Warnings', '', ...r.warnings.map((w) => `- ${mdText(w)}`), '')
  for (const s of r.suites) {
    out.push(
      `## ${mdText(s.file)}`,
      '',
      `${s.pass} passed, ${s.fail} failed, ${s.deviation} deviations, ${s.skip} skipped in ${seconds(s.durationMs)}`,
      '',
    )
    if (s.error) out.push(`**the file failed as a whole**: ${mdText(s.error)}`, '')
    if (s.notRun) out.push(`not run: ${mdText(s.notRun)}`, '')
    for (const ch of s.checks) out.push(...checkLines(ch))
    out.push('')
  }
  if (r.skipReasons.length) out.push('## Skipped', '', ...r.skipReasons.map((s) => `- ${s.count} × ${mdText(s.reason)}`), '')
  if (r.leftovers.length)
    out.push(
      '## Data left behind',
      '',
      ...r.leftovers.map((l) => `- ${mdText(l.what)}${l.reason ? ` (${mdText(l.reason)})` : ''} \\[${mdText(l.file)}\\]`),
      '',
    )
  const q = r.requests
  if (q?.total) {
    const areas = Object.entries(q.byArea)
      .map(([a, n]) => `${a} ${n}`)
      .join(', ')
    out.push(
      '## Requests',
      '',
      `${q.total} sent (${mdText(areas)})`,
      '',
      '| slowest endpoint | count | median | max |',
      '|---|---|---|---|',
    )
    out.push(...q.slowest.map((e) => `| ${mdCode(e.endpoint)} | ${e.count} | ${e.p50Ms.toFixed(1)} ms | ${e.maxMs.toFixed(1)} ms |`), '')
  }
  return out.join('\n') + '\n'
}
