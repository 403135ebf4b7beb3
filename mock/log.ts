// Writes one `http.server.response` line per request (and the event lines before it), formatted by the
// same module that parses them (lib/requestlog.ts), so the mock's format cannot drift from the grammar.
import { createWriteStream, type WriteStream } from 'node:fs'
import { formatEventLine, formatResponseLine, formatTimestamp, levelForStatus, type LogFormat, type ResponseLine } from '../lib/requestlog.ts'

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
    // One line per event: a multi-line message (a stack) is folded, never refused.
    this.write(formatEventLine({ timestamp: formatTimestamp(at), level, target, requestId, message: message.replace(/\s*[\r\n]+\s*/g, ' | ') }) + '\n')
  }

  response(rec: Omit<ResponseLine, 'format'>): void {
    if (!this.out) return
    // The formatter refuses what the real service cannot print; the log faults print it anyway by
    // editing the formatted line (the level word, the query string) rather than bypassing the grammar.
    const level = levelForStatus(rec.status)
    let line = formatResponseLine({ ...rec, level }, { format: this.format })
    if (rec.level !== level) line = line.slice(0, 28) + rec.level.padStart(5) + line.slice(33)
    const q = rec.path.indexOf('?')
    if (q !== -1) line = line.replace(`"${rec.method} ${rec.path.slice(0, q)} HTTP/`, `"${rec.method} ${rec.path} HTTP/`)
    this.write(line + '\n')
  }

  close(): Promise<void> {
    const out = this.out
    this.out = null
    if (!out || !this.ownsStream) return Promise.resolve()
    return new Promise((resolve) => (out as WriteStream).end(resolve))
  }
}
