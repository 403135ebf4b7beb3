// The suite files built with esbuild, once per change of their sources (decision 0004): kept in the user's
// cache, suites/<key>/ (key: every source that can enter a bundle, as scripts/built-cli.mjs keys the run
// command; lib/package-paths.mjs says where), so that a run reuses them instead of building 19 bundles
// again, and its suite workers can start before the target is even known. A packed package carries
// them, built when it was packed (dist/run/, scripts/dev/build-package.ts). Where there is no cache,
// each run builds into its own tap project; if esbuild fails, the sources run through tsx (slower,
// same results).
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { readFile } from 'node:fs/promises'
import type { Plugin } from 'esbuild'
import { OUT_MARK, REQUIRE_BANNER, ROOT, cacheKey, packagesExternalBut, relocate, sourceUrls } from '../../built-cli.mjs'
import { packageCacheDir, prebuiltDir } from '../../../lib/package-paths.mjs'
import { AREA_NAMES } from '../../../lib/areas.ts'
import { writePrecompiled } from '../../../lib/schema-standalone.ts'
import { suiteFiles } from './suite-files.ts'

/** What can enter a suite bundle: the suites, the shared code, the probe (package.json is always in the key). */
const SUITE_SOURCES = ['suites', 'lib', path.join('scripts', 'run')]
/** An older build is removed only after this long unused: a run of the older sources may still read it. */
const OLD_BUILD_MS = 10 * 60_000
/** The probe preloaded into every suite process (probe.ts, beside this file), as a source and as built. */
const PROBE_SOURCE = path.join('scripts', 'run', 'engine', 'probe.ts')
export const PROBE_BUILT = path.join('scripts', 'run', 'engine', 'probe.mjs')

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
 * tap built into one module (decision 0004: loading tap's hundred modules was half of a worker's start; one
 * file loads in a third of the time). It sits under node_modules/@tapjs/ so that tap leaves its own
 * frames out of the stacks and locations it reports, as it does for tap loaded from node_modules.
 */
export const TAP_BUILD = path.join('node_modules', '@tapjs', 'admin-conformance-run', 'tap.mjs')

/**
 * esbuild plugin: a suite bundle's `tap` is the subtest its worker runs it in (../workers/suite-worker.mjs sets
 * globalThis.__acSuiteTap before importing the bundle), or tap's root when the bundle is its own process;
 * tap itself is the one-module build (`tapUrl`), the one the workers load.
 */
function suiteTap(tapUrl: string): Plugin {
  return {
    name: 'suite-tap',
    setup(b) {
      b.onResolve({ filter: /^tap$/ }, (args) =>
        args.namespace === 'ac-suite-tap' ? { path: tapUrl, external: true } : { path: 'tap', namespace: 'ac-suite-tap' },
      )
      b.onLoad({ filter: /.*/, namespace: 'ac-suite-tap' }, () => ({
        contents: "import tap from 'tap'\nexport default globalThis.__acSuiteTap ?? tap\n",
        loader: 'js',
        resolveDir: ROOT,
      }))
    },
  }
}

/**
 * esbuild plugin for the packed package's tap: tcompare requires react-element-to-jsx-string at run time
 * (through createRequire, out of esbuild's sight) to show React elements, which no check compares; a
 * packed package has no such package, so tcompare gets a stand-in that shows them as strings.
 */
function noReactElements(): Plugin {
  return {
    name: 'no-react-elements',
    setup(b) {
      b.onLoad({ filter: /[\\/]tcompare[\\/].*[\\/]react-element-to-jsx-string\.js$/ }, () => ({
        contents: 'export default (element) => String(element)\n',
        loader: 'js',
      }))
    },
  }
}

/**
 * esbuild plugin: five of tap's plugins keep every test ever made in a static Map (a test's plugin
 * instance, looked up from its subtests), which a short-lived tap process never notices; a suite worker
 * runs every file in one process, so each check's test, its parser and the diagnostics of its failures
 * stayed for the whole run (decision 0004: about 20 MiB of a worker's heap against hostile targets). They
 * only set and get: a WeakMap keeps a test's entry exactly as long as the test itself. (With
 * fewerTapPlugins none of the five is made; this holds when tap's class is left whole.)
 */
