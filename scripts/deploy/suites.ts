// Running the conformance suites against the deployment: the run engine (scripts/run) in a child process
// started through one entry (runner-child.ts, RUNNER_COMMAND), one area at a time so that each starts with
// a fresh admin token (they live 5 minutes). Tokens travel in the child's environment, never in its
// arguments, so they do not show in process lists.
//
// Why a child process and not the engine's run() in this process: run() answers the process's own
// SIGINT/SIGTERM and takes no abort signal, so deploy's --run-timeout and a caller's abort could not stop
// it, while a child can be killed and its tap processes with it; the engine spawns a tap process per suite
// file anyway, so one more process per area costs well under a second of a deployment's minutes; and the
// tokens stay out of this process's environment. Not bin/: the entry is the engine's own, not the CLI's.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { prebuiltDir } from '../../lib/package-paths.mjs'
import { bounded, DeployError, interrupted } from './errors.ts'
import type { Redactor } from '../../lib/redact.ts'

export const AREAS = ['admin', 'reports', 'log'] as const
export type Area = (typeof AREAS)[number]

export interface RunnerTokens {
  masAdmin: string
  hsAdmin: string
  masUser: string
  hsUser: string
}

export interface SuiteResult {
  area: Area
  /** false for a read-only pass (deploy --writes off|both); absent when skipped */
  allowWrites?: boolean
  /** exit code of the runner; undefined when skipped */
  exitCode: number | undefined
  ms: number
  reportFile?: string
  skipped?: string
  /** counts found in the JSON report, when it has them */
  counts?: { passed: number; failed: number; skipped?: number }
  /** what the suites could not undo on the target (the report's `leftovers`), e.g. reports a release cannot delete */
  leftovers?: { what: string; reason?: string }[]
}

const PROJECT = fileURLToPath(new URL('../../', import.meta.url))
/**
 * The one way deploy starts the run engine: node with the TypeScript loader on runner-child.ts; in a
 * packed package, its build (dist/cli/runner-child.mjs, scripts/dev/build-package.ts).
 */
export const RUNNER_COMMAND: readonly string[] = ((packed) =>
  packed
    ? [process.execPath, path.join(packed, 'cli', 'runner-child.mjs')]
    : [process.execPath, '--import', 'tsx', fileURLToPath(new URL('./runner-child.ts', import.meta.url))])(prebuiltDir())

/** Why the suite runner cannot be used, or undefined when it can. */
export function runnerMissing(): string | undefined {
  if (!existsSync(new URL('../run/main.ts', import.meta.url))) return 'the suite runner (scripts/run/main.ts) is not part of this checkout'
  return undefined
}

export interface RunAreaOptions {
  area: Area
  /** absent when the deployment has no auth service */
  masUrl?: string
  homeserverUrl: string
  /** --allow-writes (the log area ignores it) */
  allowWrites: boolean
  tokens: RunnerTokens
  reportFile: string
  /** request log of the auth service, for the log area */
  logFile?: string
  timeoutMs: number
  redactor: Redactor
  out: (line: string) => void
  signal?: AbortSignal
  /** command to run instead of RUNNER_COMMAND (tests); it gets the `run` options */
  command?: string[]
}

