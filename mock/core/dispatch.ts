// One request from arrival to answer: read the body within the limit, route it (or ask the area's
// `unrouted` hook), run the handler without letting it crash the server, send, and log one line.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Area, Ctx, Reply } from './context.ts'
import type { Site } from './state.ts'
import { internalError, tooLarge, unroutedDefault, uriTooLong } from './answers.ts'
import { send, writeLog } from './respond.ts'

export type { Site } from './state.ts'

const MAX_QUERY = 16 * 1024
const EMPTY = Buffer.alloc(0)
const newDate = () => new Date()

export function areaOf(path: string, site: Site): Area {
  const { options } = site.state
  if (path.startsWith('/api/')) return 'mas'
  if (path.startsWith(options.hsPrefix + '/') || path.startsWith(options.clientPrefix + '/')) return 'hs'
  if (path.startsWith('/_mock/')) return 'control'
  return 'other'
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

function clientAddress(req: IncomingMessage): string | undefined {
  const a = req.socket.remoteAddress
  if (!a) return undefined
  // IPv4-mapped IPv6 is logged as IPv4, like the real service.
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a
}

/** HTTP/1.1 framing: a request has a body only with a content-length above 0 or a transfer-encoding. */
function hasBody(req: IncomingMessage): boolean {
  const h = req.headers
  return h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0')
}

// Kept synchronous where it can be: a bodiless request with a synchronous handler is answered in the
// turn it arrived, without a promise or a listener (the common case under load).
export function handle(site: Site, req: IncomingMessage, res: ServerResponse): void | Promise<void> {
  const started = process.hrtime.bigint()
  const method = req.method ?? 'GET'
  const rawUrl = req.url ?? '/'
  const q = rawUrl.indexOf('?')
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q)
  const rawQuery = q === -1 ? '' : rawUrl.slice(q + 1)
  const { state } = site
  const ctx: Ctx = {
    method,
    path,
    rawQuery,
    query: new URLSearchParams(rawQuery),
    params: {},
    headers: req.headers,
    body: EMPTY,
    clientAddress: clientAddress(req),
    requestId: state.log.nextRequestId(method),
    world: state.world,
    faults: state.faults,
    options: state.options,
    log: { queries: 0, fetched: 0 },
    events: [],
    now: newDate,
  }
  if (!hasBody(req)) return dispatch(site, req, res, ctx, started, EMPTY)
  return readBody(req, state.options.maxBody).then((body) => dispatch(site, req, res, ctx, started, body))
}

function dispatch(site: Site, req: IncomingMessage, res: ServerResponse, ctx: Ctx, started: bigint, body: Buffer | 'too-large'): void | Promise<void> {
  const { method, path, rawQuery } = ctx
  const area = areaOf(path, site)
  const early = (reply: Reply) => finish(site, req, res, ctx, area, reply, started, 0n)
  if (body === 'too-large') return early(tooLarge(area))
  if (rawQuery.length > MAX_QUERY) return early(uriTooLong(area))
  if (method === 'OPTIONS' && req.headers['access-control-request-method']) return early({ status: 204 }) // CORS preflight (headers added on send)
  ctx.body = body
  const m = site.router.match(method, path)
  if (m.kind !== 'found') {
    const at = m.kind === 'method' ? m.area : area
    const unrouted = site.hooks[at]?.unrouted ?? unroutedDefault
    return finish(site, req, res, ctx, at, unrouted({ method, path, allowed: m.kind === 'method' ? m.allowed : [], area: at, options: site.state.options }), started, 0n)
  }
  ctx.params = m.params
  const t0 = process.hrtime.bigint()
  let out: Reply | Promise<Reply>
  try {
    out = m.handler(ctx)
  } catch (err) {
    out = handlerFailed(ctx, m.area, err)
  }
  if (out instanceof Promise) {
    return out.then(
      (r) => finish(site, req, res, ctx, m.area, r, started, process.hrtime.bigint() - t0),
      (err: unknown) => finish(site, req, res, ctx, m.area, handlerFailed(ctx, m.area, err), started, process.hrtime.bigint() - t0),
    )
  }
  return finish(site, req, res, ctx, m.area, out, started, process.hrtime.bigint() - t0)
}

function handlerFailed(ctx: Ctx, area: Area, err: unknown): Reply {
  ctx.events.push({ level: 'ERROR', target: 'mock::server', message: `handler failed: ${err instanceof Error ? err.message : String(err)}` })
  return internalError(area)
}

function finish(site: Site, req: IncomingMessage, res: ServerResponse, ctx: Ctx, area: Area, reply: Reply, started: bigint, cpuNs: bigint): void {
  const sent = send(site, req, res, area, reply)
  writeLog(site.state, ctx, sent, started, cpuNs, req)
}
