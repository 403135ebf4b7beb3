// What explore tells a person: each finding with its request, the answer (escaped and bounded), what was
// expected and the rule, the model's answer and a curl line (token from the environment); the counts;
// the JSON report (--json) and the case files (--save-cases) that `explore --replay` reads back.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { visible } from '../../lib/escape.ts'
import type { Case } from './cases.ts'
import type { ExploreResult, Finding } from './engine.ts'
import { ADVISORY } from './oracles.ts'

export const CASE_FORMAT = 'admin-conformance-explore-case/1'
export const REPORT_FORMAT = 'admin-conformance-explore/1'

const CLASS_TEXT: Record<Finding['cls'], string> = {
  'target-defect': 'defect of the target',
  'known-defect': 'known defect',
  'known-deviation': 'known deviation',
  'model-gap': 'gap of the model',
}

/** A finding only of advisory rules (another error text): shown, failing only with --strict (decision 0011). */
export function advisory(f: Finding): boolean {
  return f.violations.length > 0 && f.violations.every((v) => ADVISORY.has(v.rule))
}

/** Findings that fail the command: unexplained ones but advisory ones, and with --strict every one. */
export function failing(findings: Finding[], strict: boolean): Finding[] {
  return findings.filter((f) => strict || ((f.cls === 'target-defect' || f.cls === 'model-gap') && !advisory(f)))
}

