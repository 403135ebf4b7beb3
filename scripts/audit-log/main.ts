// admin-conformance audit-log FILE|-
//
// Reads an authentication-service log (a file, or stdin with '-'), classifies every
// http.server.response line by the activity table (activities.ts) and prints a summary per activity
// and per requester, the admin actions, the time range, an optional timeline of one requester, and
// the malformed lines. It streams: memory stays flat however large the file is.

import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import { Auditor, auditFile, DEFAULT_CLIENT_PREFIX, type AuditFileOptions, type AuditResult } from './auditor.ts'
import { quietOnClosedPipe, type Writable } from './closed-pipe.ts'
import { HELP } from './help.ts'
import { fmtInt, humanReport, timelineLine } from './report.ts'
import { requesterSelector } from './requesters.ts'
import { scanModule } from './wasm-scanner.ts'

export { HELP } from './help.ts'
export { humanReport } from './report.ts'

export interface AuditIo {
  stdin: Readable
  stdout: Writable
  stderr: { write(s: string): unknown; isTTY?: boolean }
}

const OPTIONS = {
  json: { type: 'boolean' },
  requester: { type: 'string' },
  'client-prefix': { type: 'string' },
  'max-malformed': { type: 'string' },
  'max-admin-actions': { type: 'string' },
  top: { type: 'string' },
  jobs: { type: 'string' },
  engine: { type: 'string' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

interface Settings {
  file: string
  json: boolean
  top: number
  requester: string | undefined
  progress: boolean
  opts: AuditFileOptions
}

function usageError(io: AuditIo, msg: string): number {
  io.stderr.write(`audit-log: ${msg}\nrun 'admin-conformance audit-log --help' for usage\n`)
  return 2
}

function parseCount(value: string | undefined, name: string, dflt: number): number | string {
  if (value === undefined) return dflt
  if (!/^[0-9]+$/.test(value)) return `--${name} needs a non-negative integer, got '${value}'`
  return Number(value)
}

/** The settings of a run, or the message of a usage error; `help` when --help was asked for. */
function settings(argv: string[]): Settings | 'help' | string {
  let parsed
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS })
  } catch (err) {
    return (err as Error).message
  }
  const { values, positionals } = parsed
  if (values.help === true) return 'help'
  if (positionals.length !== 1) return positionals.length === 0 ? 'missing FILE (use - for stdin)' : `expected one FILE, got ${positionals.length}`
  const maxMalformed = parseCount(values['max-malformed'], 'max-malformed', 100)
  if (typeof maxMalformed === 'string') return maxMalformed
  const maxAdminActions = parseCount(values['max-admin-actions'], 'max-admin-actions', 100)
  if (typeof maxAdminActions === 'string') return maxAdminActions
  const top = parseCount(values.top, 'top', 20)
  if (typeof top === 'string') return top
  const jobs = values.jobs === undefined ? undefined : parseCount(values.jobs, 'jobs', 1)
  if (typeof jobs === 'string') return jobs
  if (jobs === 0) return '--jobs must be at least 1'
  const engine = values.engine
  if (engine !== undefined && engine !== 'wasm' && engine !== 'js') return `--engine must be wasm or js, got '${engine}'`
  if (engine === 'wasm' && scanModule() === null) return '--engine wasm: the WebAssembly scanner does not load here (scripts/audit-log/wasm/audit-scan.wasm missing, or no WebAssembly SIMD); use --engine js'
  const clientPrefix = values['client-prefix'] ?? DEFAULT_CLIENT_PREFIX
  if (clientPrefix !== '' && !clientPrefix.startsWith('/')) return `--client-prefix must start with '/', got '${clientPrefix}'`
  const requester = values.requester
  if (requester !== undefined && requester.trim() === '') return '--requester needs a value'
  const opts: AuditFileOptions = { clientPrefix, maxMalformed, maxAdminActions }
  if (jobs !== undefined) opts.jobs = jobs
  if (engine !== undefined) opts.engine = engine
  if (requester !== undefined) opts.requester = requester
  return { file: positionals[0]!, json: values.json === true, top, requester, progress: values['no-progress'] !== true, opts }
}

