// The suites' framework, one facade: a suite file imports everything generic from here. The pieces live
// beside it by concern: context.ts (targets, client, memo, clean-ups), needs.ts (needs and skips),
// requests.ts (requests to each API), check.ts (check registration and the assertion API, with the
// zero-assertion and deviation rules), expect.ts (response expectations), failure.ts (what a failure
// says: request, response, rule, curl), versions.ts (the target's versions, features, deviations),
// values.ts (small value helpers). Area knowledge lives with its area: the admin listings in
// suites/admin/listing/, the event-report walks in suites/homeserver/reports.ts.
//
// Only suite files import this module; the mock never does. Importing it has no side effect: the first
// check registered loads the target(s).
export type { Test } from './check.ts'
export { check, note, setRule, setDefaultRule, leftover } from './check.ts'
export { target, client, cleanup, memo, redactText } from './context.ts'
export { TARGETS_ENV } from '../../lib/target.ts'
export { Skip, skip, unmetNeed, WRITES_REASON, type Need } from './needs.ts'
export { mas, masRaw, hs, hsClient, hsRaw, mockControl, MAS_API, type As, type CallOptions } from './requests.ts'
export {
  diag,
  shown,
  expectStatus,
  expectJsonContentType,
  expectSchema,
  schemaFailed,
  expectOk,
  expectMasError,
  expectHsError,
} from './expect.ts'
export { curlOf, responseFields } from './failure.ts'
export {
  masVersion,
  hsVersion,
  masKnownVersion,
  hsKnownVersion,
  masFeature,
  hsFeature,
  hsFeatureRule,
  requireMasFeature,
  requireSynapseFeature,
  underDeviation,
  parseServerVersionString,
  synapseHasFeature,
  masHasFeature,
  type KnownVersion,
} from './versions.ts'
export {
  mostCommon,
  tsNs,
  isoSeconds,
  cutoffNear,
  paramsOf,
  pathOf,
  windowSize,
  walkBounds,
  pastBound,
  PAGES_DETAILED,
  type WalkBounds,
} from './values.ts'
export { WritesNotAllowed, HttpError } from '../../lib/http.ts'

/** A syntactically valid ULID that no real deployment holds (the one the upstream tests use for "unknown"). */
export const UNKNOWN_ULID = '01040G2081040G2081040G2081'
