// The exit codes every command uses, with one meaning each. A CI job trusts them, so a
// command never invents its own: 0 only when something was proved, 1 when a check failed, 2 for bad input,
// 3 when the target could not be reached or refused us, 130 for Ctrl-C / SIGTERM (128 + SIGINT).
export const EXIT = {
  /** everything selected was checked and passed */
  pass: 0,
  /** a check failed (or nothing was proved) */
  failed: 1,
  /** bad command line or input: nothing was attempted */
  usage: 2,
  /** the target was unreachable, or rejected the harness (auth, version), or a deployment failed */
  unreachable: 3,
  /** SIGINT/SIGTERM: stopped early, results so far kept */
  interrupted: 130,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** The line each command's --help ends with, so the table is written once. */
export const EXIT_CODES_HELP = 'exit codes: 0 pass, 1 a check failed, 2 usage error, 3 target unreachable or rejected, 130 interrupted'
