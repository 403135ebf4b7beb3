// What the Auditor asks of a line scanner, and the base every scanner shares: the JavaScript
// reading of decoded text, which is the reference (the WebAssembly scanner hands it every line it
// does not take itself).

import { isAscii } from 'node:buffer'
import {
  CANONICAL_TIMESTAMP_LENGTH as CANONICAL_TS,
  CanonicalMatcher,
  fastIsV120,
  fastMethod,
  fastOperationName,
  fastPath,
  fastRequester,
  fastStatus,
  newLineView,
  scanLine,
  type LineView,
} from '../../../lib/requestlog.ts'
import type { Tally } from '../tally.ts'

export type AuditEngine = 'wasm' | 'js'

export interface LineScanner {
  readonly engine: AuditEngine
  /**
   * Counts the lines of bytes [start, end) of `chunk` (separated by '\n', none at `end`). Returns
   * the chunk, or a fresh view of the same bytes (when it was a readBuffer whose memory moved).
   */
  scanBytes(chunk: Buffer, start: number, end: number): Buffer
  /** A buffer of `size` bytes to read the next input into, or null when the caller's own will do. */
  readBuffer(size: number): Buffer | null
  /** Counts the lines of a decoded text (separated by '\n', none at its end). */
  scanText(text: string): void
  /** Hands what is counted elsewhere (the WebAssembly module's tables) over to the tally. */
  flush(): void
  /** The lines kept unread so far (see AuditOptions.deferTextChars); forgets them. */
  takeDeferred(): Deferred
}

/** Lines kept unread: [chunk, chunkBase, the line number before it, its text]. */
export type Deferred = Array<[chunk: number, chunkBase: number, lineNo: number, text: string]>

// Decoded blocks stay small enough for the young generation: big strings would each take fresh pages.
const DECODE_BLOCK = 64 * 1024

export abstract class BaseLineScanner implements LineScanner {
  abstract readonly engine: AuditEngine
  private readonly matcher = new CanonicalMatcher()
  private readonly view: LineView = newLineView()

  constructor(protected readonly tally: Tally) {}

  readBuffer(_size: number): Buffer | null {
    return null
  }

  scanBytes(chunk: Buffer, start: number, end: number): Buffer {
    // Decode a block of lines at a time (a newline never falls inside a UTF-8 sequence). Pure
    // ASCII, the usual case, decodes faster as latin1 with the same result.
    while (end >= start) {
      let cut = end
      if (end - start > DECODE_BLOCK) {
        cut = chunk.lastIndexOf(10, start + DECODE_BLOCK)
        if (cut < start) cut = chunk.indexOf(10, start + DECODE_BLOCK)
      }
      this.scanText(chunk.toString(isAscii(chunk.subarray(start, cut)) ? 'latin1' : 'utf8', start, cut))
      start = cut + 1
    }
    return chunk
  }

  flush(): void {}

  takeDeferred(): Deferred {
    return []
  }

  scanText(text: string): void {
    const tally = this.tally
    const matcher = this.matcher
    const n = text.length
    let pos = 0
    // The first and last timestamped lines of this text: positions of canonical ones, or strings.
    let firstLine = -1
    let firstPos = 0
    let firstTs: string | undefined
    let lastLine = -1
    let lastPos = 0
    let lastTs: string | undefined
    while (pos <= n) {
      const m = matcher.match(text, pos)
      if (m !== null) {
        // A canonical request line: its parts straight from the match.
        const end = matcher.end
        const lineNo = ++tally.lineNo
        tally.response(
          fastMethod(m),
          fastPath(m),
          fastStatus(m),
          fastIsV120(m),
          fastRequester(m),
          fastOperationName(m),
          lineNo,
          text,
          pos,
          end,
        )
        if (firstLine < 0) {
          firstLine = lineNo
          firstPos = pos
        }
        lastLine = lineNo
        lastPos = pos
        lastTs = undefined
        pos = end + 1
        continue
      }
      let nl = text.indexOf('\n', pos)
      if (nl === -1) nl = n
      const line = text.slice(pos, nl)
      const v = this.view
      const lineNo = ++tally.lineNo
      const kind = scanLine(line, v)
      if (kind === 'response') {
        tally.response(v.method, v.path, v.status, v.format === 'v1.20', v.requester, v.graphqlOperationName, lineNo, line, 0, line.length)
      } else if (kind === 'event') tally.events++
      else if (kind === 'blank') tally.blank++
      else tally.addMalformed(lineNo, v.error!.part, v.error!.column, v.error!.message)
      if (v.timestamp !== undefined) {
        if (firstLine < 0) {
          firstLine = lineNo
          firstTs = v.timestamp
        }
        lastLine = lineNo
        lastTs = v.timestamp
      }
      pos = nl + 1
    }
    if (firstLine >= 0) tally.noteTime(firstLine, firstTs ?? text.slice(firstPos, firstPos + CANONICAL_TS))
    if (lastLine >= 0) tally.noteTime(lastLine, lastTs ?? text.slice(lastPos, lastPos + CANONICAL_TS))
  }
}
