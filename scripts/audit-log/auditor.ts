// Classification of `http.server.response` lines into the activities of the interface's area C
// table, and a streaming auditor over a whole log (constant memory: it keeps counters, not lines).
//
// Classification (method, path → activity; status → outcome). Requester conditions ("with a
// requester") are only checked on v1.20 lines: pre-v1.20 lines carry no fields at all.
//
// | activity              | request                                              | ok when                          |
// |-----------------------|------------------------------------------------------|----------------------------------|
// | browser-login         | POST /login                                          | 303 with a requester             |
// | browser-login-failed  | POST /login answered 200 (the form re-rendered)      | never: the outcome is `failed`   |
// | browser-logout        | POST /logout                                         | 303                              |
// | registration          | GET /register/steps/<…>/finish                       | 303                              |
// | upstream-login        | POST /upstream/link/<…>                              | 303 with a requester             |
// | client-login          | POST <client-prefix>/client/<version>/login          | 200 with a requester             |
// | client-logout         | POST <client-prefix>/client/<version>/logout[/all]   | 200                              |
// | token-issuance        | POST /oauth2/token                                   | 200                              |
// | token-revocation      | POST /oauth2/revoke                                  | 200                              |
// | token-introspection   | POST /oauth2/introspect                              | 200                              |
// | authorization-grant   | GET or POST /authorize                               | 303                              |
// | account-self-service  | POST /graphql                                        | 200 (the operation was attempted)|
// | other                 | anything else                                        | status below 400                 |
//
// Every other status of a listed request is `failed` (for example a 401 on /oauth2/token is a
// failed token issuance). A GraphQL 200 only says the operation was attempted: failures are
// reported in the response body, which the log does not show.

import { isAscii } from 'node:buffer'
import { closeSync, openSync, readSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import type { Readable } from 'node:stream'
import { Worker, type MessagePort } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  CanonicalMatcher,
  FAST_OPERATION,
  FAST_PATH,
  FAST_REQUESTER,
  FAST_V120,
  fastMethod,
  fastStatus,
  newLineView,
  parseLine,
  scanLine,
  type LineView,
  type LogFormat,
  type ResponseLine,
} from '../../lib/requestlog.ts'
import { provideScanModule, scanModule, WasmScanner, type WasmModule } from './wasm-scanner.ts'

export const ACTIVITIES = [
  'browser-login',
  'browser-login-failed',
  'browser-logout',
  'registration',
  'upstream-login',
  'client-login',
  'client-logout',
  'token-issuance',
  'token-revocation',
  'token-introspection',
  'authorization-grant',
  'account-self-service',
  'other',
] as const
export type ActivityName = (typeof ACTIVITIES)[number]
export type Outcome = 'ok' | 'failed'

export interface Classification {
  activity: ActivityName
  outcome: Outcome
}

export interface ClassifyOptions {
  /** Prefix of the client-facing API (the interface's `_compat`), default `/_matrix`. */
  clientPrefix?: string
}

export const DEFAULT_CLIENT_PREFIX = '/_matrix'

function normalizePrefix(p: string): string {
  let out = p.trim()
  while (out.endsWith('/')) out = out.slice(0, -1)
  if (out !== '' && !out.startsWith('/')) out = '/' + out
  return out
}

// Activity indexes into ACTIVITIES; classification returns index * 2 + (ok ? 1 : 0) so the hot
// loop of the auditor allocates nothing.
const A_LOGIN = 0
const A_LOGIN_FAILED = 1
const A_LOGOUT = 2
const A_REGISTRATION = 3
const A_UPSTREAM = 4
const A_CLIENT_LOGIN = 5
const A_CLIENT_LOGOUT = 6
const A_TOKEN = 7
const A_REVOKE = 8
const A_INTROSPECT = 9
const A_AUTHORIZE = 10
const A_SELF_SERVICE = 11
const A_OTHER = 12

function code(activity: number, ok: boolean): number {
  return activity * 2 + (ok ? 1 : 0)
}

/** Is `path` `<prefix>/client/<one segment>/<tail>`? */
function isClientPath(path: string, prefix: string, tail: string): boolean {
  // The caller checked that path starts with `<prefix>/client/`.
  const from = prefix.length + 8
  const to = path.length - tail.length
  if (to <= from || !path.endsWith(tail)) return false
  const slash = path.indexOf('/', from)
  return slash === to
}

export function classify(line: ResponseLine, opts?: ClassifyOptions): Classification {
  // Without fields (pre-v1.20) there is no way to see the requester: do not hold it against the line.
  const hasRequester = line.format !== 'v1.20' || line.requester !== undefined
  const c = classifyCode(line.method, line.path, line.status, hasRequester, normalizePrefix(opts?.clientPrefix ?? DEFAULT_CLIENT_PREFIX))
  return { activity: ACTIVITIES[c >> 1]!, outcome: (c & 1) === 1 ? 'ok' : 'failed' }
}

