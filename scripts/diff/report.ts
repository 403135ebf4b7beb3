// The diff's reporters: terminal, JSON, Markdown, HTML. Every value shown came from a target (through the
// snapshot's normalisation and redaction) and is escaped for where it goes (scripts/common/escape.ts).
import { escapeHtml, escapeMarkdown, printable } from '../common/escape.ts'
import type { Explained, LabelledChange } from './explain.ts'
import type { Comparison, CompareMode } from './compare.ts'

export const DIFF_REPORTERS = ['terminal', 'json', 'markdown', 'html'] as const
export type DiffReporter = (typeof DIFF_REPORTERS)[number]

export interface DiffReport {
  mode: CompareMode
  before: { file: string; mas?: string; hs?: string }
  after: { file: string; mas?: string; hs?: string }
  noise: { sources: string[]; suppressed: number }
  notCompared: { onlyBefore: string[]; onlyAfter: string[] }
  explained: Explained
}

export function diffReport(
  before: DiffReport['before'],
  after: DiffReport['after'],
  noiseSources: string[],
  cmp: Comparison,
  explained: Explained,
  mode: CompareMode = 'same-deployment',
): DiffReport {
  return {
    mode,
    before,
    after,
    noise: { sources: noiseSources, suppressed: cmp.noiseSuppressed },
    notCompared: { onlyBefore: cmp.onlyBefore, onlyAfter: cmp.onlyAfter },
    explained,
  }
}

function what(c: LabelledChange): string {
  const name = c.aspect.replace(/^body:/, '').replace(/^header:/, 'header ')
  switch (c.kind) {
    case 'route-gained':
      return `route gained (${c.before} → ${c.after})`
    case 'route-lost':
      return `route lost (${c.before} → ${c.after})`
    case 'availability':
      return `${c.before} → ${c.after}`
    case 'status':
      return `status ${c.before} → ${c.after}`
    case 'field-added':
      return `field added ${name} = ${c.after}`
    case 'field-removed':
      return `field removed ${name} (was ${c.before})`
    case 'field-retyped':
      return `field retyped ${name}: ${c.before} → ${c.after}`
    default:
      return `${name}: ${c.before ?? '(none)'} → ${c.after ?? '(none)'}`
  }
}

function why(c: LabelledChange): string {
  if (c.expected) return `expected: ${c.rows.map((r) => `${r.id}, ${r.event}`).join('; ')}`
  if (c.gap) return `known model gap: ${c.gap.id} (${c.gap.cause}): ${c.gap.reason}`
  return 'UNEXPECTED: no release table row explains it'
}

function versions(s: DiffReport['before']): string {
  return [s.hs && `homeserver ${s.hs}`, s.mas && `auth service ${s.mas}`].filter(Boolean).join(', ') || 'releases unknown'
}

function verdict(r: DiffReport): string {
  const e = r.explained
  const all = e.expected + e.unexpected + e.knownGaps
  if (all === 0) return r.mode === 'across-deployments' ? 'no difference a model can promise' : 'no change beyond the noise'
  if (r.mode === 'across-deployments')
    return `${all} difference(s): ${e.expected} expected, ${e.knownGaps} known model gap(s), ${e.unexpected} unexpected`
  return `${all} change(s): ${e.expected} expected, ${e.unexpected} unexpected`
}

function modeLine(r: DiffReport): string | undefined {
  return r.mode === 'across-deployments'
    ? 'compared across deployments: statuses, error bodies, headers, routes, field sets and types; not data values'
    : undefined
}

