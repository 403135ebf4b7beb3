// Appends records to an open journal file with group commit: records appended while a batch is
// being fdatasync'ed wait and go out together in the next batch, so N concurrent writes cost about
// one fsync, not N. `barrier()` is what the server awaits before answering: it settles once every
// record appended so far is on disk.
//
// With concurrent clients the mock waits on the disk and on the threads that wait for it, not on its
// own CPU, so the path of one batch is kept short (decision 0013):
// - A batch is the records of every request handled in one turn of the event loop (flushed from
//   setImmediate, after the poll phase has read all that arrived), not of the first request alone.
// - It goes into the page cache with a plain write on the main thread (microseconds, as the request
//   log's lines do); only the fdatasync goes to libuv's thread pool: one thread hop a batch, not two.
//   On a machine whose cores are busy, every hop is a wait for the scheduler.
// - One fdatasync at a time. Two side by side (the next batch not waiting for the running one)
//   were measured slower: smaller batches, more flushes and more wake-ups per write.
// A failed write or fdatasync stops the journal: every waiting answer fails, every later write is
// refused (Linux reports a lost writeback once, so a retry could wrongly succeed).
import { close, fdatasync, writeSync } from 'node:fs'
import { promisify } from 'node:util'
import { encodeRecord } from './codec.ts'

const closeAsync = promisify(close)

interface Waiter {
  seq: number
  resolve: () => void
  reject: (err: Error) => void
}

export type Sync = (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void

export class JournalWriter {
  private pending: Buffer[] = []
  private appended = 0
  private durable = 0
  private syncing = false
  private scheduled = false
  /** in the order of their seq (appended only grows) */
  private waiters: Waiter[] = []
  private failed: Error | undefined
  private closed = false
  private idle: (() => void) | undefined
  /** records written since the file was started (header excluded) */
  records = 0
  /** batches written and fdatasync'ed (or being) since the writer opened */
  batches = 0

  constructor(
    private readonly fd: number,
    /** the file's length: where the next batch goes */
    private position: number,
    /** how the file is made durable (tests hold it, or fail it) */
    private readonly sync: Sync = fdatasync,
  ) {}

  /** Queues one record. Throws, before anything is queued, when it cannot be serialised or the journal failed. */
  append(value: unknown): void {
    if (this.failed) throw new Error(`the state journal stopped after a failed write: ${this.failed.message}`)
    if (this.closed) throw new Error('the state journal is closed')
    this.pending.push(encodeRecord(value))
    this.appended++
    this.records++
    if (!this.scheduled && !this.syncing) {
      this.scheduled = true
      setImmediate(() => {
        this.scheduled = false
        this.flush()
      })
    }
  }

  /** undefined when everything appended is durable; otherwise a promise that settles when it is */
  barrier(): Promise<void> | undefined {
    if (this.failed) return Promise.reject(this.failed)
    if (this.durable >= this.appended) return undefined
    const seq = this.appended
    return new Promise((resolve, reject) => this.waiters.push({ seq, resolve, reject }))
  }

  /** Writes what is pending as one batch and starts its fdatasync (unless one is running: its end calls this again). */
  private flush(): void {
    if (this.syncing) return
    if (this.failed || this.pending.length === 0) return this.idle?.()
    const batch = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending)
    const upTo = this.appended
    this.pending = []
    try {
      for (let done = 0; done < batch.length;) {
        const n = writeSync(this.fd, batch, done, batch.length - done, this.position)
        done += n
        this.position += n
      }
    } catch (e) {
      return this.fail(e)
    }
    this.syncing = true
    this.batches++
    this.sync(this.fd, (err) => {
      this.syncing = false
      if (err) return this.fail(err)
      this.durable = upTo
      // the next batch's fdatasync starts before this one's answers are sent
      this.flush()
      let n = 0
      while (n < this.waiters.length && this.waiters[n]!.seq <= upTo) this.waiters[n++]!.resolve()
      if (n > 0) this.waiters = n === this.waiters.length ? [] : this.waiters.slice(n)
    })
  }

  private fail(e: unknown): void {
    this.failed ??= e instanceof Error ? e : new Error(String(e))
    for (const w of this.waiters) w.reject(this.failed)
    this.waiters = []
    this.idle?.()
  }

  /** Waits for what is queued to be durable, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await new Promise<void>((resolve) => {
      this.idle = resolve
      this.flush()
    })
    await closeAsync(this.fd)
  }
}