function classifyCode(method: string, path: string, status: number, hasRequester: boolean, prefix: string): number {
  if (method === 'POST') {
    switch (path) {
      case '/login':
        if (status === 200) return code(A_LOGIN_FAILED, false)
        return code(A_LOGIN, status === 303 && hasRequester)
      case '/logout':
        return code(A_LOGOUT, status === 303)
      case '/oauth2/token':
        return code(A_TOKEN, status === 200)
      case '/oauth2/revoke':
        return code(A_REVOKE, status === 200)
      case '/oauth2/introspect':
        return code(A_INTROSPECT, status === 200)
      case '/authorize':
        return code(A_AUTHORIZE, status === 303)
      case '/graphql':
        return code(A_SELF_SERVICE, status === 200)
    }
    // Length and one character first: each startsWith on a slice of a big block of text costs a
    // call into the runtime, and most paths fail the cheap test.
    if (path.length > 15 && path.charCodeAt(1) === 117 /* u */ && path.startsWith('/upstream/link/')) {
      return code(A_UPSTREAM, status === 303 && hasRequester)
    }
    if (path.length > prefix.length + 8 && path.charCodeAt(prefix.length + 1) === 99 /* c */ && path.startsWith(prefix) && path.startsWith('/client/', prefix.length)) {
      if (isClientPath(path, prefix, '/login')) return code(A_CLIENT_LOGIN, status === 200 && hasRequester)
      if (isClientPath(path, prefix, '/logout') || isClientPath(path, prefix, '/logout/all')) {
        return code(A_CLIENT_LOGOUT, status === 200)
      }
    }
  } else if (method === 'GET') {
    if (path === '/authorize') return code(A_AUTHORIZE, status === 303)
    if (path.length > 23 && path.charCodeAt(1) === 114 /* r */ && path.startsWith('/register/steps/') && path.endsWith('/finish')) {
      return code(A_REGISTRATION, status === 303)
    }
  }
  return code(A_OTHER, status < 400)
}

// ---------------------------------------------------------------------------------------------
// Streaming audit

export interface MalformedEntry {
  /** 1-based line number in the input. */
  line: number
  /** Human-readable: `<part> at column <n>: <message>`. */
  error: string
  part: string
  column: number
}

export interface TimelineEntry {
  line: number
  timestamp: string
  requestId: string
  method: string
  path: string
  status: number
  activity: ActivityName
  outcome: Outcome
  clientAddress?: string
  operation?: string
}

export interface RequesterSummary {
  /** `user:<id>`, `oauth2-client:<id>`, `homeserver`; `(none)` for v1.20 lines without requester, `(unknown)` for pre-v1.20 lines (no fields at all). */
  requester: string
  username?: string
  requests: number
  activities: Partial<Record<ActivityName, number>>
}

export interface AuditResult {
  /** All lines read (a final line without newline counts; the newline at the end of the file does not start one). */
  lines: number
  /** `http.server.response` lines parsed. */
  requests: number
  /** Other well-formed log events (error lines before responses, jobs, startup…). */
  events: number
  blank: number
  malformedCount: number
  /** The first `maxMalformed` malformed lines. */
  malformed: MalformedEntry[]
  malformedTruncated: boolean
  formats: Record<LogFormat, number>
  activities: Record<ActivityName, number>
  outcomes: Record<ActivityName, { ok: number; failed: number }>
  /** GraphQL operation names of account self-service requests; `(unnamed)` when the line has none. */
  operations: Record<string, number>
  /** Keyed by RequesterSummary.requester. */
  requesters: Record<string, RequesterSummary>
  /** Only when AuditOptions.requester is set and collectTimeline is not false. */
  timeline?: TimelineEntry[]
}

export interface AuditOptions extends ClassifyOptions {
  /** Select one requester for the timeline: `user:<id>`, `user:<id>(<name>)`, `oauth2-client:<id>`, `homeserver`, a bare id, `(none)` or `(unknown)`. */
  requester?: string
  /** Called for every timeline entry as it is read (lets a caller print it without keeping it). */
  onTimeline?: (entry: TimelineEntry) => void
  /** Keep the timeline in the result (default true when requester is set). */
  collectTimeline?: boolean
  /** How many malformed lines to keep in the result; all are counted. Default 1000. */
  maxMalformed?: number
  /** Called about every 64k lines; auditFile adds the file size as total and sums its workers. */
  onProgress?: (p: { lines: number; bytes: number; total?: number }) => void
  /**
   * 'wasm' counts canonical request lines in WebAssembly and reads the rest with the JavaScript
   * scanner; 'js' reads everything in JavaScript (same results, slower). Default: 'wasm' where the
   * module loads, except for a --requester timeline (which needs each line's details).
   */
  engine?: AuditEngine
  /** Largest block of lines handed to the WebAssembly scanner at once (its heap stops at 1 GiB; tests use small ones). */
  wasmBlockBytes?: number
}

export type AuditEngine = 'wasm' | 'js'

const NO_REQUESTER = '(none)'
// Lines before v1.20 carry no fields, so their requester is unknown rather than absent.
const UNKNOWN_REQUESTER = '(unknown)'
const UNNAMED_OPERATION = '(unnamed)'
// A line longer than this is reported as malformed and skipped rather than buffered without bound.
const MAX_LINE_BYTES = 16 * 1024 * 1024
const DECODE_BLOCK = 64 * 1024
const WASM_BLOCK_BYTES = 64 * 1024 * 1024

/**
 * user:<id>(<name>) -> user:<id>; other forms are their own key. Requesters are counted as printed
 * and folded with this at the end (slicing the username off on every line would cost more).
 */
function requesterKey(printed: string): string {
  if (printed.charCodeAt(printed.length - 1) !== 41 /* ) */ || !printed.startsWith('user:')) return printed
  const open = printed.indexOf('(')
  return open === -1 ? printed : printed.slice(0, open)
}

/** The requester keys a selector matches: the key itself, or for a bare id both the user and the client. */
function requesterSelector(sel: string): Set<string> {
  const s = sel.trim()
  if (s === NO_REQUESTER || s === '-') return new Set([NO_REQUESTER])
  if (s === UNKNOWN_REQUESTER) return new Set([UNKNOWN_REQUESTER])
  if (s === 'homeserver') return new Set(['homeserver'])
  if (s.startsWith('user:')) {
    const open = s.indexOf('(')
    return new Set([open === -1 ? s : s.slice(0, open)])
  }
  if (s.startsWith('oauth2-client:')) return new Set([s])
  // A bare id matches a user or a client with that id.
  return new Set([`user:${s}`, `oauth2-client:${s}`])
}

