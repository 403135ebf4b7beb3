// The request counts left by the probe (probe.ts) of each suite process, and what they say about a pass.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

export const PROBE_ENV = 'AC_RUN_PROBE_DIR'

/** origin → status ('200', '401', 'error') → responses */
export type ProbeCounts = Record<string, Record<string, number>>

/** Every suite process's counts, summed. */
export function readProbe(dir: string): ProbeCounts {
  const out: ProbeCounts = {}
  let names: string[] = []
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json'))
  } catch {
    return out
  }
  for (const n of names) {
    try {
      const c = JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as ProbeCounts
      for (const [origin, statuses] of Object.entries(c)) {
        const o = (out[origin] ??= {})
        for (const [k, v] of Object.entries(statuses)) o[k] = (o[k] ?? 0) + v
      }
    } catch {
      // a half-written file of a killed process: skip it
    }
  }
  return out
}

/**
 * Warnings, as Schemathesis gives them, when the target's answers make a pass mean little: every
 * response from an origin was 401/403 (the tokens do not work), 404 (a wrong URL or prefix), 5xx, or
 * a network error. A handful of requests is not enough to judge.
 */
export function meaninglessPass(counts: ProbeCounts, min = 5): string[] {
  const out: string[] = []
  for (const [origin, statuses] of Object.entries(counts)) {
    const total = Object.values(statuses).reduce((a, b) => a + b, 0)
    if (total < min) continue
    const share = (pred: (s: string) => boolean) =>
      Object.entries(statuses)
        .filter(([s]) => pred(s))
        .reduce((a, [, n]) => a + n, 0)
    const say = (what: string, hint: string) => out.push(`every one of the ${total} responses from ${origin} was ${what}: ${hint}`)
    if (share((s) => s === '401' || s === '403') === total) say('401 or 403', 'the tokens are not accepted; the checks prove little')
    else if (share((s) => s === '404') === total) say('404', 'check the URL and --hs-prefix; the checks prove little')
    else if (share((s) => s.startsWith('5')) === total) say('a server error (5xx)', 'the target is failing; the checks prove little')
    else if (share((s) => s === 'error') === total) say('a network error', 'the target did not answer the suites')
  }
  return out
}
