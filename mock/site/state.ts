// The mock's mutable state shared by the server and the control API (kept apart from both so that
// neither imports the other).
import type { Faults } from '../faults/registry.ts'
import type { World } from '../store/world.ts'
import type { RequestLog } from '../core/log.ts'
import type { MockOptions } from '../core/options.ts'
import type { Router } from '../core/router.ts'
import type { Area } from '../core/context.ts'
import type { AreaHooks } from '../core/table.ts'
import type { StateJournal } from '../store/journal/state.ts'
import type { HostAllowlist } from '../core/host.ts'

export type ReseedOptions = Partial<Pick<MockOptions, 'seed' | 'sessions' | 'reports'>>

export interface MockState {
  options: MockOptions
  world: World
  faults: Faults
  log: RequestLog
  /** --state: the write journal (answers wait for their writes to be durable) */
  journal?: StateJournal
  /** the auth service's link to a real homeserver (answers wait for the calls their writes caused) */
  link?: { barrier(): Promise<void> | undefined }
  /** rebuild the world from the (possibly changed) options */
  reseed(over?: ReseedOptions): void
}

/** What the server was built with: the state, the router of the tables and their per-area hooks. */
export interface Site {
  state: MockState
  router: Router
  hooks: Partial<Record<Area, AreaHooks>>
  /** the Host names answered (core/host.ts); set once the port is known */
  hosts?: HostAllowlist
}
