// The mock's HTTP server: body limits, CORS, routing with per-area 404/405 envelopes, the control API,
// crash-proof dispatch, and one request-log line per request.
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { reasonPhrase, levelForStatus, formatTimestamp, type HttpVersion } from '../../lib/requestlog.ts'
import { Router } from './router.ts'
import { Faults } from '../faults/registry.ts'
import { RequestLog } from './log.ts'
import { buildWorld } from '../seed/index.ts'
import { controlRoutes } from './control.ts'
import { adminRoutes } from '../admin/routes.ts'
import { homeserverRoutes } from '../homeserver/routes.ts'
import { browserRoutes } from '../auth-service/browser.ts'
import { buildOpenApi } from './openapi.ts'
import type { Ctx, Reply, Area, Route } from './context.ts'
import type { MockOptions } from './options.ts'
import type { World } from '../store/world.ts'
import { StateJournal } from '../store/journal/state.ts'

export interface RunningMock {
  url: string
  port: number
  options: MockOptions
  faults: Faults
  world(): World
  /** rebuild the world from the (possibly changed) options */
  reseed(over?: Partial<Pick<MockOptions, 'seed' | 'sessions' | 'reports'>>): void
  close(): Promise<void>
}

export interface MockState {
  options: MockOptions
  world: World
  faults: Faults
  log: RequestLog
  /** --state: the write journal (answers wait for their writes to be durable) */
  journal?: StateJournal
  reseed(over?: Partial<Pick<MockOptions, 'seed' | 'sessions' | 'reports'>>): void
}

const MAX_QUERY = 16 * 1024
const HTTP_VERSIONS = new Set(['0.9', '1.0', '1.1', '2.0', '3.0'])

export async function startMock(options: MockOptions): Promise<RunningMock> {
  const faults = new Faults(options.faults)
  const log = new RequestLog(options.logFile, options.logFormat)
  const world = buildWorld(options)
  // --state: replay the journal over the seeded world, then record every write (mock/store/journal/)
  const journal = options.stateDir === undefined ? undefined : StateJournal.open(options, world, (m) => log.event('WARN', 'mock::state', 'STATE-0', m))
  const state: MockState = {
    options,
    world,
    faults,
    log,
    journal,
    reseed(over = {}) {
      Object.assign(state.options, over)
      state.world = buildWorld(state.options)
      state.journal?.restart(state.options, state.world, Object.keys(over).length ? 'seed' : 'reset')
    },
  }
  let spec: Record<string, unknown> | undefined
  let baseUrl = ''
  const router = new Router()
  const routes: Route[] = [
    { method: 'GET', pattern: '/health', area: 'other', handler: () => ({ status: 200, body: 'ok', contentType: 'text/plain; charset=utf-8' }) },
    {
      method: 'GET',
      pattern: '/api/spec.json',
      area: 'mas',
      // Built once from the schemas; the server URL is this mock's base, as the real service does.
      handler: () => ({ status: 200, body: (spec ??= buildOpenApi({ serverUrl: baseUrl, hsPrefix: options.hsPrefix, clientPrefix: options.clientPrefix })) }),
    },
    ...controlRoutes(state),
    ...adminRoutes(options),
    ...homeserverRoutes(options),
    ...browserRoutes(options),
  ]
  router.add(routes)

  const server = createServer({ maxHeaderSize: 32 * 1024 }, (req, res) => {
    let pending: void | Promise<void>
    try {
      pending = handle(state, router, req, res)
    } catch (err) {
      pending = Promise.reject(err)
    }
    pending?.catch((err: unknown) => {
      // handle() never throws by design; this is the last line of defence against a crash.
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ errors: [{ title: 'Internal error in the mock' }] }))
      }
      log.event('ERROR', 'mock::server', 'ERR-0', String(err instanceof Error ? err.stack : err))
    })
  })
  server.keepAliveTimeout = 65_000
  server.on('clientError', (err, socket) => {
    // Malformed request lines or oversized headers: answer instead of dropping the socket.
    const code = (err as NodeJS.ErrnoException).code
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
    if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
    else socket.destroy()
  })
  await listen(server, options)
  const port = (server.address() as AddressInfo).port
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  baseUrl = `http://${host}:${port}`
  return {
    url: `http://${host}:${port}`,
    port,
    options,
    faults,
    world: () => state.world,
    reseed: (over) => state.reseed(over),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await state.journal?.close()
      await log.close()
    },
  }
}

function listen(server: Server, options: MockOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`port ${options.port} on ${options.host} is already in use; pick another with --port (0 = any free port)`)
          : err,
      )
    }
    server.once('error', onError)
    server.listen(options.port, options.host, () => {
      server.off('error', onError)
      resolve()
    })
  })
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length'])
  if (declared > limit) {
    req.resume()
    return Promise.resolve('too-large')
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    req.on('data', (chunk: Buffer) => {
      if (over) return
      size += chunk.length
      if (size > limit) {
        over = true
        chunks.length = 0
      } else chunks.push(chunk)
    })
    req.on('end', () => resolve(over ? 'too-large' : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    req.on('error', () => resolve(over ? 'too-large' : Buffer.concat(chunks)))
  })
}

