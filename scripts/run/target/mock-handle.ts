// The bundled mocks a run starts (one clean, then one per fault of the matrix): kept apart from the
// code that starts them and the matrix that reads them, so that neither imports the other.
import type { Area } from '../../../lib/areas.ts'

export interface MatrixFaultDef {
  name: string
  /** the fault's own area in the mock's catalog */
  area: string
  description: string
  /** the run areas whose checks catch it */
  areas: Area[]
  /** the releases it applies to, in words (mock/faults/def.ts FaultVersions) */
  versions?: string
  /** the product whose release changes the behaviour around it */
  differsBy?: 'hs' | 'mas'
}

export interface MockHandle {
  label: string
  fault?: MatrixFaultDef
  url: string
  logFile: string
  close(): Promise<void>
}
