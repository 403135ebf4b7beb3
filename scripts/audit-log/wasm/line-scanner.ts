// The WebAssembly engine: canonical request lines are counted in the module (module.ts, built from assembly/), every
// other line is handed back to the base's JavaScript reading, in order.

import { CANONICAL_TIMESTAMP_LENGTH } from '../../../lib/requestlog.ts'
import type { Tally } from '../tally.ts'
import { WasmScanner, type WasmModule } from './module.ts'
import { BaseLineScanner, type Deferred } from '../scanners/line-scanner.ts'

/** The module's heap stops at 1 GiB: one push is handed over in blocks of at most this. */
export const WASM_BLOCK_BYTES = 64 * 1024 * 1024

export class WasmLineScanner extends BaseLineScanner {
  readonly engine = 'wasm' as const
  private readonly wasm: WasmScanner
  private readonly block: number

  /** Characters of declined lines that may still be kept unread (see AuditOptions.deferTextChars). */
  private deferBudget: number
  private deferred: Deferred = []

  constructor(tally: Tally, module: WasmModule, blockBytes = WASM_BLOCK_BYTES, deferTextChars = 0) {
    super(tally)
    this.wasm = new WasmScanner(module, tally.prefix)
    this.block = Math.max(blockBytes, 1)
    this.deferBudget = deferTextChars
  }

  /**
   * A worker keeps the few lines the module declines for the thread that merges, which reads them
   * warm: reading them here first compiles the JavaScript grammar in this thread, which cost a
   * worker more than its share of those lines (docs/benchmarks.md, 2026-11-27 (s12)).
   */
  override scanText(text: string): void {
    if (this.deferBudget > 0 && text.length <= this.deferBudget && !text.includes('\n')) {
      const t = this.tally
      this.deferBudget -= text.length
      this.deferred.push([t.chunk, t.chunkBase, t.lineNo, text])
      t.lineNo++
      return
    }
    super.scanText(text)
  }

  override takeDeferred(): Deferred {
    const d = this.deferred
    this.deferred = []
    return d
  }

  override scanBytes(chunk: Buffer, start: number, end: number): Buffer {
    // Cut at line ends.
    while (end - start > this.block) {
      let cut = chunk.lastIndexOf(10, start + this.block)
      if (cut < start) cut = chunk.indexOf(10, start + this.block)
      if (cut === -1 || cut >= end) break
      chunk = this.scanBlock(chunk, start, cut)
      start = cut + 1
    }
    return this.scanBlock(chunk, start, end)
  }

  /** Input is read straight into the module's memory (see WasmScanner.inputView). */
  override readBuffer(size: number): Buffer {
    return this.wasm.inputView(size)
  }

  private scanBlock(chunk: Buffer, start: number, end: number): Buffer {
    const w = this.wasm
    const tally = this.tally
    const first = tally.lineNo
    // The same bytes, in a fresh view when they are in the module's memory and it grew.
    chunk = w.scan(chunk, start, end, tally.chunkBase + first) as Buffer
    const d = w.declined
    for (let i = 0; i < d.length; i += 3) {
      // scanText numbers the line it reads as tally.lineNo + 1.
      tally.lineNo = first + d[i + 2]!
      this.scanText(chunk.toString('utf8', start + d[i]!, start + d[i + 1]!))
    }
    tally.lineNo = first + w.lines
    this.noteCanonicalTimes(chunk, start, end, first, d, w.lines)
    return chunk
  }

  /**
   * The module does not report timestamps: the first and the last line it took (the lines between
   * the declined ones) carry the canonical timestamp at their start, read here from the bytes.
   */
  private noteCanonicalTimes(chunk: Buffer, start: number, end: number, first: number, d: Uint32Array, lines: number): void {
    // Lines 0..k-1 declined in a row: line k starts after the last of them.
    let k = 0
    let i = 0
    while (i < d.length && d[i + 2] === k) {
      k++
      i += 3
    }
    if (k >= lines) return
    const head = k === 0 ? start : start + d[i - 2]! + 1
    this.tally.noteTime(first + k + 1, chunk.toString('latin1', head, head + CANONICAL_TIMESTAMP_LENGTH))
    // Likewise from the end.
    k = lines - 1
    let j = d.length - 3
    while (j >= 0 && d[j + 2] === k) {
      k--
      j -= 3
    }
    const lineEnd = j + 3 < d.length ? start + d[j + 3]! - 1 : end
    const tail = chunk.lastIndexOf(10, lineEnd - 1)
    const from = tail < start ? start : tail + 1
    this.tally.noteTime(first + k + 1, chunk.toString('latin1', from, from + CANONICAL_TIMESTAMP_LENGTH))
  }

  override flush(): void {
    this.tally.addWasmCounts(this.wasm.drain())
  }
}
