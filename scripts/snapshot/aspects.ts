// An observation as a flat map of aspects (status, each recorded header, each body path), the unit in
// which snapshots are compared and noise is measured: `status`, `header:allow`, `body:$.errors[].title`.
import type { Observation, Snapshot } from './format.ts'

export function aspectsOf(o: Observation): Record<string, string> {
  const out: Record<string, string> = {}
  out.status = o.status !== undefined ? String(o.status) : `no answer (${o.skipped ?? 'not sent'})`
  for (const [h, v] of Object.entries(o.headers ?? {})) out[`header:${h}`] = v
  for (const [p, v] of Object.entries(o.body ?? {})) out[`body:${p}`] = v
  return out
}

/** The aspects that differ between two observations of one probe (missing on one side counts). */
export function differingAspects(a: Observation, b: Observation): string[] {
  const x = aspectsOf(a)
  const y = aspectsOf(b)
  const out: string[] = []
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) if (x[k] !== y[k]) out.push(k)
  return out.sort()
}

/** What differs between two snapshots of the same deployment, per probe: the noise. */
export function measureNoise(a: Snapshot, b: Snapshot): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const key of new Set([...Object.keys(a.probes), ...Object.keys(b.probes)])) {
    const x = a.probes[key]
    const y = b.probes[key]
    if (!x || !y) {
      out[key] = ['*']
      continue
    }
    const d = differingAspects(x, y)
    if (d.length) out[key] = d
  }
  return out
}
