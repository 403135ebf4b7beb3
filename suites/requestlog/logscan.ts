// Reading and analysing a target's request log for the log suite: a streaming line reader (file or
// stdin, a file that is still being written included) and one pass over the log that sorts every
// offence into the bucket of the check that reports it. Memory stays bounded: the pass keeps counters,
// the first offences of each kind, and the request counters seen (to find reused ids).
import { createReadStream } from 'node:fs'
import { isIP } from 'node:net'
import type { Readable } from 'node:stream'
import { levelForStatus, parseLine, reasonPhrase, type EventLine, type ParseError, type ResponseLine } from '../../lib/requestlog.ts'

/** Methods the service tags with their own name; any other method is tagged `_OTHER`. */
export const STANDARD_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'CONNECT',
  'TRACE',
])
export const OTHER_TAG = '_OTHER'

export function tagFor(method: string): string {
  return STANDARD_METHODS.has(method) ? method : OTHER_TAG
}

const HTTP_TAGS = new Set([...STANDARD_METHODS, OTHER_TAG])

/** An event line of a request whose response line is missing is only an offence once the log has gone on this long. */
export const IN_FLIGHT_GRACE_MS = 60_000

/** How many offences each bucket keeps for the report (all are counted). */
export const KEEP = 20

export interface LogLine {
  /** 1-based line number in the log */
  no: number
  text: string
}

/**
 * The lines of a log, streamed. A final line without a newline is yielded with `partial: true` when the
 * source may still be growing (a file being written): it is then a line cut in the middle, not a
 * malformed one. From stdin (read to its end) the last line is complete.
 */
export async function* readLines(
  source: string | Readable,
  opts: { fromByte?: number } = {},
): AsyncGenerator<LogLine & { partial: boolean; endByte: number }> {
  const stream: Readable = typeof source === 'string' ? createReadStream(source, { start: opts.fromByte ?? 0 }) : source
  const growing = typeof source === 'string'
  let rest: Buffer | null = null
  let no = 0
  let byte = opts.fromByte ?? 0
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    if (rest !== null) {
      buf = Buffer.concat([rest, buf])
      rest = null
    }
    let start = 0
    for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
      byte += nl + 1 - start
      yield { no: ++no, text: buf.toString('utf8', start, nl), partial: false, endByte: byte }
      start = nl + 1
    }
    if (start < buf.length) rest = Buffer.from(buf.subarray(start))
  }
  if (rest !== null && rest.length > 0) {
    const text = rest.toString('utf8')
    if (growing) yield { no: no + 1, text, partial: true, endByte: byte }
    else yield { no: ++no, text, partial: false, endByte: byte + rest.length }
  }
}

export interface Offence {
  line: number
  /** the log line, clipped (callers redact before printing) */
  text: string
  detail: string
}

export class Bucket {
  count = 0
  readonly items: Offence[] = []
  add(line: number, text: string, detail: string): void {
    this.count++
    if (this.items.length < KEEP) this.items.push({ line, text: text.length > 400 ? text.slice(0, 400) + '…' : text, detail })
  }
}

export interface ParsedResponse {
  rec: ResponseLine
  /** the line's level did not match its status (the record was recovered with the right one) */
  wrongLevel?: { found: string; expected: string }
}

/**
 * Parses a response line. A line whose only fault is a level that does not match its status (the parser
 * rejects those) is recovered with the right level, so that the level check reports it and every other
 * check still sees the record.
 */
export function parseResponse(
  text: string,
):
  | { kind: 'response'; value: ParsedResponse }
  | { kind: 'event'; event: EventLine }
  | { kind: 'blank' }
  | { kind: 'malformed'; error: ParseError } {
  const p = parseLine(text)
  if (p.kind === 'response') return { kind: 'response', value: { rec: p.line } }
  if (p.kind === 'event') return { kind: 'event', event: p.event }
  if (p.kind === 'blank') return { kind: 'blank' }
  const e = p.error
  const m = /^level (\w+) does not match status \d+ \(expected (INFO|WARN|ERROR)\)/.exec(e.message)
  if (e.part === 'level' && m) {
    const col = e.column - 1
    const found = m[1]!
    if (text.startsWith(found, col)) {
      const fixed = text.slice(0, col) + m[2]! + text.slice(col + found.length)
      const again = parseLine(fixed)
      if (again.kind === 'response') return { kind: 'response', value: { rec: again.line, wrongLevel: { found, expected: m[2]! } } }
    }
  }
  return { kind: 'malformed', error: e }
}

export function describeParseError(e: ParseError): string {
  return `${e.part} at column ${e.column}: ${e.message}`
}

/** The call-context rejections after which the request is unauthenticated (no requester may be logged). */
const UNAUTHENTICATED_REJECTIONS = [
  'Missing authorization header',
  'Invalid authorization header',
  'Invalid type of access token',
  'Unknown access token',
]
const CALL_CONTEXT_TARGET = 'mas_handlers::admin::call_context'

function endsWithSegment(path: string, tail: string): boolean {
  return path === tail || path.endsWith(tail)
}

