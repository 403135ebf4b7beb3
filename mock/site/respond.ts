// Sending an answer (CORS and per-area headers, a body that cannot fail to serialise) and writing its
// request-log line with the status the client actually received.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { reasonPhrase, levelForStatus, formatTimestamp, type HttpVersion } from '../../lib/requestlog.ts'
import type { Area, Ctx, Reply } from '../core/context.ts'
import type { MockState, Site } from './state.ts'
import { internalError } from '../core/answers.ts'
import { safeStringify } from '../core/json.ts'
import { controlCors, serviceCors } from '../core/cors.ts'

const HTTP_VERSIONS = new Set(['0.9', '1.0', '1.1', '2.0', '3.0'])

/** The body as text and its content type; null when it cannot be serialised (a cycle, a BigInt, a stack overflow). */
function serialise(reply: Reply): { payload: string | Buffer | undefined; contentType?: string } | null {
  if (reply.body === undefined) return { payload: undefined }
  if (typeof reply.body === 'string' && reply.contentType) return { payload: reply.body, contentType: reply.contentType }
  if (Buffer.isBuffer(reply.body) && reply.contentType) return { payload: reply.body, contentType: reply.contentType }
  const payload = safeStringify(reply.body)
  return payload === null ? null : { payload, contentType: reply.contentType ?? 'application/json' }
}

/**
 * Sends the reply and returns what was sent: a body too deep for JSON.stringify is written without
 * recursion; one that has no JSON at all (a cycle, a BigInt: a bug of the mock) becomes a 500 in the
 * area's envelope.
 */
export function send(site: Site, req: IncomingMessage, res: ServerResponse, area: Area, reply: Reply): Reply {
  let body = serialise(reply)
  if (body === null) {
    reply = internalError(area)
    body = serialise(reply)!
  }
  // A flat [name, value, ...] list: node takes it as is, without building a header object.
  const method = req.method ?? 'GET'
  const { options } = site.state
  const hooks = site.hooks[area]
  let headers: string[]
  if (hooks?.cors) {
    headers = []
    for (const [k, v] of Object.entries(hooks.cors(method, req.headers, options))) headers.push(k, v)
  } else headers = area === 'control' ? controlCors(method, req.headers, options) : serviceCors(method, req.headers, options)
  const extra = hooks?.headers?.(method, reply, options)
  if (extra) for (const [k, v] of Object.entries(extra)) headers.push(k, v)
  if (reply.headers) {
    for (const [k, v] of Object.entries(reply.headers)) {
      if (Array.isArray(v)) for (const one of v) headers.push(k, one)
      else headers.push(k, v)
    }
  }
  const { payload, contentType } = body
  if (contentType) headers.push('content-type', contentType)
  // A string body goes out with the head in one write, encoded by the socket itself: cheaper than
  // encoding it into a Buffer first (a fresh ArrayBuffer for anything over 4 KiB).
  const bytes =
    payload === undefined
      ? 0
      : typeof payload !== 'string'
        ? payload.length
        : reply.sized?.text === payload
          ? reply.sized.bytes
          : Buffer.byteLength(payload)
  headers.push('content-length', String(bytes))
  res.writeHead(reply.status, headers)
  res.end(req.method === 'HEAD' ? undefined : payload)
  return reply
}

export function writeLog(state: MockState, ctx: Ctx, reply: Reply, started: bigint, cpuNs: bigint, req: IncomingMessage): void {
  const { log, faults } = state
  const now = new Date()
  for (const e of ctx.events) log.event(e.level, e.target, ctx.requestId, e.message, now)
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6
  const cpuMs = Number(cpuNs) / 1e6
  const ua = req.headers['user-agent']
  // node reports '1.1' / '1.0'; the real log writes HTTP/2.0 for h2 (node's '2.0' too)
  const version: HttpVersion = HTTP_VERSIONS.has(req.httpVersion) ? (req.httpVersion as HttpVersion) : '_OTHER'
  const cut = ctx.requestId.lastIndexOf('-')
  log.response({
    timestamp: formatTimestamp(now),
    level: faults.has('log-level-ignores-status') ? 'INFO' : levelForStatus(reply.status),
    requestId: { method: ctx.requestId.slice(0, cut), counter: Number(ctx.requestId.slice(cut + 1)) },
    method: ctx.method,
    path: faults.has('log-query-in-request-line') && ctx.rawQuery ? `${ctx.path}?${ctx.rawQuery}` : ctx.path,
    httpVersion: version,
    status: reply.status,
    reason: reasonPhrase(reply.status),
    userAgent: typeof ua === 'string' ? ua : null,
    stats: {
      polls: 1 + ctx.log.queries,
      cpuMs,
      dbMs: ctx.log.queries * 0.1,
      elapsedMs,
      queries: ctx.log.queries,
      fetched: ctx.log.fetched,
    },
    requester: faults.has('log-drops-requester') ? undefined : ctx.log.requester,
    clientAddress: ctx.clientAddress,
    graphqlOperationType: ctx.log.graphqlOperationType,
    graphqlOperationName: ctx.log.graphqlOperationName,
  })
}