export async function main(argv: string[], io: AuditIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const out = quietOnClosedPipe(io.stdout)
  const s = settings(argv)
  if (s === 'help') {
    out.write(HELP)
    return 0
  }
  if (typeof s === 'string') return usageError(io, s)
  if (s.file !== '-') {
    // Check up front so that a wrong path is a usage error with a clear message.
    try {
      const st = await stat(s.file)
      if (st.isDirectory()) return usageError(io, `cannot read ${s.file}: it is a directory`)
    } catch (err) {
      return usageError(io, `cannot read ${s.file}: ${describeError(err)}`)
    }
  }
  const showProgress = io.stderr.isTTY === true && s.progress
  if (s.requester !== undefined && !s.json) {
    // Print the timeline while reading instead of keeping it: memory stays flat.
    s.opts.collectTimeline = false
    out.write(`timeline of ${s.requester}:\n`)
    s.opts.onTimeline = (e) => {
      if (showProgress) io.stderr.write('\r\x1b[K')
      out.write(timelineLine(e) + '\n')
    }
  }
  if (showProgress) s.opts.onProgress = progressReporter(io)
  let result: AuditResult
  try {
    result = await audit(s, io)
  } catch (err) {
    if (showProgress) io.stderr.write('\r\x1b[K')
    return usageError(io, `cannot read ${s.file === '-' ? 'stdin' : s.file}: ${describeError(err)}`)
  }
  if (showProgress) io.stderr.write('\r\x1b[K')
  const input = s.file === '-' ? 'stdin' : s.file
  const empty = result.requests === 0
  if (s.json) out.write(JSON.stringify(result, null, 2) + '\n')
  else if (!empty || result.lines > result.blank) out.write(humanReport(result, { top: s.top, requester: s.requester }))
  if (empty) {
    io.stderr.write(`audit-log: ${input} holds no http.server.response line (${result.lines === result.blank ? 'the input is empty' : `${fmtInt(result.lines)} lines read`}): nothing was audited\n`)
    return 1
  }
  if (s.requester !== undefined && !requesterSeen(result, s.requester)) {
    io.stderr.write(`audit-log: --requester ${s.requester}: no request of ${input} was made by it${requesterHint(result, s.requester)}\n`)
    return 2
  }
  return result.malformedCount > 0 ? 1 : 0
}

async function audit(s: Settings, io: AuditIo): Promise<AuditResult> {
  if (s.file !== '-') return auditFile(s.file, s.opts)
  const auditor = new Auditor(s.opts)
  for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
    auditor.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
  }
  return auditor.end()
}

function progressReporter(io: AuditIo): NonNullable<AuditFileOptions['onProgress']> {
  let lastProgress = 0
  return ({ lines, bytes, total }) => {
    const now = Date.now()
    if (now - lastProgress < 200) return
    lastProgress = now
    const pct = total !== undefined && total > 0 ? ` (${Math.min(100, Math.floor((bytes / total) * 100))}%)` : ''
    io.stderr.write(`\r\x1b[Kaudit-log: ${fmtInt(lines)} lines, ${(bytes / 1048576).toFixed(1)} MiB${pct}`)
  }
}

/** Did any request of the log come from the selected requester? */
function requesterSeen(r: AuditResult, selector: string): boolean {
  const keys = requesterSelector(selector)
  return Object.keys(r.requesters).some((k) => keys.has(k))
}

/** The closest requester of the log, or a few of them. */
function requesterHint(r: AuditResult, selector: string): string {
  const keys = Object.keys(r.requesters)
  const want = selector.trim().toLowerCase()
  const near = keys.find((k) => k.toLowerCase().includes(want) || want.includes(k.toLowerCase()))
  if (near !== undefined) return `; did you mean '${near}'?`
  const shown = keys.slice(0, 5)
  return `; requesters of this log (most requests first): ${shown.join(', ')}${keys.length > shown.length ? `, … (${keys.length} in all)` : ''}`
}

function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  switch (e.code) {
    case 'ENOENT':
      return 'no such file'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EISDIR':
      return 'it is a directory'
    default:
      return e.message ?? String(err)
  }
}
