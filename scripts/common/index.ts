// CLI conventions shared by every command: exit codes, the message prefix, the argument
// parser with "did you mean", numbers and durations (seconds everywhere). Light on purpose: the
// dispatcher loads it on every start. The heavier shared pieces beside it (preflight.ts and its HTTP
// client, target-options.ts, release-rows.ts, escape.ts) are imported by path by the commands that use them.
export { EXIT, EXIT_CODES_HELP, type ExitCode } from './exit.ts'
export { CommandError, UsageError, UnreachableError, failWith, prefixed, processIo, PROGRAM, type Io } from './messages.ts'
export {
  checkChoice,
  durationSeconds,
  listLines,
  parseCommandLine,
  positiveNumber,
  type NumberRule,
  type OptionSpec,
  type OptionSpecs,
  type ParsedValues,
} from './args.ts'
export { closest, didYouMean, editDistance } from './suggest.ts'
