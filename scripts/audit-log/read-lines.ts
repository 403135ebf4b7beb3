// Feeding an Auditor the lines of a file, whole or one chunk of it (see files.ts).

import { readSync } from 'node:fs'
import type { Auditor } from './streaming.ts'

export const READ_SIZE = 1 << 20
/** Bytes per chunk handed to a worker: small enough to balance, big enough that merging is noise. */
export const CHUNK_BYTES = 8 * 1024 * 1024

/** One chunk: the lines that start in [start, end); the last chunk reads on to the end of the file. */
export interface ChunkJob {
  type: 'chunk'
  chunk: number
  start: number
  end: number
}

/**
 * Feeds `auditor` the lines that start in the bytes [start, end) of a file: a partial line at
 * `start` belongs to the chunk before (the caller skips it, see auditChunk), and the last
 * line is read to its end past `end`. With end = Infinity, up to the end of the file.
 */
export function readLines(fd: number, own: Buffer, auditor: Auditor, start: number, end: number): void {
  let pos = start
  for (;;) {
    const buf = auditor.readBuffer(own)
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
    // A full read ends inside a line: read that line again with the next read rather than keep its
    // start, so that the module reads it too (a kept line is joined and read by JavaScript).
    if (n === buf.length && auditor.holdsNoLine()) {
      const last = buf.lastIndexOf(10, n - 1)
      if (last >= n >> 1) {
        auditor.push(buf.subarray(0, last + 1))
        pos += last + 1
        continue
      }
    }
    pos += n
    auditor.push(n === buf.length ? buf : buf.subarray(0, n))
  }
}

/** Feeds `auditor` one chunk of a file shared among threads (see ChunkJob). */
export function auditChunk(fd: number, buf: Buffer, auditor: Auditor, job: ChunkJob): void {
  auditor.beginChunk(job.chunk, false)
  // When the byte before the chunk is not a newline, its first line belongs to the chunk before:
  // the chunk's lines start after the first newline in it, and without one it has none. (Skipping
  // on to a newline past the chunk made every chunk of a file without newlines read to its end.)
  let from = job.start
  if (job.start > 0 && readSync(fd, buf, 0, 1, job.start - 1) === 1 && buf[0] !== 10) {
    const nl = newlineIn(fd, buf, job.start, job.end)
    if (nl === -1 || nl + 1 >= job.end) return
    from = nl + 1
  }
  readLines(fd, buf, auditor, from, job.end)
}

/** The offset of the first newline in the bytes [start, end) of a file, or -1. */
function newlineIn(fd: number, buf: Buffer, start: number, end: number): number {
  for (let pos = start; pos < end;) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos)
    if (n === 0) return -1
    const nl = buf.subarray(0, n).indexOf(10)
    if (nl !== -1) return pos + nl
    pos += n
  }
  return -1
}
