// Appends records to an open journal file with group commit: records appended while a batch is
// being written and fdatasync'ed wait and go out together in the next batch, so N concurrent writes
// cost about one fsync, not N. `barrier()` is what the server awaits before answering: it settles
// once every record appended so far is on disk.
import { close, fdatasync, write } from 'node:fs'
import { promisify } from 'node:util'
import { encodeRecord } from './codec.ts'

const writeAsync = promisify(write)
const syncAsync = promisify(fdatasync)
const closeAsync = promisify(close)

interface Waiter {
  seq: number
  resolve: () => void
  reject: (err: Error) => void
}

export class JournalWriter {
  private pending: Buffer[] = []
  private appended = 0
  private durable = 0
  private flushing = false
  private scheduled = false
  private waiters: Waiter[] = []
  private failed: Error | undefined
  private closed = false
  /** records written since the file was started (header excluded) */
  records = 0

  constructor(
    private readonly fd: number,
    /** the file's length: where the next batch goes */
    private position: number,
  ) {}

  /** Queues one record. Throws, before anything is queued, when it cannot be serialised or the journal failed. */
  append(value: unknown): void {
    if (this.failed) throw new Error(`the state journal stopped after a failed write: ${this.failed.message}`)
    if (this.closed) throw new Error('the state journal is closed')
    this.pending.push(encodeRecord(value))
    this.appended++
    this.records++
    // after the current request's handler has queued all of its records
    if (!this.scheduled && !this.flushing) {
      this.scheduled = true
      process.nextTick(() => {
        this.scheduled = false
        void this.flush()
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

  private async flush(): Promise<void> {
    if (this.flushing) return
    this.flushing = true
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending)
        const upTo = this.appended
        this.pending = []
        for (let done = 0; done < batch.length;) {
          const { bytesWritten } = await writeAsync(this.fd, batch, done, batch.length - done, this.position)
          done += bytesWritten
          this.position += bytesWritten
        }
        await syncAsync(this.fd)
        this.durable = upTo
        const ready = this.waiters.filter((w) => w.seq <= upTo)
        this.waiters = this.waiters.filter((w) => w.seq > upTo)
        for (const w of ready) w.resolve()
      }
    } catch (e) {
      this.failed = e instanceof Error ? e : new Error(String(e))
      for (const w of this.waiters) w.reject(this.failed)
      this.waiters = []
    } finally {
      this.flushing = false
    }
  }

  /** Waits for what is queued to be durable, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.barrier()?.catch(() => undefined)
    while (this.flushing || this.scheduled) await new Promise((r) => setImmediate(r))
    await closeAsync(this.fd)
  }
}
