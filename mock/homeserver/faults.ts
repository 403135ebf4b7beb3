import type { FaultDef } from '../faults.ts'
// Faults of the homeserver admin API (area B). Filled by the area B handlers.
export const homeserverFaults: FaultDef[] = []
