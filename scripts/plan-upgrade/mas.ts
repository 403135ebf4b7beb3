// The auth service's side of an upgrade, from the facts the project records (lib/data/mas-features.json:
// which release brought which admin-API or request-log feature) and the upstream docs. The auth service
// publishes no rollback table, so there is no floor here: only what changes and what to do.
import { compareVersions, formatVersion, MAS_FEATURES, MAS_FEATURE_NAMES, type Version } from '../../lib/versions.ts'

export interface MasChange {
  version: string
  feature: string
  change: string
  cite: string
}

export interface MasNotes {
  from: string
  to: string
  upToDate: boolean
  changes: MasChange[]
  notes: { text: string; cite: string }[]
}

const RELEASES = 'https://github.com/element-hq/matrix-authentication-service/releases'

function citeFeature(version: string, appliesTo: readonly string[]): string {
  return appliesTo.includes('request-log')
    ? `matrix-authentication-service ${version}, docs/reference/request-log.md (lib/data/mas-features.json)`
    : `matrix-authentication-service ${version}, docs/api/spec.json at that tag (lib/data/mas-features.json)`
}

/** Features gained in from < since <= to (or lost at until), oldest first, and the upgrade notes that apply. */
export function masNotes(from: Version, to: Version): MasNotes {
  const changes: MasChange[] = []
  for (const name of MAS_FEATURE_NAMES) {
    const f = MAS_FEATURES[name]
    if (f.since && compareVersions(from, f.since) < 0 && compareVersions(f.since, to) <= 0) {
      changes.push({
        version: formatVersion(f.since),
        feature: name,
        change: f.description,
        cite: citeFeature(formatVersion(f.since), f.appliesTo),
      })
    }
    if (f.until && compareVersions(from, f.until) < 0 && compareVersions(f.until, to) <= 0) {
      changes.push({
        version: formatVersion(f.until),
        feature: name,
        change: `removed: ${f.description}`,
        cite: citeFeature(formatVersion(f.until), f.appliesTo),
      })
    }
  }
  changes.sort((a, b) => compareVersions(a.version, b.version))
  const upToDate = compareVersions(from, to) === 0
  const notes: MasNotes['notes'] = []
  if (!upToDate) {
    notes.push({
      text: `Read the release notes of every auth-service version after ${formatVersion(from)} up to ${formatVersion(to)}.`,
      cite: RELEASES,
    })
    notes.push({
      text: "The auth service applies its database migrations when 'mas-cli server' starts (unless --no-migrate); 'mas-cli database migrate' runs them on their own. Take a database backup first: no rollback floor is published.",
      cite: 'matrix-authentication-service CLI (mas-cli server, mas-cli database migrate)',
    })
    if (compareVersions(from, 'v1.0.0') < 0 && compareVersions(to, 'v1.0.0') >= 0) {
      notes.push({
        text: "From v1.0.0 on, matrix.kind 'synapse' means a homeserver of 1.135.0 or newer; with an older homeserver set matrix.kind: synapse_legacy.",
        cite: 'matrix-authentication-service docs/config.schema.json, HomeserverKind',
      })
    }
  }
  return { from: formatVersion(from), to: formatVersion(to), upToDate, changes, notes }
}
