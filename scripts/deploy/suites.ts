// Running the conformance suites against the deployment: `admin-conformance run` as a child process, one
// area at a time so that each starts with a fresh admin token (they live 5 minutes). Tokens travel in the
// child's environment, never in its arguments, so they do not show in process lists.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
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
  /** exit code of the runner; undefined when skipped */
  exitCode: number | undefined
  ms: number
  reportFile?: string
  skipped?: string
  /** counts found in the JSON report, when it has them */
  counts?: { passed: number; failed: number; skipped?: number }
}

const PROJECT = fileURLToPath(new URL('../../', import.meta.url))
export const CLI = fileURLToPath(new URL('../../bin/admin-conformance.mjs', import.meta.url))

/** Why the suite runner cannot be used, or undefined when it can. */
export function runnerMissing(): string | undefined {
  if (!existsSync(new URL('../run/main.ts', import.meta.url))) return 'the suite runner (scripts/run/main.ts) is not part of this checkout'
  return undefined
}

export interface RunAreaOptions {
  area: Area
  masUrl: string
  homeserverUrl: string
  tokens: RunnerTokens
  reportFile: string
  /** request log of the auth service, for the log area */
  logFile?: string
  timeoutMs: number
  redactor: Redactor
  out: (line: string) => void
  signal?: AbortSignal
  /** command to run instead of `node bin/admin-conformance.mjs` (tests) */
  command?: string[]
}

export async function runArea(o: RunAreaOptions): Promise<SuiteResult> {
  const t0 = performance.now()
  // The log area checks the collected snapshot of the auth service's log as it is: requests sent now
  // would not be in it, so it gets the file alone and no target to send traffic to.
  const target = o.area === 'log' && o.logFile ? ['--log-file', o.logFile] : ['--mas-url', o.masUrl, '--hs-url', o.homeserverUrl, '--allow-writes']
  const args = ['run', ...target, '--area', o.area, '--reporter', 'json', '--output', o.reportFile]
  const [cmd, ...pre] = o.command ?? [process.execPath, CLI]
  const env = {
    ...process.env,
    MAS_ADMIN_TOKEN: o.tokens.masAdmin,
    HS_ADMIN_TOKEN: o.tokens.hsAdmin,
    MAS_USER_TOKEN: o.tokens.masUser,
    HS_USER_TOKEN: o.tokens.hsUser,
  }
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
    code = await bounded(exited, o.timeoutMs, () => new DeployError('bootstrap', `the ${o.area} suites did not finish within ${Math.round(o.timeoutMs / 1000)} s`), o.signal)
  } catch (e) {
    child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    await exited.catch(() => 1)
    clearTimeout(killer)
    if (o.signal?.aborted) throw interrupted(o.signal)
    throw e
  }
  const result: SuiteResult = { area: o.area, exitCode: code, ms: performance.now() - t0 }
  if (code === 2 && nothing !== undefined) return { area: o.area, exitCode: undefined, ms: result.ms, skipped: `the runner has nothing to run: ${nothing}` }
  if (existsSync(o.reportFile)) {
    result.reportFile = o.reportFile
    result.counts = countsOf(o.reportFile)
  }
  return result
}

/** Pass/fail counts from a JSON report, looked for under a few common names. */
export function countsOf(file: string): SuiteResult['counts'] {
  let j: unknown
  try {
    j = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
  const candidates = [j, (j as Record<string, unknown>)?.counts, (j as Record<string, unknown>)?.summary, (j as Record<string, unknown>)?.totals, (j as Record<string, unknown>)?.stats]
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
