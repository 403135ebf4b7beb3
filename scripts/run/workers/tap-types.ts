// What a run of the suite files takes and gives, whichever way they run (tap's runner, or the suite
// workers): kept apart so that ../engine/tap-runner.ts and workers.ts need not import each other.
import type { TapNode } from '../results/tap-tree.ts'

export interface TapRun {
  raw: string
  files: TapNode[]
  exitCode: number | null
  signal: NodeJS.Signals | null
}

/** What the interruption stops: tap's runner, or the suite workers. */
export interface Killable {
  kill(signal?: NodeJS.Signals): boolean
  /** the run's deadline passed: stop now; the files under way end as stopped by it (`at`: when) */
  deadline?(at: string): void
}

export interface TapOptions {
  project: string
  files: string[]
  env: NodeJS.ProcessEnv
  /** suite workers: each worker's own environment (its own target), by worker; `env` for the rest */
  envs?: NodeJS.ProcessEnv[]
  jobs: number
  /** suite workers: the order in which worker `slot` claims the files (indexes into `files`); default: as listed */
  orderOf?: (slot: number) => number[]
  timeoutS: number
  grep?: string
  /** the fault matrix: checks sit one level down, under their `target: X` group */
  matrix: boolean
  secrets: string[]
  /** each suite file as it finishes: its TAP tree */
  onFile: (n: TapNode) => void
  onChild: (c: Killable) => void
  stderr: { write(s: string): unknown }
}
