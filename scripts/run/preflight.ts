// The preflight is shared by every command that reads a deployment (run, snapshot, diff): scripts/common/preflight.ts.
export { preflight, type Preflight } from '../common/preflight.ts'