export async function runArea(o: RunAreaOptions): Promise<SuiteResult> {
  const t0 = performance.now()
  // The log area checks the collected snapshot of the auth service's log as it is: requests sent now
  // would not be in it, so it gets the file alone and no target to send traffic to.
  const target =
    o.area === 'log' && o.logFile
      ? ['--log-file', o.logFile]
      : [...(o.masUrl ? ['--mas-url', o.masUrl] : []), '--hs-url', o.homeserverUrl, ...(o.allowWrites ? ['--allow-writes'] : [])]
  const args = [...target, '--area', o.area, '--reporter', 'json', '--output', o.reportFile]
  const [cmd, ...pre] = o.command ?? RUNNER_COMMAND
  const env: NodeJS.ProcessEnv = { ...process.env }
  // Only the tokens this deployment has: an empty variable would read as a token given.
  for (const [k, v] of [
    ['MAS_ADMIN_TOKEN', o.tokens.masAdmin],
    ['HS_ADMIN_TOKEN', o.tokens.hsAdmin],
    ['MAS_USER_TOKEN', o.tokens.masUser],
    ['HS_USER_TOKEN', o.tokens.hsUser],
  ] as const) {
    if (v) env[k] = v
    else delete env[k]
  }
  for (const k of ['MAS_URL', 'HS_URL']) delete env[k]
  const child = spawn(cmd!, [...pre, ...args], { cwd: PROJECT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  // Kept to tell "this area has no suites yet" (a usage exit of the runner) from a failure.
  let nothing: string | undefined
  const emit = (line: string) => {
    const m = /nothing to run: (.*)$/.exec(line)
    if (m) nothing = m[1]
    o.out(o.redactor.apply(line))
  }
  const relay = (prefix: string) => {
    let partial = ''
    return (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n')
      partial = parts.pop() ?? ''
      for (const l of parts) emit(`${prefix}${l}`)
    }
  }
  child.stdout.on('data', relay(`  [${o.area}] `))
  child.stderr.on('data', relay(`  [${o.area}] `))
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', (e) => reject(new DeployError('bootstrap', `could not start the suite runner: ${e.message}`)))
    child.once('close', (code, sig) => resolve(code ?? (sig ? 128 + 15 : 1)))
  })
  let code: number
  try {
    code = await bounded(
      exited,
      o.timeoutMs,
      () => new DeployError('bootstrap', `the ${o.area} suites did not finish within ${Math.round(o.timeoutMs / 1000)} s`),
      o.signal,
    )
  } catch (e) {
    child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    await exited.catch(() => 1)
    clearTimeout(killer)
    if (o.signal?.aborted) throw interrupted(o.signal)
    throw e
  }
  const result: SuiteResult = {
    area: o.area,
    ...(o.area === 'log' ? {} : { allowWrites: o.allowWrites }),
    exitCode: code,
    ms: performance.now() - t0,
  }
  if (code === 2 && nothing !== undefined)
    return { area: o.area, exitCode: undefined, ms: result.ms, skipped: `the runner has nothing to run: ${nothing}` }
  if (existsSync(o.reportFile)) {
    result.reportFile = o.reportFile
    const report = readReport(o.reportFile)
    result.counts = countsOf(report)
    const left = leftoversOf(report)
    if (left) result.leftovers = left
  }
  return result
}

/** A suite run's JSON report, read once; undefined when it is missing or not JSON. */
function readReport(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}

/** Pass/fail counts from a JSON report, looked for under a few common names. */
export function countsOf(j: unknown): SuiteResult['counts'] {
  const candidates = [
    j,
    (j as Record<string, unknown>)?.counts,
    (j as Record<string, unknown>)?.summary,
    (j as Record<string, unknown>)?.totals,
    (j as Record<string, unknown>)?.stats,
  ]
  for (const c of candidates) {
    if (typeof c !== 'object' || c === null) continue
    const r = c as Record<string, unknown>
    const passed = r.passed ?? r.pass
    const failed = r.failed ?? r.fail
    const skipped = r.skipped ?? r.skip
    if (typeof passed === 'number' && typeof failed === 'number') {
      return { passed, failed, ...(typeof skipped === 'number' ? { skipped } : {}) }
    }
  }
  return undefined
}

/** The report's `leftovers` (what a write run could not undo), or undefined when it has none. */
export function leftoversOf(j: unknown): SuiteResult['leftovers'] {
  const list = (j as { leftovers?: unknown })?.leftovers
  if (!Array.isArray(list) || list.length === 0) return undefined
  return list.map((l) => ({
    what: String((l as { what?: unknown })?.what ?? JSON.stringify(l)),
    ...(typeof (l as { reason?: unknown })?.reason === 'string' ? { reason: (l as { reason: string }).reason } : {}),
  }))
}
