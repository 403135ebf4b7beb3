// Running the built suite files in a few long-lived node processes (suite-worker.mjs) instead of tap's
// runner and one process per file (decision 0004: 19 processes each loading tap, ajv and the shared code
// cost most of a run). `jobs` workers claim the files one at a time; their TAP streams are merged into
// the one stream the rest of the run reads (tap-merge.ts), so reports and results are as before.
// Isolation where the reports need it: each file is a subtest with its own time limit and its own copy
// of the suites' framework; a worker that crashes or hangs past the limit (watchdog: limit + grace) is
// reported as the file it was running, and a new worker goes on with the files nobody claimed.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Parser } from 'tap-parser'
import { redact } from '../../../lib/http.ts'
import { streamSafe, visible } from '../../../lib/escape.ts'
import { TapMerge, type Death, type WorkerStream } from './tap-merge.ts'
import { attach, newNode } from '../results/tap-tree.ts'
import type { TapOptions, TapRun } from './tap-types.ts'

/**
 * Memory (decision 0004: a run under 256 MiB): a small young generation and a heap limit make V8 collect
 * instead of growing; a check's data is bounded by windows and the response cap, far below the limit
 * (against the hostile targets of bench/hostile.ts a worker's heap peaked at 65-85 MiB used once a file's
 * memos ended with it: 96 MiB leaves room, and keeps the garbage of 4 MiB answers from piling up).
 * Against the bundled mock, whose answers are known and small, the young generation is 4 MiB: with 1 MiB
 * scavenges took 10-17% of a worker's CPU, with 4 MiB 6-8%, for a few MiB more per worker (decision 0004).
 * Not in the fault matrix: there every file runs against one target per fault, and the contexts of 50
 * targets need more (a worker at 192 MiB ran out of heap in the admin matrix and missed 9 faults).
 */
export function workerV8Flags(matrix: boolean | undefined, bundled = false): string[] {
  if (matrix) return []
  // (against a real target undici's WebAssembly HTTP parser is compiled by the baseline compiler alone:
  // the optimizing one took about 35 MiB of RSS for a moment, scripts/run/main.ts)
  return [
    `--max-semi-space-size=${bundled ? BUNDLED_SEMI_SPACE_MIB : 1}`,
    '--max-old-space-size=96',
    ...(bundled ? [BUNDLED_MAX_OPT] : ['--liftoff-only']),
  ]
}
/**
 * Against the bundled mock a worker's JavaScript stops at the baseline compiler (decision 0017): a worker
 * lives a few seconds and runs each file's copy of the suites' framework a few hundred times, and the
 * optimizing compiler's background jobs took CPU from the two other processes of the run on a 2-core
 * machine (a run's CPU fell by about a tenth without them). Against a real target the worker mostly
 * waits on the network, where those jobs cost no time.
 */
export const BUNDLED_MAX_OPT = '--max-opt=1'
/** the workers' young generation (each semi-space, MiB) in a run against the bundled mock */
export const BUNDLED_SEMI_SPACE_MIB = 4

/**
 * glibc's allocator, for the memory of answers outside V8's heap: past its first freed large block it
 * serves blocks of up to 32 MiB from its heap instead of mapping them, and 4 MiB answers then leave
 * that heap fragmented and held (a worker against 4 MiB binary bodies: 146 MiB RSS, 118 MiB with a
 * fixed threshold and two arenas). Unless the user set them.
 */
export function workerMallocEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2',
    MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? String(128 * 1024),
  }
}

const WORKER = fileURLToPath(new URL('./suite-worker.mjs', import.meta.url))
/** what a hung file gets beyond its limit before its worker is killed (tap's own timeout comes first) */
const GRACE_MS = 5000

/** How the workers start: all of it known before the target is (../main.ts starts them that early). */
export interface WorkerStart {
  project: string
  jobs: number
  timeoutS: number
  grep?: string
  matrix: boolean
  /** the target is the bundled mock (its answers known and small: a larger young generation, workerV8Flags) */
  bundled?: boolean
  /** the probe's build, preloaded into each worker */
  probeUrl: string
  /** the shared schema modules' build: a worker compiles validators from it while it waits for its files */
  schemasUrl?: string
  /** tap built into one module (the bundles' tap); default: tap from node_modules */
  tapUrl?: string
  /** the workers' environment without the target (suiteEnv() with no contract) */
  env: NodeJS.ProcessEnv
  stderr: { write(s: string): unknown }
}

