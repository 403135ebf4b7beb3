// Shared helpers of the conformance suites (suites/**): the target and the HTTP client of this suite
// process, named checks with skip-with-reason, response and schema assertions that report the exact
// schema path, walks over the admin listings and the event-report listing, and version gating.
//
// Only suite files import this module (it registers tap tests); the mock never does.
//
// Fault matrix: when the runner passes several targets (AC_TARGETS, `run --fault-matrix`), every check
// of the file runs once per target, grouped under a `target: <label>` subtest, with its own client, memo
// and clean-ups (an AsyncLocalStorage context); `target` and `client` below always mean the current one.
// This keeps the whole matrix at one process per suite file.
import { AsyncLocalStorage } from 'node:async_hooks'
import { realpathSync } from 'node:fs'
import tap, { type Test } from 'tap'
import { loadTarget, knownTokens, TargetError, type Target } from '../../lib/target.ts'
import { HttpClient, HttpError, WritesNotAllowed, redact, type HttpResponse, type Query } from '../../lib/http.ts'
import { validate } from '../../lib/schemas.ts'
import { masHas, synapseHas, MAS_FEATURES, SYNAPSE_FEATURES, formatVersion, parseServerVersionString, type MasFeature, type SynapseFeature } from '../../lib/versions.ts'

export type { Test }
export { WritesNotAllowed, HttpError }

// ---------------------------------------------------------------------------------------------------
// Target and client

interface Context {
  label: string
  target: Target
  client: HttpClient
  memos: Map<string, Promise<unknown>>
  cleanups: (() => Promise<void> | void)[]
}

export const TARGETS_ENV = 'AC_TARGETS'

function makeContext(label: string, t: Target): Context {
  const c = new HttpClient({
    allowWrites: t.allowWrites,
    connectTimeoutMs: t.timeouts.connectMs,
    requestTimeoutMs: t.timeouts.requestMs,
    userAgent: t.userAgent,
    secrets: knownTokens(t),
  })
  return { label, target: t, client: c, memos: new Map(), cleanups: [] }
}

/** The suite folder of this process's main file ('suites/admin'), for picking the matrix targets that apply. */
function mainFileDir(): string {
  const main = process.argv[1] ?? ''
  let real = main
  try {
    real = realpathSync(main)
  } catch {
    // keep the path as given
  }
  const m = /[\\/](suites[\\/][^\\/]+)[\\/]/.exec(real)
  return m ? m[1]!.replace(/\\/g, '/') : ''
}

function loadContexts(): Context[] {
  const base = loadTarget()
  const raw = process.env[TARGETS_ENV]
  if (!raw) return [makeContext('default', base)]
  let list: unknown
  try {
    list = JSON.parse(raw)
  } catch (e) {
    throw new TargetError(`${TARGETS_ENV} is not JSON: ${(e as Error).message}`)
  }
  if (!Array.isArray(list)) throw new TargetError(`${TARGETS_ENV} must be a JSON array`)
  const dir = mainFileDir()
  const out: Context[] = []
  for (const entry of list as { label?: unknown; dirs?: unknown; target?: unknown }[]) {
    const dirs = Array.isArray(entry.dirs) ? entry.dirs.map(String) : []
    if (dirs.length && dir && !dirs.includes(dir)) continue
    // Each entry is a target without tokens; the tokens (shared by the matrix) come from the environment.
    const t = loadTarget({ ...process.env, AC_TARGET: JSON.stringify(entry.target ?? {}) })
    out.push(makeContext(String(entry.label ?? `target ${out.length + 1}`), t))
  }
  return out
}

const contexts = loadContexts()
const matrix = process.env[TARGETS_ENV] !== undefined
const als = new AsyncLocalStorage<Context>()

function current(): Context {
  return als.getStore() ?? contexts[0] ?? makeContext('none', loadTarget())
}

/** The target of the running check (a view: reads always go to the current context's target). */
export const target: Target = new Proxy({} as Target, {
  get: (_o, p) => Reflect.get(current().target, p),
  has: (_o, p) => Reflect.has(current().target, p),
  ownKeys: () => Reflect.ownKeys(current().target),
  getOwnPropertyDescriptor: (_o, p) => {
    const d = Reflect.getOwnPropertyDescriptor(current().target, p)
    return d ? { ...d, configurable: true } : undefined
  },
})

/** The HTTP client of the running check's target. */
export const client: HttpClient = new Proxy({} as HttpClient, {
  get: (_o, p) => {
    const c = current().client
    const v = Reflect.get(c, p, c)
    return typeof v === 'function' ? v.bind(c) : v
  },
})

/** Undo what a check created (revoke a session...) when the target's checks end, before its client closes. */
export function cleanup(fn: () => Promise<void> | void): void {
  current().cleanups.push(fn)
}

async function runCleanups(ctx: Context): Promise<void> {
  const list = ctx.cleanups.splice(0).reverse()
  await als.run(ctx, async () => {
    for (const fn of list) {
      try {
        await fn()
      } catch {
        // best effort: a failed clean-up must not hide the checks' results
      }
    }
  })
}

tap.teardown(async () => {
  for (const ctx of contexts) {
    await runCleanups(ctx)
    await ctx.client.close()
  }
})

export const MAS_API = '/api/admin/v1'
/** A syntactically valid ULID that no real deployment holds (the one the upstream tests use for "unknown"). */
export const UNKNOWN_ULID = '01040G2081040G2081040G2081'

// ---------------------------------------------------------------------------------------------------
// Named checks and skips

/** Thrown inside a check to skip it with a reason (before any assertion: the check is reported as skipped). */
export class Skip extends Error {
  override name = 'Skip'
  constructor(readonly reason: string) {
    super(reason)
  }
}

export function skip(reason: string): never {
  throw new Skip(reason)
}

/**
 * What a check needs from the target. `mas`/`hs`: URL and admin token; `mas-url`/`hs-url`: URL only;
 * `mas-user`/`hs-user`: the non-admin token; `writes`: --allow-writes.
 */
export type Need = 'mas' | 'mas-url' | 'mas-user' | 'hs' | 'hs-url' | 'hs-user' | 'writes'

export const WRITES_REASON = 'needs --allow-writes'

