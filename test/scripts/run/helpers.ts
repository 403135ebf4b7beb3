// Shared pieces of the harness tests: the run command's programmatic entry with captured output, a
// mock with known tokens, a proxy that counts the requests it forwards, and ports that refuse.
import { createServer, request as httpRequest, type Server } from 'node:http'
import { createServer as createNetServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { run, type RunResult } from '../../../scripts/run/index.ts'
import { startMock, type RunningMock } from '../../../mock/site/server.ts'
import { mockOptions, randomToken, type MockOptions } from '../../../mock/core/options.ts'

export interface Captured {
  exitCode: number
  stdout: string
  stderr: string
  result: RunResult
}

/** `admin-conformance run` in this process, with stdout and stderr captured. */
export async function runCaptured(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Captured> {
  let stdout = ''
  let stderr = ''
  const result = await run(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  })
  return { exitCode: result.exitCode, stdout, stderr, result }
}

/** Tokens that are known to the test, so their absence from every output can be checked. */
export function knownTokens() {
  return {
    adminToken: randomToken('mat_'),
    userToken: randomToken('mat_'),
    hsAdminToken: randomToken('syt_'),
    hsUserToken: randomToken('syt_'),
  }
}

export async function mockWith(over: Partial<MockOptions> = {}): Promise<RunningMock> {
  return startMock(mockOptions({ host: '127.0.0.1', port: 0, logFile: null, ...over }, {}))
}

/** The environment the run command reads a target's tokens from. */
export function tokenEnv(m: RunningMock): NodeJS.ProcessEnv {
  return {
    MAS_ADMIN_TOKEN: m.options.adminToken,
    MAS_USER_TOKEN: m.options.userToken,
    HS_ADMIN_TOKEN: m.options.hsAdminToken,
    HS_USER_TOKEN: m.options.hsUserToken,
  }
}

export interface CountingProxy {
  url: string
  /** requests forwarded, per method */
  counts: Record<string, number>
  close(): Promise<void>
}

/** A pass-through HTTP proxy that counts what it forwards: the server-side view of what a run sent. */
export async function countingProxy(upstream: string): Promise<CountingProxy> {
  const up = new URL(upstream)
  const counts: Record<string, number> = {}
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET'
    counts[method] = (counts[method] ?? 0) + 1
    const fwd = httpRequest(
      // The upstream's own name in Host, as a reverse proxy sends by default (nginx: $proxy_host); the
      // mock serves only the names it is served as.
      { host: up.hostname, port: up.port, method, path: req.url, headers: { ...req.headers, host: up.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers)
        r.pipe(res)
      },
    )
    fwd.on('error', () => {
      res.writeHead(502)
      res.end()
    })
    req.pipe(fwd)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counts, close: () => closeServer(server) }
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections()
  return new Promise((resolve) => server.close(() => resolve()))
}

/** A loopback port with nothing listening (connections are refused). */
export async function refusingPort(): Promise<number> {
  const s = createNetServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

/** A server that accepts connections and never answers. */
export async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>()
  const s = createNetServer((sock) => {
    sockets.add(sock)
    sock.on('error', () => undefined)
    sock.on('close', () => sockets.delete(sock))
  })
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    close: async () => {
      for (const sock of sockets) sock.destroy()
      await new Promise<void>((resolve) => s.close(() => resolve()))
    },
  }
}
