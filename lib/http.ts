// The one HTTP client of the project (undici): the suites, the runner's preflight, plan-upgrade and deploy's
// bootstrap all send through HttpClient. Its duties live here and nowhere else:
// - bounded time: a connect timeout, header/body timeouts and an overall deadline on every request, so a
//   dead or hanging target ends in a clear failure, never a hang;
// - bounded memory: a response's body is streamed and the request aborted once it passes the size cap
//   (ResponseTooLarge), so whatever a target sends, the harness holds at most the cap per request;
// - redaction: every error message (and anything passed through `redact`, lib/redact.ts) has tokens removed;
// - read-only: POST/PUT/PATCH/DELETE are refused with WritesNotAllowed unless writes are allowed, so a
//   check cannot send a mutating request by forgetting to ask (the one exception: a request marked
//   credentialFree that carries no credential and no body, which no server can act on);
// - production manners: an optional rate (requestsPerSecond) and budget (maxRequests), and the meter
//   (requests per base URL, per-endpoint timing) the runner reports from.
import { isUtf8 } from 'node:buffer'
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib'
import { Agent, request as undiciRequest } from './undici-lean.mjs'
import { Pacer, SharedBudget } from './http-limits.ts'
import { redact, REDACTED } from './redact.ts'

export { redact, REDACTED, Pacer, SharedBudget }

export const MUTATING_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Default cap on one response's body: far above any admin-API page (a page of 100 sessions is ~60 KiB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024
/**
 * JSON nested deeper than this is not parsed (an admin-API answer is a few levels deep): a linear pre-scan
 * decides before JSON.parse, so a 100,000-deep answer never becomes 100,000 nested objects that every
 * later step (validation, diagnostics, tap's YAML) would walk recursively.
 */
export const MAX_JSON_DEPTH = 64
/**
 * A body's text is kept whole up to this size (any admin-API page is far smaller); past it a response
 * keeps only its first TEXT_HEAD_BYTES as `text` (for failure messages), so that what a check holds on to
 * (walks, memos, its last response) is not up to 8 MiB of string per answer. JSON is parsed from all of it.
 */
export const MAX_TEXT_KEPT = 256 * 1024
/** A body of unannounced length starts in a buffer of this size, doubled as it grows (readCapped). */
const INITIAL_BODY_BYTES = 64 * 1024
const EMPTY = Buffer.alloc(0)
export const TEXT_HEAD_BYTES = 16 * 1024

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

export type HttpErrorKind =
  'refused' | 'dns' | 'connect-timeout' | 'timeout' | 'reset' | 'tls' | 'too-large' | 'budget' | 'deadline' | 'aborted' | 'other'

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

/** The body passed the size cap; the request was aborted there. `size` is what was announced or read. */
export class ResponseTooLarge extends HttpError {
  override name = 'ResponseTooLarge'
  constructor(
    message: string,
    method: string,
    url: string,
    readonly limit: number,
    readonly size: number,
  ) {
    super(message, 'too-large', method, url)
  }
}

/** The client's request budget (maxRequests) was spent; `request` is the one that was not sent. */
export class BudgetSpent extends HttpError {
  override name = 'BudgetSpent'
  constructor(
    readonly limit: number,
    method: string,
    url: string,
  ) {
    super(`request budget of ${limit} spent at ${method} ${url}: not sent`, 'budget', method, url)
  }
  /** `METHOD URL`, for "budget spent at <request>" */
  get request(): string {
    return `${this.method} ${this.url}`
  }
}

/** The run's deadline (--deadline) passed before or while this request was under way. */
export class DeadlineReached extends HttpError {
  override name = 'DeadlineReached'
  constructor(
    method: string,
    url: string,
    readonly during: boolean,
  ) {
    super(`the run's deadline (--deadline) passed ${during ? 'during' : 'before'} ${method} ${url}`, 'deadline', method, url)
  }
  /** `METHOD URL`, for "stopped at <request>" */
  get request(): string {
    return `${this.method} ${this.url}`
  }
}