export function terminalReport(r: DiffReport): string {
  const lines: string[] = []
  lines.push(`before: ${printable(r.before.file)} (${printable(versions(r.before))})`)
  lines.push(`after:  ${printable(r.after.file)} (${printable(versions(r.after))})`)
  const ml = modeLine(r)
  if (ml) lines.push(ml)
  if (r.noise.sources.length)
    lines.push(`noise measured from ${r.noise.sources.map(printable).join(', ')}: ${r.noise.suppressed} change(s) left out`)
  // (the terminal lists every unexpected change, and the expected ones per operation with their rows;
  // --reporter json, markdown or html list every change)
  for (const op of r.explained.operations) {
    lines.push('', `${op.api === 'mas' ? 'auth service' : 'homeserver'} ${printable(op.operation)}`)
    const expected = op.probes.flatMap((p) => p.changes.filter((c) => c.expected).map((c) => ({ p, c })))
    if (expected.length) {
      const rows = [...new Set(expected.flatMap(({ c }) => c.rows.map((x) => `${x.id}, ${x.event}`)))]
      const kinds = [...new Set(expected.map(({ c }) => c.kind))].join(', ')
      lines.push(
        `  expected   ${expected.length} change(s) on ${new Set(expected.map(({ p }) => p.key)).size} request(s) (${kinds}), explained by:`,
      )
      for (const x of rows) lines.push(`             ${printable(x)}`)
    }
    const gapped = op.probes.flatMap((p) => p.changes.filter((c) => c.gap).map((c) => c.gap!))
    for (const id of [...new Set(gapped.map((g) => g.id))]) {
      const g = gapped.find((x) => x.id === id)!
      lines.push(
        `  known gap  ${gapped.filter((x) => x.id === id).length} difference(s): ${printable(id)} (${g.cause}): ${printable(g.reason)}`,
      )
    }
    for (const p of op.probes) {
      for (const c of p.changes.filter((x) => !x.expected && !x.gap))
        lines.push(`  UNEXPECTED ${printable(p.request)} [${p.auth}]: ${printable(what(c))}`)
    }
  }
  const unseenGaps = r.explained.gaps.filter((g) => !g.seen)
  if (r.explained.gaps.length)
    lines.push(
      '',
      `known model gaps of these releases: ${r.explained.gaps.length}, ${r.explained.gaps.length - unseenGaps.length} of them seen`,
    )
  for (const g of unseenGaps) lines.push(`  not seen: ${printable(g.id)} (${printable(g.operation)})`)
  for (const pr of r.explained.products) {
    if (pr.note) lines.push('', `${pr.product}: ${pr.note}`)
    const observable = pr.rows.filter((x) => x.observable)
    const unseen = observable.filter((x) => !x.seen)
    if (pr.rows.length) {
      lines.push(
        '',
        `${pr.product === 'mas' ? 'auth service' : 'homeserver'} ${printable(pr.before ?? '?')} → ${printable(pr.after ?? '?')}: ${pr.rows.length} tabled change(s); ${observable.length} concern an operation a snapshot reads, ${observable.length - unseen.length} of them seen; ${pr.rows.length - observable.length} concern configuration, logs or the runtime`,
      )
    }
    for (const x of unseen) lines.push(`  not seen: ${x.id}, ${x.event}`)
  }
  if (r.notCompared.onlyBefore.length + r.notCompared.onlyAfter.length) {
    lines.push(
      '',
      `not compared (the snapshots were taken by different versions of this tool): ${r.notCompared.onlyBefore.length} probe(s) only before, ${r.notCompared.onlyAfter.length} only after`,
    )
  }
  lines.push('', verdict(r))
  return lines.join('\n') + '\n'
}