/** What a run of the workers gets once the target is known. */
export type WorkerRun = Pick<TapOptions, 'files' | 'env' | 'envs' | 'orderOf' | 'secrets' | 'onFile' | 'onChild'>

interface Spawned {
  child: ChildProcess
  /** what the worker wrote before its run began (nothing, unless it failed to start) */
  early: string[]
}

/**
 * The suite workers, started before the target is known (decision 0004: a worker's start, loading tap and
 * compiling the validators, then overlaps the mock's start and the preflight). Each waits for one line
 * on its stdin, `{"env": ..., "files": [...]}`, that run() sends; close() stops workers never used.
 */
export class SuiteWorkers {
  private readonly waiting: (Spawned | undefined)[] = []
  private readonly claims: string
  private readonly own: Record<string, string>
  private used = false

  constructor(private readonly start: WorkerStart) {
    this.claims = path.join(start.project, 'tmp', 'claims')
    mkdirSync(this.claims, { recursive: true })
    const limitMs = start.timeoutS * 1000
    this.own = {
      ...workerMallocEnv(start.env),
      AC_CLAIMS: this.claims,
      AC_FILE_TIMEOUT_MS: String(limitMs),
      TAP_TIMEOUT: '0',
      ...(start.schemasUrl ? { AC_WARM: start.schemasUrl } : {}),
      ...(start.tapUrl ? { AC_TAP: start.tapUrl } : {}),
      ...(start.grep !== undefined ? { TAP_GREP: ['.', ...(start.matrix ? ['.'] : []), start.grep].join('\n') } : {}),
    }
    for (let i = 0; i < Math.max(1, start.jobs); i++) this.waiting.push(this.spawn())
  }

