// Worker threads for big files (see files.ts): each takes the next chunk of the file when it
// finishes one, into its own Auditor, and sends back that Auditor's state; finishAudit merges them.
//
// The threads take chunks from a counter in shared memory, not by messages: a worker that had to
// wait for this thread to look at its messages (between two chunks of its own) sat idle for up to
// a chunk, and the worker's progress goes into shared memory too. A worker sends one message, its
// state, as soon as no chunk is left (docs/benchmarks.md, 2026-11-27 (s13): the second thread).

import { closeSync, openSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker, type MessagePort } from 'node:worker_threads'
import { finishAudit, DEFAULT_MAX_ADMIN_ACTIONS, DEFAULT_MAX_MALFORMED, type AuditState } from './finish.ts'
import { auditChunk, chunkJob, chunkStarts, READ_SIZE, type ChunkJob } from './read-lines.ts'
import type { AuditEngine } from './scanners/index.ts'
import { Auditor } from './streaming.ts'
import type { AuditFileOptions, AuditOptions, AuditResult } from './types.ts'
import { provideScanModule, scanModule, type WasmModule } from './wasm/module.ts'
import { prebuiltDir } from '../../lib/package-paths.mjs'

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

/** The audit worker's script of a packed package, built when it was packed (scripts/dev/build-package.ts). */
export const PACKED_WORKER = 'audit-log-worker.cjs'

/**
 * This module as one CommonJS script that audits workerData's range: the packed package's, else built
 * now; null when esbuild is missing.
 */
function bundledWorker(): string | null {
  if (workerBundle !== undefined) return workerBundle
  const packed = prebuiltDir()
  if (packed !== undefined) {
    try {
      return (workerBundle = readFileSync(join(packed, PACKED_WORKER), 'utf8'))
    } catch {
      // built below, or the loader
    }
  }
  try {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild')
    const out = esbuild.buildSync({ ...workerBuildOptions(dirname(fileURLToPath(import.meta.url))), write: false })
    workerBundle = out.outputFiles[0]!.text
  } catch {
    workerBundle = null
  }
  return workerBundle
}

let workerBundleBuild: Promise<string | null> | undefined

/**
 * bundledWorker() without holding up this thread: esbuild builds in its own process (about 0.1 s
 * of CPU) while this thread audits the first chunks, and the workers start when it is done.
 */
function bundledWorkerSoon(): Promise<string | null> {
  if (workerBundle !== undefined || prebuiltDir() !== undefined) return Promise.resolve(bundledWorker())
  workerBundleBuild ??= (async () => {
    try {
      const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild')
      const out = await esbuild.build({ ...workerBuildOptions(dirname(fileURLToPath(import.meta.url))), write: false })
      workerBundle ??= out.outputFiles[0]!.text
    } catch {
      workerBundle ??= null
    }
    return workerBundle
  })()
  return workerBundleBuild
}

/** esbuild's options for the worker's script (`dir`: this module's folder). */
export function workerBuildOptions(dir: string) {
  return {
    stdin: {
      contents:
        "import { workerData, parentPort } from 'node:worker_threads'\nimport { serveAuditChunks } from './workers.ts'\nserveAuditChunks(workerData, parentPort)\n",
      resolveDir: dir,
      sourcefile: 'audit-worker.ts',
      loader: 'ts' as const,
    },
    bundle: true,
    platform: 'node' as const,
    format: 'cjs' as const,
    target: 'node20',
    logLevel: 'silent' as const,
  }
}

interface WorkerSetup {
  moduleUrl: string
  tsxUrl: string
  file: string
  opts: { clientPrefix?: string; maxMalformed?: number; maxAdminActions?: number; engine?: AuditEngine }
  /** The compiled WebAssembly module (the bundled worker cannot find its file); null: JavaScript only. */
  wasm: WasmModule | null
  /** Where each chunk starts (chunkStarts). */
  starts: number[]
  /** Int32Array over it: [the next chunk to take, stop (set by a failure)] (see takeChunk). */
  control: SharedArrayBuffer
  /** Float64Array over it: lines and bytes read so far, two per worker; null: no progress asked for. */
  progress: SharedArrayBuffer | null
  /** This worker's place in `progress`. */
  slot: number
}