export interface HttpResponse {
  method: string
  /** the URL requested, redacted */
  url: string
  status: number
  /** lower-case names; repeated headers joined with ', ' */
  headers: Record<string, string>
  /** the body as text; past MAX_TEXT_KEPT bytes only its beginning, marked (see textCut) */
  text: string
  /** set when `text` is only the body's beginning (the body was larger than MAX_TEXT_KEPT) */
  textCut?: boolean
  /** the parsed body when it is JSON; undefined otherwise */
  json?: unknown
  /** why a body that looks like JSON was not parsed (nested deeper than MAX_JSON_DEPTH) */
  notParsed?: string
  /** body bytes as they came over the wire (before any content-encoding was undone) */
  bytes: number
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
  /** cap on this response's body (default: the client's maxResponseBytes) */
  maxResponseBytes?: number
  /** abort this request (e.g. Ctrl-C); ends in an HttpError of kind 'timeout' naming the request */
  signal?: AbortSignal
  /**
   * A mutating method sent with no credential and no body (snapshot: does the release route it?). Passes
   * in read-only mode only when it really carries no token, Authorization or Cookie header and no body:
   * no server can act on such a request, it can only say whether it knows the route.
   */
  credentialFree?: boolean
}

export interface ClientOptions {
  allowWrites: boolean
  connectTimeoutMs: number
  requestTimeoutMs: number
  userAgent: string
  /** secrets to remove from every message (tokens); more can be added with addSecret */
  secrets?: readonly string[]
  /** cap on one response's body in bytes (default DEFAULT_MAX_RESPONSE_BYTES); run's --max-response later */
  maxResponseBytes?: number
  /** at most this many requests per second, spread evenly (default: no limit); run's --rate */
  requestsPerSecond?: number
  /** at most this many requests in all; then BudgetSpent (default: no limit); run's --max-requests */
  maxRequests?: number
  /** called after every request that got an answer or failed (timing, status, size) */
  onRequest?: (record: RequestRecord) => void
  /** a budget shared with other clients and processes (run's --max-requests across suite processes) */
  budget?: SharedBudget
  /** a pace shared by the clients of a process (several targets in the fault matrix) */
  pacer?: Pacer
  /** the run's deadline (epoch ms, run's --deadline): no request starts after it, none runs past it */
  deadlineAt?: number
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

/**
 * Does `text` nest arrays/objects deeper than `max`? One pass, strings skipped (brackets inside them do not
 * count); no allocation. Not a JSON validator: JSON.parse decides that afterwards.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** A body sent with a content-encoding, decoded to at most `cap` bytes (RangeError past it); undefined: not an encoding we undo. */
function decoded(encoding: string, raw: Buffer, cap: number): Buffer | undefined {
  const opts = { maxOutputLength: cap }
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(raw, opts)
    case 'deflate':
      // RFC 9110's deflate is zlib-wrapped; some servers send it raw
      try {
        return inflateSync(raw, opts)
      } catch (e) {
        if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw e
        return inflateRawSync(raw, opts)
      }
    case 'br':
      return brotliDecompressSync(raw, opts)
    default:
      return undefined
  }
}

function describeNetworkError(err: unknown, timeoutMs: number, connectMs: number): { kind: HttpErrorKind; text: string } {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } }
  const code = e?.code ?? e?.cause?.code ?? ''
  const name = e?.name ?? ''
  if (code === 'ECONNREFUSED') return { kind: 'refused', text: 'connection refused' }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'dns', text: 'host name not found' }
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
    return { kind: 'connect-timeout', text: `could not connect within ${connectMs} ms` }
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'ABORT_ERR'
  ) {
    return { kind: 'timeout', text: `no complete answer within ${timeoutMs} ms` }
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE')
    return { kind: 'reset', text: 'the server closed the connection without answering' }
  if (/CERT|SSL|TLS/i.test(code)) return { kind: 'tls', text: `TLS error (${code})` }
  return { kind: 'other', text: `${code ? code + ': ' : ''}${e?.message ?? String(err)}` }
}

// ---------------------------------------------------------------------------------------------
// The meter: what the runner reports (requests per base URL, the slowest endpoints). Endpoints are
// templated (ids become {id}) so the table stays small however many ids a run visits.

export interface RequestRecord {
  method: string
  /** the base URL the request was sent to (the target's), as given to request() */
  base: string
  /** `METHOD /path/{id}` */
  endpoint: string
  /** the URL requested, redacted */
  url: string
  /** undefined when no answer came */
  status?: number
  durationMs: number
  /** body bytes read */
  bytes: number
  error?: HttpErrorKind
}