  private spawn(): Spawned {
    const args = [...workerV8Flags(this.start.matrix, this.start.bundled), '--import', this.start.probeUrl, WORKER]
    const child = spawn(process.execPath, args, {
      cwd: this.start.project,
      env: { ...this.start.env, ...this.own },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const early: string[] = []
    child.stdout!.setEncoding('utf8').on('data', (c: string) => early.push(c))
    child.stderr!.setEncoding('utf8').on('data', (c: string) => early.push(c))
    // a worker that is stopped before its line (EPIPE) needs no error of its own
    child.stdin!.on('error', () => {})
    child.on('error', () => {})
    return { child, early }
  }

  /** Stops the workers that were never given files (a run that stopped before its suites). */
  close(): void {
    for (const w of this.waiting.splice(0)) w?.child.kill('SIGKILL')
  }

  run(opts: WorkerRun): Promise<TapRun> {
    if (this.used) throw new Error('the suite workers run once')
    this.used = true
    const { start, claims } = this
    const root = newNode('')
    // The parser (tap-parser and the yaml it loads, ~50 ms) is loaded once the files are handed over,
    // while the workers begin: until then what they say waits here.
    let parser: Parser | undefined
    let unparsed = ''
    let raw = ''
    const merge = new TapMerge(
      (text) => {
        // Everything a worker says is redacted (whole lines) and escaped (no control character but the
        // newline: tap-parser would cut a line at U+2028) before it is parsed, kept or shown.
        const lines = streamSafe(redact(text, opts.secrets))
        raw += lines
        if (parser) parser.write(lines)
        else unparsed += lines
      },
      (w, file) => watch(w, file),
      (w, file) => {
        unwatch(w)
        done.add(file)
      },
    )
    const done = new Set<string>()
    const live = new Map<ChildProcess, WorkerStream>()
    const timers = new Map<WorkerStream, { timer: NodeJS.Timeout; child: ChildProcess }>()
    const deaths = new Map<ChildProcess, Death>()
    let stopped: NodeJS.Signals | undefined
    let deadline: string | undefined
    let exitCode: number | null = 0
    let lastSignal: NodeJS.Signals | null = null
    const limitMs = start.timeoutS * 1000

    const watch = (w: WorkerStream, file: string) => {
      const child = [...live].find(([, s]) => s === w)?.[0]
      if (!child || !limitMs) return
      const timer = setTimeout(() => {
        deaths.set(child, { expired: file })
        child.kill('SIGKILL')
      }, limitMs + GRACE_MS)
      timers.set(w, { timer, child })
    }
    const unwatch = (w: WorkerStream) => {
      clearTimeout(timers.get(w)?.timer)
      timers.delete(w)
    }
    const envOf = (slot: number): NodeJS.ProcessEnv => (opts.envs?.length ? opts.envs[slot % opts.envs.length]! : opts.env)
    const workers = Math.max(1, Math.min(start.jobs, opts.files.length))

    return new Promise((resolve, reject) => {
      // A worker's slot keeps its environment (its target) for the worker that replaces it after a crash.
      const begin = (slot: number) => {
        // the worker started early for this slot, unless it is gone (it failed to start: a new one shows why)
        let w = this.waiting[slot]
        this.waiting[slot] = undefined
        if (!w || w.child.exitCode !== null || w.child.signalCode !== null) {
          w?.child.kill('SIGKILL')
          w = this.spawn()
        }
        const { child, early } = w
        const stream = merge.worker()
        live.set(child, stream)
        child.stdout!.removeAllListeners('data').on('data', (chunk: string) => stream.write(chunk))
        child
          .stderr!.removeAllListeners('data')
          .on('data', (chunk: string) => start.stderr.write(visible(redact(chunk, opts.secrets), { newlines: 'keep' })))
        // (a worker writes nothing before its line unless it failed to start: that goes to stderr)
        if (early.length) start.stderr.write(visible(redact(early.join(''), opts.secrets), { newlines: 'keep' }))
        child.stdin!.end(
          JSON.stringify({ env: envOf(slot), files: opts.files, ...(opts.orderOf ? { order: opts.orderOf(slot) } : {}) }) + '\n',
        )
        child.on('close', (code, signal) => {
          live.delete(child)
          unwatch(stream)
          const death: Death =
            deaths.get(child) ?? (deadline ? { deadline } : stopped ? { signal: stopped } : signal ? { signal } : { exitCode: code ?? 1 })
          const check = stream.open !== undefined ? checkUnderWay(claims, opts.files.indexOf(stream.open)) : undefined
          stream.end(check ? { ...death, check } : death)
          const took = claimedBy(claims, child.pid)
          for (const i of took) if (!done.has(opts.files[i]!)) stream.lost(opts.files[i]!, death)
          if (signal) lastSignal = signal
          if (code !== 0 && code !== null) exitCode = code
          // A worker that died after taking files leaves the files nobody took to a new one.
          if ((code !== 0 || signal) && took.length && !stopped && readdirSync(claims).length < opts.files.length) begin(slot)
          if (live.size === 0) {
            merge.end()
            parsing.then(() => {
              parser!.end()
              resolve({ raw, files: root.children, exitCode, signal: lastSignal })
            }, reject)
          }
        })
      }
      for (let i = 0; i < workers; i++) begin(i)
      const parsing = import('tap-parser').then(({ Parser }) => {
        parser = new Parser()
        attach(parser, root, opts.onFile)
        parser.write(unparsed)
        unparsed = ''
      })
      // more workers started than files to run: the rest are not needed
      this.close()
      opts.onChild({
        kill(signal: NodeJS.Signals = 'SIGTERM') {
          // Stopped at once: a file cut short is "not run"; its clean-ups cannot run in a killed process.
          stopped = signal
          for (const c of live.keys()) c.kill('SIGKILL')
          return true
        },
        deadline(at: string) {
          deadline = at
          stopped = 'SIGKILL'
          for (const c of live.keys()) c.kill('SIGKILL')
        },
      })
    })
  }
}

/** Starts the workers and runs the files in them (the way for a caller that has everything at once). */
export function runWorkers(opts: TapOptions & { probeUrl: string; schemasUrl?: string; tapUrl?: string }): Promise<TapRun> {
  const workers = new SuiteWorkers({ ...opts, jobs: Math.max(1, Math.min(opts.jobs, opts.files.length)) })
  return workers.run(opts)
}

/** The check a worker was running in file `i` (suite-worker.mjs leaves it in the file's claim, up to a NUL). */
function checkUnderWay(claims: string, i: number): string | undefined {
  if (i < 0) return undefined
  try {
    const text = readFileSync(path.join(claims, String(i), 'check'), 'utf8')
    const end = text.indexOf('\0')
    return (end === -1 ? text : text.slice(0, end)) || undefined
  } catch {
    return undefined
  }
}

/** The indexes of the files a worker claimed (suite-worker.mjs leaves its pid in each claim). */
function claimedBy(claims: string, pid: number | undefined): number[] {
  const out: number[] = []
  for (const name of readdirSync(claims)) {
    try {
      if (readFileSync(path.join(claims, name, 'pid'), 'utf8') === String(pid)) out.push(Number(name))
    } catch {
      // a claim whose pid is not written yet: its worker is alive (it writes right after claiming)
    }
  }
  return out.sort((a, b) => a - b)
}

export const WORKER_URL = pathToFileURL(WORKER).href
