// A CommonJS module loaded with V8's code cache (decision 0004, decision 0014): node 20 keeps no compile
// cache of its own, so each suite worker parsed and compiled the 1.3 MB of precompiled validators again,
// and again each validator it called. Here the module is compiled as a vm.Script with the cached data
// that an earlier process made after using it (its lazily compiled functions included); V8 checks that
// data against the source and its own version and flags, and rejects what does not fit, in which case the
// module is compiled from its source as before and the cache is written anew when the process exits.
// V8 knows a source only by its length: an edit that keeps the length would run the old code. So the
// cache starts with the SHA-256 of the source it was made from, and is used only for that source.
//
// The cache sits in a folder of the user's own (lib/package-paths.mjs), written whole or not at all
// (a temporary file renamed). Any failure of the cache leaves the module loaded the ordinary way.
import { createHash } from 'node:crypto'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Script } from 'node:vm'

/** How a module was loaded: with a cache V8 accepted, one it rejected, none, or by require() (no cache). */
export type CacheUse = 'accepted' | 'rejected' | 'none' | 'require'

export interface CachedModule {
  exports: unknown
  cache: CacheUse
}

const loaded = new Map<string, CachedModule>()
/** the caches to write when the process exits, by their file */
const pending = new Map<string, { script: Script; digest: Buffer }>()
let exitHook = false

/**
 * The file of `file`'s code cache in `cacheDir`: per node version and per V8 flags of the process (the
 * runner and its workers start with different ones: one cache each, instead of each rejecting the other's).
 */
export function codeCacheFile(file: string, cacheDir: string, execArgv: readonly string[] = process.execArgv): string {
  const key = [process.version, process.arch, ...v8Flags(execArgv)].join('\0')
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0
  return path.join(cacheDir, `${path.basename(file)}.${h.toString(16).padStart(8, '0')}.v8cache`)
}

/** node's options that take their value as the next argument and say nothing to V8 (a preload's path) */
const WITH_VALUE = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--cpu-prof-dir', '--cpu-prof-name'])

/** The arguments of node that may change V8's flags: all but the preloads and the profiler's output. */
export function v8Flags(execArgv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i]!
    if (WITH_VALUE.has(a)) i++
    else if (![...WITH_VALUE].some((w) => a.startsWith(`${w}=`))) out.push(a)
  }
  return out
}

/** CommonJS's wrapper, as node's loader writes it (on the first line: line numbers stay the file's). */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`

/**
 * `require(file)`, compiled with its code cache from `cacheDir` when there is one V8 accepts; without a
 * `cacheDir`, plain require(). Once per file and process, as require() does.
 */
export function requireCached(file: string, cacheDir: string | undefined): CachedModule {
  const known = loaded.get(file)
  if (known) return known
  if (cacheDir === undefined) return remember(file, { exports: createRequire(file)(file), cache: 'require' })
  const source = readFileSync(file, 'utf8')
  const cacheFile = codeCacheFile(file, cacheDir)
  const digest = createHash('sha256').update(source).digest()
  let cachedData: Buffer | undefined
  let found = false
  try {
    const data = readFileSync(cacheFile)
    found = true
    if (data.subarray(0, digest.length).equals(digest)) cachedData = data.subarray(digest.length)
  } catch {
    // no cache yet
  }
  const script = new Script(wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) })
  const cache: CacheUse = !found ? 'none' : cachedData === undefined || script.cachedDataRejected ? 'rejected' : 'accepted'
  const module = { exports: {} as unknown, filename: file, id: file, loaded: false }
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file))
  module.loaded = true
  if (cache !== 'accepted') keepAtExit(cacheFile, script, digest)
  return remember(file, { exports: module.exports, cache })
}

function remember(file: string, m: CachedModule): CachedModule {
  loaded.set(file, m)
  return m
}

/** The cache is made when the process ends: by then it holds the functions the process compiled. */
function keepAtExit(cacheFile: string, script: Script, digest: Buffer): void {
  pending.set(cacheFile, { script, digest })
  if (exitHook) return
  exitHook = true
  process.once('exit', writeCodeCaches)
}

/** Writes the caches of the modules loaded without an accepted one (also called by tests). */
export function writeCodeCaches(): void {
  for (const [cacheFile, { script, digest }] of pending) {
    const tmp = `${cacheFile}.${process.pid}.tmp`
    try {
      writeFileSync(tmp, Buffer.concat([digest, script.createCachedData()]), { mode: 0o600 })
      renameSync(tmp, cacheFile)
    } catch {
      rmSync(tmp, { force: true })
    }
  }
  pending.clear()
}
