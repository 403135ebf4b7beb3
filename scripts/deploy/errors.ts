// One error type for everything that ends a deployment, with the kind deciding the exit code.
import { EXIT } from '../common/index.ts'

export type FailureKind =
  | 'usage' // bad input: flags, image names, ports
  | 'engine' // no Docker engine reachable
  | 'image' // image missing and not pullable
  | 'port' // a port is taken
  | 'start' // a container could not be created or started, or exited early
  | 'health' // a health check never passed
  | 'bootstrap' // token grant or fixtures failed
  | 'interrupted' // SIGINT/SIGTERM or an abort signal

export class DeployError extends Error {
  readonly kind: FailureKind
  /** extra lines shown under the message (for example a container's last log lines) */
  readonly details: string[]
  constructor(kind: FailureKind, message: string, details: string[] = []) {
    super(message)
    this.name = 'DeployError'
    this.kind = kind
    this.details = details
  }
}

// The project's one table (scripts/common/exit.ts): a deployment that could not be brought up counts as a
// target that is unreachable or rejected us (3); failed suites are failed checks (1).
export { EXIT }

export function exitCodeFor(kind: FailureKind): number {
  if (kind === 'usage') return EXIT.usage
  if (kind === 'interrupted') return EXIT.interrupted
  return EXIT.unreachable
}

export function interrupted(signal?: AbortSignal): DeployError {
  const reason = signal?.reason
  const why = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted'
  return new DeployError('interrupted', `interrupted (${why})`)
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw interrupted(signal)
}

/** Resolve after ms, or reject with an interruption when the signal fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(interrupted(signal))
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(interrupted(signal))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Race a promise against a timeout and the abort signal; the loser is left to settle on its own. */
export function bounded<T>(p: Promise<T>, ms: number, onTimeout: () => Error, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(interrupted(signal))
    const timer = setTimeout(() => finish(() => reject(onTimeout())), ms)
    const onAbort = () => finish(() => reject(interrupted(signal)))
    signal?.addEventListener('abort', onAbort, { once: true })
    let done = false
    function finish(f: () => void) {
      if (done) return
      done = true
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      f()
    }
    p.then(
      (v) => finish(() => resolve(v)),
      (e) => finish(() => reject(e)),
    )
  })
}
