// Version rules of the homeserver and the auth service, as data (lib/data/*.json, schemas/versions/*.json)
// plus the small query API the suites and `plan-upgrade` use. lib/data/README.md explains the rules.
import { normalisePrefix } from './target.ts'
import rollbackData from './data/rollback-ranges.json' with { type: 'json' }
import changesData from './data/homeserver-changes.json' with { type: 'json' }
import masData from './data/mas-features.json' with { type: 'json' }
import synapseData from './data/synapse-features.json' with { type: 'json' }
// Shapes of the data files, generated from schemas/versions/*.json (no hand-written copy).
import type {
  HomeserverChangesAction,
  HomeserverChangesRow,
  MasFeaturesFeature,
  RollbackRangesSource,
  RollbackRangesTable,
  SynapseFeaturesFeature,
} from './types.gen.ts'

// ---------------------------------------------------------------------------------------------
// Versions

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
    throw new VersionError(`${shown} is a release candidate; release candidates are not accepted (the rollback table lists releases only): give a release version such as v1.2.3`)
  }
  const body = text.startsWith('v') ? text.slice(1) : text
  const parts = body.split('.')
  if (!parts.every((p) => /^[0-9]+$/.test(p))) {
    if (/^\d+\.\d+\.\d+/.test(body)) throw new VersionError(`${shown} has text after the version number; ${EXPECTED}`)
    throw new VersionError(`${shown} is not a version; ${EXPECTED}`)
  }
  if (parts.length !== 3) {
    throw new VersionError(`${shown} has ${parts.length} number${parts.length === 1 ? '' : 's'}, a version has exactly three (major.minor.patch); ${EXPECTED}`)
  }
  for (const p of parts) {
    if (!PART.test(p)) {
      throw new VersionError(p.length > 1 && p.startsWith('0')
        ? `${shown} has a leading zero in ${JSON.stringify(p)}; ${EXPECTED}`
        : `${shown} has a number that is too large; ${EXPECTED}`)
    }
  }
  const [major, minor, patch] = parts.map(Number) as [number, number, number]
  return Object.freeze({ major, minor, patch })
}

export function formatVersion(v: Version): string {
  return `v${v.major}.${v.minor}.${v.patch}`
}

