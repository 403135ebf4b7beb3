// The proof of explore's oracles on the mock's fault catalog: for each fault of areas A and B that applies
// at the releases the mock claims, explore the bundled mock with that fault (its known deviations off, as
// the run's fault matrix does, so that the fault is the only thing wrong) against the model, read-only,
// and count it found when explore reports a finding. The clean mock must give none.
import { wantedFaults } from '../run/target/fault-matrix.ts'
import type { MatrixFaultDef } from '../run/target/mock-handle.ts'
import { explore, type ExploreResult } from './engine.ts'
import { startMockSide, startModel } from './model.ts'
import type { Case } from './cases.ts'

export interface FaultOutcome {
  fault: string
  /** the area whose operations explore asked: A (admin) or B (reports) */
  area: 'A' | 'B'
  description: string
  found: boolean
  findings: number
  /** the first finding, as a line */
  first?: string
  requests: number
  ms: number
}

export interface ProofOptions {
  versions: { mas: string; hs: string }
  seed?: number
  random?: number
  /** only these faults (default: every one of areas A and B at the versions) */
  only?: string[]
  onFault?: (o: FaultOutcome) => void
  /** only the cases this keeps (tests keep their cost small) */
  cases?: (c: Case) => boolean
}

const prefixes = { hsPrefix: '/_synapse', clientPrefix: '/_matrix' }

async function exploreMock(
  faults: string[],
  area: 'A' | 'B' | 'both',
  o: ProofOptions,
  model: Awaited<ReturnType<typeof startModel>>,
): Promise<ExploreResult> {
  const t = await startMockSide({ versions: o.versions, prefixes, userAgent: 'admin-conformance-explore-proof', faults, deviations: false })
  try {
    const target = { ...t.side }
    if (area === 'A') delete target.hs
    if (area === 'B') delete target.mas
    return await explore(target, model.model, model.strict, {
      seed: o.seed ?? 1,
      random: o.random ?? 4,
      allowWrites: false,
      versions: o.versions,
      ...(o.cases ? { only: o.cases } : {}),
    })
  } finally {
    await t.close()
  }
}

export async function faultProof(o: ProofOptions): Promise<{ clean: ExploreResult; faults: FaultOutcome[] }> {
  const model = await startModel(o.versions, prefixes, 'admin-conformance-explore-proof')
  try {
    const clean = await exploreMock([], 'both', o, model)
    const wanted: MatrixFaultDef[] = await wantedFaults(['admin', 'reports'], o.versions, o.only ?? [])
    const out: FaultOutcome[] = []
    for (const f of wanted) {
      const area = f.areas.includes('admin') ? 'A' : 'B'
      const r = await exploreMock([f.name], area, o, model)
      const first = r.findings[0]
      const outcome: FaultOutcome = {
        fault: f.name,
        area,
        description: f.description,
        found: r.findings.length > 0,
        findings: r.findings.length,
        ...(first
          ? {
              first: `${first.request.replace(/https?:\/\/[^/]+/, '')} → ${first.answer.status} (${first.violations.map((v) => v.rule).join(', ')}; ${first.cls})`,
            }
          : {}),
        requests: r.requests.target,
        ms: Math.round(r.durationMs),
      }
      out.push(outcome)
      o.onFault?.(outcome)
    }
    return { clean, faults: out }
  } finally {
    await model.close()
  }
}

/**
 * The write faults' proof: for each named fault, stateful sequences (sequences.ts) against the bundled mock
 * with it, a fresh model each (a sequence deletes reports in both). Found when a sequence differs.
 */
export async function sequenceProof(o: ProofOptions & { runs?: number }): Promise<{ fault: string; found: boolean; steps?: string }[]> {
  const { exploreSequences, stepLine } = await import('./sequences.ts')
  const wanted: MatrixFaultDef[] = await wantedFaults(['admin', 'reports'], o.versions, o.only ?? [])
  const out: { fault: string; found: boolean; steps?: string }[] = []
  for (const f of wanted) {
    const area = f.areas.includes('admin') ? 'A' : 'B'
    const model = await startModel(o.versions, prefixes, 'admin-conformance-explore-proof')
    const t = await startMockSide({
      versions: o.versions,
      prefixes,
      userAgent: 'admin-conformance-explore-proof',
      faults: [f.name],
      deviations: false,
    })
    try {
      const r = await exploreSequences(
        { target: t.side, model: model.model, strict: model.strict },
        { seed: o.seed ?? 1, runs: o.runs ?? 100, tag: `proof-${out.length}`, apis: { mas: area === 'A', hs: area === 'B' } },
      )
      out.push({ fault: f.name, found: !!r.finding, ...(r.finding ? { steps: r.finding.steps.map(stepLine).join('; ') } : {}) })
    } finally {
      await t.close()
      await model.close()
    }
  }
  return out
}
