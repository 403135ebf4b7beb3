// Known model gaps of the bundled mock (lib/data/model-gaps.json, schema schemas/versions/model-gaps.json):
// where the mock claiming a release answers otherwise than a real deployment of it, in what a model can
// promise. `diff --across-deployments` labels a change a gap covers as a known model gap (decision 0009).
import data from './data/model-gaps.json' with { type: 'json' }
import { compareVersions, parseServerVersionString, parseVersion, type Version } from './versions.ts'

export interface ModelGap {
  readonly id: string
  readonly product: 'mas' | 'synapse'
  readonly cause: 'model' | 'configuration'
  /** METHOD and path template in the default prefixes, as a snapshot names the operation */
  readonly operation: string
  /** aspect patterns (`*` any run of characters) */
  readonly aspects: readonly string[]
  readonly since: Version | null
  readonly until: Version | null
  readonly observedIn: readonly Version[]
  readonly reason: string
}

interface Entry {
  product: string
  cause: string
  operation: string
  aspects: string[]
  since?: string
  until?: string
  observedIn: string[]
  reason: string
}

export const MODEL_GAPS: readonly ModelGap[] = Object.freeze(
  Object.entries(data.gaps as Record<string, Entry>).map(([id, e]) =>
    Object.freeze({
      id,
      product: e.product as 'mas' | 'synapse',
      cause: e.cause as 'model' | 'configuration',
      operation: e.operation,
      aspects: Object.freeze([...e.aspects]),
      since: e.since ? parseVersion(e.since) : null,
      until: e.until ? parseVersion(e.until) : null,
      observedIn: Object.freeze(e.observedIn.map(parseVersion)),
      reason: e.reason,
    }),
  ),
)

/** Does the gap concern this release? An unknown or unparsable release: every gap of the product may apply. */
export function gapAppliesAt(gap: ModelGap, release: string | undefined): boolean {
  if (release === undefined) return true
  const p = parseServerVersionString(release)
  if (!p.ok) return true
  if (gap.since && compareVersions(p.version, gap.since) < 0) return false
  if (gap.until && compareVersions(p.version, gap.until) >= 0) return false
  return true
}

function globMatches(pattern: string, text: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )
  return re.test(text)
}

/** The gap that covers a change of `aspect` on `operation` (METHOD /template), if any. */
export function gapFor(gaps: readonly ModelGap[], product: 'mas' | 'synapse', operation: string, aspect: string): ModelGap | undefined {
  return gaps.find((g) => g.product === product && g.operation === operation && g.aspects.some((a) => globMatches(a, aspect)))
}