function toVersion(v: VersionLike): Version {
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
    return { ok: false, version: null, reason: `${JSON.stringify(text)} has ${JSON.stringify(rest)} glued to the version number, so it is not a plain release`, raw }
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

// ---------------------------------------------------------------------------------------------
// Rollback ranges

export type TableName = 'interface' | 'reference'
export type SourceName = RollbackRangesSource
export const TABLE_NAMES: readonly TableName[] = ['interface', 'reference']
export const DEFAULT_TABLE: TableName = rollbackData.default as TableName

export interface RollbackRange {
  readonly from: Version
  /** null: open-ended (the newest row of a table computed from release tags) */
  readonly to: Version | null
  readonly floor: Version
  readonly source: SourceName
  readonly section: string
}
export interface RollbackTable {
  readonly name: TableName
  readonly source: SourceName
  readonly section: string
  readonly note: string | null
  /** newest release the table was computed from (reference table only) */
  readonly observedUpTo: Version | null
  readonly rows: readonly RollbackRange[]
}

export interface FloorHit {
  kind: 'floor'
  beyondTable?: false
  table: TableName
  floor: Version
  range: { from: Version; to: Version | null }
  source: SourceName
  section: string
  /** true when the version is newer than the newest release the (open-ended) table was computed from */
  extrapolated: boolean
}
export interface FloorBeyondTable {
  kind: 'beyond-table'
  beyondTable: true
  table: 'interface'
  /** the interface table's last row; the version is newer than its end */
  lastRow: RollbackRange
  /** what the reference table says, for display only: never used as the floor in this mode */
  reference: FloorHit | FloorNotCovered
}
export interface FloorNotCovered {
  kind: 'not-covered'
  notCovered: true
  table: TableName
  reason: string
  previousRow: RollbackRange | null
  nextRow: RollbackRange | null
}
export type FloorResult = FloorHit | FloorBeyondTable | FloorNotCovered

function loadTable(name: TableName): RollbackTable {
  const t = rollbackData.tables[name] as RollbackRangesTable
  const rows = t.rows.map((r) => Object.freeze({
    from: parseVersion(r.from),
    to: r.to === null ? null : parseVersion(r.to),
    floor: parseVersion(r.floor),
    source: r.source,
    section: r.section,
  }))
  // Invariants the JSON Schema cannot express; broken data must fail loudly at import, not answer wrongly.
  rows.forEach((r, i) => {
    const where = `lib/data/rollback-ranges.json tables.${name}.rows[${i}]`
    if (r.to !== null && compareVersions(r.from, r.to) > 0) throw new Error(`${where}: from is after to`)
    if (compareVersions(r.floor, r.from) > 0) throw new Error(`${where}: floor is after from`)
    if (r.to === null && i !== rows.length - 1) throw new Error(`${where}: only the last row may be open-ended`)
    const prev = rows[i - 1]
    if (prev && (prev.to === null || compareVersions(prev.to, r.from) >= 0)) throw new Error(`${where}: overlaps or precedes the previous row`)
  })
  return Object.freeze({
    name,
    source: t.source,
    section: t.section,
    note: t.note ?? null,
    observedUpTo: t.observedUpTo ? parseVersion(t.observedUpTo) : null,
    rows: Object.freeze(rows),
  })
}

const TABLES: Readonly<Record<TableName, RollbackTable>> = Object.freeze({
  interface: loadTable('interface'),
  reference: loadTable('reference'),
})

function tableName(opts?: { table?: TableName }): TableName {
  const name = opts?.table ?? DEFAULT_TABLE
  if (!TABLE_NAMES.includes(name)) throw new VersionError(`unknown rollback table ${JSON.stringify(name)}: use 'interface' or 'reference'`)
  return name
}

export function rollbackTable(opts?: { table?: TableName }): RollbackTable {
  return TABLES[tableName(opts)]
}

export function formatRange(r: { from: Version; to: Version | null }): string {
  return r.to === null ? `${formatVersion(r.from)} onward` : `${formatVersion(r.from)}–${formatVersion(r.to)}`
}

function lookup(table: RollbackTable, v: Version): FloorHit | FloorNotCovered | 'beyond' {
  const rows = table.rows
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    if (compareVersions(v, r.from) < 0) {
      const prev = rows[i - 1] ?? null
      const reason = prev
        ? `${formatVersion(v)} falls between the rollback ranges ${formatRange(prev)} and ${formatRange(r)}; no such release is listed in the ${table.name} table`
        : `${formatVersion(v)} is older than the first rollback range (${formatRange(r)}) of the ${table.name} table`
      return { kind: 'not-covered', notCovered: true, table: table.name, reason, previousRow: prev, nextRow: r }
    }
    if (r.to === null || compareVersions(v, r.to) <= 0) {
      const extrapolated = r.to === null && table.observedUpTo !== null && compareVersions(v, table.observedUpTo) > 0
      return {
        kind: 'floor', table: table.name, floor: r.floor, range: { from: r.from, to: r.to },
        source: r.source, section: r.section, extrapolated,
      }
    }
  }
  return 'beyond'
}

/**
 * The earliest version `v` can be rolled back to. Default table: the interface document's; a version after
 * its last row is reported as beyond the table (with the reference table's answer attached, never used).
 * A version before the first row or between two rows gives `not-covered`. Throws VersionError on bad text.
 */
export function rollbackFloor(v: VersionLike, opts?: { table?: TableName }): FloorResult {
  const version = toVersion(v)
  const table = rollbackTable(opts)
  const hit = lookup(table, version)
  if (hit !== 'beyond') return hit
  const lastRow = table.rows[table.rows.length - 1]!
  if (table.name !== 'interface') {
    // Only the interface table is closed at the top; kept for completeness should the data change.
    return { kind: 'not-covered', notCovered: true, table: table.name, reason: `${formatVersion(version)} is newer than the last rollback range (${formatRange(lastRow)})`, previousRow: lastRow, nextRow: null }
  }
  const ref = lookup(TABLES.reference, version)
  return {
    kind: 'beyond-table', beyondTable: true, table: 'interface', lastRow,
    reference: ref === 'beyond'
      ? { kind: 'not-covered', notCovered: true, table: 'reference', reason: `${formatVersion(version)} is not covered by the reference table either`, previousRow: null, nextRow: null }
      : ref,
  }
}

