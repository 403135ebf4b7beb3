import type { FaultDef } from '../faults.ts'
// Faults of the auth service admin API (area A). Filled by the area A handlers.
export const adminFaults: FaultDef[] = []