/**
 * Strings to dense indexes: an open-addressing table with its own cheap hash over a few characters
 * (each line brings a fresh slice of a big block of text, whose full hash a Map would compute on
 * every lookup), compared with ===. The counters live in flat typed arrays indexed by it, so that
 * a line touches a few cache lines rather than objects.
 */
class KeyIndex {
  private slots = new Int32Array(1024).fill(-1)
  private hashes = new Int32Array(1024)
  private mask = 1023
  readonly keys: string[] = []

  /** The index of `key`, added when new. */
  index(key: string): number {
    const h = hashOf(key)
    const slots = this.slots
    const mask = this.mask
    let i = (h ^ (h >>> 15)) & mask
    for (;;) {
      const r = slots[i]!
      if (r === -1) break
      if (this.hashes[i] === h && this.keys[r] === key) return r
      i = (i + 1) & mask
    }
    const r = this.keys.length
    // A flat copy: the key may be a slice of a whole block of text, which it would keep alive.
    this.keys.push((' ' + key).slice(1))
    slots[i] = r
    this.hashes[i] = h
    if (this.keys.length * 2 > mask) this.grow()
    return r
  }

  private grow(): void {
    const cap = this.slots.length * 2
    const slots = new Int32Array(cap).fill(-1)
    const hashes = new Int32Array(cap)
    const mask = cap - 1
    for (let r = 0; r < this.keys.length; r++) {
      const h = hashOf(this.keys[r]!)
      let i = (h ^ (h >>> 15)) & mask
      while (slots[i] !== -1) i = (i + 1) & mask
      slots[i] = r
      hashes[i] = h
    }
    this.slots = slots
    this.hashes = hashes
    this.mask = mask
  }
}

// The length and four characters: two from the middle (inside the ULID of `user:<ULID>(<name>)`
// and `oauth2-client:<ULID>`) and two from the end (the username). Collisions only cost a probe;
// === decides. Each charCodeAt on a slice costs several nanoseconds, so no more of them.
function hashOf(key: string): number {
  const n = key.length
  if (n < 4) return n === 0 ? 0 : (n * 31 + key.charCodeAt(0)) | 0
  const m = n >> 1
  return ((((n * 31 + key.charCodeAt(m)) * 31 + key.charCodeAt(m - 2)) * 31 + key.charCodeAt(n - 2)) * 31 + key.charCodeAt(n - 3)) | 0
}

/** Flat growable counters indexed like a KeyIndex. */
function grown(a: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(size)
  b.set(a)
  return b
}

/** Per-requester counters, keyed by the requester as printed. */
class RequesterTable extends KeyIndex {
  /** requests per requester */
  requests = new Float64Array(256)
  /** line number of the latest request per requester */
  last = new Float64Array(256)
  /** counts per requester and activity: [requester * ACTIVITIES.length + activity] */
  counts = new Float64Array(256 * ACTIVITIES.length)

  override index(key: string): number {
    const r = super.index(key)
    if (r >= this.requests.length) {
      const n = this.requests.length * 2
      this.requests = grown(this.requests, n)
      this.last = grown(this.last, n)
      this.counts = grown(this.counts, n * ACTIVITIES.length)
    }
    return r
  }
}

/** Requests per GraphQL operation name. */
class OperationTable extends KeyIndex {
  counts = new Float64Array(64)

  add(name: string, n = 1): void {
    const r = this.index(name)
    if (r >= this.counts.length) this.counts = grown(this.counts, this.counts.length * 2)
    this.counts[r]! += n
  }
}

/**
 * The streaming core: feed it Buffers in order with push(), then call end(). Splits lines itself
 * (decoding whole chunks at once is much faster than a readline interface).
 */
export class Auditor {
  private readonly prefix: string
  private readonly maxMalformed: number
  private readonly match: Set<string> | undefined
  private readonly matcher = new CanonicalMatcher()
  private readonly view: LineView = newLineView()
  private readonly onTimeline: ((e: TimelineEntry) => void) | undefined
  private readonly onProgress: ((p: { lines: number; bytes: number }) => void) | undefined
  private readonly timeline: TimelineEntry[] | undefined
  private readonly wasm: WasmScanner | undefined
  private readonly wasmBlock: number

  private rest: Buffer | null = null
  private skipping = false
  private bytes = 0
  // Line numbers count from the start of the current chunk (see beginChunk); requesters remember
  // their latest line as chunkBase + line, which orders lines across chunks.
  private lineNo = 0
  private chunk = 0
  private chunkBase = 0
  private readonly chunkLines: Array<[chunk: number, lines: number]> = []
  // Set by beginChunk; a single pass is an implicit chunk 0, recorded only when it has lines.
  private explicitChunk = false
  private linesBefore = 0
  private nextProgress = 65536

  private requests = 0
  private events = 0
  private blank = 0
  private malformedCount = 0
  private readonly malformed: StateMalformed[] = []
  private v120 = 0
  private pre120 = 0
  // Indexed by classification code (activity * 2 + ok).
  private readonly counts = new Float64Array(ACTIVITIES.length * 2)
  private readonly operations = new OperationTable()
  private readonly requesters = new RequesterTable()

  constructor(opts: AuditOptions = {}) {
    this.prefix = normalizePrefix(opts.clientPrefix ?? DEFAULT_CLIENT_PREFIX)
    this.maxMalformed = opts.maxMalformed ?? DEFAULT_MAX_MALFORMED
    this.match = opts.requester !== undefined ? requesterSelector(opts.requester) : undefined
    this.onTimeline = opts.onTimeline
    this.onProgress = opts.onProgress
    if (this.match !== undefined && opts.collectTimeline !== false) this.timeline = []
    this.wasm = this.match === undefined && opts.engine !== 'js' ? newWasmScanner(this.prefix, opts.engine === 'wasm') : undefined
    this.wasmBlock = Math.max(opts.wasmBlockBytes ?? WASM_BLOCK_BYTES, 1)
  }