/** A finding's label: its class, its row, and whether it is advisory. */
export function labelOf(f: Finding): string {
  return `${CLASS_TEXT[f.cls]}${f.deviation ? ` ${f.deviation.id}` : ''}${advisory(f) ? ' (text, advisory)' : ''}`
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length - n} more characters)` : s
}

/** One finding, in full. */
export function findingText(f: Finding): string {
  const lines = [
    `${f.id} ${labelOf(f)}: ${f.operation} (${f.note}${f.occurrences > 1 ? `; ${f.occurrences} requests alike` : ''})`,
    `  request:  ${f.request}`,
    `  answer:   ${f.answer.status}${f.answer.contentType ? ` (${f.answer.contentType})` : ''} ${clip(f.answer.body, 300) || '(empty body)'}`,
    ...f.violations.map((v) => `  expected: ${v.expected}\n  rule:     ${v.source}`),
    `  model:    ${f.model.status} ${clip(f.model.body, 200) || '(empty body)'}`,
    ...(f.deviation ? [`  known:    ${f.deviation.fact}`] : []),
    `  curl:     ${f.curl}`,
  ]
  return lines.map((l) => visible(l, { newlines: 'keep' })).join('\n')
}

export function terminalReport(r: ExploreResult, o: { seed: number; strict: boolean; full?: number }): string {
  const full = o.full ?? 20
  const out: string[] = []
  r.findings.forEach((f, i) => {
    if (i < full) out.push(findingText(f), '')
    else out.push(visible(`${f.id} ${labelOf(f)}: ${f.request} → ${f.answer.status}`))
  })
  const by = (c: Finding['cls']) => r.findings.filter((f) => f.cls === c).length
  const fail = failing(r.findings, o.strict).length
  out.push(
    `seed ${o.seed}: ${r.cases} cases, ${r.sent} sent (${r.skipped} skipped), ${r.requests.target} requests to the target and ${r.requests.model} to the model in ${(r.durationMs / 1000).toFixed(1)} s`,
    `${r.findings.length} finding(s): ${by('target-defect')} defect(s) of the target, ${by('known-defect')} known defect(s), ${by('known-deviation')} known deviation(s), ${by('model-gap')} gap(s) of the model; ${r.findings.filter(advisory).length} of other texts (advisory); ${fail} fail the command`,
  )
  if (r.incomplete) out.push(`incomplete: ${r.incomplete}`)
  return out.join('\n') + '\n'
}

export function jsonReport(r: ExploreResult, meta: Record<string, unknown>): string {
  return JSON.stringify({ format: REPORT_FORMAT, ...meta, ...r, durationMs: Math.round(r.durationMs) }, null, 1) + '\n'
}

/** One case file per finding, named by its id; returns the paths. */
export function saveCases(dir: string, findings: Finding[], meta: Record<string, unknown>): string[] {
  mkdirSync(dir, { recursive: true })
  return findings.map((f) => {
    const file = path.join(dir, `${f.id}.json`)
    const { case: c, ...rest } = f
    writeFileSync(
      file,
      JSON.stringify(
        {
          format: CASE_FORMAT,
          ...meta,
          finding: {
            id: rest.id,
            cls: rest.cls,
            deviation: rest.deviation,
            violations: rest.violations,
            request: rest.request,
            status: rest.answer.status,
          },
          case: c,
        },
        null,
        1,
      ) + '\n',
    )
    return file
  })
}

export class CaseFileError extends Error {}

const API = new Set(['mas', 'hs'])
const AUTH = new Set(['admin', 'user', 'none', 'malformed'])

function isCase(v: unknown): v is Case {
  const c = v as Case
  return (
    !!c &&
    typeof c === 'object' &&
    API.has(c.api) &&
    typeof c.method === 'string' &&
    /^[A-Z]+$/.test(c.method) &&
    typeof c.template === 'string' &&
    c.template.startsWith('/') &&
    typeof c.operation === 'string' &&
    AUTH.has(c.auth) &&
    !!c.params &&
    typeof c.params === 'object' &&
    Array.isArray(c.query) &&
    (c.body === undefined || typeof c.body === 'string')
  )
}

/** The cases of a case file, or of every finding of a JSON report. */
export function readCases(file: string): Case[] {
  let doc: { format?: unknown; case?: unknown; findings?: { case?: unknown }[] }
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as typeof doc
  } catch (e) {
    throw new CaseFileError(`${file}: ${(e as NodeJS.ErrnoException).code ?? 'not JSON'}`)
  }
  const cases = doc.format === CASE_FORMAT ? [doc.case] : doc.format === REPORT_FORMAT ? (doc.findings ?? []).map((f) => f.case) : undefined
  if (!cases) throw new CaseFileError(`${file}: neither an explore case file nor an explore JSON report`)
  if (cases.length === 0) throw new CaseFileError(`${file}: the report has no finding to replay`)
  for (const c of cases) if (!isCase(c)) throw new CaseFileError(`${file}: a case is not in the form explore writes`)
  return cases as Case[]
}

/**
 * JUnit XML (with the run's escaper): one test case per operation explored, failed by its findings that
 * fail the command, a known one as skipped with its row; CI shows them as the run's are shown.
 */
export function junitReport(r: ExploreResult, strict: boolean, escape: (s: string) => string): string {
  const byOp = new Map<string, Finding[]>()
  for (const op of Object.keys(r.perOperation)) byOp.set(op, [])
  for (const f of r.findings) byOp.set(f.operation, [...(byOp.get(f.operation) ?? []), f])
  const fail = new Set(failing(r.findings, strict))
  const cases = [...byOp].map(([op, fs]) => {
    const failed = fs.filter((f) => fail.has(f))
    const known = fs.filter((f) => !fail.has(f))
    const p = r.perOperation[op]
    const body = [
      ...failed.map(
        (f) => `<failure message="${escape(`${f.id}: ${f.request} → ${f.answer.status}`)}">${escape(findingText(f))}</failure>`,
      ),
      ...(failed.length === 0 && known.length
        ? [
            `<skipped message="${escape(known.map((f) => `${f.id} ${advisory(f) ? 'text (advisory)' : (f.deviation?.id ?? f.cls)}`).join(', '))}"/>`,
          ]
        : []),
    ].join('')
    return `  <testcase classname="explore" name="${escape(op)}" time="${((p?.ms ?? 0) / 1000).toFixed(3)}">${body}</testcase>`
  })
  const failures = [...byOp.values()].filter((fs) => fs.some((f) => fail.has(f))).length
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n <testsuite name="admin-conformance explore" tests="${byOp.size}" failures="${failures}" time="${(r.durationMs / 1000).toFixed(3)}">\n${cases.join('\n')}\n </testsuite>\n</testsuites>\n`
}
