// The formatter: what the mock writes. Every value it prints is one the scanner reads back (the
// round-trip tests check it); values the real service could not print are a RangeError.

import { isIP } from 'node:net'
import { FIELD, HTTP_VERSIONS, KNOWN_FIELDS, RESPONSE_EVENT_NAME } from './grammar.ts'
import { formatRequester, requesterOrError } from './requester.ts'
import { rustDebugQuote } from './rust-debug.ts'
import { levelForStatus, reasonPhrase } from './status.ts'
import { formatTimestamp } from './timestamp.ts'
import { isContextToken, isTraceId } from './tokens.ts'
import type { Level, LogFormat, ResponseLine } from './types.ts'

const LEVEL_PAD: Record<Level, string> = { TRACE: 'TRACE', DEBUG: 'DEBUG', INFO: ' INFO', WARN: ' WARN', ERROR: 'ERROR' }
const LEVEL_COLOUR: Record<Level, string> = { TRACE: '35', DEBUG: '34', INFO: '32', WARN: '33', ERROR: '31' }
const RESET = '\x1b[0m'

function fmtHead(timestamp: string, level: Level, name: string, context: string | undefined, ansi: boolean): string {
  const lvl = ansi ? `\x1b[${LEVEL_COLOUR[level]}m${LEVEL_PAD[level]}${RESET}` : LEVEL_PAD[level]
  const nm = ansi ? `\x1b[2m${name}${RESET}` : name
  let out = `${timestamp} ${lvl} ${nm} `
  if (context !== undefined) out += ansi ? `\x1b[1m${context}${RESET} - ` : `${context} - `
  return out
}

function fmtField(name: string, value: string, ansi: boolean): string {
  return ansi ? ` \x1b[3m${name}${RESET}\x1b[2m=${RESET}${value}` : ` ${name}=${value}`
}

function fmtTraceId(id: string, ansi: boolean): string {
  return ansi ? ` \x1b[3m${FIELD.traceId}${RESET}=${id}` : ` ${FIELD.traceId}=${id}`
}

function fmtMs(ms: number, what: string): string {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`formatResponseLine: stats.${what} must be a finite number >= 0`)
  return ms.toFixed(1) + 'ms'
}

function fmtCount(n: number, what: string): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`formatResponseLine: stats.${what} must be an integer >= 0`)
  return String(n)
}