export function unmetNeed(needs: readonly Need[], t: Target = target): string | undefined {
  for (const n of needs) {
    switch (n) {
      case 'mas':
      case 'mas-url':
      case 'mas-user':
        if (!t.mas) return 'no auth service target (give --mas-url or MAS_URL)'
        if (n === 'mas' && !t.mas.adminToken) return 'needs an auth service admin token (--mas-token or MAS_ADMIN_TOKEN)'
        if (n === 'mas-user' && !t.mas.userToken) return 'needs an auth service token without the admin scope (--mas-user-token or MAS_USER_TOKEN)'
        break
      case 'hs':
      case 'hs-url':
      case 'hs-user':
        if (!t.hs) return 'no homeserver target (give --hs-url or HS_URL)'
        if (n === 'hs' && !t.hs.adminToken) return 'needs a homeserver admin token (--hs-token or HS_ADMIN_TOKEN)'
        if (n === 'hs-user' && !t.hs.userToken) return 'needs a non-admin homeserver token (--hs-user-token or HS_USER_TOKEN)'
        break
      case 'writes':
        if (!t.allowWrites) return WRITES_REASON
        break
    }
  }
  return undefined
}

function safeError(e: unknown): { message: string; stack?: string } {
  const err = e instanceof Error ? e : new Error(String(e))
  return { message: client.redact(`${err.name === 'Error' ? '' : err.name + ': '}${err.message}`), stack: err.stack ? client.redact(err.stack) : undefined }
}

interface CheckDef {
  name: string
  needs: readonly Need[]
  fn: (t: Test) => Promise<void> | void
}

/** Register one check as a subtest of `parent` (the file, or a matrix target group) for `ctx`. */
function register(parent: { test: Test['test'] }, ctx: Context, def: CheckDef): void {
  const reason = unmetNeed(def.needs, ctx.target)
  if (reason) {
    parent.test(def.name, { skip: reason }, () => {})
    return
  }
  parent.test(def.name, (t: Test) =>
    als.run(ctx, async () => {
      try {
        await def.fn(t)
      } catch (e) {
        if (e instanceof Skip || e instanceof WritesNotAllowed) {
          const why = e instanceof Skip ? e.reason : WRITES_REASON
          if (t.assertTotals.total === 0) t.plan(0, why)
          else t.pass('the rest of the check', { skip: why })
        } else if (e instanceof HttpError) {
          t.fail(`no answer: ${e.message}`, { kind: e.kind })
        } else {
          const { message, stack } = safeError(e)
          t.fail(`check crashed: ${message}`, stack ? { stack } : {})
        }
      }
    }),
  )
}

// In the matrix, checks are collected while the suite file is evaluated and then run per target.
const matrixDefs: CheckDef[] = []
let matrixScheduled = false

function scheduleMatrix(): void {
  if (matrixScheduled) return
  matrixScheduled = true
  const ready = new Promise<void>((resolve) => setImmediate(resolve))
  for (const ctx of contexts) {
    tap.test(`target: ${ctx.label}`, async (t: Test) => {
      await ready
      for (const def of matrixDefs) register(t, ctx, def)
      t.teardown(() => runCleanups(ctx))
    })
  }
}

/**
 * One named check: a top-level tap subtest. It is skipped with the reason when a need is unmet, when it
 * throws Skip, or when it tries a mutating request on a read-only run. A request that got no answer
 * fails the check with the (redacted) reason; nothing a check throws can leak a token.
 */
export function check(name: string, needs: readonly Need[], fn: (t: Test) => Promise<void> | void): void {
  if (matrix) {
    matrixDefs.push({ name, needs, fn })
    scheduleMatrix()
    return
  }
  register(tap, current(), { name, needs, fn })
}

/** Say in the output that a check ran on an assumption (e.g. an unknown version). */
export function note(t: Test, text: string): void {
  t.comment(client.redact(text))
}

// ---------------------------------------------------------------------------------------------------
// Versions

/** The auth service's version string (from the runner's preflight, else asked once). */
export function masVersion(): Promise<string | undefined> {
  return memo('version:mas', async () => {
    if (target.versions?.mas) return target.versions.mas
    if (!target.mas?.adminToken) return undefined
    try {
      const res = await mas('GET', '/version')
      const v = (res.json as { version?: unknown } | undefined)?.version
      return typeof v === 'string' ? v : undefined
    } catch {
      return undefined
    }
  })
}

/** The homeserver's server_version string. */
export function hsVersion(): Promise<string | undefined> {
  return memo('version:hs', async () => {
    if (target.versions?.hs) return target.versions.hs
    if (!target.hs) return undefined
    try {
      const res = await hs('GET', '/server_version', { as: 'none' })
      const v = (res.json as { server_version?: unknown } | undefined)?.server_version
      return typeof v === 'string' ? v : undefined
    } catch {
      return undefined
    }
  })
}

/**
 * Skip the check unless the target's auth service version has the feature. When the version is unknown
 * the check runs and says so.
 */
export async function requireMasFeature(t: Test, feature: MasFeature): Promise<void> {
  const v = await masVersion()
  const has = masHas(v, feature)
  const info = MAS_FEATURES[feature]
  const since = info.since ? `since ${formatVersion(info.since)}` : ''
  if (has === false) skip(`the auth service is ${v}; ${feature} exists ${since || 'not in this version'}`)
  if (has === 'unknown') note(t, `auth service version unknown (${v ?? 'not reported'}): checking ${feature} (${since}) anyway`)
}

export async function requireSynapseFeature(t: Test, feature: SynapseFeature): Promise<void> {
  const v = await hsVersion()
  const has = synapseHas(v, feature)
  const info = SYNAPSE_FEATURES[feature]
  const range = [info.since ? `since ${formatVersion(info.since)}` : '', info.until ? `until ${formatVersion(info.until)}` : ''].filter(Boolean).join(', ')
  if (has === false) skip(`the homeserver is ${v}; ${feature} applies ${range}`)
  if (has === 'unknown') note(t, `homeserver version unknown (${v ?? 'not reported'}): checking ${feature} (${range}) anyway`)
}

export { parseServerVersionString, synapseHas as synapseHasFeature, masHas as masHasFeature }

// ---------------------------------------------------------------------------------------------------
// Requests

/** Who sends a request: the admin token, the non-admin token, nobody, or an explicit token. */
export type As = 'admin' | 'user' | 'none' | { token: string }

export interface CallOptions {
  query?: Query
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
  as?: As
  /** homeserver only: send the token as ?access_token= instead of the Authorization header */
  tokenInQuery?: boolean
}

function tokenFor(as: As, admin: string | undefined, user: string | undefined): string | undefined {
  if (as === 'none') return undefined
  if (as === 'admin') return admin
  if (as === 'user') return user
  return as.token
}

