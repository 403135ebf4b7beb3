// Where the stores send each write before applying it. The state journal (./journal/) installs a
// sink when --state is on; without one, recording is a no-op. One recorder per world: a reset
// builds a new world with a new recorder, so a request still holding the old world cannot write
// into the new journal.
import type { MasWrite } from './mas/writes.ts'
import type { HsWrite } from './homeserver/writes.ts'

/** a write to the world's own data (device-sync jobs, background updates) */
export type WorldWrite = { t: 'world.set'; target: 'jobs' | 'backgroundUpdates'; key: string; value: unknown }

export type Write = MasWrite | HsWrite | WorldWrite

export class Recorder {
  sink: ((w: Write) => void) | null = null
  /** told of every write after the sink, before it is applied (the homeserver link) */
  readonly observers: ((w: Write) => void)[] = []

  record(w: Write): void {
    this.sink?.(w)
    for (const o of this.observers) o(w)
  }
}
