// Core types of the mock: a route table entry, the per-request context handed to handlers,
// and the reply helpers every API uses (the auth service's error envelope is in mock/mas-http/errors.ts).
import type { IncomingHttpHeaders } from 'node:http'
import type { Requester } from '../../lib/requestlog.ts'
import type { World } from '../store/world.ts'
import type { Faults } from '../faults/registry.ts'
import type { MockOptions } from './options.ts'

export interface Reply {
  status: number
  /** JSON-serialisable body, or a string or bytes (a Buffer) sent as-is with `contentType`. Undefined: empty body. */
  body?: unknown
  contentType?: string
  headers?: Record<string, string | string[]>
  /** the UTF-8 length of a string `body`, when the handler has it (used only while `body` is that text) */
  sized?: { text: string; bytes: number }
}

export interface Ctx {
  method: string
  /** path without query string, as received (not decoded) */
  path: string
  /** raw query string without the leading '?' */
  rawQuery: string
  query: URLSearchParams
  /** path parameters, percent-decoded */
  params: Record<string, string>
  headers: IncomingHttpHeaders
  /** the raw request body (already read, bounded by the body limit) */
  body: Buffer
  clientAddress: string | undefined
  requestId: string
  world: World
  faults: Faults
  options: MockOptions
  /** set by handlers so the request-log line attributes the request */
  log: {
    requester?: Requester
    graphqlOperationType?: 'query' | 'mutation' | 'subscription'
    graphqlOperationName?: string
    /** store work done for the request, surfaced as db/queries/fetched stats */
    queries: number
    fetched: number
  }
  /** extra event lines (WARN before error responses, job scheduling) written before the response line */
  events: { level: 'INFO' | 'WARN' | 'ERROR'; target: string; message: string }[]
  now(): Date
}

export type Handler = (ctx: Ctx) => Reply | Promise<Reply>

export interface Route {
  method: string
  /** path pattern with `:name` segments, e.g. `/api/admin/v1/compat-sessions/:id/finish`; `*` matches one or more trailing segments */
  pattern: string
  handler: Handler
  /** which error envelope a routing miss under this prefix uses */
  area: Area
}

export type Area = 'mas' | 'hs' | 'control' | 'other'

export function json(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return headers ? { status, body, headers } : { status, body }
}

/** Homeserver error: `{errcode, error, ...extra}` */
export function hsError(status: number, errcode: string, error: string, extra?: Record<string, unknown>): Reply {
  return { status, body: { errcode, error, ...extra } }
}

export function text(status: number, body: string, contentType = 'text/plain; charset=utf-8'): Reply {
  return { status, body, contentType }
}
