// The `run` command built once with esbuild and kept (in the user's cache: lib/package-paths.mjs), so that `npm start` does
// not load the TypeScript loader and transpile a hundred modules through it on every run (decision 0004: that
// was about a second of each run). The build is keyed by the size and modification time of every source
// it could contain (scripts/, lib/, mock/, package.json), the package's path, node's and esbuild's
// versions: any edit makes the next run build again (a few hundred milliseconds). Each module's
// `import.meta.url` (the expression, not the words in a string) stays the URL of its source file, as in
// the suites' bundles, so files are found beside the sources. Plain JavaScript: it runs before any
// loader. On any failure the caller falls back to the sources through tsx. A packed package runs none of
// this: its dist/ was built when it was packed (scripts/dev/build-package.ts), with the same plugins.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ROOT, packageCacheDir } from '../lib/package-paths.mjs'

export { ROOT }
const SOURCES = ['scripts', 'lib', 'mock']

/**
 * The cache key of a build: every source's path, size and modification time under `dirs`, and the
 * tools'. The run's suite bundles (scripts/run/engine/suite-build.ts) use it with their own folders.
 */
export function cacheKey(root = ROOT, dirs = SOURCES) {
  const h = createHash('sha256')
  h.update(`${root}\0${process.version}\0`)
  try {
    h.update(JSON.parse(readFileSync(path.join(root, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version)
  } catch {
    // esbuild's version unknown: the build itself fails then
  }
  const walk = (dir) => {
    let names
    try {
      names = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of names.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, e.name)
      if (e.isDirectory()) walk(full)
      else if (/\.(ts|mts|mjs|js|json)$/.test(e.name)) {
        const s = statSync(full)
        h.update(`${path.relative(root, full)}\0${s.size}\0${s.mtimeMs}\0`)
      }
    }
  }
  for (const d of dirs) walk(path.join(root, d))
  // the builder itself: a change of how the build is made makes a new build
  const self = statSync(fileURLToPath(import.meta.url))
  h.update(`scripts/built-cli.mjs\0${self.size}\0${self.mtimeMs}\0`)
  const pkg = statSync(path.join(root, 'package.json'))
  h.update(`package.json\0${pkg.size}\0${pkg.mtimeMs}`)
  return h.digest('hex').slice(0, 16)
}

// (the marks are joined from parts: this file is itself built, and its text must hold no mark)
/** What a relocatable build writes for a source's URL, until relocate() makes it relative to the output. */
const SOURCE_MARK = ['__ac', 'source_url__:'].join('_')
/** What a relocatable build writes for a path in its own output folder (imports between its outputs). */
export const OUT_MARK = ['__ac', 'out__/'].join('_')
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const SOURCE_RE = new RegExp(`"${esc(SOURCE_MARK)}([^"]+)"`, 'g')
const OUT_RE = new RegExp(`"${esc(OUT_MARK)}([^"]+)"`, 'g')
const ANY_MARK = new RegExp(`${esc(SOURCE_MARK)}|${esc(OUT_MARK)}`)

/**
 * esbuild plugin: `import.meta.url` in each module of the package stays the URL of its source file.
 * `relocatable`: a mark instead of the absolute URL, which relocate() turns into that file's URL relative
 * to the built file (a packed package is installed anywhere).
 */
export function sourceUrls(root, relocatable = false) {
  return {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, async (args) => {
        const rel = path.relative(root, args.path)
        // (the package's own files only: an installed package itself sits under a node_modules)
        if (rel.startsWith('..') || path.isAbsolute(rel) || rel.split(path.sep)[0] === 'node_modules') return undefined
        const text = await readFile(args.path, 'utf8')
        if (!text.includes('import.meta.url')) return undefined
        const url = relocatable ? SOURCE_MARK + rel.split(path.sep).join('/') : pathToFileURL(args.path).href
        return {
          contents: text.replace(/(?<!['"`])\bimport\.meta\.url\b(?!['"`])/g, JSON.stringify(url)),
          loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js',
        }
      })
    },
  }
}

/**
 * A built file's text with the marks of a relocatable build resolved for where it is written: `file`
 * (an output under `outdir`, built from the sources under `root`). Every mark must go: a mark the build
 * moved or split would be a wrong URL at run time, so it is refused here.
 */
export function relocate(text, file, outdir, root) {
  const from = path.dirname(file)
  const rel = (to) => {
    const r = path.relative(from, to).split(path.sep).join('/')
    return r.startsWith('.') ? r : `./${r}`
  }
  const out = text
    .replace(SOURCE_RE, (_, src) => `new URL(${JSON.stringify(rel(path.join(root, src)))}, import.meta.url).href`)
    .replace(OUT_RE, (_, p) => JSON.stringify(rel(path.join(outdir, p))))
  if (ANY_MARK.test(out)) throw new Error(`${file}: a mark of the build was left unresolved`)
  return out
}

/**
 * Packages built into the run command rather than loaded from node_modules (decision 0004: each run's start):
 * faker's main module imports every locale (130 ms), the mock uses one, and faker declares no side
 * effects, so the build keeps only that one; undici loads in about half the time as one file than as
 * its hundred CommonJS modules.
 */
export const BUNDLED_PACKAGES = ['@faker-js/faker', 'undici']
/**
 * CommonJS built into an ES module asks for `require` (node's own modules): one made for the module.
 * (The expression is split: sourceUrls() rewrites it wherever it stands whole, this file being built too.)
 */
const META_URL = ['import', 'meta', 'url'].join('.')
export const REQUIRE_BANNER = `import { createRequire as __acCreateRequire } from 'node:module'; const require = __acCreateRequire(${META_URL});`

/** esbuild plugin: every package stays external (loaded from node_modules at run time) except `bundled`. */
export function packagesExternalBut(bundled) {
  return {
    name: 'packages-external-but',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || bundled.some((p) => args.path === p || args.path.startsWith(`${p}/`))) return undefined
        // a package's own files import each other by relative paths, which this filter never sees
        return { path: args.path, external: true }
      })
    },
  }
}

/**
 * The built `run` command's file, built now when there is none for the current sources. Old builds of
 * this package are removed. Throws when it cannot build (the caller runs the sources instead).
 */
export async function builtRunFile(root = ROOT, cacheDir) {
  cacheDir ??= packageCacheDir('cli', root)
  const file = path.join(cacheDir, `run-${cacheKey(root)}.mjs`)
  if (existsSync(file)) return file
  const { build, stop } = await import('esbuild')
  mkdirSync(cacheDir, { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  await build({
    entryPoints: [path.join(root, 'scripts', 'run', 'main.ts')],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    plugins: [sourceUrls(root), packagesExternalBut(BUNDLED_PACKAGES)],
    banner: { js: REQUIRE_BANNER },
  }).finally(() => stop()) // esbuild's service process would stay for the whole run (memory, decision 0004)
  // atomic: a concurrent run sees the whole file or none
  renameSync(tmp, file)
  for (const old of readdirSync(cacheDir))
    if (/^run-[0-9a-f]+\.mjs$/.test(old) && path.join(cacheDir, old) !== file) rmSync(path.join(cacheDir, old), { force: true })
  return file
}