/** A request to the auth service admin API; `path` is relative to /api/admin/v1 unless it starts with it. */
export function mas(method: string, path: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.mas) throw new Skip('no auth service target')
  const full = path.startsWith(MAS_API) ? path : MAS_API + path
  const token = tokenFor(opts.as ?? 'admin', target.mas.adminToken, target.mas.userToken)
  return client.request(target.mas.url, full, { method, query: opts.query, body: opts.body, rawBody: opts.rawBody, headers: opts.headers, token })
}

/**
 * A request to the bundled mock's control API (/_mock/...). Checks that use it observe effects the real
 * services only show inside (scheduled jobs); on any other target they are skipped with the reason.
 */
export function mockControl(method: string, path: string, body?: unknown): Promise<HttpResponse> {
  if (!target.isMock || !target.mockControlUrl) throw new Skip('observable only on the bundled mock (its control API shows the scheduled jobs)')
  return client.request(target.mockControlUrl, `/_mock${path}`, { method, body })
}

/** A request to the homeserver admin API; `path` is relative to <prefix>/admin/v1. */
export function hs(method: string, path: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.hs) throw new Skip('no homeserver target')
  return hsRaw(method, `${target.hs.prefix}/admin/v1${path}`, opts)
}

/** A request to the homeserver's client API; `path` is relative to <clientPrefix>/client/v3. */
export function hsClient(method: string, path: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.hs) throw new Skip('no homeserver target')
  return hsRaw(method, `${target.hs.clientPrefix}/client/v3${path}`, opts)
}

function hsRaw(method: string, full: string, opts: CallOptions): Promise<HttpResponse> {
  const h = target.hs!
  const token = tokenFor(opts.as ?? 'admin', h.adminToken, h.userToken)
  let query = opts.query
  if (opts.tokenInQuery && token) {
    const base = Array.isArray(query) ? [...(query as [string, string][])] : Object.entries((query ?? {}) as Record<string, unknown>).flatMap(([k, v]) => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map((x) => [k, String(x)] as [string, string]) : [[k, String(v)] as [string, string]]))
    query = [...base, ['access_token', token]]
  }
  return client.request(h.url, full, { method, query, body: opts.body, rawBody: opts.rawBody, headers: opts.headers, token: opts.tokenInQuery ? undefined : token })
}

// ---------------------------------------------------------------------------------------------------
// Assertions

function clip(s: string, n = 600): string {
  return s.length > n ? s.slice(0, n) + `… (${s.length - n} more characters)` : s
}

/** What to print about a response in a failure: request, status, content type, the (redacted) body. */
export function diag(res: HttpResponse): Record<string, unknown> {
  return { request: `${res.method} ${res.url}`, status: res.status, contentType: res.headers['content-type'] ?? '(none)', body: clip(client.redact(res.text)) }
}

/** A value made safe to print (tokens redacted, size bounded). */
export function shown(value: unknown, n = 600): string {
  let s: string
  try {
    s = JSON.stringify(value)
  } catch {
    s = String(value)
  }
  return clip(client.redact(s ?? 'undefined'), n)
}

export function expectStatus(t: Test, res: HttpResponse, want: number, what: string): boolean {
  return t.equal(res.status, want, `${what}: status ${want}`, diag(res))
}

export function expectJsonContentType(t: Test, res: HttpResponse, what: string): boolean {
  const ct = res.headers['content-type'] ?? ''
  return t.ok(/^application\/json\s*(;|$)/i.test(ct), `${what}: content-type application/json`, { found: ct || '(none)', request: `${res.method} ${res.url}` })
}

/** Validate against a schema ref; a failure lists each failing instance path with its exact schema path. */
export function expectSchema(t: Test, ref: string, value: unknown, what: string): boolean {
  const r = validate(ref, value)
  if (r.valid) return t.pass(`${what}: matches ${ref}`)
  return t.fail(`${what}: matches ${ref}`, {
    schema: ref,
    failures: r.errors.slice(0, 10).map((e) => `${e.instancePath || '(root)'}: ${e.message} [schema ${e.schemaPath}]`),
    value: shown(value),
  })
}

/**
 * Status, JSON content type, a JSON body, and (when given) the schema. Returns the body when the status
 * and body are right (schema failures are reported but the body is still returned for further checks).
 */
export function expectOk<T = any>(t: Test, res: HttpResponse, what: string, opts: { status?: number; schema?: string } = {}): T | undefined {
  const status = opts.status ?? 200
  if (!expectStatus(t, res, status, what)) return undefined
  expectJsonContentType(t, res, what)
  if (!t.ok(res.json !== undefined, `${what}: body is JSON`, diag(res))) return undefined
  if (opts.schema) expectSchema(t, opts.schema, res.json, what)
  return res.json as T
}

/**
 * An auth service error: status, JSON, the `{errors:[{title}]}` envelope (admin/error). `title` patterns
 * must each match the first (main) title. Returns the titles.
 */
export function expectMasError(t: Test, res: HttpResponse, status: number, what: string, title: (string | RegExp)[] = []): string[] {
  expectStatus(t, res, status, what)
  expectJsonContentType(t, res, what)
  const ok = expectSchema(t, 'admin/error', res.json, `${what}: error body`)
  const titles = ok ? ((res.json as { errors: { title: string }[] }).errors.map((e) => e.title)) : []
  for (const p of title) {
    const main = titles[0] ?? ''
    const hit = typeof p === 'string' ? main.toLowerCase().includes(p.toLowerCase()) : p.test(main)
    t.ok(hit, `${what}: title names ${typeof p === 'string' ? JSON.stringify(p) : String(p)}`, { title: main, titles })
  }
  return titles
}

/** A homeserver error: status, JSON, `{errcode, error}` (homeserver/error), the errcode and optionally the message. */
export function expectHsError(t: Test, res: HttpResponse, status: number, errcode: string, what: string, error?: string | RegExp): void {
  expectStatus(t, res, status, what)
  expectJsonContentType(t, res, what)
  expectSchema(t, 'homeserver/error', res.json, `${what}: error body`)
  const body = (res.json ?? {}) as { errcode?: unknown; error?: unknown }
  t.equal(body.errcode, errcode, `${what}: errcode ${errcode}`, diag(res))
  if (error !== undefined) {
    if (typeof error === 'string') t.equal(body.error, error, `${what}: error message`, diag(res))
    else t.match(String(body.error), error, `${what}: error message`, diag(res))
  }
}

// ---------------------------------------------------------------------------------------------------
// Small data helpers

