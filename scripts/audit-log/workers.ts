// Worker threads for big files (see files.ts): each takes the next chunk of the file when it
// finishes one, into its own Auditor, and sends back that Auditor's state; finishAudit merges them.

import { closeSync, openSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker, type MessagePort } from 'node:worker_threads'
import { finishAudit, DEFAULT_MAX_ADMIN_ACTIONS, DEFAULT_MAX_MALFORMED, type AuditState } from './finish.ts'
import { auditChunk, CHUNK_BYTES, READ_SIZE, type ChunkJob } from './read-lines.ts'
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
}

type Progress = { lines: number; bytes: number }
type WorkerMessage =
  | ({ type: 'progress' } & Progress)
  | { type: 'chunk-done'; chunk: number }
  | { type: 'state'; state: AuditState }
  | { type: 'error'; message: string }

/** tsx's API for the loader bootstrap; '' where tsx is not installed (a packed package: its worker is built). */
function tsxApiUrl(): string {
  try {
    return import.meta.resolve('tsx/esm/api')
  } catch {
    return ''
  }
}

export async function auditInWorkers(file: string, size: number, jobs: number, opts: AuditFileOptions): Promise<AuditResult> {
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
    tsxUrl: tsxApiUrl(),
    file,
    opts: {
      ...(opts.clientPrefix !== undefined ? { clientPrefix: opts.clientPrefix } : {}),
      ...(opts.maxMalformed !== undefined ? { maxMalformed: opts.maxMalformed } : {}),
      ...(opts.maxAdminActions !== undefined ? { maxAdminActions: opts.maxAdminActions } : {}),
      ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
    },
    wasm: opts.engine === 'js' ? null : scanModule(),
  }
  // This thread audits too, from the first chunk to the last: `jobs` threads are this one and
  // jobs - 1 workers (one worker fewer to start, and no thread idle while the others work).
  const n = Math.max(Math.min(jobs, count) - 1, 1)
  // Progress of each worker, and last that of this thread.
  const progress = Array.from({ length: n + 1 }, () => ({ lines: 0, bytes: 0 }))
  const reporter = (mine: Progress) => (p: Progress) => {
    mine.lines = p.lines
    mine.bytes = p.bytes
    report?.({ lines: progress.reduce((a, x) => a + x.lines, 0), bytes: progress.reduce((a, x) => a + x.bytes, 0), total: size })
  }
  const workers: Worker[] = []
  // Set when this run ends (also by a failed worker): this thread then takes no more chunks.
  let over = false
  try {
    // No worker starts once every chunk is taken (a file this thread read while the bundle was built).
    const running = bundledWorkerSoon().then((script) =>
      Promise.all(
        progress
          .slice(0, n)
          .map((mine) =>
            over || next >= count ? new Auditor(setup.opts).state() : runWorker(workers, script, setup, take, reporter(mine)),
          ),
      ),
    )
    running.catch(() => {
      over = true
    })
    const mine = auditBesideWorkers(file, take, () => over, { ...setup.opts, onProgress: reporter(progress[n]!) })
    const [own, theirs] = await Promise.all([mine, running])
    return finishAudit(
      Auditor.replayDeferred([own, ...theirs], setup.opts),
      opts.maxMalformed ?? DEFAULT_MAX_MALFORMED,
      opts.maxAdminActions ?? DEFAULT_MAX_ADMIN_ACTIONS,
    )
  } finally {
    over = true
    await Promise.all(workers.map((w) => w.terminate()))
  }
}

/**
 * Audits chunks on this thread, one at a time, until none is left or `stop` says so; its state
 * then. Between chunks it lets the workers' messages in (each worker has a chunk queued besides
 * the one it reads, so it never waits for this thread to finish one).
 */
async function auditBesideWorkers(
  file: string,
  take: () => ChunkJob | undefined,
  stop: () => boolean,
  opts: AuditOptions,
): Promise<AuditState> {
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

/**
 * Characters of declined lines a worker leaves to this thread (about 2 MB at most, sent once with
 * its state); past them it reads the rest itself, so a log the module declines throughout is still
 * read by every thread.
 */
const DEFER_TEXT_CHARS = 1 << 20

/** Runs one worker until no chunk is left, then collects its state; rejects on its first error. */
function runWorker(
  workers: Worker[],
  script: string | null,
  setup: WorkerSetup,
  take: () => ChunkJob | undefined,
  onProgress: (p: Progress) => void,
): Promise<AuditState> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script ?? WORKER_BOOTSTRAP, { ...WORKER_OPTIONS, workerData: setup })
    workers.push(worker)
    let settled = false
    const fail = (err: Error) => {
      if (settled) return
      settled = true
      reject(err)
    }
    let finishing = false
    const give = () => {
      if (finishing) return
      const job = take()
      if (job === undefined) finishing = true
      worker.postMessage(job ?? { type: 'finish' })
    }
    // Messages posted before the worker listens wait in its port, so the first chunks go now: two,
    // so that a finished chunk is followed by the next at once, not when this thread looks.
    give()
    give()
    worker.on('message', (m: WorkerMessage) => {
      if (m.type === 'progress') onProgress(m)
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
  const auditor = new Auditor({
    ...setup.opts,
    deferTextChars: DEFER_TEXT_CHARS,
    onProgress: ({ lines, bytes }) => port.postMessage({ type: 'progress', lines, bytes }),
  })
  const buf = Buffer.allocUnsafe(READ_SIZE)
  let fd: number | undefined
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