const NEXT = 0
const STOP = 1

/** The next chunk nobody took yet, or undefined when none is left or the run stops. */
function takeChunk(control: Int32Array, starts: number[]): ChunkJob | undefined {
  if (Atomics.load(control, STOP) !== 0) return undefined
  const chunk = Atomics.add(control, NEXT, 1)
  return chunk < starts.length ? chunkJob(starts, chunk) : undefined
}

type WorkerMessage = { type: 'state'; state: AuditState } | { type: 'error'; message: string }

/**
 * tsx's API for the loader bootstrap; '' where tsx is not installed (a packed package: its worker is
 * built). Asked only without the bundle: under tsx a resolution goes through its hooks' thread (2–3 ms
 * before the worker could start).
 */
function tsxApiUrl(): string {
  try {
    return import.meta.resolve('tsx/esm/api')
  } catch {
    return ''
  }
}

export async function auditInWorkers(file: string, size: number, jobs: number, opts: AuditFileOptions): Promise<AuditResult> {
  const report = opts.onProgress
  const starts = chunkStarts(size, jobs, opts.chunkBytes)
  const count = starts.length
  const control = new Int32Array(new SharedArrayBuffer(8))
  const take = () => takeChunk(control, starts)
  // This thread audits too, from the first chunk to the last: `jobs` threads are this one and
  // jobs - 1 workers (one worker fewer to start, and no thread idle while the others work).
  const n = Math.max(Math.min(jobs, count) - 1, 1)
  const shared = report !== undefined ? new SharedArrayBuffer(n * 2 * 8) : null
  const setup: Omit<WorkerSetup, 'slot'> = {
    moduleUrl: import.meta.url,
    tsxUrl: '',
    file,
    opts: {
      ...(opts.clientPrefix !== undefined ? { clientPrefix: opts.clientPrefix } : {}),
      ...(opts.maxMalformed !== undefined ? { maxMalformed: opts.maxMalformed } : {}),
      ...(opts.maxAdminActions !== undefined ? { maxAdminActions: opts.maxAdminActions } : {}),
      ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
    },
    wasm: opts.engine === 'js' ? null : scanModule(),
    starts,
    control: control.buffer as SharedArrayBuffer,
    progress: shared,
  }
  // The workers' progress (two cells each) and this thread's, summed whenever this thread reports.
  const theirProgress = shared !== null ? new Float64Array(shared) : null
  const onProgress =
    report !== undefined
      ? (p: { lines: number; bytes: number }) => {
          let { lines, bytes } = p
          for (let i = 0; theirProgress !== null && i < theirProgress.length; i += 2) {
            lines += theirProgress[i]!
            bytes += theirProgress[i + 1]!
          }
          report({ lines, bytes, total: size })
        }
      : undefined
  const workers: Worker[] = []
  // Set when this run ends (also by a failed worker): no thread takes more chunks.
  const stop = () => Atomics.store(control, STOP, 1)
  let started = false
  try {
    // No worker starts once every chunk is taken (a file this thread read while the bundle was built).
    const running = bundledWorkerSoon().then((script) => {
      started = true
      return Promise.all(
        Array.from({ length: n }, (_, slot) =>
          Atomics.load(control, STOP) !== 0 || Atomics.load(control, NEXT) >= count
            ? new Auditor(setup.opts).state()
            : runWorker(workers, script, { ...setup, ...(script === null ? { tsxUrl: tsxApiUrl() } : {}), slot }),
        ),
      )
    })
    running.catch(stop)
    const mine = auditBesideWorkers(file, take, () => started, { ...setup.opts, ...(onProgress ? { onProgress } : {}) })
    const [own, theirs] = await Promise.all([mine, running])
    return finishAudit(
      Auditor.replayDeferred([own, ...theirs], setup.opts),
      opts.maxMalformed ?? DEFAULT_MAX_MALFORMED,
      opts.maxAdminActions ?? DEFAULT_MAX_ADMIN_ACTIONS,
    )
  } finally {
    stop()
    // A worker that sent its state is ending by itself: the teardown of its thread (about 10 ms)
    // need not hold up the result. One still running (a failed run) is stopped all the same.
    for (const w of workers) void w.terminate()
  }
}