/** Per-file (per-target) memo: checks of a file run one after another, so an expensive walk is done once and shared. */
export function memo<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const memos = current().memos
  let p = memos.get(key) as Promise<T> | undefined
  if (!p) {
    p = fn()
    memos.set(key, p)
    // a failed computation is not cached: the next check tries again and reports its own failure
    p.catch(() => memos.delete(key))
  }
  return p
}

/** The most frequent value (ties: first seen); undefined when there is none. */
export function mostCommon<T>(values: Iterable<T | null | undefined>): T | undefined {
  const counts = new Map<T, number>()
  let best: T | undefined
  let bestN = 0
  for (const v of values) {
    if (v === null || v === undefined) continue
    const n = (counts.get(v) ?? 0) + 1
    counts.set(v, n)
    if (n > bestN) {
      best = v
      bestN = n
    }
  }
  return best
}

/** An RFC 3339 UTC timestamp as nanoseconds since the epoch (full precision, unlike Date). */
export function tsNs(s: unknown): bigint | undefined {
  if (typeof s !== 'string') return undefined
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(s)
  if (!m) return undefined
  const ms = Date.parse(`${m[1]}${m[3]}`)
  if (Number.isNaN(ms)) return undefined
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0')
}

/** Whole-second UTC form `YYYY-MM-DDTHH:MM:SSZ` of a nanosecond timestamp (truncated). */
export function isoSeconds(ns: bigint): string {
  const ms = Number(ns / 1_000_000_000n) * 1000
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/**
 * A whole-second cutoff near the median of the given timestamps that no timestamp equals exactly, so
 * strict before/after semantics are not blurred by a tie. Undefined when there are no timestamps.
 */
export function cutoffNear(values: (string | null | undefined)[]): string | undefined {
  const ns = values.map(tsNs).filter((v): v is bigint => v !== undefined).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  if (ns.length === 0) return undefined
  const mid = ns[Math.floor(ns.length / 2)]!
  let c = (mid / 1_000_000_000n) * 1_000_000_000n
  const set = new Set(ns)
  while (set.has(c)) c += 1_000_000_000n
  return isoSeconds(c)
}

/** Query parameters of a link or path as sorted `key=value` strings (decoded), for order-free comparison. */
export function paramsOf(link: string): string[] {
  const q = link.indexOf('?')
  if (q === -1) return []
  return [...new URLSearchParams(link.slice(q + 1))].map(([k, v]) => `${k}=${v}`).sort()
}

export function pathOf(link: string): string {
  const q = link.indexOf('?')
  return q === -1 ? link : link.slice(0, q)
}

// ---------------------------------------------------------------------------------------------------
// Admin API listings (area A)

export interface MasItem {
  type: string
  id: string
  attributes: Record<string, any>
  links: { self: string }
  meta?: { page?: { cursor?: string } }
}

export interface PageBody {
  meta?: { count?: number }
  data?: MasItem[]
  links?: Record<string, string>
}

export interface PageRecord {
  /** the path and query requested */
  request: string
  res: HttpResponse
  body?: PageBody
  /** the page schema ref and its result */
  ref: string
  schema: ReturnType<typeof validate>
}

export interface Walk {
  items: MasItem[]
  pages: PageRecord[]
  /** set when the walk could not go on (bad status, no data, too many pages) */
  stopped?: string
}

export interface FamilySpec {
  /** collection path segment, also the check-name prefix: compat-sessions, oauth2-sessions, personal-sessions */
  family: 'compat-sessions' | 'oauth2-sessions' | 'personal-sessions'
  /** resource type of the items */
  type: string
  /** schema file, e.g. admin/compat-session (refs #Page, #Single, #Item) */
  schema: string
  /** what the title of GET /<family>/<unknown id> must name (the kind, and the id where the service puts it) */
  notFoundTitle: (id: string) => (string | RegExp)[]
  /** the version feature that brought the family (checks skip on older targets) */
  feature?: MasFeature
}

/** A named check of a family: `<family>: <name>`, skipped when the target's version predates the family. */
export function familyCheck(spec: FamilySpec, name: string, needs: readonly Need[], fn: (t: Test) => Promise<void> | void): void {
  check(`${spec.family}: ${name}`, needs, async (t) => {
    if (spec.feature) await requireMasFeature(t, spec.feature)
    await fn(t)
  })
}

export type Filters = Record<string, string | readonly string[]>

function filterPairs(filters: Filters | undefined): [string, string][] {
  const out: [string, string][] = []
  for (const [k, v] of Object.entries(filters ?? {})) {
    if (typeof v === 'string') out.push([k, v])
    else for (const x of v) out.push([k, x])
  }
  return out
}

/** GET one page of a listing (`pathAndQuery` may be a link followed as given). */
export async function fetchPage(spec: FamilySpec, pathAndQuery: string): Promise<PageRecord> {
  const res = await mas('GET', pathAndQuery)
  const body = res.status === 200 && res.json && typeof res.json === 'object' ? (res.json as PageBody) : undefined
  const ref = `${spec.schema}#Page`
  return { request: pathAndQuery, res, body, ref, schema: validate(ref, res.json) }
}

export function listPath(spec: FamilySpec, pairs: [string, string][]): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%5B/gi, '[').replace(/%5D/gi, ']')
  const q = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')
  return `${MAS_API}/${spec.family}${q ? '?' + q : ''}`
}

const MAX_PAGES = 2000

/**
 * Walk a listing with cursors built by the walker (not the server's links): forward with page[first] and
 * page[after], or backward with page[last] and page[before]. The result is oldest first either way.
 */
export async function walk(spec: FamilySpec, opts: { direction: 'forward' | 'backward'; pageSize: number; filters?: Filters }): Promise<Walk> {
  const out: Walk = { items: [], pages: [] }
  const base = filterPairs(opts.filters)
  const chunks: MasItem[][] = []
  let cursor: string | undefined
  for (let i = 0; ; i++) {
    if (i >= MAX_PAGES) {
      out.stopped = `the walk did not end after ${MAX_PAGES} pages`
      break
    }
    const pairs: [string, string][] = [...base]
    if (opts.direction === 'forward') {
      if (cursor) pairs.push(['page[after]', cursor])
      pairs.push(['page[first]', String(opts.pageSize)])
    } else {
      if (cursor) pairs.push(['page[before]', cursor])
      pairs.push(['page[last]', String(opts.pageSize)])
    }
    const page = await fetchPage(spec, listPath(spec, pairs))
    out.pages.push(page)
    if (page.res.status !== 200) {
      out.stopped = `${page.request} answered ${page.res.status}`
      break
    }
    const data = page.body?.data
    if (!Array.isArray(data)) {
      out.stopped = `${page.request} has no data array`
      break
    }
    const valid = data.filter((x): x is MasItem => typeof x === 'object' && x !== null && typeof (x as MasItem).id === 'string')
    chunks.push(valid)
    if (valid.length < opts.pageSize || valid.length === 0) break
    const next = opts.direction === 'forward' ? valid[valid.length - 1]!.id : valid[0]!.id
    if (next === cursor) {
      out.stopped = `${page.request} returned the cursor item again; the walk does not advance`
      break
    }
    cursor = next
  }
  if (opts.direction === 'backward') chunks.reverse()
  out.items = chunks.flat()
  return out
}

