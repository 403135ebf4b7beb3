// The one HTTP client of the suites and the runner (undici). Three duties live here and nowhere else:
// - bounded time: a connect timeout, header/body timeouts and an overall deadline on every request, so a
//   dead or hanging target ends in a clear failure, never a hang;
// - redaction: every error message (and anything passed through `redact`) has tokens removed;
// - read-only: POST/PUT/PATCH/DELETE are refused with WritesNotAllowed unless writes are allowed, so a
//   check cannot send a mutating request by forgetting to ask.
import { Agent, request as undiciRequest } from 'undici'

export const MUTATING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
export const REDACTED = '[REDACTED]'

/** A mutating request was refused because the run is read-only. Suites turn it into a skip. */
export class WritesNotAllowed extends Error {
  override name = 'WritesNotAllowed'
  readonly reason = 'needs --allow-writes'
  constructor(
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path} was not sent: the run is read-only (needs --allow-writes)`)
  }
}

export type HttpErrorKind = 'refused' | 'dns' | 'connect-timeout' | 'timeout' | 'reset' | 'tls' | 'other'

/** The request got no HTTP answer (refused, timed out, reset...). The message is redacted and names the URL. */
export class HttpError extends Error {
  override name = 'HttpError'
  constructor(
    message: string,
    readonly kind: HttpErrorKind,
    readonly method: string,
    readonly url: string,
  ) {
    super(message)
  }
}

export interface HttpResponse {
  method: string
  /** the URL requested, redacted */
  url: string
  status: number
  /** lower-case names; repeated headers joined with ', ' */
  headers: Record<string, string>
  text: string
  /** the parsed body when it is JSON; undefined otherwise */
  json?: unknown
  durationMs: number
}

export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined | null
export type Query = Record<string, QueryValue> | readonly (readonly [string, string])[]

export interface RequestOptions {
  method?: string
  query?: Query
  /** bearer token; null or undefined: no Authorization header */
  token?: string | null
  headers?: Record<string, string>
  /** JSON body (serialised, content-type application/json) */
  body?: unknown
  /** raw body sent as-is (with `headers['content-type']` if wanted) */
  rawBody?: string
  /** overall deadline of this request (default: the client's requestMs) */
  timeoutMs?: number
}

export interface ClientOptions {
  allowWrites: boolean
  connectTimeoutMs: number
  requestTimeoutMs: number
  userAgent: string
  /** secrets to remove from every message (tokens); more can be added with addSecret */
  secrets?: readonly string[]
}

// Token shapes of the auth service (mat_, mpt_, mar_, mct_, mcr_) and the homeserver (syt_, syr_):
// redacted even when the value is not a known secret (e.g. a personal token created by a check).
const TOKEN_SHAPE = /\b(?:mat|mpt|mar|mct|mcr|syt|syr)_[A-Za-z0-9_]{8,}/g
const ACCESS_TOKEN_PARAM = /(access_token=)[^&\s"'#]+/gi
// A value written as a shell variable ($MAS_ADMIN_TOKEN, in a failure's curl line) is a name, not a secret.
const AUTH_HEADER = /((?:authorization)["']?\s*[:=]\s*["']?(?:bearer|basic)\s+)(?!\$[A-Z_][A-Z0-9_]*\b)[^\s"',}]+/gi
const BEARER = /(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}/gi

/** Remove every given secret, `access_token=` values, Authorization values and token-shaped strings. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text
  for (const s of secrets) {
    if (!s || s.length < 4) continue
    out = out.split(s).join(REDACTED)
    const enc = encodeURIComponent(s)
    if (enc !== s) out = out.split(enc).join(REDACTED)
  }
  return out
    .replace(ACCESS_TOKEN_PARAM, `$1${REDACTED}`)
    .replace(AUTH_HEADER, `$1${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(TOKEN_SHAPE, REDACTED)
}

/** Query encoding that keeps `[` and `]` readable in keys, like the admin API's own links. */
export function encodeQuery(query: Query | undefined): string {
  if (!query) return ''
  const pairs: [string, string][] = []
  if (Array.isArray(query)) {
    for (const [k, v] of query as readonly (readonly [string, string])[]) pairs.push([k, v])
  } else {
    for (const [k, v] of Object.entries(query as Record<string, QueryValue>)) {
      if (v === undefined || v === null) continue
      if (Array.isArray(v)) for (const item of v) pairs.push([k, String(item)])
      else pairs.push([k, String(v)])
    }
  }
  const enc = (s: string) => encodeURIComponent(s).replace(/%5B/gi, '[').replace(/%5D/gi, ']')
  return pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')
}

function describeNetworkError(err: unknown, timeoutMs: number, connectMs: number): { kind: HttpErrorKind; text: string } {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } }
  const code = e?.code ?? e?.cause?.code ?? ''
  const name = e?.name ?? ''
  if (code === 'ECONNREFUSED') return { kind: 'refused', text: 'connection refused' }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'dns', text: 'host name not found' }
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT') return { kind: 'connect-timeout', text: `could not connect within ${connectMs} ms` }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || name === 'TimeoutError' || name === 'AbortError' || code === 'ABORT_ERR') {
    return { kind: 'timeout', text: `no complete answer within ${timeoutMs} ms` }
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return { kind: 'reset', text: 'the server closed the connection without answering' }
  if (/CERT|SSL|TLS/i.test(code)) return { kind: 'tls', text: `TLS error (${code})` }
  return { kind: 'other', text: `${code ? code + ': ' : ''}${e?.message ?? String(err)}` }
}

