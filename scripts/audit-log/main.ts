// admin-conformance audit-log FILE|-
//
// Reads an authentication-service log (a file, or stdin with '-'), classifies every
// http.server.response line by the activity table (activities.ts) and prints a summary per activity
// and per requester, the admin actions, the time range, an optional timeline of one requester, and
// the malformed lines. It streams: memory stays flat however large the file is.

import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import {
  closest,
  CommandError,
  EXIT,
  failWith,
  parseCommandLine,
  positiveNumber,
  prefixed,
  UsageError,
  type Io,
  type OptionSpecs,
} from '../common/index.ts'
import { Auditor, auditFile, DEFAULT_CLIENT_PREFIX, type AuditEngine, type AuditFileOptions, type AuditResult } from './index.ts'
import { quietOnClosedPipe, type Writable } from './closed-pipe.ts'
import { HELP } from './help.ts'
import { fmtInt, humanReport, timelineLine } from './report.ts'
import { requesterSelector } from './requesters.ts'
import { scanModule } from './wasm/module.ts'
import { streamSafe, visible } from '../../lib/escape.ts'

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
  engine: { type: 'string', choices: ['wasm', 'js'] },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs

const COMMAND = 'audit-log'

interface Settings {
  file: string
  json: boolean
  top: number
  requester: string | undefined
  progress: boolean
  opts: AuditFileOptions
}

const count = (option: string, value: string | undefined, dflt: number) =>
  positiveNumber(option, value, { integer: true, allowZero: true }) ?? dflt

/** The settings of a run, or `help` when --help was asked for; a UsageError for anything wrong. */
function settings(argv: string[]): Settings | 'help' {
  const { values, positionals } = parseCommandLine(argv, OPTIONS, { positionals: true })
  if (values.help === true) return 'help'
  if (positionals.length !== 1)
    throw new UsageError(positionals.length === 0 ? 'missing FILE (use - for stdin)' : `expected one FILE, got ${positionals.length}`)
  const maxMalformed = count('--max-malformed', values['max-malformed'], 100)
  const maxAdminActions = count('--max-admin-actions', values['max-admin-actions'], 100)
  const top = count('--top', values.top, 20)
  const jobs = positiveNumber('--jobs', values.jobs, { integer: true, min: 1 })
  const engine = values.engine as AuditEngine | undefined
  if (engine === 'wasm' && scanModule() === null) {
    throw new UsageError(
      '--engine wasm: the WebAssembly scanner does not load here (scripts/audit-log/wasm/audit-scan.wasm missing, or no WebAssembly SIMD); use --engine js',
    )
  }
  const clientPrefix = values['client-prefix'] ?? DEFAULT_CLIENT_PREFIX
  if (clientPrefix !== '' && !clientPrefix.startsWith('/'))
    throw new UsageError(`--client-prefix must start with '/', got '${clientPrefix}'`)
  const requester = values.requester
  if (requester !== undefined && requester.trim() === '') throw new UsageError('--requester needs a value')
  const opts: AuditFileOptions = { clientPrefix, maxMalformed, maxAdminActions }
  if (jobs !== undefined) opts.jobs = jobs
  if (engine !== undefined) opts.engine = engine
  if (requester !== undefined) opts.requester = requester
  return { file: positionals[0]!, json: values.json === true, top, requester, progress: values['no-progress'] !== true, opts }
}

export async function main(
  argv: string[],
  io: AuditIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const out = quietOnClosedPipe(io.stdout)
  const cio: Io = { out: (t) => out.write(t), err: (t) => void io.stderr.write(t) }
  try {
    const s = settings(argv)
    if (s === 'help') {
      out.write(HELP)
      return EXIT.pass
    }
    return await run(s, io, out)
  } catch (err) {
    return failWith(cio, COMMAND, err)
  }
}

async function run(s: Settings, io: AuditIo, out: { write(s: string): void }): Promise<number> {
  const input = s.file === '-' ? 'stdin' : s.file
  if (s.file !== '-') {
    // Check up front so that a wrong path is a usage error with a clear message.
    const st = await stat(s.file).catch((err: unknown) => {
      throw new UsageError(`cannot read ${s.file}: ${describeError(err)}`)
    })
    if (st.isDirectory()) throw new UsageError(`cannot read ${s.file}: it is a directory`)
  }
  const showProgress = io.stderr.isTTY === true && s.progress
  const clearProgress = () => showProgress && io.stderr.write('\r\x1b[K')
  if (s.requester !== undefined && !s.json) {
    // Print the timeline while reading instead of keeping it: memory stays flat.
    s.opts.collectTimeline = false
    out.write(`timeline of ${visible(s.requester)}:\n`)
    s.opts.onTimeline = (e) => {
      clearProgress()
      out.write(timelineLine(e) + '\n')
    }
  }
  if (showProgress) s.opts.onProgress = progressReporter(io)
  const result = await audit(s, io)
    .catch((err: unknown) => {
      // Only a failing read is the input's fault; anything else is audit-log's, and says so.
      if (/^E[A-Z]+$/.test(String((err as NodeJS.ErrnoException | undefined)?.code)))
        throw new UsageError(`cannot read ${input}: ${describeError(err)}`)
      throw new CommandError(`auditing ${input} failed inside audit-log (a bug, not the input's fault): ${describeError(err)}`, EXIT.failed)
    })
    .finally(clearProgress)
  const empty = result.requests === 0
  // JSON escapes the C0 controls; streamSafe the rest (C1, bidi, U+2028...) as \uXXXX, the same values
  if (s.json) out.write(streamSafe(JSON.stringify(result, null, 2)) + '\n')
  else if (!empty || result.lines > result.blank) out.write(humanReport(result, { top: s.top, requester: s.requester }))
  if (empty) {
    const what = result.lines === result.blank ? 'the input is empty' : `${fmtInt(result.lines)} lines read`
    throw new CommandError(`${input} holds no http.server.response line (${what}): nothing was audited`, EXIT.failed)
  }
  if (s.requester !== undefined && !requesterSeen(result, s.requester)) {
    throw new CommandError(
      visible(`--requester ${s.requester}: no request of ${input} was made by it${requesterHint(result, s.requester)}`),
      EXIT.usage,
    )
  }
  return result.malformedCount > 0 ? EXIT.failed : EXIT.pass
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
    io.stderr.write(`\r\x1b[K${prefixed(COMMAND, `${fmtInt(lines)} lines, ${(bytes / 1048576).toFixed(1)} MiB${pct}`)}`)
  }
}

/** Did any request of the log come from the selected requester? */
function requesterSeen(r: AuditResult, selector: string): boolean {
  const keys = requesterSelector(selector)
  return Object.keys(r.requesters).some((k) => keys.has(k))
}

/** The closest requester of the log (by its key, its printed form or its bare id), or a few of them. */
function requesterHint(r: AuditResult, selector: string): string {
  const keys = Object.keys(r.requesters)
  const want = selector.trim()
  // What a user may have typed (key, printed form, bare id, username) -> what to suggest.
  const forms = new Map<string, string>()
  for (const [k, v] of Object.entries(r.requesters)) {
    const printed = v.username !== undefined ? `${k}(${v.username})` : k
    forms.set(k, k)
    forms.set(printed, printed)
    if (v.username !== undefined) forms.set(v.username, printed)
    const colon = k.indexOf(':')
    if (colon > 0) forms.set(k.slice(colon + 1), k)
  }
  const near = closest(want, forms.keys())
  if (near !== undefined) return `; did you mean '${forms.get(near)}'?`
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