/** Follow `links.next` exactly as given, from the first page of `page[first]=pageSize`. */
export async function walkByNextLinks(spec: FamilySpec, opts: { pageSize: number; filters?: Filters }): Promise<Walk> {
  const out: Walk = { items: [], pages: [] }
  let path: string | undefined = listPath(spec, [...filterPairs(opts.filters), ['page[first]', String(opts.pageSize)]])
  const seen = new Set<string>()
  while (path) {
    if (out.pages.length >= MAX_PAGES || seen.has(path)) {
      out.stopped = seen.has(path) ? `the next link ${path} was already visited` : `the walk did not end after ${MAX_PAGES} pages`
      break
    }
    seen.add(path)
    const page = await fetchPage(spec, path)
    out.pages.push(page)
    if (page.res.status !== 200 || !Array.isArray(page.body?.data)) {
      out.stopped = `${path} answered ${page.res.status}${page.res.status === 200 ? ' without a data array' : ''}`
      break
    }
    out.items.push(...page.body!.data!)
    path = page.body!.links?.next
  }
  return out
}

/** Ids of a walk, with the first problem of ordering (not strictly ascending, duplicates). */
export function orderProblem(items: MasItem[]): string | undefined {
  const seen = new Set<string>()
  for (let i = 0; i < items.length; i++) {
    const id = items[i]!.id
    if (seen.has(id)) return `item ${id} appears twice (position ${i})`
    seen.add(id)
    if (i > 0 && !(items[i - 1]!.id < id)) return `item ${id} at position ${i} is not after ${items[i - 1]!.id} (listings are oldest first, by id)`
  }
  return undefined
}

/** Page size for a full walk of `count` items: several pages, a bounded number of requests. */
export function pageSizeFor(count: number): number {
  if (count <= 3) return 1
  return Math.min(100, Math.max(2, Math.ceil(count / 6)))
}

export interface FullSet {
  count: number
  pageSize: number
  walk: Walk
}

/** The family's full set: `count=only` for the size, then a forward walk. Shared by the checks of a file. */
export function fullSet(spec: FamilySpec): Promise<FullSet> {
  return memo(`full:${spec.family}`, async () => {
    const res = await mas('GET', `/${spec.family}`, { query: { count: 'only' } })
    const c = (res.json as PageBody | undefined)?.meta?.count
    // If count=only is broken, fall back to a walk of pages of 10 (the default size).
    const count = res.status === 200 && typeof c === 'number' && c >= 0 ? c : 60
    const pageSize = pageSizeFor(count)
    const w = await walk(spec, { direction: 'forward', pageSize })
    return { count, pageSize, walk: w }
  })
}

/** The full set's items; skips the check when the walk failed (another check reports that) or it is empty. */
export async function allItems(spec: FamilySpec, opts: { allowEmpty?: boolean } = {}): Promise<MasItem[]> {
  const f = await fullSet(spec)
  if (f.walk.stopped) skip(`the full forward walk of ${spec.family} failed (${f.walk.stopped}); see the walk check`)
  if (!opts.allowEmpty && f.walk.items.length === 0) skip(`the target lists no ${spec.family}`)
  return f.walk.items
}

/** Assert every page of a walk: status 200, content type, and the page schema (with exact schema paths). */
export function assertPages(t: Test, w: Walk, what: string): boolean {
  let ok = true
  for (const p of w.pages) {
    if (p.res.status !== 200) {
      ok = expectStatus(t, p.res, 200, `${what}: ${p.request}`) && ok
      continue
    }
    if (!p.schema.valid) {
      ok = false
      expectSchema(t, p.ref, p.res.json, `${what}: ${p.request}`)
    }
  }
  if (ok) t.pass(`${what}: ${w.pages.length} page(s), each 200 and matching the page schema`)
  if (w.stopped) {
    t.fail(`${what}: the walk stopped: ${w.stopped}`)
    ok = false
  }
  return ok
}

/** Compare two id sequences; reports the first missing and extra ids. */
export function sameIds(t: Test, found: MasItem[] | string[], wanted: MasItem[] | string[], what: string): boolean {
  const f = found.map((x) => (typeof x === 'string' ? x : x.id))
  const w = wanted.map((x) => (typeof x === 'string' ? x : x.id))
  const same = f.length === w.length && f.every((id, i) => id === w[i])
  if (same) return t.pass(`${what} (${w.length} items)`)
  const fs = new Set(f)
  const ws = new Set(w)
  return t.fail(what, {
    foundCount: f.length,
    wantedCount: w.length,
    missing: w.filter((id) => !fs.has(id)).slice(0, 10),
    extra: f.filter((id) => !ws.has(id)).slice(0, 10),
    orderDiffersAt: same ? undefined : f.findIndex((id, i) => id !== w[i]),
  })
}

/**
 * A filter check: the filtered listing (walked with cursors, counted) equals the full set filtered
 * client-side. `build` picks the filter value from the full set, or returns a skip reason.
 */
export function filterCheck(
  spec: FamilySpec,
  name: string,
  build: (items: MasItem[]) => { filters: Filters; expect: (item: MasItem) => boolean; describe?: string } | string,
  opts: { feature?: MasFeature; needs?: Need[] } = {},
): void {
  familyCheck(spec, `${name}`, opts.needs ?? ['mas'], async (t) => {
    if (opts.feature) await requireMasFeature(t, opts.feature)
    const items = await allItems(spec)
    const c = build(items)
    if (typeof c === 'string') skip(c)
    const wanted = items.filter(c.expect)
    note(t, `filter ${shown(c.filters)}${c.describe ? ` (${c.describe})` : ''}: ${wanted.length} of ${items.length} items expected`)
    const w = await walk(spec, { direction: 'forward', pageSize: pageSizeFor(wanted.length), filters: c.filters })
    assertPages(t, w, 'filtered walk')
    sameIds(t, w.items, wanted, 'the filtered listing equals the full set filtered client-side')
    const counts = w.pages.map((p) => p.body?.meta?.count)
    t.ok(counts.every((n) => n === wanted.length), `meta.count of the filtered listing is ${wanted.length}`, { found: counts })
  })
}

