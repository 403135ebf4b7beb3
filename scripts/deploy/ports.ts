// Host networking: every service binds a port on the host's loopback, so ports are checked (or picked)
// before anything starts.
import { createServer } from 'node:net'

/** Whether host:port can be bound right now. */
export function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer()
    srv.once('error', () => resolve(false))
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)))
  })
}

/** A port the kernel reports free on host, distinct from those in `avoid`. */
export async function freePort(host = '127.0.0.1', avoid: number[] = []): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer()
      srv.once('error', reject)
      srv.listen({ port: 0, host, exclusive: true }, () => {
        const addr = srv.address()
        const p = typeof addr === 'object' && addr ? addr.port : 0
        srv.close(() => resolve(p))
      })
    })
    if (port > 0 && !avoid.includes(port)) return port
  }
  throw new Error(`could not find a free port on ${host}`)
}