export interface EndpointTiming {
  endpoint: string
  count: number
  totalMs: number
  maxMs: number
}

export interface ClientStats {
  /** requests sent in all */
  requests: number
  /** requests sent and their summed time, per base URL */
  byBase: Record<string, { requests: number; totalMs: number }>
  /** per endpoint, slowest (by maxMs) first */
  endpoints: EndpointTiming[]
}

const ID_SEGMENT = /^(?:\d+|[0-9A-HJKMNP-TV-Z]{26}|[0-9a-f-]{32,36}|(?:%40|%21|%24|%23|[@!$#]).*)$/i
const MAX_ENDPOINTS = 500

/** `GET /api/admin/v1/users/{id}`: the path without query, id-like segments replaced. */
export function endpointOf(method: string, url: string): string {
  let path: string
  try {
    path = new URL(url).pathname
  } catch {
    path = url.split('?')[0]!
  }
  // a user's name is an id too where the path says so (`/users/by-username/{name}`)
  const segs = path.split('/')
  return `${method} ${segs.map((seg, i) => (segs[i - 1] === 'by-username' ? '{username}' : ID_SEGMENT.test(seg) ? '{id}' : seg)).join('/')}`
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${+(n / 1024).toFixed(1)} KiB` : `${n} bytes`
}

function isCredentialFree(opts: RequestOptions): boolean {
  const names = Object.keys(opts.headers ?? {}).map((h) => h.toLowerCase())
  return (
    opts.credentialFree === true &&
    !opts.token &&
    !names.includes('authorization') &&
    !names.includes('cookie') &&
    opts.body === undefined &&
    opts.rawBody === undefined
  )
}

export class HttpClient {
  readonly allowWrites: boolean
  readonly userAgent: string
  /** requests actually sent, per method */
  readonly sent: Record<string, number> = {}
  /** mutating requests refused because the run is read-only */
  readonly refused: Record<string, number> = {}
  readonly maxResponseBytes: number
  readonly maxRequests: number | undefined
  private requestsSent = 0
  private readonly byBase = new Map<string, { requests: number; totalMs: number }>()
  private readonly endpoints = new Map<string, EndpointTiming>()
  private readonly secrets = new Set<string>()
  private readonly agent: Agent
  private readonly requestTimeoutMs: number
  private readonly connectTimeoutMs: number
  private readonly pacer: Pacer | undefined
  private readonly budget: SharedBudget | undefined
  private readonly onRequest: ((r: RequestRecord) => void) | undefined
  private readonly deadlineAt: number | undefined

  constructor(opts: ClientOptions) {
    this.deadlineAt = opts.deadlineAt
    this.allowWrites = opts.allowWrites
    this.userAgent = opts.userAgent
    this.requestTimeoutMs = opts.requestTimeoutMs
    this.connectTimeoutMs = opts.connectTimeoutMs
    this.maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    this.maxRequests = opts.maxRequests
    this.pacer =
      opts.pacer ?? (opts.requestsPerSecond !== undefined && opts.requestsPerSecond > 0 ? new Pacer(opts.requestsPerSecond) : undefined)
    this.budget = opts.budget
    this.onRequest = opts.onRequest
    for (const [name, v] of [
      ['maxResponseBytes', this.maxResponseBytes],
      ['requestsPerSecond', opts.requestsPerSecond],
      ['maxRequests', opts.maxRequests],
    ] as const) {
      if (v !== undefined && !(v > 0)) throw new RangeError(`${name} must be positive, got ${v}`)
    }
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
    if (s) this.secrets.add(s)
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

  /** Requests sent so far, per base URL, and per-endpoint timing (slowest first). */
  stats(): ClientStats {
    return {
      requests: this.requestsSent,
      byBase: Object.fromEntries([...this.byBase].map(([k, v]) => [k, { ...v }])),
      endpoints: [...this.endpoints.values()].map((e) => ({ ...e })).sort((a, b) => b.maxMs - a.maxMs),
    }
  }

  /** The n endpoints with the slowest single request. */
  slowest(n = 5): EndpointTiming[] {
    return this.stats().endpoints.slice(0, n)
  }

  async request(base: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const method = (opts.method ?? 'GET').toUpperCase()
    const url = this.url(base, path, opts.query)
    const shownUrl = this.redact(url)
    if (MUTATING_METHODS.has(method) && !this.allowWrites && !isCredentialFree(opts)) {
      this.refused[method] = (this.refused[method] ?? 0) + 1
      throw new WritesNotAllowed(method, this.redact(path))
    }
    if (this.maxRequests !== undefined && this.requestsSent >= this.maxRequests) throw new BudgetSpent(this.maxRequests, method, shownUrl)
    if (this.budget && !this.budget.take()) throw new BudgetSpent(this.budget.limit, method, shownUrl)
    // identity: the harness never asks for a compressed body (a body sent compressed anyway is decoded
    // to at most the cap, readCapped)
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: 'application/json',
      'accept-encoding': 'identity',
      ...opts.headers,
    }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`
    let body: string | undefined
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    } else if (opts.rawBody !== undefined) body = opts.rawBody
    let timeoutMs = opts.timeoutMs ?? this.requestTimeoutMs
    const cap = opts.maxResponseBytes ?? this.maxResponseBytes
    if (this.deadlineAt !== undefined && Date.now() >= this.deadlineAt) throw new DeadlineReached(method, shownUrl, false)
    this.requestsSent++
    await this.pace(opts.signal)
    // the request's whole time (headers and body, however slowly it drips) ends at the run's deadline
    const left = this.deadlineAt === undefined ? Infinity : this.deadlineAt - Date.now()
    if (left <= 0) throw new DeadlineReached(method, shownUrl, false)
    const byDeadline = left < timeoutMs
    if (byDeadline) timeoutMs = Math.max(1, Math.floor(left))
    const started = performance.now()
    this.sent[method] = (this.sent[method] ?? 0) + 1
    const record = (status: number | undefined, bytes: number, error?: HttpErrorKind) =>
      this.record(base, method, url, shownUrl, status, bytes, performance.now() - started, error)
    const timeout = AbortSignal.timeout(timeoutMs)
    try {
      const res = await undiciRequest(url, {
        method: method as 'GET',
        headers,
        body,
        dispatcher: this.agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout,
      })
      const read = await this.readCapped(res, method, shownUrl, cap, timeout)
      const bytes = read.bytes
      let raw: Buffer | undefined = read.body
      read.body = EMPTY
      // A body that is not UTF-8 is no JSON and not decoded whole (decoding 4 MiB of binary took 0.7 s).
      const utf8 = isUtf8(raw)
      const whole = utf8 ? raw.toString('utf8') : ''
      // (the head is decoded on its own: a slice of `whole` would keep all of it alive)
      const text =
        utf8 && raw.length <= MAX_TEXT_KEPT
          ? whole
          : `${raw.subarray(0, TEXT_HEAD_BYTES).toString('utf8')}${raw.length > TEXT_HEAD_BYTES ? `… (${raw.length - TEXT_HEAD_BYTES} more bytes not kept${utf8 ? '' : '; not UTF-8'})` : ''}`
      const cut = text !== whole && raw.length > TEXT_HEAD_BYTES
      // the bytes are not needed past here: not alive while the text is parsed (decision 0004)
      raw = undefined
      const h: Record<string, string> = {}
      for (const [k, v] of Object.entries(res.headers)) {
        if (v === undefined) continue
        h[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v)
      }
      record(res.statusCode, bytes)
      const out: HttpResponse = {
        method,
        url: shownUrl,
        status: res.statusCode,
        headers: h,
        text,
        bytes,
        durationMs: performance.now() - started,
      }
      if (cut) out.textCut = true
      if (whole !== '' && /^\s*[[{"0-9tfn-]/.test(whole)) {
        if (jsonDeeperThan(whole, MAX_JSON_DEPTH)) out.notParsed = `nested deeper than ${MAX_JSON_DEPTH} levels: not parsed as JSON`
        else
          try {
            out.json = JSON.parse(whole)
          } catch {
            // not JSON: callers check content-type and json themselves
          }
      }
      return out
    } catch (err) {
      if (err instanceof ResponseTooLarge) {
        record(undefined, err.size, 'too-large')
        throw err
      }
      if (byDeadline && timeout.aborted && !opts.signal?.aborted) {
        record(undefined, 0, 'deadline')
        throw new DeadlineReached(method, shownUrl, true)
      }
      const { kind, text } =
        opts.signal?.aborted && !timeout.aborted
          ? { kind: 'aborted' as const, text: 'aborted' }
          : describeNetworkError(err, timeoutMs, this.connectTimeoutMs)
      record(undefined, 0, kind)
      throw new HttpError(this.redact(`${method} ${shownUrl}: ${text}`), kind, method, shownUrl)
    }
  }

  /** Wait for this request's slot under requestsPerSecond (slots are handed out in call order). */
  private async pace(signal?: AbortSignal): Promise<void> {
    if (this.pacer) await this.pacer.wait(signal)
  }

  /**
   * Read the body up to `cap` bytes; past it, abort the request and throw ResponseTooLarge. A body with a
   * content-encoding is decoded to at most `cap` bytes too (a 4 MiB gzip bomb would otherwise be
   * gigabytes). `timeout` ends the read however slowly the body drips (undici's bodyTimeout is per chunk).
   */
  private async readCapped(
    res: Awaited<ReturnType<typeof undiciRequest>>,
    method: string,
    shownUrl: string,
    cap: number,
    timeout: AbortSignal,
  ): Promise<{ body: Buffer; bytes: number }> {
    const tooLarge = (size: number, how: string): never => {
      res.body.destroy()
      throw new ResponseTooLarge(
        `${method} ${shownUrl}: the response is larger than the cap of ${formatBytes(cap)} (${cap} bytes): ${how}`,
        method,
        shownUrl,
        cap,
        size,
      )
    }
    const announced = Number(res.headers['content-length'])
    if (Number.isFinite(announced) && announced > cap)
      tooLarge(announced, `the server announced ${announced} bytes (${formatBytes(announced)})`)
    // The body's bytes go into one buffer as they come, each chunk garbage at once (decision 0004: a
    // list of chunks concatenated at the end held a 4 MiB answer twice): of the announced length, else
    // grown by doubling up to the cap.
    let buf = Buffer.allocUnsafe(Number.isSafeInteger(announced) && announced >= 0 ? announced : INITIAL_BODY_BYTES)
    let size = 0
    const stop = () => res.body.destroy(Object.assign(new Error('the request took too long'), { name: 'TimeoutError' }))
    timeout.addEventListener('abort', stop, { once: true })
    try {
      if (timeout.aborted) stop()
      for await (const chunk of res.body) {
        const c = chunk as Buffer
        if (size + c.length > cap) tooLarge(size + c.length, `stopped after reading ${size + c.length} bytes`)
        if (size + c.length > buf.length) {
          const grown = Buffer.allocUnsafe(Math.min(cap, Math.max(size + c.length, buf.length * 2)))
          buf.copy(grown, 0, 0, size)
          buf = grown
        }
        c.copy(buf, size)
        size += c.length
      }
    } finally {
      timeout.removeEventListener('abort', stop)
    }
    // (a server that sent less than it announced: the bytes it sent)
    const raw = size === buf.length ? buf : buf.subarray(0, size)
    const encoding = String(res.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase()
    if (encoding === '' || encoding === 'identity') return { body: raw, bytes: size }
    try {
      // an encoding we do not know: the bytes as they came (a check then finds no JSON)
      return { body: decoded(encoding, raw, cap) ?? raw, bytes: size }
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
        tooLarge(size, `its ${size} bytes of content-encoding ${encoding} decode to more than the cap`)
      // not decodable: as it came
      return { body: raw, bytes: size }
    }
  }

  private record(
    base: string,
    method: string,
    url: string,
    shownUrl: string,
    status: number | undefined,
    bytes: number,
    ms: number,
    error?: HttpErrorKind,
  ): void {
    const b = this.byBase.get(base) ?? { requests: 0, totalMs: 0 }
    b.requests++
    b.totalMs += ms
    this.byBase.set(base, b)
    let endpoint = endpointOf(method, url)
    if (!this.endpoints.has(endpoint) && this.endpoints.size >= MAX_ENDPOINTS) endpoint = `${method} (other endpoints)`
    const e = this.endpoints.get(endpoint) ?? { endpoint, count: 0, totalMs: 0, maxMs: 0 }
    e.count++
    e.totalMs += ms
    e.maxMs = Math.max(e.maxMs, ms)
    this.endpoints.set(endpoint, e)
    this.onRequest?.({ method, base, endpoint, url: shownUrl, status, durationMs: ms, bytes, ...(error ? { error } : {}) })
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
