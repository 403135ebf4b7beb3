// Known deviations of released versions from the interface document (lib/data/deviations.json, schema
// schemas/versions/deviations.json): the suites report an assertion a deviation explains as a third
// outcome, and the mock claiming such a version reproduces it. Kept apart from lib/versions.ts (the
// version parser and feature tables) so that each has one owner.
import data from './data/deviations.json' with { type: 'json' }
import { compareVersions, formatVersion, parseServerVersionString, parseVersion, type Version } from './versions.ts'

export type DeviationId = keyof typeof data.deviations

export interface DeviationInfo {
  readonly id: DeviationId
  readonly product: 'mas' | 'synapse'
  /** 'defect': a bug of the real server, reported as a known defect of those releases */
  readonly kind: 'deviation' | 'defect'
  readonly reproduction: { readonly request: string; readonly answer: string; readonly observedIn: readonly Version[] } | null
  readonly since: Version | null
  readonly until: Version | null
  readonly observedUpTo: Version | null
  readonly fact: string
  readonly interface: string
  readonly source: 'interface' | 'reference'
  readonly section: string
}

interface Entry {
  product: string
  kind?: string
  reproduction?: { request: string; answer: string; observedIn?: string[] }
  since?: string
  until?: string
  observedUpTo?: string
  fact: string
  interface: string
  source: string
  section: string
}

export const DEVIATIONS: Readonly<Record<DeviationId, DeviationInfo>> = Object.freeze(
  Object.fromEntries(
    Object.entries(data.deviations as Record<string, Entry>).map(([id, e]) => [
      id,
      Object.freeze({
        id: id as DeviationId,
        product: e.product as 'mas' | 'synapse',
        kind: e.kind === 'defect' ? ('defect' as const) : ('deviation' as const),
        reproduction: e.reproduction
          ? Object.freeze({
              request: e.reproduction.request,
              answer: e.reproduction.answer,
              observedIn: Object.freeze((e.reproduction.observedIn ?? []).map(parseVersion)),
            })
          : null,
        since: e.since ? parseVersion(e.since) : null,
        until: e.until ? parseVersion(e.until) : null,
        observedUpTo: e.observedUpTo ? parseVersion(e.observedUpTo) : null,
        fact: e.fact,
        interface: e.interface,
        source: e.source as 'interface' | 'reference',
        section: e.section,
      }),
    ]),
  ) as Record<DeviationId, DeviationInfo>,
)

/**
 * Whether a version has the deviation. An unknown or unparsable version (null, a string that is not a
 * release) is taken as the newest release: it has the deviation unless a release is known to fix it.
 */
export function hasDeviation(version: string | Version | null | undefined, id: DeviationId): boolean {
  const d = DEVIATIONS[id]
  let v: Version | null = null
  if (typeof version === 'string') {
    const p = parseServerVersionString(version)
    v = p.ok ? p.version : null
  } else if (version) v = version
  if (v === null) return d.until === null
  if (d.since && compareVersions(v, d.since) < 0) return false
  if (d.until && compareVersions(v, d.until) >= 0) return false
  return true
}

/** The releases a deviation covers, for messages: "v0.15.0 to v1.22.0 (newest examined)". */
export function deviationRange(id: DeviationId): string {
  const d = DEVIATIONS[id]
  const from = d.since ? formatVersion(d.since) : 'every release'
  if (d.until) return `${from} up to (not including) ${formatVersion(d.until)}`
  return d.observedUpTo ? `${from} to ${formatVersion(d.observedUpTo)} (the newest examined)` : `${from} on`
}
