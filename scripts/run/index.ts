// The facade of `run`: what other commands, the tests and the benchmarks use. main.ts is the command's
// entry (the dispatcher loads it); the pieces live in the folders beside it (main.ts says which).
export { main, run } from './main.ts'
export type { RunIO, RunResult, RunState } from './run-types.ts'
export type { CheckResult, RunReport, SuiteResult } from './results/results.ts'
export type { MatrixFault, MatrixReport } from './target/fault-matrix.ts'