export function tapTestsWeaklyHeld(): Plugin {
  return {
    name: 'tap-tests-weakly-held',
    setup(b) {
      b.onLoad(
        { filter: /[\\/]@tapjs[\\/](after-each|before-each|fixture|mock|snapshot)[\\/]dist[\\/](esm|commonjs)[\\/]index\.js$/ },
        async (args) => ({
          contents: (await readFile(args.path, 'utf8')).replace(/static #refs = new Map\(\);/g, 'static #refs = new WeakMap();'),
          loader: 'js',
          resolveDir: path.dirname(args.path),
        }),
      )
    },
  }
}

/** tap's plugins that the suites use: `t.teardown`, the assertions (`t.ok`, `t.equal`, `t.same`, …), the filter (`--grep`). */
export const SUITE_TAP_PLUGINS = ['after', 'asserts', 'filter']

/**
 * esbuild plugin for the run's tap: its `Test` class gets only SUITE_TAP_PLUGINS (decision 0004). tap
 * builds `Test` with every plugin of the project (fifteen: mocks, snapshots, fixtures, spawn, workers, …)
 * and makes each of them for every subtest, that is for every check, behind a proxy that walks all of them
 * on each property it has not seen; no check uses the others (`test/scripts/run/engine/suite-build.test.ts` holds the
 * suites to this list). Their modules stay in the build, unused. Should tap's generated class no longer
 * read as expected, it is left whole: slower, the same results.
 */
function fewerTapPlugins(): Plugin {
  return {
    name: 'fewer-tap-plugins',
    setup(b) {
      b.onLoad({ filter: /[\\/]@tapjs[\\/]test[\\/]test-built[\\/]dist[\\/]esm[\\/]index\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8')
        const kept = SUITE_TAP_PLUGINS.map((n) => `Plugin_${n.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}.plugin`)
        const list = /return \(plugins_ = \[([^\]]*)\]\);/.exec(text)
        if (!list || !kept.every((k) => list[1]!.includes(k))) return undefined
        return { contents: text.replace(list[0], `return (plugins_ = [${kept.join(', ')}]);`), loader: 'js' }
      })
    },
  }
}

/**
 * esbuild plugin for the run's tap: a parser whose `inProcessChildren` is set passes the lines of its
 * subtests through as they come, without parsing them again (decision 0015). tap gives every test a
 * parser of its own and pipes each subtest's output, already parsed by the subtest's parser, into its
 * parent's, whose child parser parses it again, and so on up to the root: each assertion of a check was
 * parsed three times in a worker. A parent needs none of it: its own test points say whether each
 * subtest passed. The worker sets the flag (../workers/suite-worker.mjs); the lines out are the same (the
 * child's parse re-emitted each line with four spaces more). Should tap-parser no longer read as
 * expected, it is left whole: slower, the same results.
 */