  /** The engine counting canonical lines. */
  get engine(): AuditEngine {
    return this.wasm !== undefined ? 'wasm' : 'js'
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length
    let start = 0
    if (this.rest !== null || this.skipping) {
      const nl = chunk.indexOf(10)
      if (nl === -1) {
        this.carry(chunk)
        return
      }
      if (this.skipping) {
        this.skipping = false
      } else {
        const head = Buffer.concat([this.rest!, chunk.subarray(0, nl)])
        this.rest = null
        this.lines(head.toString('utf8'))
      }
      start = nl + 1
    }
    const last = chunk.lastIndexOf(10)
    if (this.wasm !== undefined) {
      if (last >= start) this.wasmLines(chunk, start, last)
      start = Math.max(last + 1, start)
    }
    // Decode a block of lines at a time and walk its lines (a newline never falls inside a UTF-8
    // sequence). Pure ASCII, the usual case, decodes faster as latin1 with the same result. Blocks
    // stay small enough for the young generation: big strings would each take fresh pages.
    while (last >= start) {
      let cut = last
      if (last - start > DECODE_BLOCK) {
        cut = chunk.lastIndexOf(10, start + DECODE_BLOCK)
        if (cut < start) cut = chunk.indexOf(10, start + DECODE_BLOCK)
      }
      this.lines(chunk.toString(isAscii(chunk.subarray(start, cut)) ? 'latin1' : 'utf8', start, cut))
      start = cut + 1
    }
    if (start < chunk.length) this.carry(chunk.subarray(start))
    if (this.onProgress !== undefined && this.linesBefore + this.lineNo >= this.nextProgress) {
      this.nextProgress = this.linesBefore + this.lineNo + 65536
      this.onProgress({ lines: this.linesBefore + this.lineNo, bytes: this.bytes })
    }
  }

  /**
   * Starts chunk `index` of a file shared among threads (chunks are numbered in file order and
   * each thread takes them in increasing order): line numbers restart, and with skipFirstLine the
   * bytes up to the first newline are dropped (the chunk starts inside a line the one before counts).
   */
  beginChunk(index: number, skipFirstLine: boolean): void {
    this.endChunk()
    this.explicitChunk = true
    this.chunk = index
    this.chunkBase = index * CHUNK_LINE_SPAN
    this.skipping = skipFirstLine
  }

  /** Counts a last line without newline and closes the chunk. */
  private endChunk(): void {
    if (this.rest !== null) {
      const text = this.rest.toString('utf8')
      this.rest = null
      this.lines(text)
    }
    this.skipping = false
    if (this.explicitChunk || this.lineNo > 0) this.chunkLines.push([this.chunk, this.lineNo])
    this.explicitChunk = false
    this.linesBefore += this.lineNo
    this.lineNo = 0
  }

  private carry(part: Buffer): void {
    if (this.skipping) return
    // Copy: the caller may reuse its buffer.
    const joined = this.rest === null ? Buffer.from(part) : Buffer.concat([this.rest, part])
    if (joined.length > MAX_LINE_BYTES) {
      this.rest = null
      this.skipping = true
      this.lineNo++
      this.addMalformed(this.lineNo, 'line', 1, `line longer than ${MAX_LINE_BYTES} bytes, skipped`)
      return
    }
    this.rest = joined
  }

  private addMalformed(line: number, part: string, column: number, message: string): void {
    this.malformedCount++
    if (this.malformed.length < this.maxMalformed) this.malformed.push({ chunk: this.chunk, line, part, column, message })
  }

  /** The lines of bytes [start, end) (no '\n' at end): canonical ones counted in WebAssembly, the others here, in order. */
  private wasmLines(chunk: Buffer, start: number, end: number): void {
    // One push may be bigger than the module's heap: hand it over in blocks cut at line ends.
    while (end - start > this.wasmBlock) {
      let cut = chunk.lastIndexOf(10, start + this.wasmBlock)
      if (cut < start) cut = chunk.indexOf(10, start + this.wasmBlock)
      if (cut === -1 || cut >= end) break
      this.wasmBlockLines(chunk, start, cut)
      start = cut + 1
    }
    this.wasmBlockLines(chunk, start, end)
  }

  private wasmBlockLines(chunk: Buffer, start: number, end: number): void {
    const w = this.wasm!
    const first = this.lineNo
    w.scan(chunk, start, end, this.chunkBase + first)
    const d = w.declined
    for (let i = 0; i < d.length; i += 3) {
      // lines() numbers the line it reads as this.lineNo + 1.
      this.lineNo = first + d[i + 2]!
      this.lines(chunk.toString('utf8', start + d[i]!, start + d[i + 1]!))
    }
    this.lineNo = first + w.lines
  }

  /** Counts the lines of a block of text (lines separated by '\n'; no '\n' at its end). */
  private lines(text: string): void {
    const matcher = this.matcher
    const n = text.length
    let pos = 0
    while (pos <= n) {
      const m = matcher.match(text, pos)
      if (m !== null) {
        // A canonical request line: its parts straight from the match.
        const end = matcher.end
        const v120 = m[FAST_V120] !== undefined
        this.response(fastMethod(m), m[FAST_PATH]!, fastStatus(m), v120, m[FAST_REQUESTER], m[FAST_OPERATION], ++this.lineNo, text, pos, end)
        pos = end + 1
        continue
      }
      let nl = text.indexOf('\n', pos)
      if (nl === -1) nl = n
      const line = text.slice(pos, nl)
      const v = this.view
      const lineNo = ++this.lineNo
      switch (scanLine(line, v)) {
        case 'response':
          this.response(v.method, v.path, v.status, v.format === 'v1.20', v.requester, v.graphqlOperationName, lineNo, line, 0, line.length)
          break
        case 'event':
          this.events++
          break
        case 'blank':
          this.blank++
          break
        case 'malformed':
          this.addMalformed(lineNo, v.error!.part, v.error!.column, v.error!.message)
          break
      }
      pos = nl + 1
    }
  }

