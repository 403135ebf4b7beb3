// The run's production manners shared between HTTP clients: a pace (requests per second) and a request
// budget that holds across suite processes. lib/http.ts applies them to every request.
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs'
import { randomBytes } from 'node:crypto'

/** Resolves after ms, or at once when the signal fires (the request then fails as aborted). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => (clearTimeout(timer), signal?.removeEventListener('abort', done), resolve())
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

/** Spreads requests evenly at `requestsPerSecond`; slots are handed out in call order. */
export class Pacer {
  private nextSlot = 0
  readonly intervalMs: number
  constructor(requestsPerSecond: number) {
    if (!(requestsPerSecond > 0)) throw new RangeError(`requestsPerSecond must be positive, got ${requestsPerSecond}`)
    this.intervalMs = 1000 / requestsPerSecond
  }

  async wait(signal?: AbortSignal): Promise<void> {
    const now = performance.now()
    const slot = Math.max(now, this.nextSlot)
    this.nextSlot = slot + this.intervalMs
    if (slot > now) await sleep(slot - now, signal)
  }
}

const RECORD = 8

/**
 * A request budget shared by processes through one file opened O_APPEND: each request appends an 8-byte
 * record unique to this budget object (4 random bytes + a sequence number), and the record's position in
 * the file is the request's number in the run. Appends are atomic, so the count is exact whatever the
 * interleaving: request n is sent when n <= limit. The file's size / 8 is the number of requests asked for.
 */
export class SharedBudget {
  private readonly tag = randomBytes(4)
  private seq = 0
  constructor(
    readonly file: string,
    readonly limit: number,
  ) {
    if (!(Number.isInteger(limit) && limit > 0)) throw new RangeError(`the request budget must be a positive integer, got ${limit}`)
  }

  /** Take one request: true while within the budget. */
  take(): boolean {
    const rec = Buffer.alloc(RECORD)
    this.tag.copy(rec, 0)
    rec.writeUInt32BE(++this.seq >>> 0, 4)
    const fd = openSync(this.file, 'a+')
    try {
      writeSync(fd, rec)
      const size = fstatSync(fd).size
      // Fast path: our record is somewhere in the file, so its number is at most size / 8.
      if (size / RECORD <= this.limit) return true
      const buf = Buffer.alloc(RECORD)
      for (let pos = size - RECORD; pos >= 0; pos -= RECORD) {
        readSync(fd, buf, 0, RECORD, pos)
        if (buf.equals(rec)) return pos / RECORD + 1 <= this.limit
      }
      return false
    } finally {
      closeSync(fd)
    }
  }

  /** Requests asked for so far across the run (sent or refused). */
  static asked(file: string): number {
    try {
      const fd = openSync(file, 'r')
      try {
        return Math.floor(fstatSync(fd).size / RECORD)
      } finally {
        closeSync(fd)
      }
    } catch {
      return 0
    }
  }
}