/** Items above the last id of the reference walk are new since it (a live target); comparisons leave them out. */
function upTo(items: MasItem[], cap: string | undefined): MasItem[] {
  return cap === undefined ? items : items.filter((i) => i.id <= cap)
}

/** Attributes that a live target may change between two reads of the same resource. */
const VOLATILE = new Set(['last_active_at', 'last_active_ip'])
function stable(item: MasItem): unknown {
  const attributes = Object.fromEntries(Object.entries(item.attributes ?? {}).filter(([k]) => !VOLATILE.has(k)))
  return { type: item.type, id: item.id, attributes, links: item.links }
}

/** The pagination, link, count and lookup checks every admin listing shares. */
export function listingChecks(spec: FamilySpec): void {
  const f = spec.family
  const base = `${MAS_API}/${f}`

  familyCheck(spec, `GET the listing → 200 with a page matching the schema`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}`)
    const body = expectOk<PageBody>(t, res, `GET ${base}`, { schema: `${spec.schema}#Page` })
    if (!body) return
    t.ok(Array.isArray(body.data), 'data is an array', { found: shown(body.data) })
    t.ok(typeof body.meta?.count === 'number', 'meta.count is present by default (count defaults to true)', { found: shown(body.meta) })
    t.ok((body.data ?? []).every((i) => i.type === spec.type), `every item has type ${spec.type}`, { found: [...new Set((body.data ?? []).map((i) => i.type))] })
    t.ok((body.data?.length ?? 0) <= 10, 'the default page holds at most 10 items', { found: body.data?.length })
  })

  familyCheck(spec, `links.self of the response is the requested listing, in canonical order`, ['mas'], async (t) => {
    // The service rebuilds link queries in a fixed order: filters, count, page[before], page[after],
    // then page[first] or page[last] (page[first]=10 when no size was asked for).
    const items = await allItems(spec, { allowEmpty: true })
    const cursor = items[0]?.id ?? UNKNOWN_ULID
    const cases: [string, string][] = [
      ['', 'page[first]=10'],
      ['page[first]=3', 'page[first]=3'],
      ['page[last]=2', 'page[last]=2'],
      [`page[first]=3&page[after]=${cursor}`, `page[after]=${cursor}&page[first]=3`],
      [`page[last]=2&page[before]=${cursor}`, `page[before]=${cursor}&page[last]=2`],
    ]
    for (const [q, want] of cases) {
      const res = await mas('GET', `/${f}${q ? '?' + q : ''}`)
      const body = expectOk<PageBody>(t, res, `GET ${base}${q ? '?' + q : ''}`)
      const self = body?.links?.self
      if (!t.ok(typeof self === 'string', `GET ${base}?${q}: links.self is present`, { found: shown(body?.links) })) continue
      t.equal(self, `${base}?${want}`, `GET ${base}?${q}: links.self is ${base}?${want}`)
    }
  })

  familyCheck(spec, `forward walk with page[first] and page[after] reaches every item once, oldest first`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    note(t, `${full.count} items by count=only, walked in pages of ${full.pageSize}`)
    assertPages(t, full.walk, 'forward walk')
    const problem = orderProblem(full.walk.items)
    t.notOk(problem, 'items are oldest first (ascending ids) with no duplicates', { problem })
    t.equal(full.walk.items.length, full.count, 'the walk reaches as many items as count=only reports')
  })

  familyCheck(spec, `meta.count equals the number of items walked`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    if (full.walk.stopped) skip(`the forward walk failed: ${full.walk.stopped}`)
    const counts = full.walk.pages.map((p) => p.body?.meta?.count)
    t.ok(counts.every((c) => c === full.walk.items.length), `meta.count is ${full.walk.items.length} on every page`, { found: counts })
  })

  familyCheck(spec, `backward walk with page[last] and page[before] yields the forward walk's items`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    const fwd = await allItems(spec, { allowEmpty: true })
    const back = await walk(spec, { direction: 'backward', pageSize: full.pageSize })
    assertPages(t, back, 'backward walk')
    const problem = orderProblem(back.items)
    t.notOk(problem, 'the backward pages put together are oldest first with no duplicates', { problem })
    sameIds(t, upTo(back.items, fwd.at(-1)?.id), fwd, 'the backward walk yields the same items in the same order')
  })

  familyCheck(spec, `next links followed as given reach every item once`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    const fwd = await allItems(spec, { allowEmpty: true })
    const w = await walkByNextLinks(spec, { pageSize: full.pageSize })
    assertPages(t, w, 'next-link walk')
    sameIds(t, upTo(w.items, fwd.at(-1)?.id), fwd, 'following next reaches the forward walk\'s items in order')
    let bad = 0
    w.pages.forEach((p, i) => {
      const next = p.body?.links?.next
      const data = p.body?.data ?? []
      if (next === undefined) return
      const last = data.at(-1)?.id
      const params = paramsOf(next)
      if (pathOf(next) !== base || !params.includes(`page[after]=${last}`) || !params.includes(`page[first]=${full.pageSize}`)) {
        bad++
        t.fail(`page ${i + 1}: next carries page[after]=<last item id> and page[first]=${full.pageSize}`, { next, lastItem: last })
      }
      const following = w.pages[i + 1]
      if (following && (following.body?.data?.length ?? 0) === 0) {
        bad++
        t.fail(`page ${i + 1}: next leads to an empty page (next must appear only when more items follow)`, { next })
      }
    })
    if (bad === 0) t.pass('every next link names the last item as page[after] with the page size, and leads to more items')
    const prev = w.pages.filter((p) => p.body?.links?.prev !== undefined).map((p) => p.body!.links!.prev)
    t.same(prev, [], 'forward pages carry no prev link (the service emits prev only when paging backward)')
  })

  familyCheck(spec, `first and last links reach the first and last pages`, ['mas'], async (t) => {
    const full = await fullSet(spec)
    const fwd = await allItems(spec)
    const n = full.pageSize
    const res = await mas('GET', `/${f}`, { query: { 'page[after]': fwd[Math.min(fwd.length - 1, n)]!.id, 'page[first]': n } })
    const body = expectOk<PageBody>(t, res, 'a page in the middle')
    if (!body) return
    const { first, last } = body.links ?? {}
    if (t.ok(typeof first === 'string', 'links.first is present', { links: body.links })) {
      t.same(paramsOf(first!), [`page[first]=${n}`], 'links.first is page[first]=<size> without a cursor', { first })
      const r = await fetchPage(spec, first!)
      if (expectStatus(t, r.res, 200, 'following links.first')) sameIds(t, r.body?.data ?? [], fwd.slice(0, n), 'links.first leads to the first items')
    }
    if (t.ok(typeof last === 'string', 'links.last is present', { links: body.links })) {
      t.same(paramsOf(last!), [`page[last]=${n}`], 'links.last is page[last]=<size> without a cursor', { last })
      const r = await fetchPage(spec, last!)
      if (expectStatus(t, r.res, 200, 'following links.last')) sameIds(t, upTo(r.body?.data ?? [], fwd.at(-1)?.id), fwd.slice(-n), 'links.last leads to the last items, oldest first')
    }
  })

  familyCheck(spec, `count=false leaves meta out and keeps data and links`, ['mas'], async (t) => {
    await requireMasFeature(t, 'count-param')
    const full = await fullSet(spec)
    const fwd = await allItems(spec, { allowEmpty: true })
    const n = full.pageSize
    const res = await mas('GET', `/${f}`, { query: { count: 'false', 'page[first]': n } })
    const body = expectOk<PageBody>(t, res, 'count=false', { schema: `${spec.schema}#Page` })
    if (!body) return
    t.notOk('meta' in body, 'no meta key', { meta: shown(body.meta) })
    sameIds(t, body.data ?? [], fwd.slice(0, n), 'data holds the first page')
    t.ok(body.links && ['self', 'first', 'last'].every((k) => typeof body.links![k] === 'string'), 'links self, first and last are present', { links: body.links })
    t.ok(paramsOf(body.links?.self ?? '').includes('count=false'), 'links.self keeps count=false', { self: body.links?.self })
  })

  familyCheck(spec, `count=only returns meta.count and links.self only`, ['mas'], async (t) => {
    await requireMasFeature(t, 'count-param')
    const fwd = await allItems(spec, { allowEmpty: true })
    const res = await mas('GET', `/${f}`, { query: { count: 'only' } })
    const body = expectOk<PageBody>(t, res, 'count=only', { schema: `${spec.schema}#Page` })
    if (!body) return
    t.notOk('data' in body, 'no data key', { data: shown(body.data) })
    t.equal(body.meta?.count, fwd.length, 'meta.count is the number of items walked')
    t.same(Object.keys(body.links ?? {}), ['self'], 'links has only self', { links: body.links })
    t.same(paramsOf(body.links?.self ?? ''), ['count=only'], 'links.self is the listing with count=only', { self: body.links?.self })
  })

  familyCheck(spec, `page[first] and page[last] together → 400`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}`, { query: { 'page[first]': 2, 'page[last]': 2 } })
    expectMasError(t, res, 400, 'page[first]=2&page[last]=2', ['page[first]', 'page[last]'])
  })

  familyCheck(spec, `page[first]=0 and page[last]=0 → 400`, ['mas'], async (t) => {
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[first]': 0 } }), 400, 'page[first]=0', ['pagination'])
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[last]': 0 } }), 400, 'page[last]=0', ['pagination'])
  })

  familyCheck(spec, `a malformed cursor in page[after] or page[before] → 400`, ['mas'], async (t) => {
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[after]': 'not-a-cursor' } }), 400, 'page[after]=not-a-cursor', ['pagination'])
    expectMasError(t, await mas('GET', `/${f}`, { query: { 'page[before]': 'ZZZ' } }), 400, 'page[before]=ZZZ', ['pagination'])
  })

  familyCheck(spec, `an unknown count value → 400`, ['mas'], async (t) => {
    await requireMasFeature(t, 'count-param')
    expectMasError(t, await mas('GET', `/${f}`, { query: { count: 'maybe' } }), 400, 'count=maybe', ['pagination'])
  })

  familyCheck(spec, `every item's meta.page.cursor equals its id`, ['mas'], async (t) => {
    const fwd = await allItems(spec)
    const bad = fwd.filter((i) => i.meta?.page?.cursor !== i.id)
    t.equal(bad.length, 0, `meta.page.cursor equals the id on all ${fwd.length} items`, { firstBad: bad.slice(0, 3).map((i) => ({ id: i.id, meta: i.meta })) })
  })

  familyCheck(spec, `links.self of every item is its resource path`, ['mas'], async (t) => {
    const fwd = await allItems(spec)
    const bad = fwd.filter((i) => i.links?.self !== `${base}/${i.id}`)
    t.equal(bad.length, 0, `links.self is ${base}/<id> on all ${fwd.length} items`, { firstBad: bad.slice(0, 3).map((i) => ({ id: i.id, links: i.links })) })
    const wrongType = fwd.filter((i) => i.type !== spec.type)
    t.equal(wrongType.length, 0, `type is ${spec.type} on all items`, { firstBad: wrongType.slice(0, 3).map((i) => ({ id: i.id, type: i.type })) })
  })

  familyCheck(spec, `GET by id returns the listed item`, ['mas'], async (t) => {
    const fwd = await allItems(spec)
    const picks = [...new Set([0, Math.floor(fwd.length / 2), fwd.length - 1])].map((i) => fwd[i]!)
    for (const item of picks) {
      const res = await mas('GET', `/${f}/${item.id}`)
      const body = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `GET ${base}/${item.id}`, { schema: `${spec.schema}#Single` })
      if (!body) continue
      t.equal(body.links?.self, `${base}/${item.id}`, `links.self is the requested path`)
      t.notOk(body.data && 'meta' in body.data, 'a single resource carries no meta')
      t.same(stable(body.data), stable(item), 'the single resource equals the listed item (activity fields aside)')
    }
  })

  familyCheck(spec, `GET an unknown id → 404 naming the resource`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}/${UNKNOWN_ULID}`)
    expectMasError(t, res, 404, `GET ${base}/${UNKNOWN_ULID}`, spec.notFoundTitle(UNKNOWN_ULID))
  })

  familyCheck(spec, `GET a malformed id → 400`, ['mas'], async (t) => {
    const res = await mas('GET', `/${f}/not-a-ulid`)
    expectMasError(t, res, 400, `GET ${base}/not-a-ulid`, ['ULID'])
  })
}

/**
 * A date filter (`filter[<key>]`, strictly before or after a cutoff on `attr`); items whose `attr` is
 * null never match. The cutoff is a whole second near the median that no item equals.
 */
export function dateFilterCheck(spec: FamilySpec, key: string, attr: string, dir: 'before' | 'after', feature?: MasFeature): void {
  familyCheck(spec, `${key} matches the full set filtered client-side, strictly ${dir} the given time`, ['mas'], async (t) => {
    if (feature) await requireMasFeature(t, feature)
    const items = await allItems(spec)
    const stamped = items.filter((i) => tsNs(i.attributes[attr]) !== undefined)
    if (stamped.length === 0) skip(`no item of ${spec.family} has ${attr} set`)
    // Two cutoffs: a whole second between items, and exactly the timestamp of an item (which a strict
    // comparison leaves out).
    const median = stamped[Math.floor(stamped.length / 2)]!.attributes[attr] as string
    for (const cutoff of [cutoffNear(stamped.map((i) => i.attributes[attr] as string))!, median]) {
      const c = tsNs(cutoff)!
      const wanted = items.filter((i) => {
        const v = tsNs(i.attributes[attr])
        return v !== undefined && (dir === 'before' ? v < c : v > c)
      })
      const w = await walk(spec, { direction: 'forward', pageSize: pageSizeFor(wanted.length), filters: { [key]: cutoff } })
      assertPages(t, w, `${key}=${cutoff}`)
      sameIds(t, w.items, wanted, `${key}=${cutoff}: the filtered listing equals the items with ${attr} strictly ${dir} it`)
      const counts = w.pages.map((p) => p.body?.meta?.count)
      t.ok(counts.every((n) => n === wanted.length), `${key}=${cutoff}: meta.count is ${wanted.length}`, { found: counts })
    }
  })
}

/** `filter[x]=<unknown id>` → 404 whose title names the kind and the id. */
export function unknownFilterCheck(spec: FamilySpec, key: string, kind: string): void {
  familyCheck(spec, `${key} with an unknown id → 404 naming it`, ['mas'], async (t) => {
    const res = await mas('GET', `/${spec.family}`, { query: { [key]: UNKNOWN_ULID } })
    expectMasError(t, res, 404, `${key}=${UNKNOWN_ULID}`, [kind, UNKNOWN_ULID])
  })
}

/** An invalid filter value → 400 with the error envelope (and title patterns, if given). */
export function badFilterCheck(spec: FamilySpec, name: string, query: Record<string, string>, title: (string | RegExp)[] = []): void {
  familyCheck(spec, `${name} → 400`, ['mas'], async (t) => {
    const res = await mas('GET', `/${spec.family}`, { query })
    expectMasError(t, res, 400, Object.entries(query).map(([k, v]) => `${k}=${v}`).join('&'), title)
  })
}

/** The links of a filtered listing (self, first, last, next) keep the filter. */
export function filterLinksCheck(spec: FamilySpec, build: (items: MasItem[]) => Filters | string): void {
  familyCheck(spec, `links of a filtered listing keep the filter`, ['mas'], async (t) => {
    const items = await allItems(spec)
    const filters = build(items)
    if (typeof filters === 'string') skip(filters)
    const res = await mas('GET', `/${spec.family}`, { query: [...filterPairs(filters), ['page[first]', '1']] })
    const body = expectOk<PageBody>(t, res, `filtered listing ${shown(filters)}`)
    if (!body) return
    const want = filterPairs(filters).map(([k, v]) => `${k}=${v}`)
    for (const [name, link] of Object.entries(body.links ?? {})) {
      const params = paramsOf(link)
      t.ok(want.every((w) => params.includes(w)), `links.${name} carries ${want.join('&')}`, { link })
    }
  })
}

// ---------------------------------------------------------------------------------------------------
// Event reports (area B)

export interface Report {
  id: number
  received_ts: number
  room_id: string
  event_id: string
  user_id: string
  sender: string | null
  reason: string | null
  score: number | null
  name: string | null
  canonical_alias: string | null
  [k: string]: unknown
}

export interface ReportPage {
  request: string
  res: HttpResponse
  body?: { event_reports?: Report[]; next_token?: number; total?: number }
  schema: ReturnType<typeof validate>
}

export interface ReportWalk {
  items: Report[]
  pages: ReportPage[]
  stopped?: string
}

export type ReportFilters = Partial<Record<'user_id' | 'room_id' | 'event_sender_user_id', string>>

export async function reportsPage(query: Record<string, string | number | undefined>): Promise<ReportPage> {
  const res = await hs('GET', '/event_reports', { query })
  const body = res.status === 200 && res.json && typeof res.json === 'object' ? (res.json as ReportPage['body']) : undefined
  const q = Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`).join('&')
  return { request: `event_reports?${q}`, res, body, schema: validate('homeserver/event-report#List', res.json) }
}

