// Where the package's built code is and where a run may write: plain JavaScript, since the bin loads it
// before any loader (scripts/built-cli.mjs) and the builds load it too.
//
// - An installed package (npm install, the container image) carries dist/, built when it was packed
//   (scripts/dev/build-package.ts, `prepack`): nothing is built or written in the package's folder,
//   which may be read-only and owned by another user.
// - A checkout (a .git beside package.json) runs its sources: what is built from them is cached per
//   user, under $XDG_CACHE_HOME/admin-conformance (else ~/.cache/admin-conformance), a folder of mode
//   0700 owned by the user; never in a shared folder under a predictable name, where another local
//   user could plant a file for the next run to trust.
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package's folder (the one holding package.json). */
// (built into a CommonJS script, the audit-log worker's, import.meta is empty: that script never asks)
export const ROOT = import.meta.url ? fileURLToPath(new URL('..', import.meta.url)) : ''

/** The file the pack-time build leaves in dist/: its presence makes dist/ the code that runs. */
export const BUILD_MANIFEST = 'build.json'

/**
 * dist/ when this is a packed package (built at pack time, no .git beside it), else undefined: a
 * checkout runs its sources even if a pack left a dist/ in it. AC_PREBUILT=0 ignores dist/; =1 uses
 * it in a checkout too (to try a pack's build in place).
 */
export function prebuiltDir(root = ROOT, env = process.env) {
  if (env.AC_PREBUILT === '0') return undefined
  if (env.AC_PREBUILT !== '1' && existsSync(path.join(root, '.git'))) return undefined
  const dist = path.join(root, 'dist')
  return existsSync(path.join(dist, BUILD_MANIFEST)) ? dist : undefined
}

/**
 * A folder of the user's own: made with mode 0700 if missing; an existing one must be a real folder
 * (not a link) owned by the user, and is closed to others if it was open. Throws otherwise.
 */
export function privateDir(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const s = lstatSync(dir)
  if (!s.isDirectory()) throw new Error(`${dir} is not a folder`)
  if (typeof process.getuid === 'function' && s.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`)
  if ((s.mode & 0o077) !== 0) chmodSync(dir, 0o700)
  return dir
}

/** The user's cache folder of admin-conformance (created 0700). Throws when it cannot be had. */
export function userCacheDir(env = process.env) {
  const xdg = env.XDG_CACHE_HOME
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), '.cache')
  return privateDir(path.join(base, 'admin-conformance'))
}

/**
 * The cache folder `kind` of this package's copy (`root`): one folder per copy (a checkout, an install),
 * so that two copies never clear each other's builds. Its node_modules links to the folder the package's
 * dependencies resolve from, so that code built into the cache imports them as the sources do.
 * Throws when the cache cannot be had (the caller then does without it).
 */
export function packageCacheDir(kind, root = ROOT, env = process.env) {
  const own = privateDir(path.join(userCacheDir(env), createHash('sha256').update(root).digest('hex').slice(0, 16)))
  linkDependencies(own, root)
  return privateDir(path.join(own, kind))
}

function linkDependencies(own, root) {
  let modules
  try {
    // (ajv: a dependency of every install; its folder holds the others)
    modules = path.resolve(createRequire(path.join(root, 'package.json')).resolve('ajv/package.json'), '..', '..')
  } catch {
    return
  }
  const link = path.join(own, 'node_modules')
  try {
    if (readlinkSync(link) === modules) return
  } catch {
    // missing, or not a link
  }
  const tmp = `${link}.${process.pid}.tmp`
  rmSync(tmp, { force: true })
  symlinkSync(modules, tmp, 'dir')
  try {
    renameSync(tmp, link)
  } catch {
    rmSync(tmp, { force: true })
  }
}
