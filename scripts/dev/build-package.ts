// The packed package's build (npm's `prepack`): everything a command would otherwise build or compile at
// run time, built once here into dist/, so that an installed package runs plain JavaScript, writes
// nothing into its own folder (which may be read-only and another user's), and needs neither esbuild,
// tsx nor tap at run time:
//
//   dist/cli/cli.mjs          every command (scripts/cli.ts), its modules split into chunks loaded on demand
//   dist/cli/runner-child.mjs deploy's child process for the suites (scripts/deploy/suites.ts)
//   dist/run/                 the suite bundles, the probe, the shared build of lib/ and tap in one module
//                             (scripts/run/engine/suite-build.ts)
//   dist/validators/          the precompiled validators (lib/schema-standalone.ts)
//   dist/audit-log-worker.cjs the audit-log worker thread's script (scripts/audit-log/workers.ts)
//   dist/THIRD-PARTY-NOTICES.txt the licences of the packages built into these files
//   dist/build.json           what was built, and with what: its presence makes dist/ the code that runs
//                             (lib/package-paths.mjs), outside a checkout
//
// Every package is built in except the runtime dependencies of package.json (ajv and ajv-formats, loaded
// by lib/schema-registry.ts through require) and testcontainers (deploy's optional peer), so an
// install brings two packages. Each module's import.meta.url is its source's URL relative to the built
// file (scripts/built-cli.mjs relocate()): the package's data files are read where the package is installed.
//
//   npx tsx scripts/dev/build-package.ts        (npm pack runs it)
import { build, type Metafile, type Plugin } from 'esbuild'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { builtinModules, createRequire } from 'node:module'
import path from 'node:path'
import { OUT_MARK, REQUIRE_BANNER, ROOT, relocate, sourceUrls } from '../built-cli.mjs'
import { BUILD_MANIFEST } from '../../lib/package-paths.mjs'
import { writePrecompiled } from '../../lib/schema-standalone.ts'
import { workerBuildOptions, PACKED_WORKER } from '../audit-log/workers.ts'
import { buildAll } from '../run/engine/suite-build.ts'

const DIST = path.join(ROOT, 'dist')
const require = createRequire(import.meta.url)
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

/** Packages loaded from node_modules at run time: the runtime dependencies and the optional peers. */
export const EXTERNAL = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]
/** Imports the built code keeps although no install has them: reached only in a checkout (its fallbacks). */
const CHECKOUT_ONLY = ['esbuild', 'tsx', 'tap']

const matches = (names: readonly string[], spec: string) => names.some((p) => spec === p || spec.startsWith(`${p}/`))

/** esbuild plugin: `names` stay imports (resolved at run time), every other package is built in. */
function externalOnly(names: readonly string[]): Plugin {
  return {
    name: 'external-only',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => (matches(names, args.path) ? { path: args.path, external: true } : undefined))
    },
  }
}

/**
 * esbuild plugin: @tapjs/reporter is only its two streams the run's reporters use (jsonstream,
 * markdown): its main module loads ink and React (95 MB of packages) for the terminal reporters.
 */
function reporterStreams(): Plugin {
  const dir = path.join(path.dirname(require.resolve('@tapjs/reporter/package.json')), 'dist', 'esm')
  return {
    name: 'reporter-streams',
    setup(b) {
      b.onResolve({ filter: /^@tapjs\/reporter$/ }, () => ({ path: '@tapjs/reporter', namespace: 'reporter-streams' }))
      b.onLoad({ filter: /.*/, namespace: 'reporter-streams' }, () => ({
        contents: `export { JSONStream } from ${JSON.stringify(path.join(dir, 'json.js'))}\nexport { MarkdownStream } from ${JSON.stringify(path.join(dir, 'markdown.js'))}\n`,
        loader: 'js',
        resolveDir: dir,
      }))
    },
  }
}

