// Interface-relevant homeserver changes (lib/data/homeserver-changes.json) and the legacy admin prefixes
// the pre-upgrade checks probe.
import { normalisePrefix } from '../target.ts'
import changesData from '../data/homeserver-changes.json' with { type: 'json' }
import type { HomeserverChangesAction, HomeserverChangesRow } from '../types.gen.ts'
import { compareVersions, formatVersion, parseVersion, toVersion, type Version, type VersionLike, VersionError } from './parse.ts'
import type { SourceName } from './rollback.ts'

/** One thing a change asks of the operator; `detail` is the sentence to show, the rest is per kind (schema). */
export type ChangeAction = HomeserverChangesAction
export type ActionKind = ChangeAction['kind']
/** A row of lib/data/homeserver-changes.json: version, change, actions, source, section. */
export type ChangeRow = Readonly<HomeserverChangesRow>

const CHANGE_ROWS: readonly (ChangeRow & { parsed: Version })[] = Object.freeze(
  (changesData.rows as HomeserverChangesRow[])
    .map((r, i) => ({ ...r, parsed: parseVersion(r.version), i }))
    // Oldest first; same version: interface rows before reference rows, then file order.
    .sort((a, b) => compareVersions(a.parsed, b.parsed) || (a.source === b.source ? a.i - b.i : a.source === 'interface' ? -1 : 1))
    .map(({ i: _i, ...r }) => Object.freeze(r)),
)

/** Newest version the interface document's change table speaks for; later changes come only from the reference. */
export const INTERFACE_CHANGES_UP_TO: Version = parseVersion(changesData.coverage.interface.upTo)

/** Every change row, oldest first. */
export function allChanges(): readonly ChangeRow[] {
  return CHANGE_ROWS.map(stripParsed)
}

function stripParsed({ parsed: _p, ...r }: ChangeRow & { parsed: Version }): ChangeRow {
  return r
}

/** Rows with from < version <= to, oldest first. from == to gives []; from > to throws VersionError. */
export function changesBetween(from: VersionLike, to: VersionLike, opts?: { sources?: readonly SourceName[] }): ChangeRow[] {
  const a = toVersion(from)
  const b = toVersion(to)
  if (compareVersions(a, b) > 0) {
    throw new VersionError(`reversed range: ${formatVersion(a)} is newer than ${formatVersion(b)}; give the older version first`)
  }
  const sources = opts?.sources ?? ['interface', 'reference']
  return CHANGE_ROWS.filter((r) => compareVersions(r.parsed, a) > 0 && compareVersions(r.parsed, b) <= 0 && sources.includes(r.source)).map(
    stripParsed,
  )
}

// ---------------------------------------------------------------------------------------------
// Legacy admin prefixes (for the pre-upgrade checks)

const V1_24 = CHANGE_ROWS.find((r) => r.version === 'v1.24.0' && r.source === 'interface')
/** Client-API prefixes the admin API was served under before v1.24.0; on later versions they must answer 404. */
export const LEGACY_ADMIN_PREFIXES: readonly string[] = Object.freeze(
  (V1_24?.actions ?? []).filter((a) => a.kind === 'endpoint-moved' && a['prefix'] === true).map((a) => String(a['from'])),
)
/** Endpoints still served under the client API after v1.24.0 (it is part of the client API itself). */
export const LEGACY_ADMIN_EXCEPTIONS: readonly string[] = Object.freeze(['whois'])
export const LEGACY_ADMIN_REMOVED_IN: Version = parseVersion('v1.24.0')

/** Paths under each legacy prefix that must not be served (404) on v1.24.0 or later, e.g. `.../admin/event_reports`. */
export function legacyAdminProbePaths(suffix = 'event_reports'): string[] {
  const s = suffix.replace(/^\/+/, '')
  if (LEGACY_ADMIN_EXCEPTIONS.some((e) => s === e || s.startsWith(`${e}/`))) {
    throw new VersionError(`${JSON.stringify(suffix)} is still served under the client API (whois); probe another admin path`)
  }
  return LEGACY_ADMIN_PREFIXES.map((p) => `${p}/${s}`)
}

/** Path of the background-updates status endpoint (answers `"current_updates": {}` when nothing runs). */
export function backgroundUpdatesStatusPath(hsPrefix = '/_synapse'): string {
  return `${normalisePrefix(hsPrefix, 'the homeserver prefix')}/admin/v1/background_updates/status`
}
