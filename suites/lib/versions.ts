// The target's versions and what they decide. Every behaviour that changed between releases is looked
// up in lib/data (features by release, known deviations); an unparsable version is said once per target
// and taken as the newest release. A check that cannot apply to the version skips with it as the reason.
import {
  masHas,
  synapseHas,
  MAS_FEATURES,
  SYNAPSE_FEATURES,
  formatVersion,
  parseServerVersionString,
  type MasFeature,
  type SynapseFeature,
  type Version,
} from '../../lib/versions.ts'
import { DEVIATIONS, deviationRange, hasDeviation, type DeviationId } from '../../lib/deviations.ts'
import { memo, target } from './context.ts'
import { skip } from './needs.ts'
import { mas, hs } from './requests.ts'
import { runningChecker, setRule, type Test } from './check.ts'
import tap from 'tap'

/** The auth service's version string (from the runner's preflight, else asked once). */
export function masVersion(): Promise<string | undefined> {
  return memo('version:mas', async () => {
    if (target.versions?.mas) return target.versions.mas
    if (!target.mas?.adminToken) return undefined
    try {
      const res = await mas('GET', '/version')
      const v = (res.json as { version?: unknown } | undefined)?.version
      return typeof v === 'string' ? v : undefined
    } catch {
      return undefined
    }
  })
}

/** The homeserver's server_version string. */
export function hsVersion(): Promise<string | undefined> {
  return memo('version:hs', async () => {
    if (target.versions?.hs) return target.versions.hs
    if (!target.hs) return undefined
    try {
      const res = await hs('GET', '/server_version', { as: 'none' })
      const v = (res.json as { server_version?: unknown } | undefined)?.server_version
      return typeof v === 'string' ? v : undefined
    } catch {
      return undefined
    }
  })
}

export interface KnownVersion {
  /** as the target reported it */
  raw: string | undefined
  /** the release, or null when it is unknown (then the newest release is assumed) */
  version: Version | null
  /** how messages name it: "v1.67.0", or "unknown (…), taken as the newest" */
  shown: string
}

const said = new Set<string>()

/** The product's version, parsed; an unknown one is said once (a top-level comment) and taken as the newest. */
async function known(product: 'mas' | 'hs'): Promise<KnownVersion> {
  const raw = product === 'mas' ? await masVersion() : await hsVersion()
  const p = raw === undefined ? undefined : parseServerVersionString(raw)
  if (p?.ok) return { raw, version: p.version, shown: formatVersion(p.version) }
  const why = p ? p.reason : 'not reported'
  const name = product === 'mas' ? 'auth service' : 'homeserver'
  const key = `${product}:${raw}`
  if (!said.has(key)) {
    said.add(key)
    tap.comment(`the ${name} version is unknown (${why}): the checks assume the newest release`)
  }
  return { raw, version: null, shown: `unknown (${raw ?? 'not reported'}), taken as the newest` }
}

export const masKnownVersion = (): Promise<KnownVersion> => known('mas')
export const hsKnownVersion = (): Promise<KnownVersion> => known('hs')

/** Whether a feature table entry holds for a version; null (unknown) = the newest release. */
function holds(info: { since: Version | null; until: Version | null }, has: boolean | 'unknown'): boolean {
  if (has !== 'unknown') return has
  return info.until === null
}

function range(info: { since: Version | null; until: Version | null }): string {
  return [info.since ? `since ${formatVersion(info.since)}` : '', info.until ? `until ${formatVersion(info.until)}` : '']
    .filter(Boolean)
    .join(', ')
}

/** Whether the target's auth service has the feature (unknown version: the newest release). */
export async function masFeature(feature: MasFeature): Promise<boolean> {
  const v = await masKnownVersion()
  return holds(MAS_FEATURES[feature], v.version ? masHas(v.version, feature) : 'unknown')
}

/** Whether the target's homeserver has the feature (unknown version: the newest release). */
export async function hsFeature(feature: SynapseFeature): Promise<boolean> {
  const v = await hsKnownVersion()
  return holds(SYNAPSE_FEATURES[feature], v.version ? synapseHas(v.version, feature) : 'unknown')
}

/** The rule a version-decided expectation comes from, for failure messages. */
export async function hsFeatureRule(feature: SynapseFeature): Promise<string> {
  const v = await hsKnownVersion()
  const info = SYNAPSE_FEATURES[feature]
  return `homeserver ${v.shown}: ${feature} (${range(info)}; ${info.section})`
}

/** Skip the check unless the target's auth service version has the feature. */
export async function requireMasFeature(_t: Test, feature: MasFeature): Promise<void> {
  const v = await masKnownVersion()
  const info = MAS_FEATURES[feature]
  if (!(await masFeature(feature))) skip(`the auth service is ${v.shown}; ${feature} exists ${range(info) || 'not in this version'}`)
}

/** Skip the check unless the target's homeserver version has the feature. */
export async function requireSynapseFeature(_t: Test, feature: SynapseFeature): Promise<void> {
  const v = await hsKnownVersion()
  const info = SYNAPSE_FEATURES[feature]
  if (!(await hsFeature(feature))) skip(`the homeserver is ${v.shown}; ${feature} applies ${range(info)}`)
  setRule(`homeserver ${v.shown}: ${feature} (${range(info)}; ${info.section})`)
}

/**
 * Run assertions under a known deviation: when the target's release has it, each failing assertion
 * inside is a TAP TODO "deviation: <release>: <fact>" (a failure with AC_STRICT=1).
 */
export async function underDeviation(id: DeviationId, fn: () => Promise<void> | void): Promise<void> {
  const d = DEVIATIONS[id]
  const v = d.product === 'mas' ? await masKnownVersion() : await hsKnownVersion()
  const c = runningChecker()
  if (!c || !hasDeviation(v.version, id)) {
    await fn()
    return
  }
  const product = d.product === 'mas' ? 'auth service' : 'homeserver'
  const before = c.deviation
  // A defect is the server's own bug: said so, with the request that shows it, so that the operator
  // knows the release (not the harness) is wrong and how to see it by hand.
  const what = d.kind === 'defect' ? `known defect ${id}` : id
  const repro = d.reproduction ? `; reproduce: ${d.reproduction.request} → ${d.reproduction.answer}` : ''
  c.deviation = { id, reason: `${product} ${v.shown}: ${what}: ${d.fact} (known in ${deviationRange(id)}; ${d.section}${repro})` }
  try {
    await fn()
  } finally {
    c.deviation = before
  }
}

export { parseServerVersionString, synapseHas as synapseHasFeature, masHas as masHasFeature }