  /** Counts one request line; text[start, end) is the line (read again only for a timeline). */
  private response(
    method: string,
    path: string,
    status: number,
    v120: boolean,
    requester: string | undefined,
    operationName: string | undefined,
    lineNo: number,
    text: string,
    start: number,
    end: number,
  ): void {
    this.requests++
    if (v120) this.v120++
    else this.pre120++
    const c = classifyCode(method, path, status, !v120 || requester !== undefined, this.prefix)
    this.counts[c]!++
    const idx = c >> 1
    let operation: string | undefined
    if (idx === A_SELF_SERVICE) {
      operation = operationName ?? UNNAMED_OPERATION
      this.operations.add(operation)
    }
    const t = this.requesters
    const r = t.index(requester ?? (v120 ? NO_REQUESTER : UNKNOWN_REQUESTER))
    t.requests[r]!++
    t.counts[r * ACTIVITIES.length + idx]!++
    t.last[r] = this.chunkBase + lineNo

    if (this.match !== undefined && this.match.has(requesterKey(t.keys[r]!))) {
      const l = (parseLine(text.slice(start, end)) as { line: ResponseLine }).line
      const e: TimelineEntry = {
        line: lineNo,
        timestamp: l.timestamp,
        requestId: `${l.requestId.method}-${l.requestId.counter}`,
        method: l.method,
        path: l.path,
        status: l.status,
        activity: ACTIVITIES[idx]!,
        outcome: (c & 1) === 1 ? 'ok' : 'failed',
      }
      if (l.clientAddress !== undefined) e.clientAddress = l.clientAddress
      if (operation !== undefined) e.operation = operation
      this.timeline?.push(e)
      this.onTimeline?.(e)
    }
  }

  /** Flushes a last line without newline and returns the totals. */
  end(): AuditResult {
    const state = this.state()
    this.onProgress?.({ lines: this.linesBefore, bytes: this.bytes })
    const out = finishAudit([state], this.maxMalformed)
    if (this.timeline !== undefined) out.timeline = this.timeline
    return out
  }

  /** The raw counters so far (a last line without newline included): what a worker sends back. */
  state(): AuditState {
    this.endChunk()
    if (this.wasm !== undefined) this.takeWasmCounts()
    const t = this.requesters
    const n = t.keys.length
    const ops = this.operations
    return {
      chunkLines: this.chunkLines.slice(),
      requests: this.requests,
      events: this.events,
      blank: this.blank,
      malformedCount: this.malformedCount,
      malformed: this.malformed.slice(),
      v120: this.v120,
      pre120: this.pre120,
      counts: this.counts.slice(),
      operationKeys: ops.keys.slice(),
      operationCounts: ops.counts.slice(0, ops.keys.length),
      requesterKeys: t.keys.slice(),
      requesterRequests: t.requests.slice(0, n),
      requesterLast: t.last.slice(0, n),
      requesterCounts: t.counts.slice(0, n * ACTIVITIES.length),
    }
  }

  /** Adds what the WebAssembly side counted to this side's counters (its requesters by the same keys). */
  private takeWasmCounts(): void {
    const w = this.wasm!.drain()
    this.requests += w.totals[0]!
    this.v120 += w.totals[1]!
    this.pre120 += w.totals[2]!
    for (let i = 0; i < this.counts.length; i++) this.counts[i]! += w.totals[3 + i]!
    for (const o of w.operations) this.operations.add(o.key, o.count)
    const t = this.requesters
    for (const q of w.requesters) {
      const r = t.index(q.key)
      t.requests[r]! += q.requests
      if (q.last > t.last[r]!) t.last[r] = q.last
      for (let i = 0; i < ACTIVITIES.length; i++) t.counts[r * ACTIVITIES.length + i]! += q.counts[i]!
    }
  }
}

/** A WebAssembly scanner, or undefined where the module cannot run (an error when it was asked for). */
function newWasmScanner(prefix: string, required: boolean): WasmScanner | undefined {
  const m = scanModule()
  if (m === null) {
    if (required) throw new Error('the WebAssembly audit engine is not available here (scripts/audit-log/wasm/audit-scan.wasm missing or WebAssembly SIMD unsupported)')
    return undefined
  }
  return new WasmScanner(m, prefix)
}

/** Requesters remember their latest line as chunk * CHUNK_LINE_SPAN + line (exact in a double). */
const CHUNK_LINE_SPAN = 2 ** 32

interface StateMalformed {
  chunk: number
  /** 1-based, within the chunk */
  line: number
  part: string
  column: number
  message: string
}

/** The raw counters of an Auditor; the states of the threads that shared a file merge in finishAudit. */
export interface AuditState {
  /** Lines per chunk, as [chunk, lines] (a single pass is chunk 0). */
  chunkLines: Array<[number, number]>
  requests: number
  events: number
  blank: number
  malformedCount: number
  /** The first malformed lines of this state, in its order. */
  malformed: StateMalformed[]
  v120: number
  pre120: number
  /** By classification code (activity * 2 + ok). */
  counts: Float64Array
  operationKeys: string[]
  operationCounts: Float64Array
  requesterKeys: string[]
  requesterRequests: Float64Array
  requesterLast: Float64Array
  /** [requester * ACTIVITIES.length + activity] */
  requesterCounts: Float64Array
}

