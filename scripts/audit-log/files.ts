// Files: read with large synchronous reads, and shared among worker threads in chunks
//
// A regular file is cut into chunks of CHUNK_BYTES, smaller towards its end (chunkStarts); a chunk
// holds the lines that start in it (the reader skips a partial first line and reads past the
// chunk's end to finish its last one), so the cuts need no look at the file. Threads take the next
// chunk whenever they finish one: a thread the machine runs slower (a busy core, a starved virtual
// CPU) simply does fewer chunks, where equal halves would wait for the slowest. Results are merged
// in chunk order (line numbers are shifted by the lines of the chunks before). Timelines need the
// global order as they are produced, so a --requester audit always runs in one thread.
//
// Workers run plain JavaScript: the auditor and the grammar are bundled once per process with
// esbuild (the compiler tsx itself runs on), which takes tens of milliseconds, where registering
// the TypeScript loader in each worker took up to seconds. So big files use every core by default.

import { closeSync, fstatSync, openSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { READ_SIZE, readLines } from './read-lines.ts'
import { defaultEngine, type AuditEngine } from './scanners/index.ts'
import { Auditor } from './streaming.ts'
import type { AuditFileOptions, AuditOptions, AuditResult } from './types.ts'
import { auditInWorkers } from './workers.ts'

/**
 * Files below this size are audited in one thread: workers would not pay off. With the WebAssembly
 * engine one thread reads about 800 MB/s here, and a worker takes about 0.1 s to start. With this
 * thread auditing beside one worker, on a calm 2-core machine (best of 5, in process), two threads
 * against one: 0.34x at 16 MB, 0.66x at 64 MB, 1.10x at 128 MB, 1.42x at 305 MiB; on a machine whose
 * cores are busy with other work, two threads lose at every size (docs/benchmarks.md, 2026-11-27).
 * The JavaScript engine is about three times slower per line, so its threads pay off sooner.
 */
export const PARALLEL_MIN_BYTES = { wasm: 128 * 1024 * 1024, js: 32 * 1024 * 1024 } as const
const MAX_AUTO_JOBS = 4
/** The number of threads auditFile uses for a file of `size` bytes. */
export function defaultJobs(size: number, engine: AuditEngine = defaultEngine()): number {
  return size >= PARALLEL_MIN_BYTES[engine] ? Math.min(Math.max(availableParallelism(), 1), MAX_AUTO_JOBS) : 1
}

/** Audits one regular file; with jobs > 1 (and no timeline asked for) in worker threads. */
export async function auditFile(file: string, opts: AuditFileOptions = {}): Promise<AuditResult> {
  // Synchronous: three round trips through libuv's thread pool cost a few milliseconds before the
  // worker could be started.
  const fd = openSync(file, 'r')
  let size: number
  try {
    const st = fstatSync(fd)
    if (st.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: 'EISDIR' })
    size = st.isFile() ? st.size : 0
  } finally {
    closeSync(fd)
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
