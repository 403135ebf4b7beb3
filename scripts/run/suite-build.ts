// The suite files built with esbuild, once per change of their sources (issue 16): kept in
// dist/suites/<key>/ (key: every source that can enter a bundle, as bin/built-cli.mjs keys the run
// command), so that a run reuses them instead of building 19 bundles again, and its suite workers can
// start before the target is even known. Where the package cannot be written to, each run builds into
// its own tap project as before; if esbuild fails, the sources run through tsx (slower, same results).
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Plugin } from 'esbuild'
import { REQUIRE_BANNER, ROOT, cacheKey, packagesExternalBut, sourceUrls } from '../../bin/built-cli.mjs'
import { AREA_NAMES } from '../../lib/areas.ts'
import { writePrecompiled } from '../../lib/schema-standalone.ts'
import { suiteFiles } from './suite-files.ts'

/** What can enter a suite bundle: the suites, the shared code, the probe (package.json is always in the key). */
const SUITE_SOURCES = ['suites', 'lib', path.join('scripts', 'run')]
/** An older build is removed only after this long unused: a run of the older sources may still read it. */
const OLD_BUILD_MS = 10 * 60_000

export interface PreparedSuites {
  /** a suite file ('suites/admin/<name>.suite.ts') → the file the workers and tap are given (relative to the project) */
  built(file: string): string
  /** a file name of the TAP stream → the suite file it came from ('suites/admin/<name>.suite.ts') */
  sourceOf(name: string): string
  mode: 'bundle' | 'tsx'
  /** bundle mode: the probe's build, preloaded into each suite worker */
  probeUrl?: string
  /** bundle mode: the schema modules' shared build (a worker compiles its validators while it waits) */
  schemasUrl?: string
  /** bundle mode: tap built into one module, which the workers and the bundles load */
  tapUrl?: string
}

/**
 * tap built into one module (issue 16: loading tap's hundred modules was half of a worker's start; one
 * file loads in a third of the time). It sits under node_modules/@tapjs/ so that tap leaves its own
 * frames out of the stacks and locations it reports, as it does for tap loaded from node_modules.
 */
const TAP_BUILD = path.join('node_modules', '@tapjs', 'admin-conformance-run', 'tap.mjs')

/**
 * esbuild plugin: a suite bundle's `tap` is the subtest its worker runs it in (suite-worker.mjs sets
 * globalThis.__acSuiteTap before importing the bundle), or tap's root when the bundle is its own process;
 * tap itself is the one-module build (`tapUrl`), the one the workers load.
 */
function suiteTap(tapUrl: string): Plugin {
  return {
    name: 'suite-tap',
    setup(b) {
      b.onResolve({ filter: /^tap$/ }, (args) => (args.namespace === 'ac-suite-tap' ? { path: tapUrl, external: true } : { path: 'tap', namespace: 'ac-suite-tap' }))
      b.onLoad({ filter: /.*/, namespace: 'ac-suite-tap' }, () => ({
        contents: "import tap from 'tap'\nexport default globalThis.__acSuiteTap ?? tap\n",
        loader: 'js',
        resolveDir: ROOT,
      }))
    },
  }
}

/** Every module of lib/, for the shared build (types.gen.ts holds types only). */
function libModules(): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name)
      if (e.isDirectory()) walk(full)
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.gen.ts')) out.push(full)
    }
  }
  walk(path.join(ROOT, 'lib'))
  return out.sort()
}

/**
 * esbuild plugin: the suites' imports of lib/ go to the shared build of lib/ (`finalDir`/lib/*.mjs), so
 * that a worker loads lib/ once for all its files: each bundle used to carry its own copy (about 100 KB,
 * 70 KB of it the version tables, parsed again for every file), and compiled its own validators. lib/
 * holds no state but the validators' cache, which is meant to be shared.
 */
function sharedLib(finalDir: string): Plugin {
  const lib = path.join(ROOT, 'lib') + path.sep
  return {
    name: 'shared-lib',
    setup(b) {
      b.onResolve({ filter: /\.ts$/ }, (args) => {
        const abs = path.resolve(args.resolveDir, args.path)
        if (!abs.startsWith(lib) || abs.endsWith('.gen.ts')) return undefined
        return { path: pathToFileURL(path.join(finalDir, path.relative(ROOT, abs)).replace(/\.ts$/, '.mjs')).href, external: true }
      })
    },
  }
}

/**
 * Every suite file of every area, the probe and the modules of lib/ (shared by the bundles), built into
 * `outdir` (same relative paths, `.mjs`; lib/'s common code in <outdir>/lib/chunks/). The bundles name lib/'s
 * modules by `finalDir`'s URLs: the build may be written elsewhere and moved there whole. Each module's `import.meta.url` stays its source's URL, so a
 * bundle reads the package's files (the schemas) exactly as the sources do.
 */
let building = 0

