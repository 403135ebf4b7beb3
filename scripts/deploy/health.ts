// Readiness probes and the loop that waits on them while watching the container.
import { connect } from 'node:net'
import { DeployError, sleep, throwIfAborted } from './errors.ts'
import type { RunningService } from './service.ts'

export { httpHealthy } from './http.ts'

/**
 * true when PostgreSQL answers a protocol 3.0 startup message with an authentication request ('R'), which it
 * only does once it accepts connections; otherwise why not. No password is sent.
 */
export function postgresReady(host: string, port: number, user: string, database: string, timeoutMs = 3_000): Promise<true | string> {
  return new Promise((resolve) => {
    const sock = connect({ host, port })
    const done = (v: true | string) => {
      clearTimeout(timer)
      sock.destroy()
      resolve(v)
    }
    const timer = setTimeout(() => done('no answer'), timeoutMs)
    sock.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message))
    sock.once('connect', () => {
      const params = Buffer.from(`user\0${user}\0database\0${database}\0\0`)
      const head = Buffer.alloc(8)
      head.writeInt32BE(8 + params.length, 0)
      head.writeInt32BE(196608, 4)
      sock.write(Buffer.concat([head, params]))
    })
    let got = Buffer.alloc(0)
    sock.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk])
      if (got.length < 1) return
      if (got[0] === 0x52) return done(true) // 'R': authentication request
      if (got[0] === 0x45) {
        // 'E': ErrorResponse; its 'M' field says why (starting up, shutting down, ...).
        const m = /M([^\0]*)\0/.exec(got.subarray(5).toString())
        return done(m?.[1] ?? 'error response')
      }
      done(`unexpected answer 0x${got[0]!.toString(16)}`)
    })
  })
}

export interface WaitOptions {
  /** what is being waited for, for messages: "auth service health at http://…/health" */
  what: string
  probe: () => Promise<true | string>
  service?: RunningService
  timeoutMs: number
  intervalMs?: number
  signal?: AbortSignal
}

/** Poll until the probe passes; fail early if the container stops, or at the deadline. */
export async function waitUntil(o: WaitOptions): Promise<void> {
  const deadline = Date.now() + o.timeoutMs
  let last = 'not tried'
  for (;;) {
    throwIfAborted(o.signal)
    if (o.service) await o.service.assertRunning()
    const r = await o.probe()
    if (r === true) return
    last = r
    if (Date.now() >= deadline) {
      throw new DeployError(
        'health',
        `${o.what} did not pass within ${Math.round(o.timeoutMs / 1000)} s (last: ${last})`,
        o.service ? o.service.tailLines() : [],
      )
    }
    await sleep(Math.min(o.intervalMs ?? 500, Math.max(0, deadline - Date.now())), o.signal)
  }
}
