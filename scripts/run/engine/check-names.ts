// The names of the checks each suite file registered in earlier runs, cached in the user's own cache
// folder (lib/package-paths.mjs: 0700, never a shared folder where another user could plant the file)
// and keyed by the content of the suites and lib/, so that a --grep that matches nothing is told at once
// instead of after every suite process has loaded. A miss (first run, edited suites, no cache) just runs;
// so does a file that is not ours or not the shape this writes.
import { createHash } from 'node:crypto'
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync, constants } from 'node:fs'
import path from 'node:path'
import { packageCacheDir } from '../../../lib/package-paths.mjs'

function sourceKey(root: string): string {
  const h = createHash('sha256')
  const walk = (dir: string) => {
    let names: string[] = []
    try {
      names = readdirSync(dir).sort()
    } catch {
      return
    }
    for (const n of names) {
      const full = path.join(dir, n)
      if (statSync(full).isDirectory()) walk(full)
      else if (/\.(ts|mts|js|mjs|json)$/.test(n)) h.update(path.relative(root, full)).update('\0').update(readFileSync(full)).update('\0')
    }
  }
  for (const d of ['suites', 'lib']) walk(path.join(root, d))
  return h.digest('hex').slice(0, 20)
}

/** At most this much is read: the file holds the check names of 19 suite files (a few kB). */
const MAX_BYTES = 4 << 20

/**
 * The cached names, or {} unless the file is a regular file of this user, not a link, of bounded size,
 * and a JSON object of arrays of strings (what save() writes): anything else is not trusted.
 */
export function readNames(file: string): Record<string, string[]> {
  let fd: number | undefined
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW)
    const s = fstatSync(fd)
    if (!s.isFile() || s.size > MAX_BYTES || (typeof process.getuid === 'function' && s.uid !== process.getuid())) return {}
    const data: unknown = JSON.parse(readFileSync(fd, 'utf8'))
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return {}
    const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>
    for (const [k, v] of Object.entries(data)) {
      if (!Array.isArray(v) || !v.every((n) => typeof n === 'string')) return {}
      out[k] = v as string[]
    }
    return out
  } catch {
    return {}
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

export class CheckNames {
  private names: Record<string, string[]> = {}

  private readonly file: string | undefined

  /** `dir`: the cache folder (default: the user's, for this copy of the package; none when it cannot be had). */
  constructor(root: string, dir?: string) {
    if (dir === undefined) {
      try {
        dir = packageCacheDir('checks', root)
      } catch {
        this.file = undefined
        return
      }
    }
    this.file = path.join(dir, `checks-${sourceKey(root)}.json`)
    this.names = readNames(this.file)
  }

  /** The cached names of these files, or undefined when any file is not cached. */
  of(files: readonly string[]): string[] | undefined {
    if (!files.every((f) => Object.hasOwn(this.names, f) && Array.isArray(this.names[f]))) return undefined
    return files.flatMap((f) => this.names[f]!)
  }

  /** Remember the names a file registered (all of them, also those --grep left out). */
  remember(file: string, names: string[]): void {
    this.names[file] = names
  }

  save(): void {
    if (this.file === undefined) return
    try {
      const tmp = `${this.file}.${process.pid}`
      writeFileSync(tmp, JSON.stringify(this.names))
      renameSync(tmp, this.file)
    } catch {
      // a cache only
    }
  }
}
