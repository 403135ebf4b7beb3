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
export function readLines(fd: number, buf: Buffer, auditor: Auditor, start: number, end: number): void {
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
export function auditChunk(fd: number, buf: Buffer, auditor: Auditor, job: ChunkJob): void {
  // When the byte before the chunk is not a newline, its first line belongs to the chunk before.
  const startsInLine = job.start > 0 && readSync(fd, buf, 0, 1, job.start - 1) === 1 && buf[0] !== 10
  auditor.beginChunk(job.chunk, startsInLine)
  readLines(fd, buf, auditor, job.start, job.end)
}
