// The target of a run: given by flags or the environment, a request log alone, or the bundled mock
// started in this process (writes on), plus one mock per fault in the fault matrix.
import { createWriteStream, existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { DEFAULT_TIMEOUTS, userAgentFor, type Target } from '../../../lib/target.ts'
import { UsageError } from '../../common/index.ts'
import { wantedFaults } from './fault-matrix.ts'
import type { MatrixFaultDef, MockHandle } from './mock-handle.ts'
import type { Options } from '../options/options.ts'

export interface Resolved {
  target: Target
  /** the bundled mocks started for this run: the clean one first, then one per fault */
  mocks: MockHandle[]
  /**
   * The target of each suite worker: `target` first, then one more clean mock each (same seed, options
   * and tokens), so that files running side by side never see each other's writes.
   */
  workerTargets: Target[]
}

/** The request log for the log area: a file, or standard input kept in a file for the suites. */
async function logFileOf(opts: Options, project: string, target: Target): Promise<void> {
  if (opts.logFile === '-') {
    // The suites cannot share this process's stdin: keep it in a file for them.
    const file = path.join(project, 'tmp', 'stdin.log')
    await pipeline(process.stdin, createWriteStream(file))
    target.logFile = file
    target.logStdin = true
  } else if (opts.logFile) {
    target.logFile = path.resolve(opts.logFile)
    if (!existsSync(target.logFile)) throw new UsageError(`--log-file: ${target.logFile} does not exist`)
  }
}

/** The run checks the bundled mock: no target given, and not a request log alone (that is checked as it is). */
export function usesBundledMock(opts: Options): boolean {
  if (opts.masUrl || opts.hsUrl) return false
  return !(opts.logFile && opts.areas !== undefined && opts.areas.every((a) => a === 'log'))
}

/**
 * Suite workers when --jobs is not given. Against the bundled mock, two on a machine of two cores or
 * more: each has a mock of its own in this process, and the files that wait on purpose overlap the
 * others' work (decision 0004: a full run in a few seconds). Against a real target, and in the fault matrix,
 * one: a deployment's load stays one request at a time, and the run stays under 256 MiB whatever the
 * target sends.
 */
export function defaultJobs(opts: Options, cpus = availableParallelism()): number {
  return usesBundledMock(opts) && !opts.faultMatrix && cpus >= 2 ? 2 : 1
}

/**
 * Builds the run's target; starts the bundled mock(s) when no target is given. `keep` registers each
 * mock's stop with the caller's clean-ups (also when a later mock fails to start).
 */
export async function resolveTarget(
  opts: Options,
  project: string,
  runId: string,
  version: string,
  keep: (close: () => Promise<void>) => void,
  workers = 1,
): Promise<Resolved> {
  const target: Target = {
    allowWrites: opts.allowWrites,
    allowTokenInUrl: opts.allowTokenInUrl,
    isMock: false,
    runId,
    userAgent: userAgentFor(version, runId),
    timeouts: { connectMs: DEFAULT_TIMEOUTS.connectMs, requestMs: opts.requestTimeoutMs },
  }
  await logFileOf(opts, project, target)
  if (!usesBundledMock(opts) && !opts.masUrl && !opts.hsUrl) {
    // A log file alone: check that log as it is; starting the bundled mock would check the wrong log.
    return { target, mocks: [], workerTargets: [target] }
  }
  if (opts.masUrl || opts.hsUrl) {
    if (opts.masUrl) target.mas = { url: opts.masUrl, adminToken: opts.masToken, userToken: opts.masUserToken }
    if (opts.hsUrl)
      target.hs = {
        url: opts.hsUrl,
        adminToken: opts.hsToken,
        userToken: opts.hsUserToken,
        prefix: opts.hsPrefix,
        clientPrefix: opts.clientPrefix,
      }
    return { target, mocks: [], workerTargets: [target] }
  }
  // (at most 8 mocks: more workers than that share them)
  const { mocks, extra } = await startMocks(opts, project, target, keep, opts.faultMatrix ? 0 : Math.min(workers, 8) - 1)
  target.allowWrites = true
  target.isMock = true
  // The mock's tokens are made for this run and its log is discarded with it: the query-token checks
  // run there (npm start keeps its count, and the fault matrix proves them).
  target.allowTokenInUrl = true
  // The log area reads its own target's log: each worker's is its mock's (a --log-file stays everyone's).
  const own = (m: MockHandle): Target => ({
    ...target,
    mas: { ...target.mas!, url: m.url },
    hs: { ...target.hs!, url: m.url },
    mockControlUrl: m.url,
    logFile: opts.logFile ? target.logFile : m.logFile,
  })
  return { target, mocks, workerTargets: [target, ...extra.map(own)] }
}

/**
 * The bundled mock on a free loopback port; in the fault matrix one more per fault, all with the same
 * tokens; `extra` more clean ones for the suite workers beyond the first.
 */
async function startMocks(
  opts: Options,
  project: string,
  target: Target,
  keep: (close: () => Promise<void>) => void,
  extra: number,
): Promise<{ mocks: MockHandle[]; extra: MockHandle[] }> {
  const [{ startMock }, { mockOptions, randomToken }] = await Promise.all([
    import('../../../mock/site/server.ts'),
    import('../../../mock/core/options.ts'),
  ])
  const tokens = {
    adminToken: randomToken('mat_'),
    userToken: randomToken('mat_'),
    hsAdminToken: randomToken('syt_'),
    hsUserToken: randomToken('syt_'),
  }
  const claimed = mockOptions({ ...mockVersions(opts) }, {})
  const matrix = opts.faultMatrix ? await wantedFaults(opts.areas, { hs: claimed.hsVersion, mas: claimed.masVersion }, opts.mockFaults) : []
  if (opts.faultMatrix && opts.mockFaults.length > 0) {
    const unknown = opts.mockFaults.filter((n) => !matrix.some((f) => f.name === n))
    if (unknown.length)
      throw new UsageError(
        `--mock-fault ${unknown.join(', ')}: not a fault of the selected areas that applies at homeserver ${claimed.hsVersion}, auth service ${claimed.masVersion} (see --list-faults of the mock)`,
      )
  }
  const wanted: (MatrixFaultDef | undefined)[] = [undefined, ...matrix]
  const mocks: MockHandle[] = []
  const more: MockHandle[] = []
  for (let i = 0; i < extra; i++) {
    const logFile = path.join(project, 'tmp', `mock-clean-${i + 2}.log`)
    // (the releases it claims too: every worker's target is the same product at the same release)
    const m = await startMock(
      mockOptions(
        {
          host: '127.0.0.1',
          port: 0,
          logFile,
          faults: opts.mockFaults,
          hsPrefix: opts.hsPrefix,
          clientPrefix: opts.clientPrefix,
          ...tokens,
          ...mockVersions(opts),
        },
        {},
      ),
    )
    keep(() => m.close())
    more.push({ label: `clean-${i + 2}`, url: m.url, logFile, close: () => m.close() })
  }
  for (const fault of wanted) {
    const label = fault ? fault.name : 'clean'
    const logFile = path.join(project, 'tmp', `mock-${label}.log`)
    const faults = fault ? [fault.name] : opts.faultMatrix ? [] : opts.mockFaults
    // A fault's mock keeps a request log only when the log area can look at it (formatting costs).
    const keepLog = !fault || (opts.areas ?? []).includes('log')
    const m = await startMock(
      mockOptions(
        {
          host: '127.0.0.1',
          port: 0,
          logFile: keepLog ? logFile : null,
          faults,
          hsPrefix: opts.hsPrefix,
          clientPrefix: opts.clientPrefix,
          ...tokens,
          ...mockVersions(opts),
          ...(opts.faultMatrix ? { deviations: false } : {}),
        },
        {},
      ),
    )
    keep(() => m.close())
    mocks.push({ label, ...(fault ? { fault } : {}), url: m.url, logFile, close: () => m.close() })
    if (!fault) {
      const mo = m.options
      target.mas = { url: m.url, adminToken: mo.adminToken, userToken: mo.userToken }
      target.hs = { url: m.url, adminToken: mo.hsAdminToken, userToken: mo.hsUserToken, prefix: mo.hsPrefix, clientPrefix: mo.clientPrefix }
      target.mockControlUrl = m.url
      if (!target.logFile) target.logFile = logFile
    }
  }
  return { mocks, extra: more }
}

/** The releases the mock claims (--mock-hs-version, --mock-mas-version); unset: the mock's defaults. */
function mockVersions(opts: Options): { hsVersion?: string; masVersion?: string } {
  return {
    ...(opts.mockHsVersion ? { hsVersion: opts.mockHsVersion } : {}),
    ...(opts.mockMasVersion ? { masVersion: opts.mockMasVersion } : {}),
  }
}

export type { MockHandle } from './mock-handle.ts'