function checkToken(value: string, what: string): void {
  if (value.length === 0 || /[\s"]/.test(value)) {
    throw new RangeError(`formatResponseLine: ${what} must be non-empty without spaces or quotes, got ${JSON.stringify(value)}`)
  }
}

function timestampString(ts: string | Date): string {
  return typeof ts === 'string' ? ts : formatTimestamp(ts)
}

/** What the formatter takes: a ResponseLine without `format`; level and reason default from the status. */
export type ResponseLineInput = Omit<ResponseLine, 'format' | 'timestamp' | 'level' | 'reason'> & {
  timestamp: string | Date
  level?: Level
  reason?: string
}

/**
 * Formats one `http.server.response` line (without the trailing newline).
 * The pre-v1.20 form has the short stats and no structured fields (requester, client.address,
 * graphql.*, extra fields are left out); `trace.id` is printed in both forms because the
 * formatter appended it before v1.20 already. The query string, if the path has one, is cut off
 * as the service does. Throws RangeError on values the real service could not print.
 */
export function formatResponseLine(rec: ResponseLineInput, opts: { format: LogFormat; ansi?: boolean }): string {
  const ansi = opts.ansi === true
  const { status } = rec
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RangeError(`formatResponseLine: status must be an integer 100..599, got ${status}`)
  }
  const level = levelForStatus(status)
  if (rec.level !== undefined && rec.level !== level) {
    throw new RangeError(`formatResponseLine: level ${rec.level} does not match status ${status} (the service logs ${level})`)
  }
  const reason = rec.reason ?? reasonPhrase(status)
  if (reason.length === 0 || /["\n\r]/.test(reason)) throw new RangeError('formatResponseLine: bad reason phrase')
  checkToken(rec.method, 'method')
  checkToken(rec.requestId.method, 'requestId.method')
  if (!Number.isSafeInteger(rec.requestId.counter) || rec.requestId.counter < 0) {
    throw new RangeError('formatResponseLine: requestId.counter must be an integer >= 0')
  }
  const q = rec.path.indexOf('?')
  const path = q === -1 ? rec.path : rec.path.slice(0, q)
  // The http crate lets a few odd characters such as '"' through in paths, but never a space.
  if (path.length === 0 || /\s/.test(path))
    throw new RangeError(`formatResponseLine: path must be non-empty without spaces, got ${JSON.stringify(path)}`)
  if (!HTTP_VERSIONS.has(rec.httpVersion)) throw new RangeError(`formatResponseLine: unknown httpVersion ${String(rec.httpVersion)}`)

  const s = rec.stats
  let stats = `polls: ${fmtCount(s.polls, 'polls')}, cpu: ${fmtMs(s.cpuMs, 'cpuMs')}, `
  if (opts.format === 'v1.20') {
    if (s.dbMs === undefined || s.queries === undefined || s.fetched === undefined) {
      throw new RangeError('formatResponseLine: the v1.20 format needs stats.dbMs, stats.queries and stats.fetched')
    }
    stats += `db: ${fmtMs(s.dbMs, 'dbMs')}, elapsed: ${fmtMs(s.elapsedMs, 'elapsedMs')}, queries: ${fmtCount(s.queries, 'queries')}, fetched: ${fmtCount(s.fetched, 'fetched')}`
  } else if (opts.format === 'pre-v1.20') {
    stats += `elapsed: ${fmtMs(s.elapsedMs, 'elapsedMs')}`
  } else {
    throw new RangeError(`formatResponseLine: unknown format ${String(opts.format)}`)
  }

  const ua = rec.userAgent === null ? '"-"' : rustDebugQuote(rec.userAgent)
  let out =
    fmtHead(timestampString(rec.timestamp), level, RESPONSE_EVENT_NAME, `${rec.requestId.method}-${rec.requestId.counter}`, ansi) +
    `"${rec.method} ${path} HTTP/${rec.httpVersion}" ${status} ${reason} ${ua} [${stats}]`

  if (opts.format === 'v1.20') {
    if (rec.requester !== undefined) {
      const r = formatRequester(rec.requester)
      checkToken(r, 'requester')
      const back = requesterOrError(r)
      if (typeof back === 'string') throw new RangeError(`formatResponseLine: requester ${r}: ${back}`)
      out += fmtField(FIELD.requester, r, ansi)
    }
    if (rec.clientAddress !== undefined) {
      if (isIP(rec.clientAddress) === 0) throw new RangeError(`formatResponseLine: clientAddress ${rec.clientAddress} is not an IP address`)
      out += fmtField(FIELD.clientAddress, rec.clientAddress, ansi)
    }
    if (rec.graphqlOperationType !== undefined) out += fmtField(FIELD.graphqlOperationType, rec.graphqlOperationType, ansi)
    if (rec.graphqlOperationName !== undefined) {
      checkToken(rec.graphqlOperationName, 'graphqlOperationName')
      out += fmtField(FIELD.graphqlOperationName, rec.graphqlOperationName, ansi)
    }
    if (rec.extraFields !== undefined) {
      for (const [k, v] of Object.entries(rec.extraFields)) {
        checkToken(k, 'extra field name')
        checkToken(v, `extra field ${k}`)
        if (k.includes('=') || KNOWN_FIELDS.has(k)) throw new RangeError(`formatResponseLine: bad extra field name ${k}`)
        out += fmtField(k, v, ansi)
      }
    }
  }
  if (rec.traceId !== undefined) {
    if (!isTraceId(rec.traceId)) throw new RangeError('formatResponseLine: traceId must be 32 lowercase hex digits')
    out += fmtTraceId(rec.traceId, ansi)
  }
  return out
}

/**
 * Formats any other event line: the WARN/ERROR line logged before an error response (target is
 * then `module::path:line`), or a background job's line. Without requestId the context part is left
 * out, as for events outside any request.
 */
export function formatEventLine(opts: {
  timestamp: string | Date
  level: Level
  target: string
  requestId?: string
  message: string
  ansi?: boolean
}): string {
  const ansi = opts.ansi === true
  if (opts.target.length === 0 || /\s/.test(opts.target)) throw new RangeError('formatEventLine: target must be non-empty without spaces')
  if (opts.target === RESPONSE_EVENT_NAME) throw new RangeError('formatEventLine: use formatResponseLine for http.server.response')
  if (opts.requestId !== undefined && !isContextToken(opts.requestId, 0, opts.requestId.length)) {
    throw new RangeError(`formatEventLine: requestId must look like <tag>-<number>, got ${JSON.stringify(opts.requestId)}`)
  }
  if (/[\n\r]/.test(opts.message)) throw new RangeError('formatEventLine: the message must be a single line')
  return fmtHead(timestampString(opts.timestamp), opts.level, opts.target, opts.requestId, ansi) + opts.message
}
