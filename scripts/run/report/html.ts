// The HTML report: one self-contained file (inline CSS, no script, nothing fetched) to hand to a colleague:
// the verdict, then per area and per endpoint family each check with its outcome; each failure with its
// request, status, response, expected value, rule and curl line; deviations; skips grouped with their
// reasons; data left behind.
import { AREAS, isArea } from '../../../lib/areas.ts'
import type { RequestSummary } from '../../../lib/meter.ts'
import { visible } from '../../../lib/escape.ts'
import type { Assertion, CheckResult, RunReport, SuiteResult } from '../results/results.ts'
import { nextStep, seconds } from '../terminal/terminal.ts'
import { escapeHtml } from '../../common/escape.ts'

/** HTML text: controls, bidi overrides and other format characters shown as escapes (lib/escape.ts), then entities. */
export function esc(s: string): string {
  return escapeHtml(visible(s, { newlines: 'keep' }))
}

export const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:75em;padding:0 1em;color:#1b1f24}
h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #ccd}h3{margin:1.2em 0 .3em}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25em .5em;border-bottom:1px solid #eee;vertical-align:top}
.outcome{font-weight:600;white-space:nowrap}.pass{color:#1a7f37}.fail{color:#cf222e}.skip{color:#6e7781}.deviation{color:#9a6700}
.verdict{padding:.8em 1em;border-radius:6px;font-weight:600}.verdict.ok{background:#dafbe1}.verdict.bad{background:#ffebe9}
pre{background:#f6f8fa;padding:.5em;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:.2em 0}
dl.diag{display:grid;grid-template-columns:max-content 1fr;gap:.2em .8em;margin:.3em 0 .8em}dl.diag dt{font-weight:600;color:#57606a}dl.diag dd{margin:0}
.muted{color:#6e7781}ul{margin:.3em 0}
`

function diagHtml(a: Assertion): string {
  const d = a.diag ?? {}
  const keys = Object.keys(d).filter((k) => !['at', 'stack', 'source', 'test', 'compare', 'todo', 'diagnostic'].includes(k))
  const rows = keys.map((k) => {
    const v = d[k]
    const text = typeof v === 'string' ? v : JSON.stringify(v, null, 2)
    return `<dt>${esc(k)}</dt><dd><pre class="${esc(k)}">${esc(text)}</pre></dd>`
  })
  return `<div class="assertion"><div>${esc(a.name)}</div>${rows.length ? `<dl class="diag">${rows.join('')}</dl>` : ''}</div>`
}

function checkRow(c: CheckResult): string {
  const detail =
    c.outcome === 'fail'
      ? c.failures.map(diagHtml).join('')
      : c.outcome === 'deviation'
        ? c.deviations.map((d) => `<div class="deviation">deviation: ${esc(d.reason)}</div>${diagHtml(d)}`).join('')
        : c.outcome === 'skip'
          ? `<span class="muted">${esc(c.skip ?? '')}</span>`
          : ''
  return `<tr class="check ${c.outcome}"><td class="outcome ${c.outcome}">${c.outcome}</td><td class="name">${esc(c.name)}${detail ? `<div>${detail}</div>` : ''}</td></tr>`
}

/** An endpoint family: the check name's prefix before ': ', else the file's own name. */
function familyOf(c: CheckResult, s: SuiteResult): string {
  const m = /^([\w.-]+): /.exec(c.name)
  return m ? m[1]! : s.file.replace(/^.*\//, '').replace(/\.suite\.\w+$/, '')
}

function areaSection(area: string, suites: SuiteResult[]): string {
  const title = isArea(area) ? AREAS[area].title : area
  const families = new Map<string, { s: SuiteResult; c: CheckResult }[]>()
  for (const s of suites) for (const c of s.checks) families.set(familyOf(c, s), [...(families.get(familyOf(c, s)) ?? []), { s, c }])
  const parts = [`<section class="area" id="area-${esc(area)}"><h2>${esc(area)}: ${esc(title)}</h2>`]
  for (const s of suites.filter((s) => s.error || s.notRun))
    parts.push(`<p class="${s.error ? 'fail' : 'skip'}">${esc(s.file)}: ${esc(s.error ?? s.notRun ?? '')}</p>`)
  for (const [family, rows] of families) {
    const fails = rows.filter((r) => r.c.outcome === 'fail').length
    parts.push(
      `<section class="family"><h3>${esc(family)} <span class="muted">(${rows.length} checks${fails ? `, <span class="fail">${fails} failed</span>` : ''})</span></h3><table>`,
    )
    parts.push(...rows.map((r) => checkRow(r.c)), '</table></section>')
  }
  if (families.size === 0) parts.push('<p class="muted">no checks ran in this area</p>')
  parts.push('</section>')
  return parts.join('\n')
}

function requestsSection(q: RequestSummary): string {
  const areas = Object.entries(q.byArea)
    .map(([a, n]) => `${esc(a)} ${n}`)
    .join(', ')
  const rows = q.slowest
    .map(
      (e) =>
        `<tr><td><code>${esc(e.endpoint)}</code></td><td>${e.count}</td><td>${e.p50Ms.toFixed(1)} ms</td><td>${e.maxMs.toFixed(1)} ms</td></tr>`,
    )
    .join('')
  return `<h2>Requests</h2><p>${q.total} sent (${areas})</p><table class="requests"><tr><th>slowest endpoints</th><th>count</th><th>median</th><th>max</th></tr>${rows}</table>`
}

export function htmlReport(r: RunReport): string {
  const c = r.counts
  const verdict = r.interrupted ? 'INTERRUPTED' : r.ok ? 'PASSED' : 'FAILED'
  const target = [
    r.target.mas && `auth service ${r.target.mas.url} (version ${r.target.mas.version ?? 'unknown'})`,
    r.target.hs && `homeserver ${r.target.hs.url} (server_version ${r.target.hs.version ?? 'unknown'})`,
  ].filter(Boolean) as string[]
  const body: string[] = [
    `<h1>admin-conformance ${esc(r.version)}: run ${esc(r.runId)}</h1>`,
    `<p class="verdict ${r.ok ? 'ok' : 'bad'}">${verdict}: ${c.pass} passed, ${c.fail} failed, ${c.deviation} deviations, ${c.skip} skipped of ${c.checks} checks in ${seconds(r.durationMs)} (exit code ${r.exitCode})</p>`,
    `<p>${target.map(esc).join('<br>')}${target.length ? '<br>' : ''}writes ${r.target.writes ? 'on' : 'off'}${r.target.mock ? ' (bundled mock)' : ''}; areas ${esc(r.areas.join(', '))}${r.grep ? `; checks matching ${esc(r.grep)}` : ''}; started ${esc(r.startedAt)}</p>`,
    `<p>${esc(nextStep(r))}</p>`,
  ]
  if (r.problems.length)
    body.push(`<h2>Not a pass</h2><ul class="problems">${r.problems.map((p) => `<li class="fail">${esc(p)}</li>`).join('')}</ul>`)
  if (r.warnings.length) body.push(`<h2>Warnings</h2><ul class="warnings">${r.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`)
  const areas = [...new Set([...r.areas, ...r.suites.map((s) => s.area)])]
  for (const a of areas)
    body.push(
      areaSection(
        a,
        r.suites.filter((s) => s.area === a),
      ),
    )
  const deviating = r.suites.flatMap((s) => s.checks.filter((x) => x.outcome === 'deviation').map((x) => ({ s, x })))
  if (deviating.length)
    body.push(
      `<h2>Deviations</h2><ul class="deviations">${deviating.map(({ s, x }) => `<li><b>${esc(x.name)}</b> <span class="muted">${esc(s.file)}</span>: ${x.deviations.map((d) => esc(d.reason)).join('; ')}</li>`).join('')}</ul>`,
    )
  if (r.skipReasons.length)
    body.push(
      `<h2>Skipped</h2><table class="skips">${r.skipReasons.map((s) => `<tr><td>${s.count}</td><td>${esc(s.reason)}</td></tr>`).join('')}</table>`,
    )
  if (r.requests?.total) body.push(requestsSection(r.requests))
  if (r.leftovers.length)
    body.push(
      `<h2>Data left behind</h2><ul class="leftovers">${r.leftovers.map((l) => `<li>${esc(l.what)}${l.reason ? ` (${esc(l.reason)})` : ''} <span class="muted">${esc(l.file)}</span></li>`).join('')}</ul>`,
    )
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>admin-conformance ${esc(verdict.toLowerCase())}: ${c.fail} failed of ${c.checks}</title>
<style>${CSS}</style></head>
<body>
${body.join('\n')}
</body></html>
`
}
