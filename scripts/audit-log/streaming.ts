// The streaming core of `audit-log`: feed it Buffers in order with push(), then call end(). It
// splits lines itself (decoding whole chunks at once is much faster than a readline interface),
// hands them to a line scanner (scanners/), which reports into a Tally. Constant memory: it keeps
// counters, not lines.

import type { Readable } from 'node:stream'
import { CHUNK_LINE_SPAN, finishAudit, DEFAULT_MAX_ADMIN_ACTIONS, DEFAULT_MAX_MALFORMED, type AuditState } from './finish.ts'
import { createLineScanner, type AuditEngine, type LineScanner } from './scanners/index.ts'
import { Tally } from './tally.ts'
import type { AuditOptions, AuditResult } from './types.ts'

// A line longer than this is reported as malformed and skipped rather than buffered without bound.
const MAX_LINE_BYTES = 16 * 1024 * 1024

export class Auditor {
  private readonly tally: Tally
  private readonly scanner: LineScanner
  private readonly maxMalformed: number
  private readonly maxAdminActions: number
  private readonly onProgress: ((p: { lines: number; bytes: number }) => void) | undefined

  private rest: Buffer | null = null
  private skipping = false
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
        this.scanner.scanText(head.toString('utf8'))
      }
      start = nl + 1
    }
    const last = chunk.lastIndexOf(10)
    if (last >= start) this.scanner.scanBytes(chunk, start, last)
    start = Math.max(last + 1, start)
    if (start < chunk.length) this.carry(chunk.subarray(start))
    const lines = this.linesBefore + this.tally.lineNo
    if (this.onProgress !== undefined && lines >= this.nextProgress) {
      this.nextProgress = lines + 65536
      this.onProgress({ lines, bytes: this.bytes })
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
    this.tally.chunk = index
    this.tally.chunkBase = index * CHUNK_LINE_SPAN
    this.skipping = skipFirstLine
  }

  /** Counts a last line without newline and closes the chunk. */
  private endChunk(): void {
    if (this.rest !== null) {
      const text = this.rest.toString('utf8')
      this.rest = null
      this.scanner.scanText(text)
    }
    this.skipping = false
    const t = this.tally
    if (this.explicitChunk || t.lineNo > 0) this.chunkLines.push([t.chunk, t.lineNo])
    this.explicitChunk = false
    this.linesBefore += t.lineNo
    t.lineNo = 0
  }

  private carry(part: Buffer): void {
    if (this.skipping) return
    // Copy: the caller may reuse its buffer.
    const joined = this.rest === null ? Buffer.from(part) : Buffer.concat([this.rest, part])
    if (joined.length > MAX_LINE_BYTES) {
      this.rest = null
      this.skipping = true
      this.tally.addMalformed(++this.tally.lineNo, 'line', 1, `line longer than ${MAX_LINE_BYTES} bytes, skipped`)
      return
    }
    this.rest = joined
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
    return this.tally.state(this.chunkLines.slice())
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
