// Rendering a report in the chosen format and writing it. A report that cannot be written fails the run.
import { writeFile } from 'node:fs/promises'
import { redact } from '../../../lib/http.ts'
import { streamSafe } from '../../../lib/escape.ts'
import { matrixJunit, type MatrixReport } from '../target/fault-matrix.ts'
import { htmlReport } from './html.ts'
import { junit } from './junit.ts'
import { markdownReport } from './markdown.ts'
import type { Reporter } from '../options/options.ts'
import type { RunReport } from '../results/results.ts'

/** tap's own reporters over the raw stream. */
async function tapReporter(kind: 'jsonstream' | 'markdown', raw: string): Promise<string> {
  const mod = (await import('@tapjs/reporter')) as unknown as Record<string, new () => NodeJS.ReadWriteStream>
  const stream = new (kind === 'jsonstream' ? mod.JSONStream! : mod.MarkdownStream!)()
  let out = ''
  stream.on('data', (d: Buffer | string) => (out += d.toString()))
  await new Promise<void>((resolve) => {
    stream.on('end', () => resolve())
    stream.end(raw)
  })
  return out
}

export async function renderRun(reporter: Reporter, report: RunReport, raw: string): Promise<string> {
  switch (reporter) {
    case 'json':
      return JSON.stringify(report, null, 2) + '\n'
    case 'tap':
      return raw
    case 'junit':
      return junit(report)
    case 'html':
      return htmlReport(report)
    case 'markdown':
      return markdownReport(report)
    default:
      return tapReporter(reporter, raw)
  }
}

export async function renderMatrix(reporter: Reporter, matrix: MatrixReport, raw: string): Promise<string> {
  if (reporter === 'json') return JSON.stringify(matrix, null, 2) + '\n'
  if (reporter === 'junit') return matrixJunit(matrix)
  if (reporter === 'tap') return raw
  if (reporter === 'html') throw new Error('the html reporter describes a run, not a fault matrix; use json or junit')
  return tapReporter(reporter, raw)
}

/**
 * Writes the report (redacted) to the file or to stdout; the error message when the file cannot be
 * written. Last guard of every format: no control, format or separator character but the newline
 * (each reporter escaped the target's text already; in JSON the `\uXXXX` escape keeps the value).
 */
export async function writeReport(
  text: string,
  secrets: string[],
  output: string | undefined,
  stdout: { write(s: string): unknown },
): Promise<string | undefined> {
  const safe = streamSafe(redact(text, secrets))
  if (!output) {
    stdout.write(safe)
    return undefined
  }
  try {
    await writeFile(output, safe)
    return undefined
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    return `the report could not be written to ${output}: ${err.code ?? ''}${err.code ? ' ' : ''}${err.message.replace(/^[A-Z]+: /, '')}`
  }
}
