// A hostile target on loopback for the memory and size-cap tests: it passes the runner's preflight (a
// version, a server_version, a one-report page) and then answers every other request with a huge body,
// half of them announced with content-length and half streamed without one (chunked), so that both
// ways a client can learn a body's size are exercised.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Hostile {
  url: string
  /** requests answered with a huge body */
  huge: number
  close(): Promise<void>
}

const CHUNK = Buffer.alloc(1024 * 1024, 0x61)

export async function hostileServer(bodyBytes = 200 * 1024 * 1024): Promise<Hostile> {
  const out: Hostile = { url: '', huge: 0, close: async () => undefined }
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const json = (v: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(v))
    }
    if (url.pathname === '/api/admin/v1/version') return json({ version: '1.22.0' })
    if (url.pathname.endsWith('/admin/v1/server_version')) return json({ server_version: '1.130.0' })
    if (url.pathname.endsWith('/admin/v1/event_reports') && url.searchParams.get('limit') === '1')
      return json({ event_reports: [], total: 0 })
    out.huge++
    const announced = out.huge % 2 === 1
    res.writeHead(200, { 'content-type': 'application/json', ...(announced ? { 'content-length': String(bodyBytes) } : {}) })
    let sent = 0
    const pump = () => {
      while (sent < bodyBytes) {
        const n = Math.min(CHUNK.length, bodyBytes - sent)
        sent += n
        if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', pump)
      }
      res.end()
    }
    res.on('error', () => undefined)
    req.socket.on('error', () => undefined)
    pump()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  out.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  out.close = () => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(() => resolve()))
  }
  return out
}