export class HttpClient {
  readonly allowWrites: boolean
  readonly userAgent: string
  /** requests actually sent, per method */
  readonly sent: Record<string, number> = {}
  /** mutating requests refused because the run is read-only */
  readonly refused: Record<string, number> = {}
  private readonly secrets = new Set<string>()
  private readonly agent: Agent
  private readonly requestTimeoutMs: number
  private readonly connectTimeoutMs: number

  constructor(opts: ClientOptions) {
    this.allowWrites = opts.allowWrites
    this.userAgent = opts.userAgent
    this.requestTimeoutMs = opts.requestTimeoutMs
    this.connectTimeoutMs = opts.connectTimeoutMs
    for (const s of opts.secrets ?? []) this.addSecret(s)
    this.agent = new Agent({
      connect: { timeout: opts.connectTimeoutMs },
      headersTimeout: opts.requestTimeoutMs,
      bodyTimeout: opts.requestTimeoutMs,
      keepAliveTimeout: 4_000,
      connections: 16,
    })
  }

  addSecret(s: string | undefined | null): void {
    if (s && s.length >= 4) this.secrets.add(s)
  }

  redact(text: string): string {
    return redact(text, this.secrets)
  }

  /** Build the full URL: `path` may already carry a query string (a link followed as given). */
  url(base: string, path: string, query?: Query): string {
    const q = encodeQuery(query)
    const joined = base.replace(/\/+$/, '') + (path.startsWith('/') ? path : '/' + path)
    return q ? joined + (joined.includes('?') ? '&' : '?') + q : joined
  }

  async request(base: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const method = (opts.method ?? 'GET').toUpperCase()
    const url = this.url(base, path, opts.query)
    const shownUrl = this.redact(url)
    if (MUTATING_METHODS.has(method) && !this.allowWrites) {
      this.refused[method] = (this.refused[method] ?? 0) + 1
      throw new WritesNotAllowed(method, this.redact(path))
    }
    const headers: Record<string, string> = { 'user-agent': this.userAgent, accept: 'application/json', ...opts.headers }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`
    let body: string | undefined
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    } else if (opts.rawBody !== undefined) body = opts.rawBody
    const timeoutMs = opts.timeoutMs ?? this.requestTimeoutMs
    const started = performance.now()
    this.sent[method] = (this.sent[method] ?? 0) + 1
    try {
      const res = await undiciRequest(url, {
        method: method as 'GET',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      })
      const text = await res.body.text()
      const h: Record<string, string> = {}
      for (const [k, v] of Object.entries(res.headers)) {
        if (v === undefined) continue
        h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v)
      }
      const out: HttpResponse = { method, url: shownUrl, status: res.statusCode, headers: h, text, durationMs: performance.now() - started }
      if (text !== '' && /^\s*[[{"0-9tfn-]/.test(text)) {
        try {
          out.json = JSON.parse(text)
        } catch {
          // not JSON: callers check content-type and json themselves
        }
      }
      return out
    } catch (err) {
      const { kind, text } = describeNetworkError(err, timeoutMs, this.connectTimeoutMs)
      throw new HttpError(this.redact(`${method} ${shownUrl}: ${text}`), kind, method, shownUrl)
    }
  }

  /** Close once the requests in flight are done. */
  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined)
  }

  /** Abort whatever is in flight and close now. */
  async destroy(): Promise<void> {
    await this.agent.destroy().catch(() => undefined)
  }
}
