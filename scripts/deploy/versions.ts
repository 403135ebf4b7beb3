// Which configuration shape a target version needs, decided from the image tags.

// Versions are read with the project's one parser (lib/versions.ts, parseVersionTag for image tags).
import { compareVersions, parseVersionTag, type Version } from '../../lib/versions.ts'

/** true when the tag's version (parseVersionTag) is `min` or later, or when the tag names no release (taken as the newest). */
export function atLeast(v: Version | undefined, min: string): boolean {
  return v === undefined || compareVersions(v, min) >= 0
}

/**
 * How the homeserver delegates auth to the auth service:
 * - `stable`: the `matrix_authentication_service` section (Synapse 1.136.0 and later; the experimental
 *   section was removed in 1.157.0);
 * - `msc3861`: `experimental_features.msc3861` with a client registered at the auth service (Synapse
 *   1.86.0, which brought experimental MSC3861 support, to 1.135.x);
 * - `none`: the homeserver predates delegation (before 1.86.0) and keeps its own login: users are
 *   registered with its shared secret and log in with passwords; no auth service can be wired to it.
 */
export type DelegationMode = 'stable' | 'msc3861' | 'none'
export const DELEGATION_MODES: readonly DelegationMode[] = ['stable', 'msc3861', 'none']

/** The first Synapse release with each form of delegation (its changelog: 1.86.0 "Experimental MSC3861 support"). */
export const DELEGATION_SINCE = { msc3861: '1.86.0', stable: '1.136.0' } as const

export function delegationMode(homeserverTag: string): DelegationMode {
  const v = parseVersionTag(homeserverTag)
  if (atLeast(v, DELEGATION_SINCE.stable)) return 'stable'
  return atLeast(v, DELEGATION_SINCE.msc3861) ? 'msc3861' : 'none'
}

/**
 * The auth service's `matrix.kind`. `synapse` means the modern homeserver API since MAS 1.0 (it needs
 * Synapse 1.135.0 or later); talking to an older homeserver from MAS 1.0 on needs `synapse_legacy`, while
 * before 1.0 plain `synapse` was the legacy API.
 */
export function homeserverKind(authTag: string, mode: DelegationMode): string {
  // 'none': no auth service is started; the value only keeps the (unused) generated file valid.
  if (mode === 'stable' || mode === 'none') return 'synapse'
  return atLeast(parseVersionTag(authTag), '1.0.0') ? 'synapse_legacy' : 'synapse'
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