function timeMs(ts: string): number {
  // Date keeps milliseconds; that is plenty for the in-flight grace.
  const t = Date.parse(ts.length > 24 ? ts.slice(0, 23) + 'Z' : ts)
  return Number.isNaN(t) ? 0 : t
}

export interface Analysis {
  /** lines read (a cut last line of a growing file not included) */
  lines: number
  responses: number
  events: number
  blank: number
  /** a last line still being written was left out */
  partialTail: boolean
  formats: { 'v1.20': number; 'pre-v1.20': number }
  parse: Bucket
  level: Bucket
  query: Bucket
  reason: Bucket
  requestIdTag: Bucket
  sharedId: Bucket
  /** events of a request whose response line is not (yet) in the log, within the grace at the end */
  inFlight: number
  unauthenticated: Bucket
  /** unauthenticated responses found (rejection event before them) */
  unauthenticatedSeen: number
  requesterForm: Bucket
  requestersSeen: number
  tokenRequester: Bucket
  tokenRequestsSeen: number
  clientAddress: Bucket
  graphql: Bucket
  graphqlSeen: number
  fieldsOnOldFormat: Bucket
}

/** One pass over a whole log. */
export async function analyse(source: string | Readable): Promise<Analysis> {
  const a: Analysis = {
    lines: 0,
    responses: 0,
    events: 0,
    blank: 0,
    partialTail: false,
    formats: { 'v1.20': 0, 'pre-v1.20': 0 },
    parse: new Bucket(),
    level: new Bucket(),
    query: new Bucket(),
    reason: new Bucket(),
    requestIdTag: new Bucket(),
    sharedId: new Bucket(),
    inFlight: 0,
    unauthenticated: new Bucket(),
    unauthenticatedSeen: 0,
    requesterForm: new Bucket(),
    requestersSeen: 0,
    tokenRequester: new Bucket(),
    tokenRequestsSeen: 0,
    clientAddress: new Bucket(),
    graphql: new Bucket(),
    graphqlSeen: 0,
    fieldsOnOldFormat: new Bucket(),
  }
  // counter → the line that answered it (response lines), to find ids used twice
  const answered = new Map<number, number>()
  // counter → first event line of a request not answered yet
  const pending = new Map<number, { line: number; text: string; tag: string; at: number }>()
  const unauthenticated = new Set<number>()
  let lastAt = 0

  for await (const l of readLines(source)) {
    if (l.partial) {
      a.partialTail = true
      break
    }
    a.lines++
    const p = parseResponse(l.text)
    if (p.kind === 'blank') {
      a.blank++
      continue
    }
    if (p.kind === 'malformed') {
      const d = describeParseError(p.error)
      a.parse.add(l.no, l.text, d)
      if (p.error.part === 'requester') a.requesterForm.add(l.no, l.text, d)
      if (p.error.part === 'client.address') a.clientAddress.add(l.no, l.text, d)
      continue
    }
    if (p.kind === 'event') {
      a.events++
      const ev = p.event
      const at = timeMs(ev.timestamp)
      if (at > lastAt) lastAt = at
      const id = ev.requestId
      if (id === undefined || !HTTP_TAGS.has(id.method)) continue
      const done = answered.get(id.counter)
      if (done === undefined && !pending.has(id.counter)) pending.set(id.counter, { line: l.no, text: l.text, tag: id.method, at })
      if (ev.target === CALL_CONTEXT_TARGET && UNAUTHENTICATED_REJECTIONS.some((m) => ev.message.startsWith(m)))
        unauthenticated.add(id.counter)
      continue
    }

    // An http.server.response line.
    const { rec, wrongLevel } = p.value
    a.responses++
    a.formats[rec.format]++
    const at = timeMs(rec.timestamp)
    if (at > lastAt) lastAt = at
    const id = `${rec.requestId.method}-${rec.requestId.counter}`

    if (wrongLevel)
      a.level.add(
        l.no,
        l.text,
        `status ${rec.status} is logged at ${wrongLevel.found}; the service logs ${levelForStatus(rec.status)} for ${Math.floor(rec.status / 100)}xx`,
      )
    if (rec.path.includes('?'))
      a.query.add(l.no, l.text, `the request line of ${id} has a query string: ${rec.path.slice(rec.path.indexOf('?'))}`)
    const phrase = reasonPhrase(rec.status)
    if (rec.reason !== phrase) a.reason.add(l.no, l.text, `status ${rec.status} is followed by "${rec.reason}", expected "${phrase}"`)
    const tag = tagFor(rec.method)
    if (rec.requestId.method !== tag)
      a.requestIdTag.add(l.no, l.text, `request id ${id} for a ${rec.method} request; expected ${tag}-<counter>`)

    const counter = rec.requestId.counter
    const before = answered.get(counter)
    if (before !== undefined)
      a.sharedId.add(l.no, l.text, `the request id ${id} already answered the request of line ${before}: each request has its own id`)
    else answered.set(counter, l.no)
    const ev = pending.get(counter)
    if (ev !== undefined) {
      pending.delete(counter)
      if (ev.tag !== rec.requestId.method)
        a.sharedId.add(ev.line, ev.text, `event line with id ${ev.tag}-${counter}, but the response line ${l.no} of that request has ${id}`)
    }

    if (rec.requester !== undefined) a.requestersSeen++
    if (unauthenticated.has(counter)) {
      unauthenticated.delete(counter)
      a.unauthenticatedSeen++
      if (rec.requester !== undefined)
        a.unauthenticated.add(
          l.no,
          l.text,
          `${id} was rejected before authentication (see the event line before it) but is logged with requester=${requesterText(rec)}`,
        )
    }

    if (rec.method === 'POST' && (endsWithSegment(rec.path, '/oauth2/token') || endsWithSegment(rec.path, '/oauth2/revoke'))) {
      a.tokenRequestsSeen++
      if (rec.requester !== undefined && rec.requester.kind !== 'oauth2-client') {
        a.tokenRequester.add(
          l.no,
          l.text,
          `${rec.path} is attributed to ${requesterText(rec)}; a token request is attributed to the OAuth 2.0 client`,
        )
      } else if (rec.requester === undefined && rec.status === 200 && rec.format === 'v1.20') {
        a.tokenRequester.add(l.no, l.text, `a successful ${rec.path} request has no requester; it is attributed to the OAuth 2.0 client`)
      }
    } else if (rec.method === 'POST' && endsWithSegment(rec.path, '/oauth2/introspect')) {
      a.tokenRequestsSeen++
      if (rec.requester !== undefined && rec.requester.kind === 'user') {
        a.tokenRequester.add(
          l.no,
          l.text,
          `introspection is attributed to ${requesterText(rec)}; it is attributed to the calling client or the homeserver, never the token's subject`,
        )
      } else if (rec.requester === undefined && rec.status === 200 && rec.format === 'v1.20') {
        a.tokenRequester.add(
          l.no,
          l.text,
          'a successful introspection has no requester; it is attributed to the calling client or the homeserver',
        )
      }
    }

    if (rec.clientAddress !== undefined && isIP(rec.clientAddress) === 0)
      a.clientAddress.add(l.no, l.text, `client.address=${rec.clientAddress} is not an IP address`)

    const hasGraphql = rec.graphqlOperationType !== undefined || rec.graphqlOperationName !== undefined
    if (endsWithSegment(rec.path, '/graphql')) a.graphqlSeen++
    else if (hasGraphql)
      a.graphql.add(l.no, l.text, `graphql.operation.* on ${rec.method} ${rec.path}; these fields belong to /graphql requests only`)

    if (rec.format === 'pre-v1.20') {
      const fields = [
        rec.requester !== undefined && 'requester',
        rec.clientAddress !== undefined && 'client.address',
        rec.graphqlOperationType !== undefined && 'graphql.operation.type',
        rec.graphqlOperationName !== undefined && 'graphql.operation.name',
      ].filter(Boolean)
      if (fields.length)
        a.fieldsOnOldFormat.add(
          l.no,
          l.text,
          `pre-v1.20 stats (no db/queries/fetched) with ${fields.join(', ')}: the fields and the v1.20 stats came together`,
        )
    }
  }

  for (const [counter, ev] of pending) {
    if (lastAt - ev.at < IN_FLIGHT_GRACE_MS) {
      a.inFlight++
      continue
    }
    a.sharedId.add(
      ev.line,
      ev.text,
      `event line of request ${ev.tag}-${counter}, but no http.server.response line with that id follows: all lines of one request share its id`,
    )
  }
  return a
}

