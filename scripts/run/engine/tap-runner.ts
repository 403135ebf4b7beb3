// Running the suite files with tap in one child process: a throwaway tap project, the suites' environment
// (the target through the lib/target.ts codec only), and the TAP stream redacted, kept and parsed as it
// arrives so that each file's results are shown when it ends.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { redact } from '../../../lib/http.ts'
import { streamSafe, visible } from '../../../lib/escape.ts'
import { STRICT_ENV, TARGETS_ENV, TARGET_ENV, TOKEN_ENV } from '../../../lib/target.ts'
import { PROBE_ENV } from './probe-data.ts'
import { attach, newNode } from '../results/tap-tree.ts'
import type { TapOptions, TapRun } from '../workers/tap-types.ts'
import type { PreparedSuites } from './suite-build.ts'
import { SuiteWorkers, runWorkers, type WorkerStart } from '../workers/workers.ts'

/**
 * A throwaway tap project: a link to node_modules and `tmp/` for the run's scratch files (stdin log, mock
 * logs, probe counts); prepareSuites() adds the suites and the .taprc. tap's own state (.tap/) never
 * lands in the package and concurrent runs do not meet.
 */
export function tapProject(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'admin-conformance-run-'))
  const require = createRequire(import.meta.url)
  try {
    const nodeModules = path.resolve(path.dirname(require.resolve('tap/package.json')), '..')
    symlinkSync(nodeModules, path.join(dir, 'node_modules'), 'dir')
  } catch {
    // a packed package runs its built suites without tap's runner (it has tap built in): no link needed
  }
  mkdirSync(path.join(dir, 'tmp', 'probe'), { recursive: true })
  return dir
}

function tapBin(): string {
  const require = createRequire(import.meta.url)
  let tapPkg: string
  try {
    tapPkg = require.resolve('tap/package.json')
  } catch {
    throw new Error("AC_RUN_WORKERS=tap needs tap's runner, the package tap (npm install tap), which is not installed here")
  }
  const bin = (require(tapPkg) as { bin: Record<string, string> }).bin.tap!
  return path.join(path.dirname(tapPkg), bin)
}

/**
 * The suite processes' environment: the caller's, without the run's own token variables and any
 * inherited tap state, plus the contract variables (target, matrix, strict) and the probe's folder.
 */
export function suiteEnv(base: NodeJS.ProcessEnv, project: string, contract: Record<string, string>, strict: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base }
  for (const k of [
    'MAS_ADMIN_TOKEN',
    'MAS_USER_TOKEN',
    'HS_ADMIN_TOKEN',
    'HS_USER_TOKEN',
    TARGET_ENV,
    TARGETS_ENV,
    STRICT_ENV,
    ...Object.values(TOKEN_ENV),
  ])
    delete env[k]
  for (const k of Object.keys(env))
    if (k === 'TAP' || k.startsWith('TAP_') || k.startsWith('_TAPJS') || k === 'NODE_TEST_CONTEXT') delete env[k]
  Object.assign(env, contract, { FORCE_COLOR: '0', [PROBE_ENV]: path.join(project, 'tmp', 'probe') })
  delete env.NO_COLOR
  if (strict) env[STRICT_ENV] = '1'
  return env
}

/**
 * The suite files run: built ones in a few suite workers (../workers/workers.ts), sources through tap's runner
 * and tsx, one process per file (the fallback, and AC_RUN_LOADER=tsx).
 */
export function runTap(prepared: PreparedSuites, opts: TapOptions, workers?: SuiteWorkers): Promise<TapRun> {
  if (workers) return workers.run(opts)
  if (prepared.mode === 'bundle' && prepared.probeUrl && opts.env.AC_RUN_WORKERS !== 'tap')
    return runWorkers({ ...opts, probeUrl: prepared.probeUrl, ...(prepared.tapUrl ? { tapUrl: prepared.tapUrl } : {}) })
  return runTapRunner(opts)
}

/**
 * The suite workers started now, before the target is known, when the suites run in workers (built, and
 * not AC_RUN_WORKERS=tap); undefined otherwise. `env`: suiteEnv() without the target.
 */
export function startWorkers(
  prepared: PreparedSuites,
  start: Omit<WorkerStart, 'probeUrl' | 'schemasUrl' | 'tapUrl'>,
): SuiteWorkers | undefined {
  if (prepared.mode !== 'bundle' || !prepared.probeUrl || start.env.AC_RUN_WORKERS === 'tap') return undefined
  const { probeUrl, schemasUrl, tapUrl } = prepared
  return new SuiteWorkers({ ...start, probeUrl, ...(schemasUrl ? { schemasUrl } : {}), ...(tapUrl ? { tapUrl } : {}) })
}

async function runTapRunner(opts: TapOptions): Promise<TapRun> {
  const { Parser } = await import('tap-parser')
  const args = [tapBin(), '-R', 'tap', '--disable-coverage', '--no-color', '--jobs', String(opts.jobs), '--timeout', String(opts.timeoutS)]
  if (opts.grep !== undefined) args.push(...(opts.matrix ? ['--grep', '.'] : []), '--grep', opts.grep)
  args.push(...opts.files)
  const child = spawn(process.execPath, args, { cwd: opts.project, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] })
  opts.onChild(child)
  let raw = ''
  // Level 0: the runner (one assertion per file); then the files' checks and their assertions.
  const parser = new Parser()
  const root = newNode('')
  attach(parser, root, opts.onFile)
  // Everything the child says is redacted and escaped (lib/escape.ts) before it is parsed, kept or shown.
  let buf = ''
  const take = (text: string) => {
    const lines = streamSafe(redact(text, opts.secrets))
    raw += lines
    parser.write(lines)
  }
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk
    const nl = buf.lastIndexOf('\n')
    if (nl === -1) return
    take(buf.slice(0, nl + 1))
    buf = buf.slice(nl + 1)
  })
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => opts.stderr.write(visible(redact(chunk, opts.secrets), { newlines: 'keep' })))
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      if (buf) take(buf)
      parser.end()
      resolve({ raw, files: root.children, exitCode: code, signal })
    })
  })
}