/** Merges the states of one input (one per thread; chunks in any split) and builds the result. */
export function finishAudit(states: AuditState[], maxMalformed = DEFAULT_MAX_MALFORMED): AuditResult {
  // Line numbers: each chunk starts after the lines of the chunks before it.
  const chunkLines = states.flatMap((st) => st.chunkLines).sort((a, b) => a[0] - b[0])
  const offset = new Map<number, number>()
  let lines = 0
  for (const [chunk, n] of chunkLines) {
    offset.set(chunk, lines)
    lines += n
  }
  const malformed = states
    .flatMap((st) => st.malformed)
    .sort((a, b) => a.chunk - b.chunk || a.line - b.line)
    .slice(0, maxMalformed)
    .map((m): MalformedEntry => ({ line: offset.get(m.chunk)! + m.line, error: `${m.part} at column ${m.column}: ${m.message}`, part: m.part, column: m.column }))
  const sum = (f: (st: AuditState) => number) => states.reduce((acc, st) => acc + f(st), 0)
  const counts = new Float64Array(ACTIVITIES.length * 2)
  for (const st of states) for (let i = 0; i < counts.length; i++) counts[i]! += st.counts[i]!
  const activities = {} as Record<ActivityName, number>
  const outcomes = {} as Record<ActivityName, { ok: number; failed: number }>
  ACTIVITIES.forEach((a, i) => {
    const ok = counts[i * 2 + 1]!
    const failed = counts[i * 2]!
    activities[a] = ok + failed
    outcomes[a] = { ok, failed }
  })
  const opCounts = new Map<string, number>()
  for (const st of states) st.operationKeys.forEach((k, i) => opCounts.set(k, (opCounts.get(k) ?? 0) + st.operationCounts[i]!))
  const operations: Record<string, number> = {}
  for (const [k, v] of [...opCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) operations[k] = v
  // Fold user:<id>(<name>) into user:<id>, keeping the username of the latest request.
  // Plain arrays: a small typed array costs microseconds to allocate, which thousands of requesters feel.
  const folded = new Map<string, { requests: number; counts: number[]; username?: string; nameLast: number }>()
  const A = ACTIVITIES.length
  for (const st of states) {
    for (let r = 0; r < st.requesterKeys.length; r++) {
      const printed = st.requesterKeys[r]!
      const key = requesterKey(printed)
      let f = folded.get(key)
      if (f === undefined) {
        f = { requests: 0, counts: new Array<number>(A).fill(0), nameLast: -1 }
        folded.set(key, f)
      }
      f.requests += st.requesterRequests[r]!
      for (let i = 0; i < A; i++) f.counts[i]! += st.requesterCounts[r * A + i]!
      const last = st.requesterLast[r]!
      if (key.length !== printed.length && last > f.nameLast) {
        f.username = printed.slice(key.length + 1, -1)
        f.nameLast = last
      }
    }
  }
  const requesters: Record<string, RequesterSummary> = {}
  for (const [key, f] of [...folded].sort((a, b) => b[1].requests - a[1].requests || (a[0] < b[0] ? -1 : 1))) {
    const perActivity: Partial<Record<ActivityName, number>> = {}
    for (let i = 0; i < A; i++) if (f.counts[i]! > 0) perActivity[ACTIVITIES[i]!] = f.counts[i]!
    const s: RequesterSummary = { requester: key, requests: f.requests, activities: perActivity }
    if (f.username !== undefined) s.username = f.username
    requesters[key] = s
  }
  const malformedCount = sum((st) => st.malformedCount)
  return {
    lines,
    requests: sum((st) => st.requests),
    events: sum((st) => st.events),
    blank: sum((st) => st.blank),
    malformedCount,
    malformed,
    malformedTruncated: malformedCount > malformed.length,
    formats: { 'v1.20': sum((st) => st.v120), 'pre-v1.20': sum((st) => st.pre120) },
    activities,
    outcomes,
    operations,
    requesters,
  }
}

/** Audits a whole stream (file, stdin, or any async iterable of Buffers/strings). */
export async function auditStream(input: Readable | AsyncIterable<Buffer | string>, opts: AuditOptions = {}): Promise<AuditResult> {
  const auditor = new Auditor(opts)
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    auditor.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
  }
  return auditor.end()
}

// ---------------------------------------------------------------------------------------------
// Files: read with large synchronous reads, and shared among worker threads in chunks
//
// A regular file is cut into chunks of CHUNK_BYTES; a chunk holds the lines that start in it (the
// reader skips a partial first line and reads past the chunk's end to finish its last one), so the
// cuts need no look at the file. Workers take the next chunk whenever they finish one: a thread
// the machine runs slower (a busy core, a starved virtual CPU) simply does fewer chunks, where equal
// halves would wait for the slowest. Results are merged in chunk order (line numbers are shifted by
// the lines of the chunks before). Timelines need the global order as they are produced, so a
// --requester audit always runs in one thread.
//
// Workers run plain JavaScript: this module and the grammar are bundled once per process with
// esbuild (the compiler tsx itself runs on), which takes tens of milliseconds, where registering
// the TypeScript loader in each worker took up to seconds. So big files use every core by default.

const READ_SIZE = 1 << 20
const DEFAULT_MAX_MALFORMED = 1000
/**
 * Files below this size are audited in one thread: workers would not pay off. With the WebAssembly
 * engine one thread reads about 700 MB/s here, and on the 2-core CI machine two threads were
 * slower than one on 305 MiB (each core slows the other down, and a worker takes about 0.1 s to
 * start); the JavaScript engine is about three times slower per line.
 */
export const PARALLEL_MIN_BYTES = { wasm: 512 * 1024 * 1024, js: 32 * 1024 * 1024 } as const
const MAX_AUTO_JOBS = 4
/** Bytes per chunk handed to a worker: small enough to balance, big enough that merging is noise. */
const CHUNK_BYTES = 8 * 1024 * 1024
export interface AuditFileOptions extends AuditOptions {
  /**
   * Worker threads. Default: one per core (at most 4) for a regular file of 512 MiB or more (32 MiB
   * with the JavaScript engine), none below. A --requester timeline always runs in one thread.
   */
  jobs?: number
  /** Chunk size for the workers (tests use small ones to put many cuts inside lines). */
  chunkBytes?: number
}

