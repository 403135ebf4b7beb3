// Whose fault a difference is. The model has two answers for each request: as it claims the target's
// release (reproducing the release's known deviations and defects, lib/data/deviations.json) and strict
// (reproducing none). A target that answers as the strict model conforms; one that answers as the model
// only through a deviation has that known deviation or defect (named by its row); otherwise the model is
// trusted unless its own answer breaks a rule the target's keeps (a gap of the model).
import { DEVIATIONS, hasDeviation, type DeviationInfo } from '../../lib/deviations.ts'
import type { Operation } from './generate.ts'
import { ADVISORY, absoluteViolations, alike, modelViolations, type Violation } from './oracles.ts'
import type { Answer, Case } from './cases.ts'

export type FindingClass = 'target-defect' | 'known-defect' | 'known-deviation' | 'model-gap'

export interface Verdict {
  violations: Violation[]
  cls: FindingClass
  deviation?: DeviationInfo
}

function templateRegex(template: string): RegExp {
  const parts = template.split(/\{\w+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${parts.join('[^/?]+')}$`)
}

/** The row of lib/data/deviations.json that explains this request's answer at this release, if one does. */
export function deviationFor(c: Case, version: string | undefined): DeviationInfo | undefined {
  const product = c.api === 'mas' ? 'mas' : 'synapse'
  const re = templateRegex(c.template)
  for (const d of Object.values(DEVIATIONS)) {
    if (d.product !== product || !hasDeviation(version ?? null, d.id)) continue
    if (d.reproduction) {
      const m = /https?:\/\/[^/\s'"]+(\/[^\s'"]*)/.exec(d.reproduction.request)
      if (!m) continue
      const [path, query] = m[1]!.split('?')
      if (re.test(path!) && (query === undefined) === (c.query.length === 0)) return d
    } else if (d.fact.includes(`${c.method} ${c.template}`)) return d
  }
  return undefined
}

/** The violations of one request, and their class; undefined when the target's answer is fine. */
export function judge(
  c: Case,
  op: Operation | undefined,
  version: string | undefined,
  target: Answer,
  model: Answer,
  strict: Answer,
): Verdict | undefined {
  const absolute = absoluteViolations(c, op, target)
  const conformsToModel = alike(target, model) || alike(target, strict)
  // a target that answers as the strict model but for an advisory rule (another text) is told that
  // difference, not the model's known deviation it does not share (the model's 500 where it answers 404)
  const advisoryOnly = (vs: Violation[]) => vs.length > 0 && vs.every((v) => ADVISORY.has(v.rule))
  const fromStrict = !conformsToModel && advisoryOnly(modelViolations(target, strict)) && !advisoryOnly(modelViolations(target, model))
  const reference = fromStrict ? strict : model
  const violations = [...absolute, ...(conformsToModel ? [] : modelViolations(target, reference))]
  if (violations.length === 0) return undefined
  if (alike(target, model) && !alike(model, strict)) {
    const d = deviationFor(c, version)
    return { violations, cls: d?.kind === 'defect' ? 'known-defect' : 'known-deviation', ...(d ? { deviation: d } : {}) }
  }
  const modelBroken = absoluteViolations(c, op, reference).length > 0
  const documented = (a: Answer) =>
    c.kind === 'method' || op?.doc.responses[String(a.status)] !== undefined || [400, 401, 403, 404, 405].includes(a.status)
  if (modelBroken || (absolute.length === 0 && documented(target) && !documented(reference))) return { violations, cls: 'model-gap' }
  return { violations, cls: 'target-defect' }
}
