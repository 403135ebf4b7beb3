// The HTTP calls of the bootstrap and the health probes: JSON in and out, bounded in time and size, errors
// that say what was asked. They go through the project's one client (lib/http.ts), with writes allowed
// (the bootstrap creates users, sessions, rooms and reports) and redirects not followed.
import { HttpClient, HttpError, type HttpResponse as ClientResponse } from '../../lib/http.ts'
import { interrupted } from './errors.ts'

export interface HttpOptions {
  bearer?: string
  basic?: { id: string; secret: string }
  json?: unknown
  form?: Record<string, string>
  timeoutMs?: number
  signal?: AbortSignal
}

export interface HttpResponse {
  status: number
  text: string
  json: unknown
}

export { HttpError }

const DEFAULT_TIMEOUT_MS = 30_000

// One client for the process: its connection pool is reused by every call; idle sockets do not keep the
// process alive (undici unrefs them).
let shared: HttpClient | undefined
function client(): HttpClient {
  shared ??= new HttpClient({
    allowWrites: true,
    connectTimeoutMs: 10_000,
    requestTimeoutMs: DEFAULT_TIMEOUT_MS,
    userAgent: 'admin-conformance-deploy',
  })
  return shared
}

/** Send one request; a network failure throws HttpError (lib/http.ts), an abort of `signal` an interruption. */
export async function http(method: string, url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  const headers: Record<string, string> = {}
  let rawBody: string | undefined
  if (opts.basic) {
    // RFC 6749 §2.3.1: id and secret are form-encoded before the Basic encoding.
    const creds = `${encodeURIComponent(opts.basic.id)}:${encodeURIComponent(opts.basic.secret)}`
    headers.authorization = `Basic ${Buffer.from(creds).toString('base64')}`
  }
  if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    rawBody = new URLSearchParams(opts.form).toString()
  }
  const u = new URL(url)
  let res: ClientResponse
  try {
    res = await client().request(u.origin, u.pathname + u.search, {
      method,
      headers,
      token: opts.bearer,
      ...(opts.json !== undefined ? { body: opts.json } : rawBody !== undefined ? { rawBody } : {}),
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal: opts.signal,
    })
  } catch (e) {
    if (e instanceof HttpError && e.kind === 'aborted') throw interrupted(opts.signal)
    throw e
  }
  return { status: res.status, text: res.text, json: res.json }
}

/** true when GET url answers 200; otherwise why not ("answered 503", "connection refused"). */
export async function httpHealthy(url: string, timeoutMs = 3_000): Promise<true | string> {
  try {
    const res = await http('GET', url, { timeoutMs })
    return res.status === 200 ? true : `answered ${res.status}`
  } catch (e) {
    return e instanceof HttpError ? e.message.replace(/^\S+ \S+: /, '') : (e as Error).message
  }
}

/** `what failed: METHOD /path answered 4xx: <start of body>` */
export function describe(what: string, method: string, url: string, res: HttpResponse): string {
  const body = res.text.replace(/\s+/g, ' ').trim().slice(0, 300)
  return `${what}: ${method} ${new URL(url).pathname} answered ${res.status}${body ? `: ${body}` : ''}`
}

/** Read a nested member of an unknown JSON value: get(x, 'data', 'id'). */
export function get(value: unknown, ...path: (string | number)[]): unknown {
  let v = value
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined
    v = (v as Record<string | number, unknown>)[k]
  }
  return v
}