/** The number of threads auditFile uses for a file of `size` bytes. */
export function defaultJobs(size: number, engine: AuditEngine = defaultEngine()): number {
  return size >= PARALLEL_MIN_BYTES[engine] ? Math.min(Math.max(availableParallelism(), 1), MAX_AUTO_JOBS) : 1
}

/** The engine an audit uses unless told otherwise. */
export function defaultEngine(): AuditEngine {
  return scanModule() !== null ? 'wasm' : 'js'
}

/** Audits one regular file; with jobs > 1 (and no timeline asked for) in worker threads. */
export async function auditFile(file: string, opts: AuditFileOptions = {}): Promise<AuditResult> {
  const handle = await open(file, 'r')
  let size: number
  try {
    const st = await handle.stat()
    if (st.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: 'EISDIR' })
    size = st.isFile() ? st.size : 0
  } finally {
    await handle.close()
  }
  let jobs = Math.min(opts.jobs ?? defaultJobs(size, opts.engine), Math.max(availableParallelism(), 1) * 2, 64)
  if (opts.requester !== undefined || size === 0) jobs = 1
  const report = opts.onProgress
  if (jobs <= 1) {
    return auditWholeFile(file, { ...opts, ...(report ? { onProgress: (p) => report({ ...p, total: size }) } : {}) })
  }
  try {
    return await auditInWorkers(file, size, jobs, opts)
  } catch (err) {
    // Workers could not run here (for example no TypeScript loader for them): one thread then.
    // A file that cannot be read fails again below, with its own error.
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err
    return auditWholeFile(file, { ...opts, ...(report ? { onProgress: (p) => report({ ...p, total: size }) } : {}) })
  }
}

/** Audits a whole file on this thread; the reading goes on to the end of the file, so a file that grows meanwhile is read like a stream. */
function auditWholeFile(file: string, opts: AuditOptions): AuditResult {
  const fd = openSync(file, 'r')
  try {
    const auditor = new Auditor(opts)
    readLines(fd, Buffer.allocUnsafe(READ_SIZE), auditor, 0, Infinity)
    return auditor.end()
  } finally {
    closeSync(fd)
  }
}

/**
 * Feeds `auditor` the lines that start in the bytes [start, end) of a file: a partial line at
 * `start` belongs to the chunk before (the caller skips it, see auditChunk), and the last
 * line is read to its end past `end`. With end = Infinity, up to the end of the file.
 */
function readLines(fd: number, buf: Buffer, auditor: Auditor, start: number, end: number): void {
  let pos = start
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, pos)
    if (n === 0) return
    if (pos + n >= end) {
      // The chunk's last line ends at the first newline at or after end - 1.
      const nl = buf.subarray(0, n).indexOf(10, Math.max(end - 1 - pos, 0))
      if (nl !== -1) {
        auditor.push(buf.subarray(0, nl + 1))
        return
      }
    }
    pos += n
    auditor.push(n === buf.length ? buf : buf.subarray(0, n))
  }
}

/** Feeds `auditor` one chunk of a file shared among threads (see ChunkJob). */
function auditChunk(fd: number, buf: Buffer, auditor: Auditor, job: ChunkJob): void {
  // When the byte before the chunk is not a newline, its first line belongs to the chunk before.
  const startsInLine = job.start > 0 && readSync(fd, buf, 0, 1, job.start - 1) === 1 && buf[0] !== 10
  auditor.beginChunk(job.chunk, startsInLine)
  readLines(fd, buf, auditor, job.start, job.end)
}

// Without the bundle (esbuild missing), a worker starts from a small CommonJS bootstrap: it imports
// this module, registering the TypeScript loader first when the thread does not have it (the CLI
// registers tsx on its main thread only).
const WORKER_BOOTSTRAP = `
const { workerData, parentPort } = require('node:worker_threads')
;(async () => {
  let mod
  try {
    mod = await import(workerData.moduleUrl)
  } catch (err) {
    if (!err || err.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err
    const { register } = await import(workerData.tsxUrl)
    register()
    // A failed import stays cached under its URL: ask again under another one.
    mod = await import(workerData.moduleUrl + '?worker')
  }
  mod.serveAuditChunks(workerData, parentPort)
})().catch((err) => parentPort.postMessage({ type: 'error', message: String((err && err.stack) || err) }))
`

let workerBundle: string | null | undefined

/** How worker threads load the auditor here: a bundle built in memory, or the TypeScript loader. */
export function workerMode(): 'bundle' | 'loader' {
  return bundledWorker() === null ? 'loader' : 'bundle'
}