export function requesterText(rec: ResponseLine): string {
  const r = rec.requester
  if (!r) return '(none)'
  return r.kind === 'user'
    ? r.username === undefined
      ? `user:${r.id}`
      : `user:${r.id}(${r.username})`
    : r.kind === 'oauth2-client'
      ? `oauth2-client:${r.id}`
      : 'homeserver'
}

export interface MarkedLine {
  /** 1-based line number in the whole file */
  no: number
  text: string
  parsed: ReturnType<typeof parseResponse>
}

/**
 * Follows a log file from where it ended when `start()` was called: `poll()` reads the complete lines
 * written since and keeps those that contain the marker. Line numbers count from the start of the file.
 */
export class LogTail {
  private byte = 0
  private lineNo = 0
  readonly marked: MarkedLine[] = []

  /** the byte offset read up to */
  get bytesRead(): number {
    return this.byte
  }

  constructor(
    readonly file: string,
    readonly marker: string,
  ) {}

  /** Skips what the file holds now (counting its lines, for the line numbers). */
  async start(): Promise<void> {
    for await (const l of readLines(this.file)) {
      if (l.partial) break
      this.byte = l.endByte
      this.lineNo = l.no
    }
  }

  async poll(): Promise<void> {
    const base = this.lineNo
    for await (const l of readLines(this.file, { fromByte: this.byte })) {
      if (l.partial) break
      this.byte = l.endByte
      this.lineNo = base + l.no
      if (l.text.includes(this.marker)) this.marked.push({ no: this.lineNo, text: l.text, parsed: parseResponse(l.text) })
    }
  }
}