async function buildCli(): Promise<Metafile> {
  const outdir = path.join(DIST, 'cli')
  const r = await build({
    entryPoints: { cli: path.join(ROOT, 'scripts', 'cli.ts'), 'runner-child': path.join(ROOT, 'scripts', 'deploy', 'runner-child.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'warning',
    banner: { js: REQUIRE_BANNER },
    plugins: [sourceUrls(ROOT, true), reporterStreams(), externalOnly([...EXTERNAL, ...CHECKOUT_ONLY])],
  })
  for (const f of r.outputFiles) {
    mkdirSync(path.dirname(f.path), { recursive: true })
    writeFileSync(f.path, relocate(f.text, f.path, outdir, ROOT))
  }
  return r.metafile
}

async function buildAuditWorker(): Promise<Metafile> {
  const r = await build({
    ...workerBuildOptions(path.join(ROOT, 'scripts', 'audit-log')),
    outfile: path.join(DIST, PACKED_WORKER),
    metafile: true,
    logLevel: 'error',
  })
  return r.metafile
}

/** Every file of `dir`, recursively. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesOf(path.join(dir, e.name)) : [path.join(dir, e.name)],
  )
}

/**
 * The packages the built files still import (esbuild's account of its external imports) must be
 * installed with the package, or be one of the checkout's fallbacks: an import of anything else would
 * fail only on a user's machine.
 */
function checkImports(external: Iterable<string>): void {
  const builtin = new Set(builtinModules)
  const bad = new Set<string>()
  for (const spec of external) {
    if (/^(node:|file:|\.|\/)/.test(spec) || spec.startsWith(OUT_MARK) || builtin.has(spec) || builtin.has(spec.split('/')[0]!)) continue
    if (!matches([...EXTERNAL, ...CHECKOUT_ONLY], spec)) bad.add(spec)
  }
  for (const file of filesOf(DIST).filter((f) => /\.(mjs|cjs|js)$/.test(f))) {
    const text = readFileSync(file, 'utf8')
    if (text.includes(OUT_MARK)) bad.add(`${path.relative(ROOT, file)}: an unresolved mark`)
    // requires through createRequire, which esbuild neither builds in nor counts as imports
    for (const m of text.matchAll(/\brequire\d*\(\s*"([\w@][\w@\-./]*)"\s*\)/g)) {
      const spec = m[1]!
      if (!builtin.has(spec) && !builtin.has(spec.split('/')[0]!) && !matches([...EXTERNAL, ...CHECKOUT_ONLY], spec))
        bad.add(`${path.relative(ROOT, file)}: require("${spec}")`)
    }
  }
  if (bad.size) throw new Error(`built files import packages an install does not have: ${[...bad].join(', ')}`)
}

const externalsOf = (m: Metafile) => Object.values(m.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path))

/** The licence of every package built into dist/, as their licences ask when they are redistributed. */
function notices(metafiles: Metafile[]): string {
  const dirs = new Set<string>()
  for (const m of metafiles) {
    for (const input of Object.keys(m.inputs)) {
      const at = input.lastIndexOf('node_modules/')
      if (at === -1) continue
      const rest = input.slice(at + 'node_modules/'.length).split('/')
      const name = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!
      dirs.add(path.join(ROOT, input.slice(0, at), 'node_modules', name))
    }
  }
  const parts: string[] = ['Packages built into the files of dist/ (their licences follow).', '']
  for (const dir of [...dirs].sort()) {
    const p = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string }
    const licence = readdirSync(dir).find((f) => /^(licen[sc]e|copying)/i.test(f))
    parts.push(
      `== ${p.name}@${p.version} (${p.license ?? 'see its licence'})`,
      licence ? readFileSync(path.join(dir, licence), 'utf8').trim() : '(no licence file in the package)',
      '',
    )
  }
  return parts.join('\n')
}

export async function buildPackage(): Promise<void> {
  rmSync(DIST, { recursive: true, force: true })
  mkdirSync(DIST)
  const [cli, worker] = await Promise.all([buildCli(), buildAuditWorker()])
  const suites = await buildAll(path.join(DIST, 'run'), { external: externalOnly(EXTERNAL) })
  const validators = writePrecompiled(path.join(DIST, 'validators'))
  checkImports([...externalsOf(cli), ...externalsOf(worker), ...suites.external])
  const inputs: Metafile = { inputs: Object.fromEntries(suites.inputs.map((i) => [i, { bytes: 0, imports: [] }])), outputs: {} }
  writeFileSync(path.join(DIST, 'THIRD-PARTY-NOTICES.txt'), notices([cli, worker, inputs]))
  writeFileSync(
    path.join(DIST, BUILD_MANIFEST),
    JSON.stringify({ version: pkg.version, node: process.version, external: EXTERNAL, validators: path.basename(validators) }, null, 2) +
      '\n',
  )
  if (!existsSync(path.join(DIST, 'cli', 'cli.mjs'))) throw new Error('dist/cli/cli.mjs was not built')
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.join(ROOT, 'scripts', 'dev', 'build-package.ts')) {
  const t0 = performance.now()
  await buildPackage()
  process.stdout.write(`dist/ built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
}
