// Running the suite files with tap in one child process: a throwaway tap project, the suites' environment
// (the target through the lib/target.ts codec only), and the TAP stream redacted, kept and parsed as it
// arrives so that each file's results are shown when it ends.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Parser } from 'tap-parser'
import type { Plugin } from 'esbuild'
import { readFile } from 'node:fs/promises'
import { redact } from '../../lib/http.ts'
import { STRICT_ENV, TARGETS_ENV, TARGET_ENV, TOKEN_ENV } from '../../lib/target.ts'
import { PROBE_ENV } from './probe-data.ts'
import { attach, newNode } from './tap-tree.ts'
import type { TapOptions, TapRun } from './tap-types.ts'
import { runWorkers } from './workers.ts'

export type { Killable, TapOptions, TapRun } from './tap-types.ts'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * A throwaway tap project: a link to node_modules and `tmp/` for the run's scratch files (stdin log, mock
 * logs, probe counts); prepareSuites() adds the suites and the .taprc. tap's own state (.tap/) never
 * lands in the package and concurrent runs do not meet.
 */
export function tapProject(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'admin-conformance-run-'))
  const require = createRequire(import.meta.url)
  const nodeModules = path.resolve(path.dirname(require.resolve('tap/package.json')), '..')
  symlinkSync(nodeModules, path.join(dir, 'node_modules'), 'dir')
  mkdirSync(path.join(dir, 'tmp', 'probe'), { recursive: true })
  return dir
}