/**
 * Audits chunks on this thread, one at a time, until none is left; its state then. Until the
 * workers are started it lets the event loop run between chunks (the worker's script may be
 * built by esbuild in its own process, whose answer comes in as an event); after that the
 * threads share nothing but the chunk counter, and this thread reads on without a pause.
 */
async function auditBesideWorkers(
  file: string,
  take: () => ChunkJob | undefined,
  started: () => boolean,
  opts: AuditOptions,
): Promise<AuditState> {
  const auditor = new Auditor(opts)
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.allocUnsafe(READ_SIZE)
    // Let the workers start first (a microtask away when their script is at hand): their start-up
    // runs on other threads.
    await null
    for (let job = take(); job !== undefined; job = take()) {
      auditChunk(fd, buf, auditor, job)
      if (!started()) await new Promise((resolve) => setImmediate(resolve))
    }
    return auditor.state()
  } finally {
    closeSync(fd)
  }
}

const WORKER_OPTIONS = { eval: true } as const

/**
 * Characters of declined lines a worker leaves to this thread (about 2 MB at most, sent once with
 * its state); past them it reads the rest itself, so a log the module declines throughout is still
 * read by every thread.
 */
const DEFER_TEXT_CHARS = 1 << 20

/** Runs one worker until no chunk is left, then collects its state; rejects on its first error. */
function runWorker(workers: Worker[], script: string | null, setup: WorkerSetup): Promise<AuditState> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script ?? WORKER_BOOTSTRAP, {
      ...WORKER_OPTIONS,
      // The bundle needs none of this process's options: under tsx they made the worker load the
      // TypeScript loader too (about 5 ms more before it reads).
      ...(script !== null ? { execArgv: [] } : {}),
      workerData: setup,
    })
    workers.push(worker)
    let settled = false
    const fail = (err: Error) => {
      if (settled) return
      settled = true
      reject(err)
    }
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'state') {
        settled = true
        resolve(m.state)
      } else fail(new Error(m.message))
    })
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`audit worker exited with code ${code}`)))
  })
}

/**
 * Entry point of a worker thread (see WORKER_BOOTSTRAP): audits chunks into one Auditor, taking
 * them from the shared counter (so in increasing order) until none is left, then sends back its
 * state. On a failure it stops the run (no thread takes another chunk) and sends its message.
 */
export function serveAuditChunks(setup: WorkerSetup, port: MessagePort): void {
  const control = new Int32Array(setup.control)
  let fd: number | undefined
  try {
    provideScanModule(setup.wasm)
    const progress = setup.progress !== null ? new Float64Array(setup.progress) : null
    const at = setup.slot * 2
    const auditor = new Auditor({
      ...setup.opts,
      deferTextChars: DEFER_TEXT_CHARS,
      ...(progress !== null
        ? {
            onProgress: ({ lines, bytes }) => {
              progress[at] = lines
              progress[at + 1] = bytes
            },
          }
        : {}),
    })
    const buf = Buffer.allocUnsafe(READ_SIZE)
    for (let job = takeChunk(control, setup.starts); job !== undefined; job = takeChunk(control, setup.starts)) {
      fd ??= openSync(setup.file, 'r')
      auditChunk(fd, buf, auditor, job)
    }
    const state = auditor.state()
    // The counters' own buffers go over as they are, not copied.
    const moved = [state.counts, state.operationCounts, state.requesterStats].map((a) => a.buffer as ArrayBuffer)
    port.postMessage({ type: 'state', state }, moved)
  } catch (err) {
    Atomics.store(control, STOP, 1)
    const e = err as NodeJS.ErrnoException
    port.postMessage({ type: 'error', message: e.code !== undefined ? `${e.code}: ${e.message}` : String(e.stack ?? e) })
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
