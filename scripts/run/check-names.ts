// The names of the checks each suite file registered in earlier runs, cached under the system's temporary
// folder and keyed by the content of the suites and lib/, so that a --grep that matches nothing is told
// at once instead of after every suite process has loaded. A miss (first run, edited suites) just runs.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

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

export class CheckNames {
  private readonly file: string
  private names: Record<string, string[]> = {}

  constructor(root: string, dir = tmpdir()) {
    this.file = path.join(dir, `admin-conformance-checks-${sourceKey(root)}.json`)
    try {
      this.names = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string[]>
    } catch {
      this.names = {}
    }
  }

  /** The cached names of these files, or undefined when any file is not cached. */
  of(files: readonly string[]): string[] | undefined {
    if (!files.every((f) => Array.isArray(this.names[f]))) return undefined
    return files.flatMap((f) => this.names[f]!)
  }

  /** Remember the names a file registered (all of them, also those --grep left out). */
  remember(file: string, names: string[]): void {
    this.names[file] = names
  }

  save(): void {
    try {
      const tmp = `${this.file}.${process.pid}`
      writeFileSync(tmp, JSON.stringify(this.names))
      renameSync(tmp, this.file)
    } catch {
      // a cache only
    }
  }
}