export type RunningFloor =
  | { ok: true; version: Version; build: string | null; result: FloorResult }
  | { ok: false; reason: string }

/** For pre-upgrade checks: the floor of the version a live homeserver reports in `server_version`. */
export function floorForRunningVersion(serverVersion: unknown, opts?: { table?: TableName }): RunningFloor {
  const p = parseServerVersionString(serverVersion)
  if (!p.ok) return { ok: false, reason: p.reason }
  return { ok: true, version: p.version, build: p.build, result: rollbackFloor(p.version, opts) }
}

// ---------------------------------------------------------------------------------------------
// Interface-relevant changes

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
  return CHANGE_ROWS
    .filter((r) => compareVersions(r.parsed, a) > 0 && compareVersions(r.parsed, b) <= 0 && sources.includes(r.source))
    .map(stripParsed)
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


// ---------------------------------------------------------------------------------------------
// Features by version

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

function has<K extends string>(product: string, table: Readonly<Record<K, FeatureInfo>>, version: string | Version | null | undefined, feature: K): boolean | 'unknown' {
  const info = Object.hasOwn(table, feature) ? table[feature] : undefined
  if (!info) throw new VersionError(`unknown ${product} feature ${JSON.stringify(feature)}; known: ${Object.keys(table).join(', ')}`)
  let v: Version
  if (version === null || version === undefined) return 'unknown'
  if (typeof version === 'string') {
    const p = parseServerVersionString(version)
    if (!p.ok) return 'unknown'
    v = p.version
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

// ---------------------------------------------------------------------------------------------
// Upgrade plan

export interface PlanRange { from: string; to: string | null; floor: string; source: SourceName; section: string }
/**
 * Why a version is a step: `from-range-end` the last version of `from`'s own range (only when that makes
 * the next hop reversible, or may: next floor unknown), `range-end` the last version of a range crossed,
 * `target` the target itself (always the last step).
 */
export type StepKind = 'from-range-end' | 'range-end' | 'target'
export interface PlanStep {
  version: string
  kind: StepKind
  /** the step's rollback range in the plan's table; null beyond the interface table */
  range: PlanRange | null
  rollbackFloor: string | null
  /** the version before this step (`from` for the first step) */
  previous: string
  /** floor(step) <= previous; null when the floor is unknown */
  canRollBackToPrevious: boolean | null
  /**
   * false: no plan could make this hop reversible (the step's floor is newer than every version before
   * its range); true when canRollBackToPrevious is true; null when the floor is unknown.
   */
  rollbackPossibleAtAll: boolean | null
}
export interface UpgradePlan {
  from: string
  to: string
  table: TableName
  /** the target's floor as vX.Y.Z; null when `to` is beyond the interface table (see beyondTable) */
  rollbackFloor: string | null
  /** floor(to) <= from; null when the floor is unknown */
  canRollBackToFrom: boolean | null
  targetRange: PlanRange | null
  /** set only in the default (interface) mode when `to` is newer than that table's last row */
  beyondTable: null | {
    table: 'interface'
    lastRow: PlanRange
    reference: { label: string; rollbackFloor: string; canRollBackToFrom: boolean; range: PlanRange; extrapolated: boolean; steps: string[] } | null
  }
  changes: { version: string; change: string; actions: readonly ChangeAction[]; source: SourceName; section: string }[]
  steps: string[]
  stepDetails: PlanStep[]
  reminders: string[]
  warnings: string[]
}

function planRange(r: { from: Version; to: Version | null }, floor: Version, source: SourceName, section: string): PlanRange {
  return { from: formatVersion(r.from), to: r.to ? formatVersion(r.to) : null, floor: formatVersion(floor), source, section }
}

function rowRange(r: RollbackRange): PlanRange {
  return planRange(r, r.floor, r.source, r.section)
}

/**
 * Index of the row holding `v`; `rows.length` for a version after the interface table's closed last row
 * (the "beyond the table" pseudo-range, whose floor is unknown). Throws VersionError when not covered.
 */
function rowIndex(table: RollbackTable, v: Version, role: string): number {
  const hit = lookup(table, v)
  if (hit === 'beyond') {
    if (table.name === 'interface') return table.rows.length
    throw new VersionError(`unknown rollback range for ${role} ${formatVersion(v)}: newer than the last row of the ${table.name} table`)
  }
  if (hit.kind === 'not-covered') throw new VersionError(`unknown rollback range for ${role} ${formatVersion(v)}: ${hit.reason}`)
  return table.rows.findIndex((r) => compareVersions(r.from, hit.range.from) === 0)
}

/**
 * The stepping plan from `from` to `to` (lib/data/README.md, "Steps", states the rule and why it keeps
 * the most rollback room). With R_a the range of `from`, R_b the range of `to`:
 *  1. the last version of R_a, if from < it and the next range's floor F is unknown or from < F <= it
 *     (then the first hop out of R_a can be rolled back, which it could not be from `from`);
 *  2. the last version of every range strictly between R_a and R_b, oldest first;
 *  3. `to` itself.
 * Same range: [to]; from == to: []. Throws VersionError for a reversed or uncovered range.
 */
export function planSteps(from: VersionLike, to: VersionLike, opts?: { table?: TableName }): PlanStep[] {
  const a = toVersion(from)
  const b = toVersion(to)
  if (compareVersions(a, b) > 0) throw new VersionError(`reversed range: ${formatVersion(a)} is newer than ${formatVersion(b)}`)
  if (compareVersions(a, b) === 0) return []
  const table = rollbackTable(opts)
  const rows = table.rows
  const ia = rowIndex(table, a, 'from')
  const ib = rowIndex(table, b, 'to')
  const picks: { v: Version; kind: StepKind; row: number }[] = []
  if (ia < ib) {
    const own = rows[ia]! // ia < ib <= rows.length, so R_a is a real row
    const nextFloor = rows[ia + 1]?.floor ?? null // null: the next range is beyond the table
    if (own.to !== null && compareVersions(a, own.to) < 0 &&
      (nextFloor === null || (compareVersions(nextFloor, a) > 0 && compareVersions(nextFloor, own.to) <= 0))) {
      picks.push({ v: own.to, kind: 'from-range-end', row: ia })
    }
    for (let i = ia + 1; i < ib; i++) {
      const r = rows[i]!
      // Only a table's last row may be open-ended, and a crossed row is never the last one.
      if (r.to !== null) picks.push({ v: r.to, kind: 'range-end', row: i })
    }
  }
  picks.push({ v: b, kind: 'target', row: ib })

  let previous = a
  return picks.map(({ v, kind, row }) => {
    const r = rows[row]
    const prev = formatVersion(previous)
    let step: PlanStep
    if (!r) {
      step = { version: formatVersion(v), kind, range: null, rollbackFloor: null, previous: prev, canRollBackToPrevious: null, rollbackPossibleAtAll: null }
    } else {
      const can = compareVersions(r.floor, previous) <= 0
      // The newest version before this range is the previous row's last one; if even that is older than
      // the floor, no plan can make this hop reversible.
      const before = rows[row - 1]?.to ?? null
      const atAll = can || (before !== null && compareVersions(r.floor, before) <= 0)
      step = { version: formatVersion(v), kind, range: rowRange(r), rollbackFloor: formatVersion(r.floor), previous: prev, canRollBackToPrevious: can, rollbackPossibleAtAll: atAll }
    }
    previous = v
    return step
  })
}

/** The versions of `planSteps` (the upgrade plan's `steps`). */
export function stepsBetween(from: VersionLike, to: VersionLike, opts?: { table?: TableName }): string[] {
  return planSteps(from, to, opts).map((s) => s.version)
}

function requireCovered(v: Version, role: string, table: TableName): void {
  const r = rollbackFloor(v, { table })
  if (r.kind === 'not-covered') throw new VersionError(`unknown rollback range for ${role} ${formatVersion(v)}: ${r.reason}`)
}

export function planUpgrade(from: VersionLike, to: VersionLike, opts?: { table?: TableName; hsPrefix?: string }): UpgradePlan {
  const a = toVersion(from)
  const b = toVersion(to)
  const table = tableName(opts)
  if (compareVersions(a, b) > 0) {
    throw new VersionError(`reversed range: from ${formatVersion(a)} is newer than to ${formatVersion(b)}; plan-upgrade plans upgrades only (a rollback's limit is the rollback floor of the running version)`)
  }
  requireCovered(a, 'from', table)
  requireCovered(b, 'to', table)
  const fromS = formatVersion(a)
  const toS = formatVersion(b)
  const warnings: string[] = []

  const target = rollbackFloor(b, { table })
  let rollbackFloorS: string | null = null
  let canRollBackToFrom: boolean | null = null
  let targetRange: PlanRange | null = null
  let beyondTable: UpgradePlan['beyondTable'] = null
  if (target.kind === 'floor') {
    rollbackFloorS = formatVersion(target.floor)
    canRollBackToFrom = compareVersions(target.floor, a) <= 0
    targetRange = planRange(target.range, target.floor, target.source, target.section)
    if (target.extrapolated) {
      warnings.push(`${toS} is newer than the newest release the ${table} table was computed from (${formatVersion(TABLES[table].observedUpTo!)}); its floor ${rollbackFloorS} holds only if no later release raised the schema compatibility version.`)
    }
    if (table === 'reference' && TABLES.interface.rows.at(-1)!.to && compareVersions(b, TABLES.interface.rows.at(-1)!.to!) > 0) {
      warnings.push(`${toS} is beyond the interface document's rollback table; this plan uses the reference table as asked (--table reference).`)
    }
  } else if (target.kind === 'beyond-table') {
    const ref = target.reference
    const refTable = TABLES.reference
    beyondTable = {
      table: 'interface',
      lastRow: rowRange(target.lastRow),
      reference: ref.kind === 'floor'
        ? {
            label: `reference table (${refTable.section}; computed from releases up to ${refTable.observedUpTo ? formatVersion(refTable.observedUpTo) : 'unknown'}) — not the default; use --table reference to plan with it`,
            rollbackFloor: formatVersion(ref.floor),
            canRollBackToFrom: compareVersions(ref.floor, a) <= 0,
            range: planRange(ref.range, ref.floor, ref.source, ref.section),
            extrapolated: ref.extrapolated,
            steps: stepsBetween(a, b, { table: 'reference' }),
          }
        : null,
    }
    warnings.push(`${toS} is beyond the interface document's rollback table (last row ${formatRange(target.lastRow)} → ${formatVersion(target.lastRow.floor)}); no rollback floor is assumed.`)
    const own = stepsBetween(a, b, { table })
    const refSteps = beyondTable.reference?.steps ?? null
    const differ = refSteps !== null && refSteps.join() !== own.join()
    warnings.push(`Incompatible schema ranges after ${formatVersion(target.lastRow.to!)} are not known from the interface table, so no step can be planned inside them${differ ? `; with the reference table the steps would be ${refSteps.join(', ')}` : ''}.`)
  }

  if (compareVersions(b, INTERFACE_CHANGES_UP_TO) > 0) {
    warnings.push(`Changes after ${formatVersion(INTERFACE_CHANGES_UP_TO)} are listed only where the reference gives them; read the homeserver's upgrade notes for ${compareVersions(a, INTERFACE_CHANGES_UP_TO) > 0 ? fromS : formatVersion(INTERFACE_CHANGES_UP_TO)}–${toS}.`)
  }

  const stepDetails = planSteps(a, b, { table })
  const steps = stepDetails.map((s) => s.version)

  const statusPath = backgroundUpdatesStatusPath(opts?.hsPrefix ?? '/_synapse')
  const reminders = compareVersions(a, b) === 0
    ? ['Nothing to upgrade: from and to are the same version.']
    : [
        `Read the upgrade notes of every version after ${fromS} up to ${toS}; installing every version in between is not required.`,
        'Each new version runs its database migrations when it starts, and the server does not start until they have finished.',
        `Before the next step, wait until that version's background updates have finished (GET ${statusPath} answers "current_updates": {}), so that they do not stack up.`,
      ]

  return {
    from: fromS,
    to: toS,
    table,
    rollbackFloor: rollbackFloorS,
    canRollBackToFrom,
    targetRange,
    beyondTable,
    changes: changesBetween(a, b).map((r) => ({ version: r.version, change: r.change, actions: r.actions, source: r.source, section: r.section })),
    steps,
    stepDetails,
    reminders,
    warnings,
  }
}
