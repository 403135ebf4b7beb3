// Feeding an Auditor the lines of a file, whole or one chunk of it (see files.ts).

import { readSync } from 'node:fs'
import type { Auditor } from './streaming.ts'

export const READ_SIZE = 1 << 20
/** Bytes per chunk handed to a worker: small enough to balance, big enough that merging is noise. */
export const CHUNK_BYTES = 8 * 1024 * 1024
/** The size the last chunks of a file shrink to (see chunkStarts). */
export const MIN_CHUNK_BYTES = 1 << 20
/**
 * How far past a chunk's end its last read goes to find the newline that ends its last line: the
 * full READ_SIZE there copied up to 1 MiB that the next chunk reads again. A longer last line is
 * read on like any line across reads.
 */
const LAST_LINE_BYTES = 64 * 1024

/**
 * Where each chunk of a file of `size` bytes starts, for `threads` threads taking them in turn:
 * `chunkBytes` each, then ever smaller over the last stretch (an eighth of what is left, for two
 * threads, down to MIN_CHUNK_BYTES), so that the threads finish within a small chunk of each other
 * rather than one waiting for the other's last 8 MiB. The last chunk reads on to the end of the file.
 */
export function chunkStarts(size: number, threads: number, chunkBytes = CHUNK_BYTES): number[] {
  const max = Math.max(chunkBytes, 1)
  const min = Math.min(MIN_CHUNK_BYTES, max)
  const split = Math.max(threads, 1) * 4
  const starts: number[] = []
  let pos = 0
  do {
    starts.push(pos)
    pos += Math.max(min, Math.min(max, Math.floor((size - pos) / split)))
  } while (pos < size)
  return starts
}

/** Chunk `chunk` of the file cut at `starts` (see chunkStarts). */
export function chunkJob(starts: ArrayLike<number>, chunk: number): ChunkJob {
  return { type: 'chunk', chunk, start: starts[chunk]!, end: chunk === starts.length - 1 ? Infinity : starts[chunk + 1]! }
}

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
    // Near the chunk's end, only as far as its last line is likely to go.
    const n = readSync(fd, buf, 0, pos < end ? Math.min(buf.length, end - pos + LAST_LINE_BYTES) : buf.length, pos)
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
  // the chunk's lines start after the first newline from that byte on, and without one in the
  // chunk it has none. (Skipping on to a newline past the chunk made every chunk of a file without
  // newlines read to its end.)
  let from = job.start
  if (job.start > 0) {
    const nl = newlineIn(fd, buf, job.start - 1, job.end)
    if (nl === -1 || nl + 1 >= job.end) return
    from = nl + 1
  }
  readLines(fd, buf, auditor, from, job.end)
}

/** How much newlineIn reads first: lines are short, and a whole READ_SIZE here was read twice. */
const FIRST_LOOK_BYTES = 16 * 1024

/** The offset of the first newline in the bytes [start, end) of a file, or -1. */
function newlineIn(fd: number, buf: Buffer, start: number, end: number): number {
  let want = FIRST_LOOK_BYTES
  for (let pos = start; pos < end;) {
    const n = readSync(fd, buf, 0, Math.min(want, buf.length, end - pos), pos)
    if (n === 0) return -1
    const nl = buf.subarray(0, n).indexOf(10)
    if (nl !== -1) return pos + nl
    pos += n
    want = buf.length
  }
  return -1
}
