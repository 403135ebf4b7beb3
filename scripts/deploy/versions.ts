// Which configuration shape a target version needs, decided from the image tags.

export interface Semver {
  major: number
  minor: number
  patch: number
}

/**
 * The version in an image tag such as `v1.136.0`, `1.136.0-debug` or `1.136`; undefined for tags that name
 * no release (`latest`, `main`, `develop`, `sha-…`), which are taken as the newest.
 */
export function tagVersion(tag: string): Semver | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+._].*)?$/.exec(tag)
  if (!m) return undefined
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) }
}

export function compare(a: Semver, b: Semver): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch
}

export function atLeast(v: Semver | undefined, min: string): boolean {
  if (v === undefined) return true
  const m = tagVersion(min)
  if (!m) throw new Error(`bad version ${min}`)
  return compare(v, m) >= 0
}

/**
 * How the homeserver delegates auth to the auth service:
 * - `stable`: the `matrix_authentication_service` section (Synapse 1.136.0 and later; the experimental
 *   section was removed in 1.157.0);
 * - `msc3861`: `experimental_features.msc3861` with a client registered at the auth service (before 1.136.0).
 */
export type DelegationMode = 'stable' | 'msc3861'

export function delegationMode(homeserverTag: string): DelegationMode {
  return atLeast(tagVersion(homeserverTag), '1.136.0') ? 'stable' : 'msc3861'
}

/**
 * The auth service's `matrix.kind`. `synapse` means the modern homeserver API since MAS 1.0 (it needs
 * Synapse 1.135.0 or later); talking to an older homeserver from MAS 1.0 on needs `synapse_legacy`, while
 * before 1.0 plain `synapse` was the legacy API.
 */
export function homeserverKind(authTag: string, mode: DelegationMode): string {
  if (mode === 'stable') return 'synapse'
  return atLeast(tagVersion(authTag), '1.0.0') ? 'synapse_legacy' : 'synapse'
}

/** Split `repo/name:tag` (or `repo@sha256:…`) into its repository and tag; `latest` when no tag is given. */
export function splitImage(ref: string): { repository: string; tag: string } {
  const at = ref.indexOf('@')
  if (at >= 0) return { repository: ref.slice(0, at), tag: ref.slice(at + 1) }
  const slash = ref.lastIndexOf('/')
  const colon = ref.lastIndexOf(':')
  if (colon > slash) return { repository: ref.slice(0, colon), tag: ref.slice(colon + 1) }
  return { repository: ref, tag: 'latest' }
}
