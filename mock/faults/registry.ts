// Named, plausible server bugs the mock can be told to have (`--fault NAME`, or the control API).
// Each handler asks `ctx.faults.has(name)` at the one place where a real server would get it wrong;
// the project's tests then prove that the conformance suites catch every one of them. The catalogs
// are listed once, in catalogs.ts; FaultName is the union of their names, so a misspelt name in a
// handler fails the type check.
import * as catalogs from './catalogs.ts'
import type { FaultDef } from './def.ts'
import { MAS_FEATURES, SYNAPSE_FEATURES, formatVersion, masHas, synapseHas, type Version } from '../../lib/versions.ts'

export type { FaultArea, FaultDef, FaultVersions } from './def.ts'

type Catalogs = typeof catalogs
/** Every fault name of every catalog. */
export type FaultName = { [K in keyof Catalogs]: Catalogs[K][number]['name'] }[keyof Catalogs]

export const FAULTS: readonly FaultDef<FaultName>[] = Object.values(catalogs).flat()
const known = new Map<string, FaultDef<FaultName>>(FAULTS.map((f) => [f.name, f]))
if (known.size !== FAULTS.length) throw new Error('two fault catalogs define the same fault name')

export function isFaultName(name: string): name is FaultName {
  return known.has(name)
}

export class UnknownFaultError extends Error {
  override name = 'UnknownFaultError'
}

export class Faults {
  private active = new Set<FaultName>()
  constructor(names: Iterable<string> = []) {
    this.set(names)
  }
  /** no fault active */
  get none(): boolean {
    return this.active.size === 0
  }
  has(name: FaultName): boolean {
    // The fast path: no fault active (the common case, and the benchmarked one).
    return this.active.size !== 0 && this.active.has(name)
  }
  /** Names come from users (CLI, control API), so they are strings checked here. */
  set(names: Iterable<string>): void {
    const next = new Set<FaultName>()
    for (const n of names) {
      if (!isFaultName(n)) throw new UnknownFaultError(`unknown fault '${n}'; known faults: ${[...known.keys()].join(', ')}`)
      next.add(n)
    }
    this.active = next
  }
  enable(name: FaultName): void {
    this.active = new Set([...this.active, name])
  }
  disable(name: FaultName): void {
    this.active.delete(name)
  }
  list(): string[] {
    return [...this.active].sort()
  }
}

/** Does the fault apply at the claimed releases (see FaultVersions)? An unparsable release counts as the newest. */
export function faultAppliesAt(def: Pick<FaultDef, 'versions'>, claimed: { hs: string; mas: string }): boolean {
  const v = def.versions
  if (!v) return true
  const hold = (x: boolean | 'unknown', newest: boolean) => (x === 'unknown' ? newest : x)
  if (v.hs && !hold(synapseHas(claimed.hs, v.hs), SYNAPSE_FEATURES[v.hs].until === null)) return false
  if (v.hsNot && hold(synapseHas(claimed.hs, v.hsNot), SYNAPSE_FEATURES[v.hsNot].until === null)) return false
  if (v.mas && !hold(masHas(claimed.mas, v.mas), MAS_FEATURES[v.mas].until === null)) return false
  return true
}

/** The releases a fault applies to, in words ("every release", "Synapse since v1.79.0"). */
export function faultVersionsText(def: Pick<FaultDef, 'versions'>): string {
  const v = def.versions
  if (!v) return 'every release'
  const range = (f: { since: Version | null; until: Version | null }) =>
    [f.since ? `since ${formatVersion(f.since)}` : '', f.until ? `before ${formatVersion(f.until)}` : ''].filter(Boolean).join(', ')
  const parts: string[] = []
  if (v.hs) parts.push(`Synapse ${range(SYNAPSE_FEATURES[v.hs])}`)
  if (v.hsNot) {
    const f = SYNAPSE_FEATURES[v.hsNot]
    parts.push(`Synapse ${f.until ? `since ${formatVersion(f.until)}` : `before ${formatVersion(f.since!)}`}`)
  }
  if (v.mas) parts.push(`MAS ${range(MAS_FEATURES[v.mas])}`)
  return parts.join('; ')
}
