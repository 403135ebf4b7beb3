// One request from arrival to answer: read the body within the limit, route it (or ask the area's
// `unrouted` hook), run the handler without letting it crash the server, send, and log one line.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Area, Ctx, Reply } from '../core/context.ts'
import type { Site } from './state.ts'
import { internalError, misdirected, notPreflighted, tooLarge, unroutedDefault, uriTooLong } from '../core/answers.ts'
import { hostAllowed } from '../core/host.ts'
import { MOCK_CONTROL_HEADER } from '../../lib/target.ts'
import { nestsDeeperThan } from '../core/json.ts'
import { isPreflight } from '../core/cors.ts'
import { bodyLimit, LIMITS } from '../core/limits.ts'
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

/** After a 413 the rest of the body is read and dropped, up to this much more or this long; then the connection is closed. */
const DRAIN_BYTES = 64 * 1024 * 1024
const DRAIN_MS = 5_000

/**
 * The body, or 'too-large' as soon as the declared length or the bytes received pass the limit, or
 * 'broken' when the request fails mid-body (node's parser then answers through the server's
 * clientError handler). A request declaring too much is refused at once, as the real services'
 * limits do (Synapse checks Content-Length against max_request_body_size; tower-http's
 * RequestBodyLimit answers 413 on the header alone): a client that declares 50 GB and sends 64 KB
 * gets its answer without the mock waiting for bytes that never come.
 */
function readBody(req: IncomingMessage, limit: number): Body | Promise<Body> {
  if (Number(req.headers['content-length']) > limit) {
    linger(req)
    return 'too-large'
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) {
        chunks.push(chunk)
        return
      }
      chunks.length = 0
      req.off('data', onData)
      linger(req)
      resolve('too-large')
    }
    req.on('data', onData)
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    req.on('error', () => resolve('broken'))
  })
}

/**
 * The 413 goes out at once, and the connection stays open while the client goes on sending (bounded
 * by DRAIN_BYTES and DRAIN_MS): closing it under a client still sending makes the kernel reset the
 * connection, and the client may lose the answer. A client that sends its whole body keeps its
 * connection; one that stalls or sends too much is cut off.
 */
function linger(req: IncomingMessage): void {
  let drained = 0
  const cut = () => {
    clearTimeout(timer)
    req.socket.destroy()
  }
  const timer = setTimeout(cut, DRAIN_MS)
  timer.unref()
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length
    if (drained > DRAIN_BYTES) cut()
  })
  req.on('end', () => clearTimeout(timer))
  req.on('close', () => clearTimeout(timer))
  req.on('error', () => clearTimeout(timer))
  req.resume()
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
  // Refused before the body is read: node drops what follows of it.
  if (site.hosts && !hostAllowed(site.hosts, req.headers.host)) return finish(site, req, res, ctx, area, misdirected(area), started, 0n)
  if (area === 'control' && method !== 'OPTIONS' && !preflighted(req.headers))
    return finish(site, req, res, ctx, area, notPreflighted(), started, 0n)
  if (!hasBody(req)) return dispatch(site, req, res, ctx, area, started, EMPTY)
  const body = readBody(req, bodyLimit(area, state.options.maxBody))
  if (!(body instanceof Promise)) return dispatch(site, req, res, ctx, area, started, body)
  return body.then((b) => dispatch(site, req, res, ctx, area, started, b))
}

/**
 * A control request a browser sends only after a CORS preflight: one with the control header, or a
 * JSON content type. Anything else (a form post, a text/plain body, a bare GET) a web page can send
 * without asking (a "simple request"), so the control API refuses it.
 */
function preflighted(headers: IncomingMessage['headers']): boolean {
  if (headers[MOCK_CONTROL_HEADER] === '1') return true
  const type = headers['content-type']
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json'
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

function dispatch(
  site: Site,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Ctx,
  area: Area,
  started: bigint,
  body: Body,
): void | Promise<void> {
  const { method, path, rawQuery } = ctx
  const early = (reply: Reply) => finish(site, req, res, ctx, area, reply, started, 0n)
  if (body === 'broken') return brokenRequest(site, req, ctx, started)
  if (body === 'too-large') return early(tooLarge(area, bodyLimit(area, site.state.options.maxBody)))
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
    return finish(
      site,
      req,
      res,
      ctx,
      at,
      unrouted({ method, path, allowed: m.kind === 'method' ? m.allowed : [], area: at, options: site.state.options }),
      started,
      0n,
    )
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
  ctx.events.push({
    level: 'ERROR',
    target: 'mock::server',
    message: `handler failed: ${err instanceof Error ? err.message : String(err)}`,
  })
  return internalError(area)
}

function finish(
  site: Site,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Ctx,
  area: Area,
  reply: Reply,
  started: bigint,
  cpuNs: bigint,
): void | Promise<void> {
  // --state: no answer leaves before the writes made so far are on disk (its own, and any it may show)
  const journal = site.state.journal?.barrier()
  // the homeserver link: a token works at the homeserver once the answer that issued it is out
  const linked = site.state.link?.barrier()
  const durable = journal && linked ? Promise.all([journal, linked]) : (journal ?? linked)
  if (durable) {
    return durable.then(
      () => answer(site, req, res, ctx, area, reply, started, cpuNs),
      (err: unknown) => {
        ctx.events.push({
          level: 'ERROR',
          target: 'mock::state',
          message: `state journal write failed: ${err instanceof Error ? err.message : String(err)}`,
        })
        answer(site, req, res, ctx, area, internalError(area), started, cpuNs)
      },
    )
  }
  answer(site, req, res, ctx, area, reply, started, cpuNs)
}

function answer(
  site: Site,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: Ctx,
  area: Area,
  reply: Reply,
  started: bigint,
  cpuNs: bigint,
): void {
  const sent = send(site, req, res, area, reply)
  writeLog(site.state, ctx, sent, started, cpuNs, req)
}
