// Peak resident memory of a process and all its descendants, summed, sampled from /proc (Linux): the
// harness's "peak RSS" of decision 0004 is the runner plus every suite process it starts, at the same moment.
import { readdirSync, readFileSync } from 'node:fs'

function parentsAndRss(): Map<number, { ppid: number; rssKiB: number }> {
  const out = new Map<number, { ppid: number; rssKiB: number }>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const status = readFileSync(`/proc/${name}/status`, 'utf8')
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0)
      const rssKiB = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0)
      out.set(Number(name), { ppid, rssKiB })
    } catch {
      // the process ended while we looked
    }
  }
  return out
}

/** RSS of `root` and its descendants now, in bytes; `each` gets every process's own RSS. */
export function treeRss(root: number, each?: (pid: number, bytes: number) => void): number {
  const all = parentsAndRss()
  const children = new Map<number, number[]>()
  for (const [pid, p] of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid])
  let sum = 0
  const stack = [root]
  while (stack.length) {
    const pid = stack.pop()!
    const bytes = (all.get(pid)?.rssKiB ?? 0) * 1024
    sum += bytes
    each?.(pid, bytes)
    stack.push(...(children.get(pid) ?? []))
  }
  return sum
}

/**
 * Samples the tree every `everyMs` until stop() is called; stop() gives the peak in bytes. byProcess() gives
 * each process's own peak (the largest first), to tell the runner's share from its workers'.
 */
export function sampleTreeRss(root: number, everyMs = 100): { stop(): number; byProcess(): number[] } {
  let peak = 0
  const own = new Map<number, number>()
  const each = (pid: number, bytes: number) => own.set(pid, Math.max(own.get(pid) ?? 0, bytes))
  const tick = () => (peak = Math.max(peak, treeRss(root, each)))
  tick()
  const timer = setInterval(tick, everyMs)
  return {
    stop() {
      clearInterval(timer)
      return peak
    },
    byProcess() {
      return [...own.values()].sort((a, b) => b - a)
    },
  }
}