function areaOf(path: string, options: MockOptions): Area {
  if (path.startsWith('/api/')) return 'mas'
  if (path.startsWith(options.hsPrefix + '/') || path.startsWith(options.clientPrefix + '/')) return 'hs'
  if (path.startsWith('/_mock/')) return 'control'
  return 'other'
}

function notFound(area: Area): Reply {
  switch (area) {
    case 'hs':
      return { status: 404, body: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' } }
    case 'control':
      return { status: 404, body: { error: 'unknown control endpoint' } }
    default:
      // The auth service answers unknown paths with its HTML error page.
      return { status: 404, body: '<!DOCTYPE html><html><head><title>Page not found</title></head><body><h1>Page not found</h1></body></html>', contentType: 'text/html; charset=utf-8' }
  }
}

function methodNotAllowed(area: Area, allowed: string[]): Reply {
  const headers = { allow: allowed.join(', ') }
  if (area === 'hs') return { status: 405, body: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' }, headers }
  return { status: 405, headers } // axum: empty body
}

function internalError(area: Area): Reply {
  if (area === 'hs') return { status: 500, body: { errcode: 'M_UNKNOWN', error: 'Internal server error' } }
  return { status: 500, body: { errors: [{ title: 'Internal server error' }] } }
}

function tooLarge(area: Area): Reply {
  if (area === 'hs') return { status: 413, body: { errcode: 'M_TOO_LARGE', error: 'Request body too large' } }
  return { status: 413, body: 'Failed to buffer the request body: length limit exceeded', contentType: 'text/plain; charset=utf-8' }
}

function clientAddress(req: IncomingMessage): string | undefined {
  const a = req.socket.remoteAddress
  if (!a) return undefined
  // IPv4-mapped IPv6 is logged as IPv4, like the real service.
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a
}

const EMPTY = Buffer.alloc(0)
const newDate = () => new Date()

/** HTTP/1.1 framing: a request has a body only with a content-length above 0 or a transfer-encoding. */
function hasBody(req: IncomingMessage): boolean {
  const h = req.headers
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0')
}

// Kept synchronous where it can be: a bodiless request with a synchronous handler is answered in the
// turn it arrived, without a promise or a listener (the common case under load).
function handle(state: MockState, router: Router, req: IncomingMessage, res: ServerResponse): void | Promise<void> {
  const started = process.hrtime.bigint()
  const method = req.method ?? 'GET'
  const rawUrl = req.url ?? '/'
  const q = rawUrl.indexOf('?')
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q)
  const rawQuery = q === -1 ? '' : rawUrl.slice(q + 1)
  const { options, faults, log } = state
  const requestId = log.nextRequestId(method)
  const ctx: Ctx = {
    method,
    path,
    rawQuery,
    query: new URLSearchParams(rawQuery),
    params: {},
    headers: req.headers,
    body: EMPTY,
    clientAddress: clientAddress(req),
    requestId,
    world: state.world,
    faults,
    options,
    log: { queries: 0, fetched: 0 },
    events: [],
    now: newDate,
  }
  if (!hasBody(req)) return dispatch(state, router, req, res, ctx, started, EMPTY)
  return readBody(req, options.maxBody).then((body) => dispatch(state, router, req, res, ctx, started, body))
}

function dispatch(state: MockState, router: Router, req: IncomingMessage, res: ServerResponse, ctx: Ctx, started: bigint, body: Buffer | 'too-large'): void | Promise<void> {
  const { method, path, rawQuery } = ctx
  const area = areaOf(path, state.options)
  let reply: Reply
  if (body === 'too-large') {
    reply = tooLarge(area)
  } else if (rawQuery.length > MAX_QUERY) {
    reply = area === 'hs' ? { status: 414, body: { errcode: 'M_UNKNOWN', error: 'URI too long' } } : { status: 414, body: 'URI Too Long', contentType: 'text/plain; charset=utf-8' }
  } else if (method === 'OPTIONS' && req.headers['access-control-request-method']) {
    reply = { status: 204 } // CORS preflight (headers added below)
  } else {
    ctx.body = body
    const m = router.match(method, path)
    if (m.kind === 'none') reply = notFound(area)
    else if (m.kind === 'method') reply = methodNotAllowed(m.area, m.allowed)
    else {
      ctx.params = m.params
      const t0 = process.hrtime.bigint()
      let out: Reply | Promise<Reply>
      try {
        out = m.handler(ctx)
      } catch (err) {
        out = handlerFailed(ctx, m.area, err)
      }
      if (out instanceof Promise) {
        const routeArea = m.area
        return out.then(
          (r) => finish(state, req, res, ctx, r, started, process.hrtime.bigint() - t0),
          (err: unknown) => finish(state, req, res, ctx, handlerFailed(ctx, routeArea, err), started, process.hrtime.bigint() - t0),
        )
      }
      return finish(state, req, res, ctx, out, started, process.hrtime.bigint() - t0)
    }
  }
  return finish(state, req, res, ctx, reply, started, 0n)
}

function handlerFailed(ctx: Ctx, area: Area, err: unknown): Reply {
  ctx.events.push({ level: 'ERROR', target: 'mock::server', message: `handler failed: ${err instanceof Error ? err.message : String(err)}` })
  return internalError(area)
}

function finish(state: MockState, req: IncomingMessage, res: ServerResponse, ctx: Ctx, reply: Reply, started: bigint, cpuNs: bigint): void | Promise<void> {
  // --state: no answer leaves before the writes made so far are on disk (its own, and any it may show)
  const durable = state.journal?.barrier()
  if (durable) {
    return durable.then(
      () => {
        send(req, res, reply)
        writeLog(state, ctx, reply, started, cpuNs, req)
      },
      (err: unknown) => {
        ctx.events.push({ level: 'ERROR', target: 'mock::state', message: `state journal write failed: ${err instanceof Error ? err.message : String(err)}` })
        const failed = internalError(areaOf(ctx.path, state.options))
        send(req, res, failed)
        writeLog(state, ctx, failed, started, cpuNs, req)
      },
    )
  }
  send(req, res, reply)
  writeLog(state, ctx, reply, started, cpuNs, req)
}

// CORS is on for frontend work; these three go on every answer.
const CORS: readonly string[] = [
  'access-control-allow-origin',
  '*',
  'access-control-allow-methods',
  'GET, POST, PUT, DELETE, OPTIONS',
  'access-control-allow-headers',
  'Authorization, Content-Type, X-Requested-With',
]

function send(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  // A flat [name, value, ...] list: node takes it as is, without building a header object.
  const headers: string[] = CORS.slice()
  if (reply.headers) {
    for (const [k, v] of Object.entries(reply.headers)) {
      if (Array.isArray(v)) for (const one of v) headers.push(k, one)
      else headers.push(k, v)
    }
  }
  let payload: string | undefined
  if (reply.body !== undefined) {
    if (typeof reply.body === 'string' && reply.contentType) {
      payload = reply.body
      headers.push('content-type', reply.contentType)
    } else {
      payload = JSON.stringify(reply.body)
      headers.push('content-type', reply.contentType ?? 'application/json')
    }
  }
  // A string body goes out with the head in one write, encoded by the socket itself: cheaper than
  // encoding it into a Buffer first (a fresh ArrayBuffer for anything over 4 KiB).
  headers.push('content-length', String(payload === undefined ? 0 : Buffer.byteLength(payload)))
  res.writeHead(reply.status, headers)
  res.end(req.method === 'HEAD' ? undefined : payload)
}

function writeLog(state: MockState, ctx: Ctx, reply: Reply, started: bigint, cpuNs: bigint, req: IncomingMessage): void {
  const { log, faults } = state
  const now = new Date()
  for (const e of ctx.events) log.event(e.level, e.target, ctx.requestId, e.message, now)
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6
  const cpuMs = Number(cpuNs) / 1e6
  const ua = req.headers['user-agent']
  // node reports '1.1' / '1.0'; the real log writes HTTP/2.0 for h2 (node's '2.0' too)
  const version: HttpVersion = HTTP_VERSIONS.has(req.httpVersion) ? (req.httpVersion as HttpVersion) : '_OTHER'
  log.response({
    timestamp: formatTimestamp(now),
    level: faults.has('log-level-ignores-status') ? 'INFO' : levelForStatus(reply.status),
    requestId: { method: ctx.requestId.slice(0, ctx.requestId.lastIndexOf('-')), counter: Number(ctx.requestId.slice(ctx.requestId.lastIndexOf('-') + 1)) },
    method: ctx.method,
    path: faults.has('log-query-in-request-line') && ctx.rawQuery ? `${ctx.path}?${ctx.rawQuery}` : ctx.path,
    httpVersion: version,
    status: reply.status,
    reason: reasonPhrase(reply.status),
    userAgent: typeof ua === 'string' ? ua : null,
    stats: { polls: 1 + ctx.log.queries, cpuMs, dbMs: ctx.log.queries * 0.1, elapsedMs, queries: ctx.log.queries, fetched: ctx.log.fetched },
    requester: faults.has('log-drops-requester') ? undefined : ctx.log.requester,
    clientAddress: ctx.clientAddress,
    graphqlOperationType: ctx.log.graphqlOperationType,
    graphqlOperationName: ctx.log.graphqlOperationName,
  })
}
