// Writes one `http.server.response` line per request (and the event lines before it), formatted by the
// same module that parses them (lib/requestlog.ts), so the mock's format cannot drift from the grammar.
import { closeSync, openSync, writeSync } from 'node:fs'
import {
  formatEventLine,
  formatResponseLine,
  formatTimestamp,
  levelForStatus,
  type LogFormat,
  type ResponseLine,
} from '../../lib/requestlog.ts'

const METHOD_TAGS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE'])
/** flush at once past this many pending characters, whatever the turn */
const FLUSH_AT = 256 * 1024

/**
 * Lines written in one event-loop turn go out in one write (under load that saves a syscall and a
 * thread-pool round trip per request). A file is written synchronously at the end of the turn, so a
 * line is on disk before the next turn starts and nothing is lost on exit; stderr keeps its stream.
 */
class LineSink {
  private pending = ''
  /** bytes a full pipe did not take yet */
  private rest: Buffer | null = null
  private scheduled = false
  private readonly flushSoon = () => {
    this.scheduled = false
    this.flush()
  }

  constructor(
    private fd: number | null,
    private readonly stream: NodeJS.WritableStream | null,
  ) {}

  write(text: string): void {
    this.pending += text
    if (this.pending.length >= FLUSH_AT) this.flush()
    else if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flushSoon)
    }
  }

  flush(): void {
    const text = this.pending
    this.pending = ''
    if (this.stream) {
      if (text !== '') this.stream.write(text)
      return
    }
    if (this.fd === null || (text === '' && this.rest === null)) return
    const bytes =
      text === '' ? this.rest! : this.rest === null ? Buffer.from(text, 'utf8') : Buffer.concat([this.rest, Buffer.from(text, 'utf8')])
    try {
      this.rest = writeAll(this.fd, bytes)
    } catch (err) {
      // A full disk or a closed pipe must not take the mock down: say so once and stop logging.
      process.stderr.write(`mock: the request log can no longer be written (${(err as Error).message}); logging stops\n`)
      this.fd = null
      this.rest = null
      return
    }
    // A non-blocking pipe that is full: the rest goes out on a later turn, in order.
    if (this.rest !== null && !this.scheduled) {
      this.scheduled = true
      setTimeout(this.flushSoon, 10)
    }
  }

  close(): void {
    this.flush()
    if (this.fd !== null) closeSync(this.fd)
    this.fd = null
  }
}

/** Writes `bytes`; returns what a full non-blocking pipe did not take (EAGAIN), null when all went out. */
function writeAll(fd: number, bytes: Buffer): Buffer | null {
  let buf = bytes
  while (buf.length > 0) {
    let n: number
    try {
      n = writeSync(fd, buf)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return buf
      throw err
    }
    buf = buf.subarray(n)
  }
  return null
}

export class RequestLog {
  private counter = 0
  private sink: LineSink | null
  private readonly onExit = () => this.sink?.flush()

  constructor(
    target: string | null | undefined,
    readonly format: LogFormat,
  ) {
    if (target === null) this.sink = null
    else if (target === undefined || target === '-') this.sink = new LineSink(null, process.stderr)
    else this.sink = new LineSink(openSync(target, 'a'), null)
    if (this.sink) process.once('exit', this.onExit)
  }

  /** the request id: method tag (or `_OTHER`) and a process-wide counter */
  nextRequestId(method: string): string {
    return `${METHOD_TAGS.has(method) ? method : '_OTHER'}-${++this.counter}`
  }

  event(level: 'INFO' | 'WARN' | 'ERROR', target: string, requestId: string, message: string, at = new Date()): void {
    if (!this.sink) return
    // One line per event: a multi-line message (a stack) is folded, never refused.
    this.sink.write(
      formatEventLine({ timestamp: formatTimestamp(at), level, target, requestId, message: message.replace(/\s*[\r\n]+\s*/g, ' | ') }) +
        '\n',
    )
  }

  response(rec: Omit<ResponseLine, 'format'>): void {
    if (!this.sink) return
    // The formatter refuses what the real service cannot print; the log faults print it anyway by
    // editing the formatted line (the level word, the query string) rather than bypassing the grammar.
    const level = levelForStatus(rec.status)
    let line = formatResponseLine({ ...rec, level }, { format: this.format })
    if (rec.level !== level) line = line.slice(0, 28) + rec.level.padStart(5) + line.slice(33)
    const q = rec.path.indexOf('?')
    if (q !== -1) line = line.replace(`"${rec.method} ${rec.path.slice(0, q)} HTTP/`, `"${rec.method} ${rec.path} HTTP/`)
    this.sink.write(line + '\n')
  }

  close(): Promise<void> {
    const sink = this.sink
    this.sink = null
    process.off('exit', this.onExit)
    sink?.close()
    return Promise.resolve()
  }
}