/** esbuild plugin: `import.meta.url` in each module of the package stays the URL of its source file. */
const sourceUrls: Plugin = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, async (args) => {
      if (!args.path.startsWith(ROOT) || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined
      const text = await readFile(args.path, 'utf8')
      if (!text.includes('import.meta.url')) return undefined
      return { contents: text.replace(/(?<!['"`])\bimport\.meta\.url\b(?!['"`])/g, JSON.stringify(pathToFileURL(args.path).href)), loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js' }
    })
  },
}

/**
 * esbuild plugin: a suite bundle's `tap` is the subtest its worker runs it in (suite-worker.mjs sets
 * globalThis.__acSuiteTap before importing the bundle), or tap's root when the bundle is its own process.
 */
const suiteTap: Plugin = {
  name: 'suite-tap',
  setup(b) {
    b.onResolve({ filter: /^tap$/ }, (args) => (args.namespace === 'ac-suite-tap' ? undefined : { path: 'tap', namespace: 'ac-suite-tap' }))
    b.onLoad({ filter: /.*/, namespace: 'ac-suite-tap' }, () => ({
      contents: "import tap from 'tap'\nexport default globalThis.__acSuiteTap ?? tap\n",
      loader: 'js',
      resolveDir: ROOT,
    }))
  },
}

/** The schema modules, built once into one module that every suite bundle of a worker shares. */
const SCHEMA_MODULES = ['schemas.ts', 'schema-registry.ts', 'schema-enums.ts', 'schema-bundle.ts']
const SHARED_SCHEMAS = SCHEMA_MODULES.map((m) => `export * from './${m}'`).join('\n')

/**
 * esbuild plugin: the suites' imports of the schema modules go to the shared build, so that a worker
 * compiles each validator once for all its files, not once per file (ajv's compile was the largest
 * cost of a worker). The schema modules hold no state but that cache.
 */
function sharedSchemas(url: string): Plugin {
  const targets = new Set(SCHEMA_MODULES.map((m) => path.join(ROOT, 'lib', m)))
  return {
    name: 'shared-schemas',
    setup(b) {
      b.onResolve({ filter: /schema[\w-]*\.ts$/ }, (args) => (targets.has(path.resolve(args.resolveDir, args.path)) ? { path: url, external: true } : undefined))
    },
  }
}

export interface PreparedSuites {
  /** the files as tap is given them (relative to the project) */
  files: string[]
  /** a file name of the TAP stream → the suite file it came from ('suites/admin/x.suite.ts') */
  sourceOf(name: string): string
  mode: 'bundle' | 'tsx'
  /** bundle mode: the probe's build, preloaded into each suite worker */
  probeUrl?: string
}

/**
 * The suite files built once with esbuild into the project (same relative paths, `.mjs`), so that no
 * suite process loads a TypeScript loader or transpiles the shared code again (issue 16: a process per
 * file paid for both). The bundles sit at suites/<area>/, where the suites' framework finds its area;
 * each module's `import.meta.url` keeps its source's URL (lib/schemas.ts finds the schemas from it), so a
 * bundle reads the package's files exactly as the sources do. If the build fails, the sources run
 * through tsx as before (slower, same results); AC_RUN_LOADER=tsx asks for that.
 */
export async function prepareSuites(project: string, files: string[], env: NodeJS.ProcessEnv, stderr: { write(s: string): unknown }): Promise<PreparedSuites> {
  const probe = path.join(ROOT, 'scripts', 'run', 'probe.ts')
  if (env.AC_RUN_LOADER !== 'tsx') {
    try {
      const { build, stop } = await import('esbuild')
      const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'silent' } as const
      const shared = path.join(project, 'lib', 'schemas.mjs')
      await Promise.all([
        build({ ...common, stdin: { contents: SHARED_SCHEMAS, resolveDir: path.join(ROOT, 'lib'), loader: 'ts' }, outfile: shared, plugins: [sourceUrls] }),
        build({
          ...common,
          entryPoints: [...files.map((f) => path.join(ROOT, f)), probe],
          outbase: ROOT,
          outdir: project,
          outExtension: { '.js': '.mjs' },
          plugins: [sourceUrls, suiteTap, sharedSchemas(pathToFileURL(shared).href)],
        }),
      ])
      // esbuild's service process would otherwise stay for the whole run (~50 MiB of the run's memory, issue 16)
      await stop()
      const probeUrl = pathToFileURL(path.join(project, 'scripts', 'run', 'probe.mjs')).href
      writeFileSync(path.join(project, '.taprc'), `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${probeUrl}"\n`)
      const bundled = files.map((f) => f.replace(/\.suite\.(ts|mts|js|mjs)$/, '.suite.mjs'))
      const back = new Map(bundled.map((b, i) => [b, files[i]!]))
      return { files: bundled, sourceOf: (n) => back.get(n) ?? n, mode: 'bundle', probeUrl }
    } catch (e) {
      stderr.write(`note: the suites could not be built once (${(e as Error).message.split('\n')[0]}); running them through tsx\n`)
      rmSync(path.join(project, 'suites'), { recursive: true, force: true })
    }
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  writeFileSync(path.join(project, '.taprc'), `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${tsx}"\n  - "--import=${pathToFileURL(probe).href}"\n`)
  symlinkSync(path.join(ROOT, 'suites'), path.join(project, 'suites'), 'dir')
  return { files, sourceOf: (n) => n, mode: 'tsx' }
}

function tapBin(): string {
  const require = createRequire(import.meta.url)
  const tapPkg = require.resolve('tap/package.json')
  const bin = (require(tapPkg) as { bin: Record<string, string> }).bin.tap!
  return path.join(path.dirname(tapPkg), bin)
}

/**
 * The suite processes' environment: the caller's, without the run's own token variables and any
 * inherited tap state, plus the contract variables (target, matrix, strict) and the probe's folder.
 */
export function suiteEnv(base: NodeJS.ProcessEnv, project: string, contract: Record<string, string>, strict: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base }
  for (const k of ['MAS_ADMIN_TOKEN', 'MAS_USER_TOKEN', 'HS_ADMIN_TOKEN', 'HS_USER_TOKEN', TARGET_ENV, TARGETS_ENV, STRICT_ENV, ...Object.values(TOKEN_ENV)]) delete env[k]
  for (const k of Object.keys(env)) if (k === 'TAP' || k.startsWith('TAP_') || k.startsWith('_TAPJS') || k === 'NODE_TEST_CONTEXT') delete env[k]
  Object.assign(env, contract, { FORCE_COLOR: '0', [PROBE_ENV]: path.join(project, 'tmp', 'probe') })
  delete env.NO_COLOR
  if (strict) env[STRICT_ENV] = '1'
  return env
}

/**
 * The suite files run: built ones in a few suite workers (workers.ts), sources through tap's runner
 * and tsx, one process per file (the fallback, and AC_RUN_LOADER=tsx).
 */
export function runTap(prepared: PreparedSuites, opts: TapOptions): Promise<TapRun> {
  if (prepared.mode === 'bundle' && prepared.probeUrl && opts.env.AC_RUN_WORKERS !== 'tap') return runWorkers({ ...opts, probeUrl: prepared.probeUrl })
  return runTapRunner(opts)
}

function runTapRunner(opts: TapOptions): Promise<TapRun> {
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
  // Everything the child says is redacted before it is parsed, kept or shown.
  let buf = ''
  const take = (text: string) => {
    const lines = redact(text, opts.secrets)
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
  child.stderr!.on('data', (chunk: string) => opts.stderr.write(redact(chunk, opts.secrets)))
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      if (buf) take(buf)
      parser.end()
      resolve({ raw, files: root.children, exitCode: code, signal })
    })
  })
}
