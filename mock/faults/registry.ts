// Named, plausible server bugs the mock can be told to have (`--fault NAME`, or the control API).
// Each handler asks `ctx.faults.has(name)` at the one place where a real server would get it wrong;
// the project's tests then prove that the conformance suites catch every one of them. The catalogs
// are listed once, in catalogs.ts; FaultName is the union of their names, so a misspelt name in a
// handler fails the type check.
import * as catalogs from './catalogs.ts'
import type { FaultDef } from './def.ts'

export type { FaultArea, FaultDef } from './def.ts'

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