async function buildAll(outdir: string, finalDir: string): Promise<void> {
  const { build, stop } = await import('esbuild')
  building++
  const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'silent' } as const
  const files = AREA_NAMES.flatMap((a) => suiteFiles(ROOT, a))
  try {
    await Promise.all([
      // (undici built in, as in the run command: it loads in half the time as one file)
      build({
        ...common,
        packages: undefined,
        entryPoints: libModules(),
        outbase: ROOT,
        outdir,
        outExtension: { '.js': '.mjs' },
        splitting: true,
        chunkNames: 'lib/chunks/[name]-[hash]',
        banner: { js: REQUIRE_BANNER },
        plugins: [sourceUrls(ROOT), packagesExternalBut(['undici'])],
      }),
      build({
        ...common,
        entryPoints: [...files.map((f) => path.join(ROOT, f)), path.join(ROOT, 'scripts', 'run', 'probe.ts')],
        outbase: ROOT,
        outdir,
        outExtension: { '.js': '.mjs' },
        plugins: [sourceUrls(ROOT), suiteTap(pathToFileURL(path.join(finalDir, TAP_BUILD)).href), sharedLib(finalDir)],
      }),
      build({ ...common, packages: undefined, stdin: { contents: "export { default } from 'tap'", resolveDir: ROOT }, outfile: path.join(outdir, TAP_BUILD), banner: { js: REQUIRE_BANNER } }),
    ])
  } finally {
    // esbuild's service process would otherwise stay for the whole run (~50 MiB of the run's memory);
    // it is shared by the builds of this process, so the last one stops it
    if (--building === 0) await stop()
  }
}

/**
 * The build for the current sources in `cacheDir`, built now when there is none. Concurrent runs each
 * build into a folder of their own and move it into place; the first to arrive wins, the others use it.
 */
export async function cachedBuild(cacheDir = path.join(ROOT, 'dist', 'suites')): Promise<string> {
  const dir = path.join(cacheDir, cacheKey(ROOT, SUITE_SOURCES))
  if (existsSync(path.join(dir, 'scripts', 'run', 'probe.mjs'))) return dir
  mkdirSync(cacheDir, { recursive: true })
  const tmp = `${dir}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  rmSync(tmp, { recursive: true, force: true })
  try {
    await buildAll(tmp, dir)
    try {
      renameSync(tmp, dir)
    } catch (e) {
      // another run moved its build into place first: the same sources, so the same build
      if (!existsSync(path.join(dir, 'scripts', 'run', 'probe.mjs'))) throw e
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  const now = Date.now()
  for (const name of readdirSync(cacheDir)) {
    const old = path.join(cacheDir, name)
    if (old === dir) continue
    try {
      if (now - statSync(old).mtimeMs > OLD_BUILD_MS) rmSync(old, { recursive: true, force: true })
    } catch {
      // removed by another run meanwhile
    }
  }
  return dir
}

/**
 * The run's suites made ready in its tap project: `suites/` there is the cached build (or, where the
 * package cannot be written to, a build of this run's own), with the .taprc that tap's runner reads when
 * AC_RUN_WORKERS=tap; the sources through tsx when the build fails or AC_RUN_LOADER=tsx asks for that.
 */
export async function prepareSuites(project: string, env: NodeJS.ProcessEnv, stderr: { write(s: string): unknown }): Promise<PreparedSuites> {
  // The validators precompiled once per state of the schemas (lib/schema-standalone.ts), before any
  // suite worker starts: the workers then load them instead of compiling (issue 16). Where the package
  // cannot be written to, or a schema does not compile, they compile as before (a schema that does not
  // compile fails the checks that use it, with its message).
  if (env.AC_SCHEMA_VALIDATORS !== 'compile') {
    try {
      writePrecompiled()
    } catch {
      // compiled by each process as before
    }
  }
  const probe = path.join(ROOT, 'scripts', 'run', 'probe.ts')
  if (env.AC_RUN_LOADER !== 'tsx') {
    let dir: string | undefined
    try {
      dir = await cachedBuild()
    } catch {
      try {
        // the package's folder is read-only (or full): this run builds for itself
        await buildAll(project, project)
        dir = project
      } catch (e) {
        stderr.write(`note: the suites could not be built once (${(e as Error).message.split('\n')[0]}); running them through tsx\n`)
        rmSync(path.join(project, 'suites'), { recursive: true, force: true })
      }
    }
    if (dir) {
      if (dir !== project) symlinkSync(path.join(dir, 'suites'), path.join(project, 'suites'), 'dir')
      const probeUrl = pathToFileURL(path.join(dir, 'scripts', 'run', 'probe.mjs')).href
      writeFileSync(path.join(project, '.taprc'), `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${probeUrl}"\n`)
      const built = (f: string) => f.replace(/\.suite\.(ts|mts|js|mjs)$/, '.suite.mjs')
      const back = new Map(AREA_NAMES.flatMap((a) => suiteFiles(ROOT, a)).map((f) => [built(f), f]))
      return { built, sourceOf: (n) => back.get(n) ?? n, mode: 'bundle', probeUrl, schemasUrl: pathToFileURL(path.join(dir, 'lib', 'schemas.mjs')).href, tapUrl: pathToFileURL(path.join(dir, TAP_BUILD)).href }
    }
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  writeFileSync(path.join(project, '.taprc'), `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${tsx}"\n  - "--import=${pathToFileURL(probe).href}"\n`)
  symlinkSync(path.join(ROOT, 'suites'), path.join(project, 'suites'), 'dir')
  return { built: (f) => f, sourceOf: (n) => n, mode: 'tsx' }
}
