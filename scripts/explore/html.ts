// explore's HTML report (--html FILE): one self-contained file in the style of the run's report (its CSS
// and its escaping: every byte from the target shown as a visible escape, then as HTML entities);
// findings grouped by operation and rule, each with request, answer, expected, rule, model and curl
// line; the requests spent per operation; the shortest differing sequence, when one was found.
import { CSS, esc } from '../run/report/html.ts'
import type { ExploreResult, Finding } from './engine.ts'
import { advisory, labelOf } from './report.ts'

function findingHtml(f: Finding): string {
  const rows: [string, string][] = [
    ['request', f.request],
    ['answer', `${f.answer.status}${f.answer.contentType ? ` (${f.answer.contentType})` : ''} ${f.answer.body || '(empty body)'}`],
    ...f.violations.flatMap((v): [string, string][] => [
      ['expected', v.expected],
      ['rule', v.source],
    ]),
    ['model', `${f.model.status} ${f.model.body || '(empty body)'}`],
    ...(f.deviation ? ([['known', f.deviation.fact]] as [string, string][]) : []),
    ['curl', f.curl],
  ]
  const cls = advisory(f) ? 'deviation' : f.cls === 'target-defect' ? 'fail' : f.cls === 'model-gap' ? 'skip' : 'deviation'
  return `<div class="finding" data-finding="${esc(f.id)}" data-kind="${esc(f.violations.map((v) => v.rule).join('+') || f.kind)}"><div><span class="outcome ${cls}">${esc(f.id)} ${esc(labelOf(f))}</span> ${esc(f.note)}${f.occurrences > 1 ? ` <span class="muted">(${f.occurrences} requests alike)</span>` : ''}</div><dl class="diag">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd><pre>${esc(v)}</pre></dd>`).join('')}</dl></div>`
}

export function exploreHtml(r: ExploreResult, meta: { seed: number; target: string }, sequence?: string): string {
  const byOp = new Map<string, Map<string, Finding[]>>()
  for (const f of r.findings) {
    const kinds = byOp.get(f.operation) ?? new Map<string, Finding[]>()
    const kind = f.violations.map((v) => v.rule).join('+') || f.kind
    kinds.set(kind, [...(kinds.get(kind) ?? []), f])
    byOp.set(f.operation, kinds)
  }
  const defects = r.findings.filter((f) => f.cls === 'target-defect' && !advisory(f)).length
  const parts = [
    // no script, no request: the page shows what a target sent and may do nothing with it
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<title>admin-conformance explore</title>',
    `<style>${CSS}</style></head><body>`,
    `<h1>explore: ${esc(meta.target)}</h1>`,
    `<p class="verdict ${defects || sequence ? 'bad' : 'ok'}">${r.findings.length} finding(s), ${defects} defect(s) of the target${sequence ? '; a sequence differs from the model' : ''}</p>`,
    `<p>seed ${meta.seed}: ${r.cases} cases, ${r.sent} sent, ${r.requests.target} requests to the target, ${r.requests.model} to the model, ${(r.durationMs / 1000).toFixed(1)} s</p>`,
  ]
  if (sequence) parts.push(`<h2>The shortest sequence that differs</h2><pre class="sequence">${esc(sequence)}</pre>`)
  parts.push('<h2>Findings by operation</h2>')
  if (byOp.size === 0) parts.push('<p class="muted">none</p>')
  for (const [op, kinds] of byOp) {
    parts.push(`<section class="operation" data-operation="${esc(op)}"><h3><code>${esc(op)}</code></h3>`)
    for (const [kind, fs] of kinds)
      parts.push(
        `<section class="kind" data-kind="${esc(kind)}"><h4>${esc(kind)} <span class="muted">(${fs.length})</span></h4>`,
        ...fs.map(findingHtml),
        '</section>',
      )
    parts.push('</section>')
  }
  const ops = Object.entries(r.perOperation)
  parts.push(
    '<h2>Requests per operation</h2><table class="requests"><tr><th>operation</th><th>cases</th><th>requests</th><th>ms</th></tr>',
    ...ops.map(
      ([op, x]) => `<tr><td><code>${esc(op)}</code></td><td>${x.cases}</td><td>${x.requests}</td><td>${Math.round(x.ms)}</td></tr>`,
    ),
    '</table></body></html>',
  )
  return parts.join('\n') + '\n'
}
