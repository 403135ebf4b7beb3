// Version rules of the homeserver and the auth service, as data (lib/data/*.json, schemas/versions/*.json)
// plus the small query API the suites and `plan-upgrade` use. lib/data/README.md explains the rules.
//
// This is the facade; one concern per file in lib/versions/:
//   parse.ts      version text: the strict parser, server strings, image tags, ordering
//   rollback.ts   rollback ranges and floors (lib/data/rollback-ranges.json)
//   changes.ts    interface-relevant homeserver changes and the legacy admin prefixes
//   features.ts   features by version of the auth service and the homeserver
//   plan.ts       the upgrade plan (steps, floors, changes, reminders)

export {
  compareVersions,
  formatVersion,
  parseServerVersionString,
  parseVersion,
  parseVersionTag,
  type ServerVersionParse,
  type Version,
  VersionError,
  type VersionLike,
} from './versions/parse.ts'
export {
  DEFAULT_TABLE,
  floorForRunningVersion,
  formatRange,
  rollbackFloor,
  rollbackTable,
  TABLE_NAMES,
  type FloorBeyondTable,
  type FloorHit,
  type FloorNotCovered,
  type FloorResult,
  type RollbackRange,
  type RollbackTable,
  type RunningFloor,
  type SourceName,
  type TableName,
} from './versions/rollback.ts'
export {
  allChanges,
  backgroundUpdatesStatusPath,
  changesBetween,
  INTERFACE_CHANGES_UP_TO,
  LEGACY_ADMIN_EXCEPTIONS,
  LEGACY_ADMIN_PREFIXES,
  LEGACY_ADMIN_REMOVED_IN,
  legacyAdminProbePaths,
  type ActionKind,
  type ChangeAction,
  type ChangeRow,
} from './versions/changes.ts'
export {
  MAS_FEATURE_NAMES,
  MAS_FEATURES,
  masHas,
  SYNAPSE_FEATURE_NAMES,
  SYNAPSE_FEATURES,
  synapseHas,
  type FeatureInfo,
  type MasFeature,
  type SynapseFeature,
} from './versions/features.ts'
export { planSteps, planUpgrade, stepsBetween, type PlanRange, type PlanStep, type StepKind, type UpgradePlan } from './versions/plan.ts'
