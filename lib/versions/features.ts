// Features by version of the auth service and the homeserver (lib/data/{mas,synapse}-features.json).
import masData from '../data/mas-features.json' with { type: 'json' }
import synapseData from '../data/synapse-features.json' with { type: 'json' }
import type { MasFeaturesFeature, SynapseFeaturesFeature } from '../types.gen.ts'
import { compareVersions, parseServerVersionString, parseVersion, type Version, VersionError } from './parse.ts'
import type { SourceName } from './rollback.ts'

type FeatureEntry = MasFeaturesFeature | SynapseFeaturesFeature

export type MasFeature = keyof typeof masData.features
export type SynapseFeature = keyof typeof synapseData.features

export interface FeatureInfo {
  readonly since: Version | null
  readonly until: Version | null
  readonly description: string
  readonly appliesTo: readonly string[]
  readonly source: SourceName
  readonly section: string
}

function loadFeatures<K extends string>(features: Record<K, FeatureEntry>): Readonly<Record<K, FeatureInfo>> {
  const out = {} as Record<K, FeatureInfo>
  for (const [name, f] of Object.entries(features) as [K, FeatureEntry][]) {
    out[name] = Object.freeze({
      since: f.since ? parseVersion(f.since) : null,
      until: f.until ? parseVersion(f.until) : null,
      description: f.description,
      appliesTo: Object.freeze([...(f.appliesTo ?? [])]),
      source: f.source,
      section: f.section,
    })
  }
  return Object.freeze(out)
}

export const MAS_FEATURES = loadFeatures<MasFeature>(masData.features as Record<MasFeature, FeatureEntry>)
export const SYNAPSE_FEATURES = loadFeatures<SynapseFeature>(synapseData.features as Record<SynapseFeature, FeatureEntry>)
export const MAS_FEATURE_NAMES = Object.freeze(Object.keys(MAS_FEATURES) as MasFeature[])
export const SYNAPSE_FEATURE_NAMES = Object.freeze(Object.keys(SYNAPSE_FEATURES) as SynapseFeature[])

// The mock asks about its claimed version on every request: each string is parsed once (a few
// distinct strings per process; the map is emptied should a caller pass many).
const PARSED = new Map<string, Version | null>()

function parsedVersion(text: string): Version | null {
  let v = PARSED.get(text)
  if (v === undefined) {
    const p = parseServerVersionString(text)
    v = p.ok ? p.version : null
    if (PARSED.size >= 256) PARSED.clear()
    PARSED.set(text, v)
  }
  return v
}

function has<K extends string>(
  product: string,
  table: Readonly<Record<K, FeatureInfo>>,
  version: string | Version | null | undefined,
  feature: K,
): boolean | 'unknown' {
  const info = Object.hasOwn(table, feature) ? table[feature] : undefined
  if (!info) throw new VersionError(`unknown ${product} feature ${JSON.stringify(feature)}; known: ${Object.keys(table).join(', ')}`)
  let v: Version
  if (version === null || version === undefined) return 'unknown'
  if (typeof version === 'string') {
    const parsed = parsedVersion(version)
    if (parsed === null) return 'unknown'
    v = parsed
  } else {
    v = version
  }
  if (info.since && compareVersions(v, info.since) < 0) return false
  if (info.until && compareVersions(v, info.until) >= 0) return false
  return true
}

/**
 * Does this auth-service version have the feature? `version` may be the `version` endpoint's string.
 * 'unknown' when the version is missing or unparseable (the suites then run the check and say so).
 */
export function masHas(version: string | Version | null | undefined, feature: MasFeature): boolean | 'unknown' {
  return has('MAS', MAS_FEATURES, version, feature)
}

/** Same for the homeserver; `version` may be a raw `server_version` string such as "1.157.1 (b=develop, abcdef1)". */
export function synapseHas(version: string | Version | null | undefined, feature: SynapseFeature): boolean | 'unknown' {
  return has('Synapse', SYNAPSE_FEATURES, version, feature)
}
