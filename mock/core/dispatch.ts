// One request from arrival to answer: read the body within the limit, route it (or ask the area's
// `unrouted` hook), run the handler without letting it crash the server, send, and log one line.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Area, Ctx, Reply } from './context.ts'
import type { Site } from './state.ts'
import { internalError, tooLarge, unroutedDefault, uriTooLong } from './answers.ts'
import { nestsDeeperThan } from './json.ts'
import { isPreflight } from './cors.ts'
import { bodyLimit, LIMITS } from './limits.ts'
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

type Body = Buffer | 'too-large' | 'broken'

/** Past the limit the rest of the body is read and dropped before the 413, up to this much more or this long. */
const DRAIN_BYTES = 64 * 1024 * 1024
const DRAIN_MS = 5_000

/**
 * The body, or 'too-large' once it passes the limit, or 'broken' when the request fails mid-body (node's
 * parser then answers through the server's clientError handler). An oversized body is drained before
 * the 413 goes out: answering while the client still sends and then closing (Connection: close) makes
 * the kernel reset the connection, and the client loses the answer.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let over = Number(req.headers['content-length']) > limit
    let timer: NodeJS.Timeout | undefined
    const overLimit = () => {
      over = true
      chunks.length = 0
      timer = setTimeout(() => resolve('too-large'), DRAIN_MS)
    }
    if (over) overLimit()
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (over) {
        if (size > limit + DRAIN_BYTES) resolve('too-large')
      } else if (size > limit) overLimit()
      else chunks.push(chunk)
    })
    req.on('end', () => {
      clearTimeout(timer)
      resolve(over ? 'too-large' : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
    req.on('error', () => {
      clearTimeout(timer)
      resolve('broken')
    })
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
  const area = areaOf(path, site)
  if (!hasBody(req)) return dispatch(site, req, res, ctx, area, started, EMPTY)
  return readBody(req, bodyLimit(area, state.options.maxBody)).then((body) => dispatch(site, req, res, ctx, area, started, body))
}

/** The answer to a head (request line and header fields) the area's real server refuses, if it does. */
function headRefusal(req: IncomingMessage, area: Area): Reply | undefined {
  const limits = LIMITS[area]
  const raw = req.rawHeaders
  let bytes = (req.method?.length ?? 0) + (req.url?.length ?? 0) + 12
  for (let i = 0; i < raw.length; i++) bytes += raw[i]!.length + 2
  if (raw.length / 2 <= limits.headers && bytes <= limits.headBytes) return undefined
  // Twisted writes a bare 400 and hangs up; hyper a bare 431.
  return { status: limits.headStatus, headers: limits.headStatus === 400 ? { connection: 'close' } : {} }
}

/** A body nesting deeper than the area's real parser takes, answered as that parser fails. */
function tooDeep(ctx: Ctx, area: Area): Reply | undefined {
  const depth = LIMITS[area].jsonDepth
  if (depth === undefined || ctx.body.length === 0 || (ctx.method !== 'POST' && ctx.method !== 'PUT')) return undefined
  if (!nestsDeeperThan(ctx.body, depth)) return undefined
  // Synapse checks the token before it parses; the mock parses first here, so a deep body without a
  // valid token gets this 400 instead of the 401 (a body nesting this deep is no real client's).
  if (area === 'hs') return { status: 400, body: { errcode: 'M_NOT_JSON', error: 'Content not JSON.' } }
  return { status: 400, body: { error: `request body nests deeper than ${depth} levels` } }
}

function dispatch(site: Site, req: IncomingMessage, res: ServerResponse, ctx: Ctx, area: Area, started: bigint, body: Body): void | Promise<void> {
  const { method, path, rawQuery } = ctx
  const early = (reply: Reply) => finish(site, req, res, ctx, area, reply, started, 0n)
  if (body === 'broken') return brokenRequest(site, req, ctx, started)
  if (body === 'too-large') return early(tooLarge(area))
  const refused = headRefusal(req, area)
  if (refused) return early(refused)
  if (rawQuery.length > MAX_QUERY) return early(uriTooLong(area))
  if (method === 'OPTIONS') {
    // CORS headers are added on send; an area may answer every OPTIONS itself (Synapse does).
    const own = site.hooks[area]?.options
    if (own) return early(own(path, site.state.options))
    if (isPreflight(method, req.headers)) return early({ status: 204 })
  }
  ctx.body = body
  const m = site.router.match(method, path)
  if (m.kind !== 'found') {
    const at = m.kind === 'method' ? m.area : area
    const unrouted = site.hooks[at]?.unrouted ?? unroutedDefault
    return finish(site, req, res, ctx, at, unrouted({ method, path, allowed: m.kind === 'method' ? m.allowed : [], area: at, options: site.state.options }), started, 0n)
  }
  const deep = tooDeep(ctx, m.area)
  if (deep) return finish(site, req, res, ctx, m.area, deep, started, 0n)
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

/**
 * The request failed mid-body (a bad chunk, a lost connection): node's parser answered it through the
 * server's clientError handler, or nobody could. The log line gets the status the client received.
 */
function brokenRequest(site: Site, req: IncomingMessage, ctx: Ctx, started: bigint): void {
  setImmediate(() => {
    const status = answeredByParser.get(req.socket) ?? 400
    writeLog(site.state, ctx, { status }, started, 0n, req)
  })
}

/** Status node's parser answered on a socket (set by the server's clientError handler). */
export const answeredByParser = new WeakMap<object, number>()

function handlerFailed(ctx: Ctx, area: Area, err: unknown): Reply {
  ctx.events.push({ level: 'ERROR', target: 'mock::server', message: `handler failed: ${err instanceof Error ? err.message : String(err)}` })
  return internalError(area)
}

function finish(site: Site, req: IncomingMessage, res: ServerResponse, ctx: Ctx, area: Area, reply: Reply, started: bigint, cpuNs: bigint): void {
  const sent = send(site, req, res, area, reply)
  writeLog(site.state, ctx, sent, started, cpuNs, req)
}
