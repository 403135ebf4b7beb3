// admin-conformance audit-log FILE|-
//
// Reads an authentication-service log (a file, or stdin with '-'), classifies every
// http.server.response line by the interface's activity table (scripts/audit-log/auditor.ts) and prints a summary
// per activity and per requester, an optional timeline of one requester, and the malformed lines.
// It streams: memory stays flat however large the file is.

import { stat } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import { scanModule } from './wasm-scanner.ts'
import {
  ACTIVITIES,
  Auditor,
  auditFile,
  DEFAULT_CLIENT_PREFIX,
  type AuditFileOptions,
  type AuditResult,
  type TimelineEntry,
} from './auditor.ts'

export const HELP = `usage: admin-conformance audit-log [options] FILE|-

Classify the requests of an authentication-service log (http.server.response lines; '-' reads
stdin). ANSI colours are ignored; both the v1.20 and the earlier stats format are understood.
Other log events (the WARN/ERROR line before an error response, jobs, startup) are counted apart.

options:
  --json                 print one JSON object instead of the human summary
  --requester R          also show the timeline of one requester: user:<id>, user:<id>(<name>),
                         oauth2-client:<id>, homeserver, a bare id, '(none)' for v1.20 lines
                         without a requester, '(unknown)' for pre-v1.20 lines (no fields)
  --client-prefix P      prefix of the client API for client login/logout (default ${DEFAULT_CLIENT_PREFIX})
  --max-malformed N      list at most N malformed lines (default 100; all are counted)
  --top N                requesters shown in the human summary (default 20; --json has all)
  --jobs N               split FILE across N worker threads (default: one per core, at most
                         4, for files of 512 MiB or more, 32 MiB with --engine js; one thread
                         below). Ignored for stdin and with --requester
  --engine E             wasm (default where it loads): canonical request lines are counted by a
                         WebAssembly scanner, every other line by the JavaScript one; js: all
                         lines in JavaScript (same results, 2-3x slower). --requester uses js
  --no-progress          no progress line on stderr (it is shown only when stderr is a terminal)
  -h, --help             this help

activities: ${wrap(ACTIVITIES.join(', ') + '.', 96)}
Each is counted with its outcome (ok/failed): e.g. POST /login answered 303 with a requester is
browser-login ok, answered 200 (form re-rendered) is browser-login-failed, a 401 on /oauth2/token
is token-issuance failed. A GraphQL 200 means the operation was attempted (failures are in the
response body, which the log does not show). Requests outside the table are 'other' (ok below 400).

--json prints: lines, requests, events, blank, malformedCount, malformed [{line, error, part,
column}] (1-based line and column numbers, column in the original line), malformedTruncated,
formats, activities, outcomes {activity: {ok, failed}}, operations {GraphQL operation name:
count}, requesters {key: {requester, username?, requests, activities}}, and timeline with
--requester.

exit status:
  0  every line was read and none was malformed
  1  the log was read, but some lines were malformed (they are listed, with their line numbers)
  2  usage error, or the input could not be read
`

function wrap(text: string, width: number): string {
  const out: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line)
      line = word
    } else line = line === '' ? word : `${line} ${word}`
  }
  out.push(line)
  return out.join('\n')
}

export interface AuditIo {
  stdin: Readable
  stdout: { write(s: string): unknown }
  stderr: { write(s: string): unknown; isTTY?: boolean }
}

