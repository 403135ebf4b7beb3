// The suite files of an area: every *.suite.{ts,mts,js,mjs} under its folder of the areas table.
import { closeSync, existsSync, openSync, readSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { AREAS, type Area } from '../../../lib/areas.ts'

export function suiteFiles(root: string, area: Area): string[] {
  const dir = path.join(root, AREAS[area].dir)
  if (!existsSync(dir)) return []
  const out: string[] = []
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = path.join(d, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (/\.suite\.(ts|mts|js|mjs)$/.test(name)) out.push(path.relative(root, full).split(path.sep).join('/'))
    }
  }
  walk(dir)
  return out
}

/**
 * A suite file whose header holds a line `// @waits <why>` spends most of its time waiting on purpose
 * (reads spaced out in time, a log given time to settle). With several workers, the first worker runs
 * those files first and the others leave them to the end, so that the waits overlap the other files'
 * work instead of adding to the run (decision 0004).
 */
export function waitsOnPurpose(root: string, file: string): boolean {
  let fd: number | undefined
  try {
    fd = openSync(path.join(root, file), 'r')
    const head = Buffer.alloc(4096)
    const n = readSync(fd, head, 0, head.length, 0)
    return /^\/\/ @waits\b/m.test(head.subarray(0, n).toString('utf8'))
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * The order in which worker `slot` claims the files (indexes into `files`): with one worker the files'
 * own order (the log suite, last, then reads the whole run's log); with more, the waiting files first
 * for worker 0 and last for the others.
 */
export function claimOrder(waits: readonly boolean[], slot: number, workers: number): number[] {
  const all = waits.map((_, i) => i)
  if (workers < 2) return all
  const waiting = all.filter((i) => waits[i])
  const busy = all.filter((i) => !waits[i])
  return slot === 0 ? [...waiting, ...busy] : [...busy, ...waiting]
}