/** Walk the report listing following next_token (as `from`) until it is absent. */
export async function walkReports(opts: { dir?: 'b' | 'f'; limit?: number; filters?: ReportFilters }): Promise<ReportWalk> {
  const out: ReportWalk = { items: [], pages: [] }
  let from: number | undefined
  for (let i = 0; ; i++) {
    if (i >= MAX_PAGES) {
      out.stopped = `the walk did not end after ${MAX_PAGES} pages`
      break
    }
    const page = await reportsPage({ ...opts.filters, dir: opts.dir, limit: opts.limit, from })
    out.pages.push(page)
    if (page.res.status !== 200 || !Array.isArray(page.body?.event_reports)) {
      out.stopped = `${page.request} answered ${page.res.status}${page.res.status === 200 ? ' without event_reports' : ''}`
      break
    }
    const items = page.body!.event_reports!
    out.items.push(...items)
    const next = page.body!.next_token
    if (next === undefined || next === null) break
    if (items.length === 0) {
      out.stopped = `${page.request} has next_token ${next} on an empty page`
      break
    }
    if (typeof next !== 'number' || (from !== undefined && next <= from)) {
      out.stopped = `${page.request} has next_token ${JSON.stringify(next)}, which does not advance`
      break
    }
    from = next
  }
  return out
}

/** The full report set (dir=f, one large page per request), shared by the checks of a file. */
export function allReports(): Promise<ReportWalk> {
  return memo('reports:all', () => walkReports({ dir: 'f', limit: 1000 }))
}

/** Text made safe to print: the target's tokens and token-shaped strings removed. */
export function redactText(s: string): string {
  return redact(s, knownTokens(target))
}