export function tapChildrenPassedThrough(): Plugin {
  const edits: [RegExp, string][] = [
    // a subtest's line goes out as it is (a version line dropped, as the child's parse drops it)
    [
      /(parseIndent\(line, indent\) \{\n(?:\s*\/\/.*\n)*\s*if \(this\.#child && line\.substring\(0, 4\) === ' {4}'\) \{\n)/,
      "$1            if (this.#child.passThrough) {\n                if (!lineTypes.version.test(line.substring(4)))\n                    this.emit('line', line);\n                return;\n            }\n",
    ],
    // a child made for a subtest of a parser that holds in-process tests passes its lines through
    [
      /(\n(\s*)this\.#child\.on\('complete', results => \{\n)/,
      '\n$2if (this.inProcessChildren && this.preserveWhitespace && !maybeBuffered)\n$2    this.#child.passThrough = true;$1',
    ],
    [
      /(\n {4}parse\(line\) \{\n)/,
      "$1        if (this.passThrough) {\n            if (!lineTypes.version.test(line))\n                this.emit('line', line);\n            return;\n        }\n",
    ],
    // its end says nothing (no synthetic plan, no count comment): its lines came from a test that said it
    [
      /(\n {4}end\(chunk, encoding, cb\) \{\n)/,
      "$1        if (this.passThrough) {\n            if (!this.results) {\n                this.results = new FinalResults(false, this);\n                this.emit('complete', this.results);\n                this.emit('finish');\n                this.emit('close');\n            }\n            const done = typeof chunk === 'function' ? chunk : typeof encoding === 'function' ? encoding : cb;\n            if (done)\n                process.nextTick(done);\n            return this;\n        }\n",
    ],
  ]
  return {
    name: 'tap-children-passed-through',
    setup(b) {
      b.onLoad({ filter: /[\\/]tap-parser[\\/]dist[\\/]esm[\\/]index\.js$/ }, (args) => {
        let text = readFileSync(args.path, 'utf8')
        for (const [re, by] of edits) {
          if (!re.test(text)) return undefined
          text = text.replace(re, by)
        }
        return { contents: text, loader: 'js', resolveDir: path.dirname(args.path) }
      })
    },
  }
}

/**
 * esbuild plugin for the run's tap: its tests' domains hold no async hooks (decision 0016). tap gives every
 * test a domain (async-hook-domain) that follows each async resource made inside it, so that an error
 * thrown outside the test's promises (a timer's callback, a rejection nobody awaited) fails that test and
 * not the process; its hooks follow every promise too, which cost a worker 200-280 ms of a profile's
 * samples and a run about 5% of its CPU. The worker routes such errors itself, to the test running when they arrive
 * (../workers/suite-worker.mjs), and the domains here only keep their handler.
 */
export function tapWithoutAsyncHooks(): Plugin {
  return {
    name: 'tap-without-async-hooks',
    setup(b) {
      b.onResolve({ filter: /^async-hook-domain$/ }, () => ({ path: 'async-hook-domain', namespace: 'ac-tap-domain' }))
      b.onLoad({ filter: /.*/, namespace: 'ac-tap-domain' }, () => ({
        contents:
          'export class Domain {\n' +
          '  constructor(onerror) { this.onerror = onerror; this.destroyed = false }\n' +
          '  destroy() { this.destroyed = true }\n' +
          '}\n',
        loader: 'js',
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
 * esbuild plugin: the suites' imports of lib/ go to the shared build of lib/ (lib/*.mjs of the build), so
 * that a worker loads lib/ once for all its files: each bundle used to carry its own copy (about 100 KB,
 * 70 KB of it the version tables, parsed again for every file), and compiled its own validators. lib/
 * holds no state but the validators' cache, which is meant to be shared.
 */
function sharedLib(): Plugin {
  const lib = path.join(ROOT, 'lib') + path.sep
  return {
    name: 'shared-lib',
    setup(b) {
      b.onResolve({ filter: /\.ts$/ }, (args) => {
        const abs = path.resolve(args.resolveDir, args.path)
        if (!abs.startsWith(lib) || abs.endsWith('.gen.ts')) return undefined
        return { path: OUT_MARK + path.relative(ROOT, abs).split(path.sep).join('/').replace(/\.ts$/, '.mjs'), external: true }
      })
    },
  }
}

/**
 * Every suite file of every area, the probe and the modules of lib/ (shared by the bundles), built into
 * `outdir` (same relative paths, `.mjs`; lib/'s common code in <outdir>/lib/chunks/). The outputs name each other
 * by relative paths (relocate()), so the build may be moved whole. Each module's `import.meta.url` stays
 * its source's URL, so a bundle reads the package's files (the schemas) exactly as the sources do.
 * `pack`: the packed package's build (scripts/dev/build-package.ts): source URLs relative to the
 * outputs, and every package built in but `pack.external` (the package's runtime dependencies).
 */
let building = 0

export async function buildAll(outdir: string, pack?: { external: Plugin }): Promise<{ inputs: string[]; external: string[] }> {
  const { build, stop } = await import('esbuild')
  building++
  const relocatable = pack !== undefined
  const common = {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    write: false,
    metafile: true,
  } as const
  const files = AREA_NAMES.flatMap((a) => suiteFiles(ROOT, a))
  try {
    const results = await Promise.all([
      // (undici built in, as in the run command: it loads in half the time as one file)
      build({
        ...common,
        entryPoints: libModules(),
        outbase: ROOT,
        outdir,
        outExtension: { '.js': '.mjs' },
        splitting: true,
        chunkNames: 'lib/chunks/[name]-[hash]',
        banner: { js: REQUIRE_BANNER },
        plugins: [sourceUrls(ROOT, relocatable), pack?.external ?? packagesExternalBut(['undici'])],
      }),
      build({
        ...common,
        ...(pack ? {} : { packages: 'external' as const }),
        entryPoints: [...files.map((f) => path.join(ROOT, f)), path.join(ROOT, PROBE_SOURCE)],
        outbase: ROOT,
        outdir,
        outExtension: { '.js': '.mjs' },
        banner: pack ? { js: REQUIRE_BANNER } : {},
        plugins: [
          sourceUrls(ROOT, relocatable),
          suiteTap(OUT_MARK + TAP_BUILD.split(path.sep).join('/')),
          sharedLib(),
          ...(pack ? [pack.external] : []),
        ],
      }),
      build({
        ...common,
        stdin: { contents: "export { default } from 'tap'", resolveDir: ROOT },
        outfile: path.join(outdir, TAP_BUILD),
        banner: { js: REQUIRE_BANNER },
        plugins: [
          fewerTapPlugins(),
          tapTestsWeaklyHeld(),
          tapChildrenPassedThrough(),
          tapWithoutAsyncHooks(),
          ...(pack ? [noReactElements()] : []),
        ],
      }),
    ])
    const inputs = new Set<string>()
    const external = new Set<string>()
    for (const r of results) {
      for (const o of Object.values(r.metafile?.outputs ?? {})) for (const i of o.imports) if (i.external) external.add(i.path)
      for (const f of r.outputFiles ?? []) {
        mkdirSync(path.dirname(f.path), { recursive: true })
        writeFileSync(f.path, /\.m?js$/.test(f.path) ? relocate(f.text, f.path, outdir, ROOT) : f.contents)
      }
      for (const i of Object.keys(r.metafile?.inputs ?? {})) inputs.add(i)
    }
    return { inputs: [...inputs], external: [...external] }
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
export async function cachedBuild(cacheDir = packageCacheDir('suites')): Promise<string> {
  const dir = path.join(cacheDir, cacheKey(ROOT, SUITE_SOURCES))
  if (existsSync(path.join(dir, PROBE_BUILT))) return dir
  mkdirSync(cacheDir, { recursive: true })
  const tmp = `${dir}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  rmSync(tmp, { recursive: true, force: true })
  try {
    await buildAll(tmp)
    try {
      renameSync(tmp, dir)
    } catch (e) {
      // another run moved its build into place first: the same sources, so the same build
      if (!existsSync(path.join(dir, PROBE_BUILT))) throw e
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
 * The run's suites made ready in its tap project: `suites/` there is the packed package's build, or the
 * cached build (where there is no cache, a build of this run's own), with the .taprc that tap's runner reads when
 * AC_RUN_WORKERS=tap; the sources through tsx when the build fails or AC_RUN_LOADER=tsx asks for that.
 */
export async function prepareSuites(
  project: string,
  env: NodeJS.ProcessEnv,
  stderr: { write(s: string): unknown },
): Promise<PreparedSuites> {
  // The validators precompiled once per state of the schemas (lib/schema-standalone.ts), before any
  // suite worker starts: the workers then load them instead of compiling (decision 0004). Where there is no
  // cache, or a schema does not compile, they compile as before (a schema that does not compile fails
  // the checks that use it, with its message). A packed package carries them.
  if (env.AC_SCHEMA_VALIDATORS !== 'compile') {
    try {
      writePrecompiled()
    } catch {
      // compiled by each process as before
    }
  }
  const probe = path.join(ROOT, PROBE_SOURCE)
  if (env.AC_RUN_LOADER !== 'tsx') {
    const packed = prebuiltDir()
    let dir: string | undefined = packed && path.join(packed, 'run')
    if (!dir) {
      try {
        dir = await cachedBuild()
      } catch {
        try {
          // no cache (no home, or a full disk): this run builds for itself
          await buildAll(project)
          dir = project
        } catch (e) {
          stderr.write(`note: the suites could not be built once (${(e as Error).message.split('\n')[0]}); running them through tsx\n`)
          rmSync(path.join(project, 'suites'), { recursive: true, force: true })
        }
      }
    }
    if (dir) {
      if (dir !== project) symlinkSync(path.join(dir, 'suites'), path.join(project, 'suites'), 'dir')
      const probeUrl = pathToFileURL(path.join(dir, PROBE_BUILT)).href
      writeFileSync(path.join(project, '.taprc'), `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${probeUrl}"\n`)
      const built = (f: string) => f.replace(/\.suite\.(ts|mts|js|mjs)$/, '.suite.mjs')
      const back = new Map(AREA_NAMES.flatMap((a) => suiteFiles(ROOT, a)).map((f) => [built(f), f]))
      return {
        built,
        sourceOf: (n) => back.get(n) ?? n,
        mode: 'bundle',
        probeUrl,
        schemasUrl: pathToFileURL(path.join(dir, 'lib', 'schemas.mjs')).href,
        tapUrl: pathToFileURL(path.join(dir, TAP_BUILD)).href,
      }
    }
  }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  writeFileSync(
    path.join(project, '.taprc'),
    `plugin:\n  - "!@tapjs/typescript"\nnode-arg:\n  - "--import=${tsx}"\n  - "--import=${pathToFileURL(probe).href}"\n`,
  )
  symlinkSync(path.join(ROOT, 'suites'), path.join(project, 'suites'), 'dir')
  return { built: (f) => f, sourceOf: (n) => n, mode: 'tsx' }
}