export function markdownReport(r: DiffReport): string {
  const out: string[] = [
    '# Deployment diff',
    '',
    `- before: \`${escapeMarkdown(r.before.file)}\` (${escapeMarkdown(versions(r.before))})`,
    `- after: \`${escapeMarkdown(r.after.file)}\` (${escapeMarkdown(versions(r.after))})`,
  ]
  const ml = modeLine(r)
  if (ml) out.push(`- ${ml}`)
  if (r.noise.sources.length)
    out.push(`- noise measured from ${r.noise.sources.map(escapeMarkdown).join(', ')}: ${r.noise.suppressed} change(s) left out`)
  out.push(`- **${verdict(r)}**`, '')
  if (r.explained.operations.length) {
    out.push('| operation | request | change | label |', '|---|---|---|---|')
    for (const op of r.explained.operations) {
      for (const p of op.probes)
        for (const c of p.changes)
          out.push(
            `| ${escapeMarkdown(op.operation)} | ${escapeMarkdown(p.request)} [${p.auth}] | ${escapeMarkdown(what(c))} | ${escapeMarkdown(why(c))} |`,
          )
    }
    out.push('')
  }
  if (r.explained.gaps.length) {
    out.push('## Known model gaps of these releases', '', '| gap | operation | cause | seen |', '|---|---|---|---|')
    for (const g of r.explained.gaps)
      out.push(`| ${escapeMarkdown(g.id)} | ${escapeMarkdown(g.operation)} | ${g.cause} | ${g.seen ? 'yes' : 'no'} |`)
    out.push('')
  }
  for (const pr of r.explained.products) {
    if (!pr.rows.length) continue
    out.push(
      `## Tabled changes, ${pr.product === 'mas' ? 'auth service' : 'homeserver'} ${escapeMarkdown(pr.before ?? '?')} → ${escapeMarkdown(pr.after ?? '?')}`,
      '',
      '| row | event | seen |',
      '|---|---|---|',
    )
    for (const x of pr.rows)
      out.push(
        `| ${escapeMarkdown(x.id)} | ${escapeMarkdown(x.event)} | ${x.seen ? 'yes' : x.observable ? 'no' : 'not observable (configuration, log or runtime)'} |`,
      )
    out.push('')
  }
  return out.join('\n') + '\n'
}

export function htmlReport(r: DiffReport): string {
  const e = escapeHtml
  const rows = r.explained.operations.flatMap((op) =>
    op.probes.flatMap((p) =>
      p.changes.map(
        (c) =>
          `<tr class="${c.expected ? 'exp' : c.gap ? 'gap' : 'unexp'}"><td>${e(op.operation)}</td><td><code>${e(p.request)}</code> [${e(p.auth)}]</td><td>${e(what(c))}</td><td>${e(why(c))}</td></tr>`,
      ),
    ),
  )
  const tabled = r.explained.products
    .filter((p) => p.rows.length)
    .map(
      (pr) =>
        `<h2>Tabled changes, ${pr.product === 'mas' ? 'auth service' : 'homeserver'} ${e(pr.before ?? '?')} → ${e(pr.after ?? '?')}</h2><table><tr><th>row</th><th>event</th><th>seen</th></tr>${pr.rows.map((x) => `<tr><td>${e(x.id)}</td><td>${e(x.event)}</td><td>${x.seen ? 'yes' : x.observable ? 'no' : 'not observable'}</td></tr>`).join('')}</table>`,
    )
  return `<!doctype html><html><head><meta charset="utf-8"><title>Deployment diff</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:75em;padding:0 1em}table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25em .5em;border-bottom:1px solid #eee;vertical-align:top}
.unexp td:last-child{color:#cf222e;font-weight:600}.exp td:last-child{color:#1a7f37}.gap td:last-child{color:#9a6700}
</style></head><body><h1>Deployment diff</h1>
<p>before: <code>${e(r.before.file)}</code> (${e(versions(r.before))})<br>after: <code>${e(r.after.file)}</code> (${e(versions(r.after))})</p>
${modeLine(r) ? `<p>${e(modeLine(r)!)}</p>` : ''}
${r.explained.gaps.length ? `<p>known model gaps of these releases: ${r.explained.gaps.map((g) => `${e(g.id)} (${g.seen ? 'seen' : 'not seen'})`).join(', ')}</p>` : ''}
${r.noise.sources.length ? `<p>noise measured from ${e(r.noise.sources.join(', '))}: ${r.noise.suppressed} change(s) left out</p>` : ''}
<p><strong>${e(verdict(r))}</strong></p>
${rows.length ? `<table><tr><th>operation</th><th>request</th><th>change</th><th>label</th></tr>${rows.join('\n')}</table>` : ''}
${tabled.join('\n')}
</body></html>
`
}
