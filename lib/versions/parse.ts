// Version text: the one strict parser, the lenient readers of server strings and image tags, ordering.

export interface Version {
  readonly major: number
  readonly minor: number
  readonly patch: number
}
export type VersionLike = Version | string

/** Bad version text, a reversed or uncovered range: always a message fit to show a user. */
export class VersionError extends Error {
  override name = 'VersionError'
}

const EXPECTED = 'expected a release version such as v1.98.0 or 1.98.0'
// A component is a plain decimal number; bounded so that it stays a safe integer.
const PART = /^(0|[1-9][0-9]{0,8})$/

/** Strict: `v1.2.3` or `1.2.3`, nothing else (no rc, no 2 or 4 parts, no leading zeros, no suffix). */
export function parseVersion(s: string): Version {
  if (typeof s !== 'string') throw new VersionError(`version must be a string, got ${typeof s}; ${EXPECTED}`)
  const text = s.trim()
  if (text === '') throw new VersionError(`empty version; ${EXPECTED}`)
  const shown = JSON.stringify(text)
  if (/^v?\d+(\.\d+)*[-.]?rc/i.test(text)) {
    throw new VersionError(
      `${shown} is a release candidate; release candidates are not accepted (the rollback table lists releases only): give a release version such as v1.2.3`,
    )
  }
  const body = text.startsWith('v') ? text.slice(1) : text
  const parts = body.split('.')
  if (!parts.every((p) => /^[0-9]+$/.test(p))) {
    if (/^\d+\.\d+\.\d+/.test(body)) throw new VersionError(`${shown} has text after the version number; ${EXPECTED}`)
    throw new VersionError(`${shown} is not a version; ${EXPECTED}`)
  }
  if (parts.length !== 3) {
    throw new VersionError(
      `${shown} has ${parts.length} number${parts.length === 1 ? '' : 's'}, a version has exactly three (major.minor.patch); ${EXPECTED}`,
    )
  }
  for (const p of parts) {
    if (!PART.test(p)) {
      throw new VersionError(
        p.length > 1 && p.startsWith('0')
          ? `${shown} has a leading zero in ${JSON.stringify(p)}; ${EXPECTED}`
          : `${shown} has a number that is too large; ${EXPECTED}`,
      )
    }
  }
  const [major, minor, patch] = parts.map(Number) as [number, number, number]
  return Object.freeze({ major, minor, patch })
}

export function formatVersion(v: Version): string {
  return `v${v.major}.${v.minor}.${v.patch}`
}

/** A Version as is, or the strict parse of version text (throws VersionError). */
export function toVersion(v: VersionLike): Version {
  return typeof v === 'string' ? parseVersion(v) : v
}

/** Negative, zero or positive like a sort comparator (always -1, 0 or 1). */
export function compareVersions(a: VersionLike, b: VersionLike): -1 | 0 | 1 {
  const x = toVersion(a)
  const y = toVersion(b)
  const d = x.major - y.major || x.minor - y.minor || x.patch - y.patch
  return d < 0 ? -1 : d > 0 ? 1 : 0
}

export type ServerVersionParse =
  | { ok: true; version: Version; /** text after the version, e.g. "(b=develop, abcdef1)", or null */ build: string | null; raw: string }
  | { ok: false; version: null; reason: string; raw: string }

/**
 * The leading version of a homeserver `server_version` string ("1.157.1", "1.157.1 (b=develop, abcdef1)")
 * or of an auth-service `version` ("v1.4.0"). Release candidates and other suffixes glued to the number
 * ("1.2.3rc1", "v1.4.0-12-gabc") are not releases: they give a reason instead of a version.
 */
export function parseServerVersionString(s: unknown): ServerVersionParse {
  const raw = typeof s === 'string' ? s : String(s)
  if (typeof s !== 'string') return { ok: false, version: null, reason: `the version is not a string (${typeof s})`, raw }
  const text = s.trim()
  if (text === '') return { ok: false, version: null, reason: 'the version string is empty', raw }
  const m = /^(v?[0-9]+\.[0-9]+\.[0-9]+)(.*)$/s.exec(text)
  if (!m) return { ok: false, version: null, reason: `${JSON.stringify(text)} does not start with a version number X.Y.Z`, raw }
  const [, head = '', rest = ''] = m
  if (/^[-.]?rc/i.test(rest)) {
    return { ok: false, version: null, reason: `${JSON.stringify(text)} is a release candidate, not a release`, raw }
  }
  if (rest !== '' && !/^\s/.test(rest)) {
    return {
      ok: false,
      version: null,
      reason: `${JSON.stringify(text)} has ${JSON.stringify(rest)} glued to the version number, so it is not a plain release`,
      raw,
    }
  }
  try {
    const version = parseVersion(head)
    const build = rest.trim()
    return { ok: true, version, build: build === '' ? null : build, raw }
  } catch (e) {
    return { ok: false, version: null, reason: (e as Error).message, raw }
  }
}

/**
 * The version named by a container image tag (`v1.136.0`, `1.136.0-debug`, `1.136`: a missing patch is 0);
 * undefined for tags that name no release (`latest`, `main`, `develop`, `sha-…`). Lenient on purpose,
 * unlike parseVersion: a tag is not user input to validate but a name to read a version from.
 */
export function parseVersionTag(tag: string): Version | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+._].*)?$/.exec(tag.trim())
  if (!m) return undefined
  try {
    return parseVersion(`${m[1]}.${m[2]}.${m[3] ?? '0'}`)
  } catch {
    return undefined
  }
}
