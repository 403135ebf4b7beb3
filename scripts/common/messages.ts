// One message convention for every command: `admin-conformance <command>: <message>` on stderr, and one
// error type per exit code, so a command's main() can end every failure through `failWith`.
import { EXIT, type ExitCode } from './exit.ts'

export const PROGRAM = 'admin-conformance'

/** `admin-conformance <command>: <message>`; multi-line messages keep their later lines as they are. */
export function prefixed(command: string, message: string): string {
  return `${PROGRAM} ${command}: ${message}`
}

/** A failure that ends a command with a known exit code and a message meant for the user (no stack). */
export class CommandError extends Error {
  override name = 'CommandError'
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message)
  }
}

/** Bad command line or input: exit 2, with a pointer to --help. */
export class UsageError extends CommandError {
  override name = 'UsageError'
  constructor(message: string) {
    super(message, EXIT.usage)
  }
}

/** The target could not be reached or rejected the harness: exit 3. */
export class UnreachableError extends CommandError {
  override name = 'UnreachableError'
  constructor(message: string) {
    super(message, EXIT.unreachable)
  }
}

/** Where a command writes; tests pass collectors, main() the process streams. */
export interface Io {
  out(text: string): void
  err(text: string): void
}

export const processIo: Io = {
  out: (s) => void process.stdout.write(s),
  err: (s) => void process.stderr.write(s),
}

/**
 * Print a command's failure with the prefix and return its exit code. A UsageError adds the --help hint;
 * anything that is not a CommandError is a bug of the harness: its message is shown, exit 1.
 */
export function failWith(io: Io, command: string, err: unknown): number {
  if (err instanceof UsageError) {
    io.err(`${prefixed(command, err.message)}\nrun '${PROGRAM} ${command} --help' for usage\n`)
    return err.exitCode
  }
  if (err instanceof CommandError) {
    io.err(prefixed(command, err.message) + '\n')
    return err.exitCode
  }
  io.err(prefixed(command, `internal error: ${(err as Error)?.message ?? String(err)}`) + '\n')
  return EXIT.failed
}
