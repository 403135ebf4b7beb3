// What one run holds and returns, shared by the run's steps (kept out of main.ts so that the steps
// need not import the file that calls them).
import type { Style } from './terminal/colour.ts'
import type { MatrixReport } from './target/fault-matrix.ts'
import type { Options } from './options/options.ts'
import type { RunReport } from './results/results.ts'

export interface RunIO {
  stdout: { write(s: string): unknown; isTTY?: boolean }
  stderr: { write(s: string): unknown; isTTY?: boolean }
  env: NodeJS.ProcessEnv
  /** the run's interruption (default: SIGINT and SIGTERM of this process) */
  signals?: NodeJS.EventEmitter
}

export interface RunResult {
  exitCode: number
  report?: RunReport
  matrix?: MatrixReport
}

/** Everything one run holds while it goes: options, output streams, scratch folder, interruption. */
export interface RunState {
  opts: Options
  io: RunIO
  /** where human output goes: stderr when the report itself goes to stdout */
  human: RunIO['stdout']
  st: Style
  runId: string
  started: number
  project: string
  interrupted: boolean
  /** the run's deadline (--deadline): its length, and where it stopped the run once it passed */
  deadline?: { seconds: number; at: number; passed: boolean; stop?: { file?: string; check?: string; request?: string } }
}
