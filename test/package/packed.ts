// The package as a user gets it: packed (npm pack, which builds dist/ in `prepack`), then installed from
// the tarball with npm from the local cache only (--offline: the registry is never asked). Shared by the
// tests of test/package/.
import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** A fresh folder under the system's temporary folder, open to every user (a test's other user must reach it). */
export function openTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  chmodSync(dir, 0o755)
  return dir
}

/**
 * `npm pack` of the checkout into `dest`; the tarball's path. One pack at a time in a checkout (its
 * prepack rebuilds dist/, which a concurrent pack would be reading): a lock folder in the checkout's
 * .tap/, taken atomically by mkdir, and given up after 15 minutes (a crashed holder).
 */
export function pack(dest: string): string {
  const lock = path.join(ROOT, '.tap', 'npm-pack.lock')
  mkdirSync(path.dirname(lock), { recursive: true })
  const until = Date.now() + 15 * 60_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > until) rmSync(lock, { recursive: true, force: true })
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500)
    }
  }
  try {
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 << 20,
    })
    const info = JSON.parse(out.slice(out.indexOf('['))) as { filename: string }[]
    return path.join(dest, info[0]!.filename)
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * npm from the local cache only, without audit or funding chatter. A cache filled by `npm ci` holds the
 * dependencies' tarballs but not their registry documents, which resolving the tarball's dependencies
 * needs: then (ENOTCACHED) npm may ask the registry for those documents alone (--prefer-offline).
 */
export function npmOffline(args: string[], cwd: string): { status: number | null; output: string; online: boolean } {
  const npm = (mode: string) =>
    spawnSync('npm', [...args, mode, '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    })
  let r = npm('--offline')
  const online = r.status !== 0 && /ENOTCACHED/.test(`${r.stdout}${r.stderr}`)
  if (online) r = npm('--prefer-offline')
  return { status: r.status, output: `${r.stdout}${r.stderr}`, online }
}

/** Every file under `dir`, recursively (relative paths). */
export function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    return e.isDirectory() ? filesUnder(full, base) : [path.relative(base, full)]
  })
}

/**
 * How to run a command as a user who cannot write the install: when this runs as root, the user
 * nobody (setpriv, else runuser); otherwise this user (the install is read-only to it anyway).
 */
export function asOtherUser(): { prefix: string[]; uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim())
  let uid: number
  let gid: number
  try {
    uid = id('-u')
    gid = id('-g')
  } catch {
    return undefined
  }
  const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
  if (has('setpriv')) return { prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups'], uid, gid, name: 'nobody' }
  if (has('runuser')) return { prefix: ['runuser', '-u', 'nobody', '--'], uid, gid, name: 'nobody' }
  return undefined
}