/** This module as one CommonJS script that audits workerData's range; null when esbuild is missing. */
function bundledWorker(): string | null {
  if (workerBundle !== undefined) return workerBundle
  try {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild')
    const dir = dirname(fileURLToPath(import.meta.url))
    const out = esbuild.buildSync({
      stdin: {
        contents: "import { workerData, parentPort } from 'node:worker_threads'\nimport { serveAuditChunks } from './auditor.ts'\nserveAuditChunks(workerData, parentPort)\n",
        resolveDir: dir,
        sourcefile: 'audit-worker.ts',
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    })
    workerBundle = out.outputFiles[0]!.text
  } catch {
    workerBundle = null
  }
  return workerBundle
}

interface WorkerSetup {
  moduleUrl: string
  tsxUrl: string
  file: string
  opts: { clientPrefix?: string; maxMalformed?: number; engine?: AuditEngine }
  /** The compiled WebAssembly module (the bundled worker cannot find its file); null: JavaScript only. */
  wasm: WasmModule | null
}

/** One chunk: the lines that start in [start, end); the last chunk reads on to the end of the file. */
interface ChunkJob {
  type: 'chunk'
  chunk: number
  start: number
  end: number
}

type Progress = { lines: number; bytes: number }
type WorkerMessage =
  | { type: 'ready' }
  | ({ type: 'progress' } & Progress)
  | { type: 'chunk-done'; chunk: number }
  | { type: 'state'; state: AuditState }
  | { type: 'error'; message: string }

async function auditInWorkers(file: string, size: number, jobs: number, opts: AuditFileOptions): Promise<AuditResult> {
  const report = opts.onProgress
  const chunkBytes = Math.max(opts.chunkBytes ?? CHUNK_BYTES, 1)
  const count = Math.max(Math.ceil(size / chunkBytes), 1)
  let next = 0
  const take = (): ChunkJob | undefined => {
    if (next >= count) return undefined
    const chunk = next++
    return { type: 'chunk', chunk, start: chunk * chunkBytes, end: chunk === count - 1 ? Infinity : (chunk + 1) * chunkBytes }
  }
  const setup: WorkerSetup = {
    moduleUrl: import.meta.url,
    tsxUrl: import.meta.resolve('tsx/esm/api'),
    file,
    opts: {
      ...(opts.clientPrefix !== undefined ? { clientPrefix: opts.clientPrefix } : {}),
      ...(opts.maxMalformed !== undefined ? { maxMalformed: opts.maxMalformed } : {}),
      ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
    },
    wasm: opts.engine === 'js' ? null : scanModule(),
  }
  const n = Math.min(jobs, count)
  // Progress of each worker, and last that of this thread.
  const progress = Array.from({ length: n + 1 }, () => ({ lines: 0, bytes: 0 }))
  const reporter = (mine: Progress) => (p: Progress) => {
    mine.lines = p.lines
    mine.bytes = p.bytes
    report?.({ lines: progress.reduce((a, x) => a + x.lines, 0), bytes: progress.reduce((a, x) => a + x.bytes, 0), total: size })
  }
  const workers: Worker[] = []
  let ready = 0
  // Set when this run ends (also by a failed worker): this thread then takes no more chunks.
  let over = false
  try {
    const running = Promise.all(
      progress.slice(0, n).map((mine) =>
        runWorker(workers, setup, take, reporter(mine), () => {
          ready++
        }),
      ),
    )
    // Starting a worker takes about a tenth of a second here: meanwhile this thread audits
    // chunks itself, one at a time, looking for the workers' messages in between.
    const mine = auditWhileWorkersStart(file, take, () => over || ready === n, { ...setup.opts, onProgress: reporter(progress[n]!) })
    const [own, theirs] = await Promise.all([mine, running])
    return finishAudit([own, ...theirs], opts.maxMalformed ?? DEFAULT_MAX_MALFORMED)
  } finally {
    over = true
    await Promise.all(workers.map((w) => w.terminate()))
  }
}

/** Audits chunks on this thread until `stop` says so (every worker is up) or no chunk is left; its state then. */
async function auditWhileWorkersStart(file: string, take: () => ChunkJob | undefined, stop: () => boolean, opts: AuditOptions): Promise<AuditState> {
  const auditor = new Auditor(opts)
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.allocUnsafe(READ_SIZE)
    // Let the workers start first: their start-up runs on other threads.
    await new Promise((resolve) => setImmediate(resolve))
    while (!stop()) {
      const job = take()
      if (job === undefined) break
      auditChunk(fd, buf, auditor, job)
      await new Promise((resolve) => setImmediate(resolve))
    }
    return auditor.state()
  } finally {
    closeSync(fd)
  }
}

const WORKER_OPTIONS = { eval: true } as const

/** Runs one worker until no chunk is left, then collects its state; rejects on its first error. */
function runWorker(
  workers: Worker[],
  setup: WorkerSetup,
  take: () => ChunkJob | undefined,
  onProgress: (p: Progress) => void,
  onReady: () => void,
): Promise<AuditState> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(bundledWorker() ?? WORKER_BOOTSTRAP, { ...WORKER_OPTIONS, workerData: setup })
    workers.push(worker)
    let settled = false
    const fail = (err: Error) => {
      if (settled) return
      settled = true
      reject(err)
    }
    const give = () => worker.postMessage(take() ?? { type: 'finish' })
    // Messages posted before the worker listens wait in its port, so the first chunk goes now.
    give()
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') onProgress(m)
      else if (m.type === 'ready') onReady()
      else if (m.type === 'chunk-done') give()
      else if (m.type === 'state') {
        settled = true
        resolve(m.state)
      } else fail(new Error(m.message))
    })
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`audit worker exited with code ${code}`)))
  })
}

/**
 * Entry point of a worker thread (see WORKER_BOOTSTRAP): audits the chunks it is sent, one at a
 * time and in increasing order, into one Auditor, and sends back its state when told to finish.
 */
export function serveAuditChunks(setup: WorkerSetup, port: MessagePort): void {
  provideScanModule(setup.wasm)
  const auditor = new Auditor({ ...setup.opts, onProgress: ({ lines, bytes }) => port.postMessage({ type: 'progress', lines, bytes }) })
  const buf = Buffer.allocUnsafe(READ_SIZE)
  let fd: number | undefined
  port.postMessage({ type: 'ready' })
  port.on('message', (job: ChunkJob | { type: 'finish' }) => {
    try {
      if (job.type === 'finish') {
        if (fd !== undefined) closeSync(fd)
        port.postMessage({ type: 'state', state: auditor.state() })
        port.close()
        return
      }
      fd ??= openSync(setup.file, 'r')
      auditChunk(fd, buf, auditor, job)
      port.postMessage({ type: 'chunk-done', chunk: job.chunk })
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      port.postMessage({ type: 'error', message: e.code !== undefined ? `${e.code}: ${e.message}` : String(e.stack ?? e) })
    }
  })
}
