// The streaming core of `audit-log`: feed it Buffers in order with push(), then call end(). It
// splits lines itself (decoding whole chunks at once is much faster than a readline interface),
// hands them to a line scanner (scanners/), which reports into a Tally. Constant memory: it keeps
// counters, not lines.

import type { Readable } from 'node:stream'
import { CHUNK_LINE_SPAN, finishAudit, DEFAULT_MAX_ADMIN_ACTIONS, DEFAULT_MAX_MALFORMED, type AuditState } from './finish.ts'
import { createLineScanner, type AuditEngine, type Deferred, type LineScanner } from './scanners/index.ts'
import { Tally } from './tally.ts'
import type { AuditOptions, AuditResult } from './types.ts'

/** A line longer than this is reported as malformed (its number, its length, this limit) and skipped rather than buffered without bound. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

// What the bytes up to the next newline are: part of a line (kept in `rest`), the end of a line the
// chunk before counts (dropped), or the rest of a line past MAX_LINE_BYTES (counted, then reported).
const KEEP = 0
const CHUNK_START = 1
const TOO_LONG = 2

export class Auditor {
  private readonly tally: Tally
  private readonly scanner: LineScanner
  private readonly maxMalformed: number
  private readonly maxAdminActions: number
  private readonly onProgress: ((p: { lines: number; bytes: number }) => void) | undefined

  // The start of the current line, in pieces (joined once, at its end: joining at every read would copy it over and over).
  private rest: Buffer[] = []
  private restBytes = 0
  private skipping: typeof KEEP | typeof CHUNK_START | typeof TOO_LONG = KEEP
  /** the line being skipped for its length: its number and its bytes so far */
  private long = { lineNo: 0, bytes: 0 }
  private bytes = 0
  private readonly chunkLines: Array<[chunk: number, lines: number]> = []
  // Set by beginChunk; a single pass is an implicit chunk 0, recorded only when it has lines.
  private explicitChunk = false
  private linesBefore = 0
  private nextProgress = 65536

  constructor(opts: AuditOptions = {}) {
    this.tally = new Tally(opts)
    this.scanner = createLineScanner(this.tally, opts)
    this.maxMalformed = opts.maxMalformed ?? DEFAULT_MAX_MALFORMED
    this.maxAdminActions = opts.maxAdminActions ?? DEFAULT_MAX_ADMIN_ACTIONS
    this.onProgress = opts.onProgress
  }

  /** The engine counting canonical lines. */
  get engine(): AuditEngine {
    return this.scanner.engine
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length
    let start = 0
    if (this.restBytes > 0 || this.skipping !== KEEP) {
      const nl = chunk.indexOf(10)
      if (nl === -1) {
        this.carry(chunk)
        return
      }
      if (this.skipping === CHUNK_START) this.skipping = KEEP
      else if (this.skipping === TOO_LONG) {
        this.long.bytes += nl
        this.reportLong()
      } else if (this.restBytes + nl > MAX_LINE_BYTES) {
        this.startLong(nl)
        this.reportLong()
      } else {
        this.rest.push(chunk.subarray(0, nl))
        this.scanner.scanText(this.takeRest())
      }
      start = nl + 1
    }
    const last = chunk.lastIndexOf(10)
    if (last >= start) chunk = this.scanner.scanBytes(chunk, start, last)
    start = Math.max(last + 1, start)
    if (start < chunk.length) this.carry(chunk.subarray(start))
    const lines = this.linesBefore + this.tally.lineNo
    if (this.onProgress !== undefined && lines >= this.nextProgress) {
      this.nextProgress = lines + 65536
      this.onProgress({ lines, bytes: this.bytes })
    }
  }

  /**
   * Where to read the next input of up to `fallback.length` bytes: the scanner's own input area
   * when it has one (the WebAssembly engine scans it in place), else `fallback`. Ask before every
   * read: a buffer handed out earlier may have been detached since.
   */
  readBuffer(fallback: Buffer): Buffer {
    return this.scanner.readBuffer(fallback.length) ?? fallback
  }

  /**
   * Starts chunk `index` of a file shared among threads (chunks are numbered in file order and
   * each thread takes them in increasing order): line numbers restart, and with skipFirstLine the
   * bytes up to the first newline are dropped (the chunk starts inside a line the one before counts).
   */
  beginChunk(index: number, skipFirstLine: boolean): void {
    this.endChunk()
    this.explicitChunk = true
    this.tally.chunk = index
    this.tally.chunkBase = index * CHUNK_LINE_SPAN
    this.skipping = skipFirstLine ? CHUNK_START : KEEP
  }

  /** Counts a last line without newline and closes the chunk. */
  private endChunk(): void {
    if (this.skipping === TOO_LONG) this.reportLong()
    else if (this.restBytes > 0) this.scanner.scanText(this.takeRest())
    this.skipping = KEEP
    const t = this.tally
    if (this.explicitChunk || t.lineNo > 0) this.chunkLines.push([t.chunk, t.lineNo])
    this.explicitChunk = false
    this.linesBefore += t.lineNo
    t.lineNo = 0
  }

  /** Is no line begun in an earlier push (so that the next push may start at a line's start)? */
  holdsNoLine(): boolean {
    return this.restBytes === 0 && this.skipping === KEEP
  }

  /** Keeps the start of a line that goes on in the next push. */
  private carry(part: Buffer): void {
    if (this.skipping === CHUNK_START) return
    if (this.skipping === TOO_LONG) {
      this.long.bytes += part.length
      return
    }
    if (this.restBytes + part.length > MAX_LINE_BYTES) {
      this.startLong(part.length)
      return
    }
    // Copy: the caller may reuse its buffer.
    this.rest.push(Buffer.from(part))
    this.restBytes += part.length
  }

  /** The kept line so far, as text; forgets it. */
  private takeRest(): string {
    const text = (this.rest.length === 1 ? this.rest[0]! : Buffer.concat(this.rest)).toString('utf8')
    this.rest = []
    this.restBytes = 0
    return text
  }

  /** The current line passed MAX_LINE_BYTES with `more` bytes after those kept: drop them and count on. */
  private startLong(more: number): void {
    this.long = { lineNo: ++this.tally.lineNo, bytes: this.restBytes + more }
    this.rest = []
    this.restBytes = 0
    this.skipping = TOO_LONG
  }

  /** The long line ended (a newline, or the end of the input): reported with its length. */
  private reportLong(): void {
    const { lineNo, bytes } = this.long
    this.skipping = KEEP
    this.tally.addMalformed(
      lineNo,
      'line',
      1,
      `line of ${bytes} bytes, over the limit of ${MAX_LINE_BYTES} bytes per line; skipped, the audit goes on after it`,
    )
  }

  /** Flushes a last line without newline and returns the totals. */
  end(): AuditResult {
    const state = this.state()
    this.onProgress?.({ lines: this.linesBefore, bytes: this.bytes })
    const out = finishAudit([state], this.maxMalformed, this.maxAdminActions)
    if (this.tally.timeline !== undefined) out.timeline = this.tally.timeline
    return out
  }

  /** The raw counters so far (a last line without newline included): what a worker sends back. */
  state(): AuditState {
    this.endChunk()
    this.scanner.flush()
    const st = this.tally.state(this.chunkLines.slice())
    const deferred = this.scanner.takeDeferred()
    if (deferred.length > 0) st.deferred = deferred
    return st
  }

  /** Reads lines another thread kept unread (state.deferred), each at its own place. */
  private replay(lines: Deferred): void {
    const t = this.tally
    for (const [chunk, chunkBase, lineNo, text] of lines) {
      t.chunk = chunk
      t.chunkBase = chunkBase
      t.lineNo = lineNo
      this.scanner.scanText(text)
    }
    // Their lines are counted by the states they come from (chunkLines).
    t.lineNo = 0
  }

  /**
   * The states with their deferred lines read: one state more, holding what those lines count, when
   * any state has some (finishAudit merges states in any number and order).
   */
  static replayDeferred(states: AuditState[], opts: AuditOptions): AuditState[] {
    if (!states.some((st) => st.deferred !== undefined)) return states
    const { clientPrefix, maxMalformed, maxAdminActions } = opts
    const reader = new Auditor({
      engine: 'js',
      ...(clientPrefix !== undefined ? { clientPrefix } : {}),
      ...(maxMalformed !== undefined ? { maxMalformed } : {}),
      ...(maxAdminActions !== undefined ? { maxAdminActions } : {}),
    })
    const out = states.map((st) => {
      if (st.deferred === undefined) return st
      reader.replay(st.deferred)
      const { deferred: _, ...rest } = st
      return rest
    })
    return [...out, reader.state()]
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
