// Named, plausible server bugs the mock can be told to have (`--fault NAME`, or the control API).
// Each handler asks `ctx.faults.has(name)` at the one place where a real server would get it wrong;
// the project's tests then prove that the conformance suites catch every one of them.
import { adminFaults } from './admin.ts'
import { homeserverFaults } from './homeserver.ts'
import { userFaults } from './users.ts'

export interface FaultDef {
  name: string
  area: 'admin' | 'homeserver' | 'auth' | 'log' | 'upgrade'
  description: string
}

/** faults of the shared server machinery (request log, routing) */
const coreFaults: FaultDef[] = [
  { name: 'log-level-ignores-status', area: 'log', description: 'request-log lines are always INFO, also for 4xx/5xx responses' },
  { name: 'log-query-in-request-line', area: 'log', description: 'the logged request line keeps the query string' },
  { name: 'log-drops-requester', area: 'log', description: 'authenticated requests are logged without requester=' },
]

export const FAULTS: readonly FaultDef[] = [...coreFaults, ...adminFaults, ...homeserverFaults, ...userFaults]
const known = new Map(FAULTS.map((f) => [f.name, f]))

export class UnknownFaultError extends Error {}

export class Faults {
  private active = new Set<string>()
  constructor(names: Iterable<string> = []) {
    this.set(names)
  }
  has(name: string): boolean {
    // The fast path: no fault active (the common case, and the benchmarked one).
    return this.active.size !== 0 && this.active.has(name)
  }
  set(names: Iterable<string>): void {
    const next = new Set<string>()
    for (const n of names) {
      if (!known.has(n)) throw new UnknownFaultError(`unknown fault '${n}'; known faults: ${[...known.keys()].join(', ')}`)
      next.add(n)
    }
    this.active = next
  }
  enable(name: string): void {
    this.set([...this.active, name])
  }
  disable(name: string): void {
    this.active.delete(name)
  }
  list(): string[] {
    return [...this.active].sort()
  }
}
