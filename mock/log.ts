// Writes one `http.server.response` line per request (and the event lines before it), formatted by the
// same module that parses them (lib/requestlog.ts), so the mock's format cannot drift from the grammar.
import { createWriteStream, type WriteStream } from 'node:fs'
import { formatEventLine, formatResponseLine, formatTimestamp, type LogFormat, type ResponseLine } from '../lib/requestlog.ts'

const METHOD_TAGS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE'])

export class RequestLog {
  private counter = 0
  private out: WriteStream | NodeJS.WriteStream | null
  private ownsStream: boolean
  private corked = false

  constructor(
    target: string | null | undefined,
    readonly format: LogFormat,
  ) {
    if (target === null) {
      this.out = null
      this.ownsStream = false
    } else if (target === undefined || target === '-') {
      this.out = process.stderr
      this.ownsStream = false
    } else {
      this.out = createWriteStream(target, { flags: 'a' })
      this.ownsStream = true
    }
  }

  /** the request id: method tag (or `_OTHER`) and a process-wide counter */
  nextRequestId(method: string): string {
    return `${METHOD_TAGS.has(method) ? method : '_OTHER'}-${++this.counter}`
  }

  /** Lines written in one event-loop turn go out in one write: under load that saves a syscall per request. */
  private write(line: string): void {
    const out = this.out!
    if (this.ownsStream && !this.corked) {
      this.corked = true
      ;(out as WriteStream).cork()
      setImmediate(() => {
        this.corked = false
        ;(out as WriteStream).uncork()
      })
    }
    out.write(line)
  }

  event(level: 'INFO' | 'WARN' | 'ERROR', target: string, requestId: string, message: string, at = new Date()): void {
    if (!this.out) return
    this.write(formatEventLine({ timestamp: formatTimestamp(at), level, target, requestId, message }) + '\n')
  }

  response(rec: Omit<ResponseLine, 'format'>): void {
    if (!this.out) return
    this.write(formatResponseLine(rec, { format: this.format }) + '\n')
  }

  close(): Promise<void> {
    const out = this.out
    this.out = null
    if (!out || !this.ownsStream) return Promise.resolve()
    return new Promise((resolve) => (out as WriteStream).end(resolve))
  }
}
