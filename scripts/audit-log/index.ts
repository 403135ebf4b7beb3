// The facade of the `audit-log` engine: what main.ts, the benchmark and the tests touch.
//
//   activities.ts       the activity table (area C, then the admin actions of admin-actions.ts)
//   classify.ts         one request -> activity and outcome
//   streaming.ts        Auditor: bytes -> lines -> a line scanner (scanners/) -> a Tally (tally.ts)
//   scanners/           the line scanners behind one interface (the WebAssembly one in wasm/)
//   finish.ts           raw counters (AuditState) -> AuditResult, merging worker threads
//   files.ts, read-lines.ts, workers.ts   files, read in chunks, shared among worker threads
//   wasm/               the WebAssembly engine: its source (assembly/), the built module, its build, its loader

export { ACTIVITIES, type ActivityName, type Outcome } from './activities.ts'
export { ADMIN_ACTIONS, isAdminWrite } from './admin-actions.ts'
export { classify, DEFAULT_CLIENT_PREFIX, type Classification, type ClassifyOptions } from './classify.ts'
export { Auditor, auditStream } from './streaming.ts'
export { finishAudit, type AuditState } from './finish.ts'
export { auditFile, defaultJobs, PARALLEL_MIN_BYTES } from './files.ts'
export { serveAuditChunks, workerMode } from './workers.ts'
export { defaultEngine, type AuditEngine } from './scanners/index.ts'
export type {
  AdminActionEntry,
  AuditFileOptions,
  AuditOptions,
  AuditResult,
  MalformedEntry,
  RequesterSummary,
  TimelineEntry,
} from './types.ts'