function fmtInt(n: number): string {
  return n.toLocaleString('en-US')
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

export async function main(argv: string[], io: AuditIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        requester: { type: 'string' },
        'client-prefix': { type: 'string' },
        'max-malformed': { type: 'string' },
        top: { type: 'string' },
        jobs: { type: 'string' },
        engine: { type: 'string' },
        'no-progress': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (err) {
    return usageError(io, (err as Error).message)
  }
  const { values, positionals } = parsed
  if (values.help === true) {
    io.stdout.write(HELP)
    return 0
  }
  if (positionals.length !== 1) {
    return usageError(io, positionals.length === 0 ? 'missing FILE (use - for stdin)' : `expected one FILE, got ${positionals.length}`)
  }
  const maxMalformed = parseCount(values['max-malformed'], 'max-malformed', 100)
  if (typeof maxMalformed === 'string') return usageError(io, maxMalformed)
  const top = parseCount(values.top, 'top', 20)
  if (typeof top === 'string') return usageError(io, top)
  const jobs = values.jobs === undefined ? undefined : parseCount(values.jobs, 'jobs', 1)
  if (typeof jobs === 'string') return usageError(io, jobs)
  if (jobs === 0) return usageError(io, '--jobs must be at least 1')
  const engine = values.engine
  if (engine !== undefined && engine !== 'wasm' && engine !== 'js') return usageError(io, `--engine must be wasm or js, got '${engine}'`)
  if (engine === 'wasm' && scanModule() === null) return usageError(io, '--engine wasm: the WebAssembly scanner does not load here (scripts/audit-log/wasm/audit-scan.wasm missing, or no WebAssembly SIMD); use --engine js')
  const clientPrefix = values['client-prefix'] ?? DEFAULT_CLIENT_PREFIX
  if (clientPrefix !== '' && !clientPrefix.startsWith('/')) return usageError(io, `--client-prefix must start with '/', got '${clientPrefix}'`)
  const requester = values.requester
  if (requester !== undefined && requester.trim() === '') return usageError(io, '--requester needs a value')
  const json = values.json === true

  const file = positionals[0]!
  if (file !== '-') {
    // Check up front so that a wrong path is a usage error with a clear message.
    try {
      const st = await stat(file)
      if (st.isDirectory()) return usageError(io, `cannot read ${file}: it is a directory`)
    } catch (err) {
      return usageError(io, `cannot read ${file}: ${describeError(err)}`)
    }
  }

  const showProgress = io.stderr.isTTY === true && values['no-progress'] !== true
  let lastProgress = 0
  const opts: AuditFileOptions = { clientPrefix, maxMalformed }
  if (jobs !== undefined) opts.jobs = jobs
  if (engine !== undefined) opts.engine = engine
  if (requester !== undefined) {
    opts.requester = requester
    if (!json) {
      // Print the timeline while reading instead of keeping it: memory stays flat.
      opts.collectTimeline = false
      io.stdout.write(`timeline of ${requester}:\n`)
      opts.onTimeline = (e) => {
        if (showProgress) io.stderr.write('\r\x1b[K')
        io.stdout.write(timelineLine(e) + '\n')
      }
    }
  }
  const progress = (text: string): void => {
    const now = Date.now()
    if (now - lastProgress < 200) return
    lastProgress = now
    io.stderr.write(`\r\x1b[Kaudit-log: ${text}`)
  }

  if (showProgress) {
    opts.onProgress = ({ lines, bytes, total }) => {
      const pct = total !== undefined && total > 0 ? ` (${Math.min(100, Math.floor((bytes / total) * 100))}%)` : ''
      progress(`${fmtInt(lines)} lines, ${(bytes / 1048576).toFixed(1)} MiB${pct}`)
    }
  }

  let result: AuditResult
  try {
    if (file !== '-') {
      result = await auditFile(file, opts)
    } else {
      const auditor = new Auditor(opts)
      for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
        auditor.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
      }
      result = auditor.end()
    }
  } catch (err) {
    if (showProgress) io.stderr.write('\r\x1b[K')
    return usageError(io, `cannot read ${file === '-' ? 'stdin' : file}: ${describeError(err)}`)
  }
  if (showProgress) io.stderr.write('\r\x1b[K')

  if (json) io.stdout.write(JSON.stringify(result, null, 2) + '\n')
  else io.stdout.write(humanReport(result, { top, requester }))
  return result.malformedCount > 0 ? 1 : 0
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

function timelineLine(e: TimelineEntry): string {
  const extra = [e.operation !== undefined ? `op=${e.operation}` : '', e.clientAddress !== undefined ? `from ${e.clientAddress}` : '']
    .filter((x) => x !== '')
    .join(' ')
  return `  line ${e.line}  ${e.timestamp}  ${e.requestId}  ${e.method} ${e.path} ${e.status}  ${e.activity} ${e.outcome}${extra ? '  ' + extra : ''}`
}

function table(rows: string[][], rightAligned: Set<number>): string[] {
  const widths: number[] = []
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)))
  return rows.map((r) =>
    r
      .map((c, i) => (rightAligned.has(i) ? c.padStart(widths[i]!) : i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  )
}

export function humanReport(r: AuditResult, opts: { top: number; requester?: string | undefined }): string {
  const out: string[] = []
  if (opts.requester !== undefined) out.push('')
  out.push(
    `${fmtInt(r.lines)} lines: ${fmtInt(r.requests)} requests (v1.20 ${fmtInt(r.formats['v1.20'])}, pre-v1.20 ${fmtInt(r.formats['pre-v1.20'])}), ` +
      `${fmtInt(r.events)} other events, ${fmtInt(r.blank)} blank, ${fmtInt(r.malformedCount)} malformed`,
  )
  out.push('')
  const rows = [['activity', 'requests', 'ok', 'failed']]
  for (const a of ACTIVITIES) {
    const o = r.outcomes[a]
    rows.push([a, fmtInt(r.activities[a]), fmtInt(o.ok), fmtInt(o.failed)])
  }
  rows.push(['total', fmtInt(r.requests), '', ''])
  out.push(...table(rows, new Set([1, 2, 3])))

  const ops = Object.entries(r.operations)
  if (ops.length > 0) {
    out.push('', 'GraphQL operations (account self-service):')
    out.push(...table(ops.map(([name, n]) => ['  ' + name, fmtInt(n)]), new Set([1])))
  }

  const reqs = Object.values(r.requesters)
  if (reqs.length > 0) {
    const shown = reqs.slice(0, opts.top)
    out.push('', `requesters (${shown.length < reqs.length ? `top ${shown.length} of ${fmtInt(reqs.length)}` : fmtInt(reqs.length)}, by requests):`)
    const rrows = shown.map((s) => [
      '  ' + (s.username !== undefined ? `${s.requester}(${s.username})` : s.requester),
      fmtInt(s.requests),
      Object.entries(s.activities)
        .map(([a, n]) => `${a} ${fmtInt(n)}`)
        .join(', '),
    ])
    out.push(...table(rrows, new Set([1])))
  }

  if (r.malformedCount > 0) {
    out.push('', `malformed lines (${fmtInt(r.malformedCount)}):`)
    for (const m of r.malformed) out.push(`  line ${m.line}: ${m.error}`)
    if (r.malformedTruncated) out.push(`  … and ${fmtInt(r.malformedCount - r.malformed.length)} more (raise --max-malformed to list them)`)
  }
  return out.join('\n') + '\n'
}
