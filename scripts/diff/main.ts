// `admin-conformance diff BEFORE [AFTER]`: compare two snapshots (or a snapshot and a live target given
// by the target options), leave out what varies by itself (the noise measured by `snapshot --noise-from`
// or a second "before" with --before2), and label each remaining change expected when the release tables
// explain it, unexpected otherwise. Exit 0 when every change is expected, 1 when one is not.
import { existsSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import {
  CommandError,
  EXIT,
  EXIT_CODES_HELP,
  UsageError,
  checkChoice,
  failWith,
  parseCommandLine,
  processIo,
  type Io,
} from '../common/index.ts'
import { TARGET_FLAGS, TARGET_HELP, hasTarget, targetOptions } from '../common/target-options.ts'
import { measureNoise } from '../snapshot/aspects.ts'
import { readSnapshot, SnapshotFileError, type Snapshot } from '../snapshot/format.ts'
import { snapshotLive } from '../snapshot/main.ts'
import { compareSnapshots, noiseOf, type CompareMode } from './compare.ts'
import { ACROSS_RULES } from './across.ts'
import { MODEL_GAPS } from '../../lib/model-gaps.ts'
import { explain } from './explain.ts'
import { DIFF_REPORTERS, diffReport, htmlReport, markdownReport, terminalReport, type DiffReport, type DiffReporter } from './report.ts'

export const HELP = `usage: admin-conformance diff BEFORE.json [AFTER.json] [options]

Compares two snapshots of a deployment (admin-conformance snapshot), or a snapshot with the live target
given by the target options, operation by operation: statuses, error codes and texts, fields added,
removed or retyped, headers, routes gained or lost. What varies by itself is left out: the noise a
snapshot recorded (snapshot --noise-from) and what differs between BEFORE and a second snapshot taken
before the upgrade (--before2). Each remaining change is labelled expected when a row of the release
tables (lib/data: features by release, interface-relevant changes, known deviations) dated between the
two releases explains it, and names that row; unexpected otherwise.

With --across-deployments the two snapshots are of two different deployments (the bundled mock and a
real server claiming the same release, a staging and a production server): they hold different data, so
only what a model of the release can promise is compared:
${ACROSS_RULES.map((r) => `  - ${r}`).join('\n')}
A change that no table row explains is labelled a known model gap when lib/data/model-gaps.json records
it (with its reason), unexpected otherwise.

options:
  --across-deployments     compare two deployments (shapes, statuses, error texts, headers, routes), not
                           one deployment with itself (values too)
  --before2 FILE           a second snapshot of the same deployment before the change: the noise
  --reporter R             ${DIFF_REPORTERS.join(', ')} (default terminal; from --output's extension)
  --output FILE            write the report there instead of standard output
  -h, --help               print this help

${TARGET_HELP}

${EXIT_CODES_HELP} (here: 0 every change is expected, 1 a change is unexpected, 3 the live target does
not answer or rejects its token)`

const FLAGS = {
  ...TARGET_FLAGS,
  'across-deployments': { type: 'boolean' },
  before2: { type: 'string' },
  reporter: { type: 'string', choices: DIFF_REPORTERS },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

function load(what: string, file: string): Snapshot {
  try {
    return readSnapshot(file)
  } catch (e) {
    if (e instanceof SnapshotFileError) throw new UsageError(`${what}: ${e.message}`)
    throw e
  }
}

function reporterOf(values: { reporter?: string; output?: string }): DiffReporter {
  if (values.reporter !== undefined) {
    checkChoice('--reporter', values.reporter, DIFF_REPORTERS)
    return values.reporter as DiffReporter
  }
  const ext = values.output ? path.extname(values.output).toLowerCase() : ''
  return ext === '.json' ? 'json' : ext === '.md' ? 'markdown' : ext === '.html' || ext === '.htm' ? 'html' : 'terminal'
}

export function render(r: DiffReport, reporter: DiffReporter): string {
  if (reporter === 'json') return JSON.stringify(r, null, 1) + '\n'
  if (reporter === 'markdown') return markdownReport(r)
  if (reporter === 'html') return htmlReport(r)
  return terminalReport(r)
}

/** The comparison itself, for the command and the tests. */
export function diffSnapshots(
  before: Snapshot,
  after: Snapshot,
  names: { before: string; after: string },
  before2?: { snap: Snapshot; name: string },
  mode: CompareMode = 'same-deployment',
): DiffReport {
  const sources = [before.noise?.from, after.noise?.from, before2?.name].filter((s): s is string => !!s)
  const noise = noiseOf(before.noise?.aspects, after.noise?.aspects, before2 ? measureNoise(before, before2.snap) : undefined)
  const cmp = compareSnapshots(before, after, noise, mode)
  const explained = explain(before, after, cmp, mode === 'across-deployments' ? MODEL_GAPS : undefined)
  const side = (file: string, s: Snapshot) => ({
    file,
    ...(s.target.mas?.version ? { mas: s.target.mas.version } : {}),
    ...(s.target.hs?.version ? { hs: s.target.hs.version } : {}),
  })
  return diffReport(side(names.before, before), side(names.after, after), sources, cmp, explained, mode)
}

export async function run(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { values, positionals } = parseCommandLine(argv, FLAGS, { positionals: true })
    if (values.help) {
      io.out(HELP + '\n')
      return EXIT.pass
    }
    if (positionals.length === 0) throw new UsageError('BEFORE is required: a snapshot file (admin-conformance snapshot --output FILE)')
    if (positionals.length > 2) throw new UsageError(`at most two snapshots (BEFORE and AFTER), got ${positionals.length}`)
    const reporter = reporterOf(values)
    if (values.output !== undefined) {
      const dir = path.dirname(path.resolve(values.output))
      if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--output: the folder ${dir} does not exist`)
    }
    const o = targetOptions(values, env)
    if (positionals.length === 2 && hasTarget(o))
      throw new UsageError('give AFTER as a file or as a live target (--mas-url/--hs-url), not both')
    if (positionals.length === 1 && !hasTarget(o))
      throw new UsageError('AFTER is missing: give a second snapshot file, or the live target with --mas-url/--hs-url')
    const before = load('BEFORE', positionals[0]!)
    const before2 =
      values.before2 !== undefined ? { snap: load('--before2', values.before2), name: path.basename(values.before2) } : undefined
    const after = positionals.length === 2 ? load('AFTER', positionals[1]!) : await snapshotLive(o, 'diff', io)
    const afterName = positionals.length === 2 ? positionals[1]! : 'the live target'
    const mode: CompareMode = values['across-deployments'] ? 'across-deployments' : 'same-deployment'
    const report = diffSnapshots(before, after, { before: positionals[0]!, after: afterName }, before2, mode)
    const text = render(report, reporter)
    if (values.output !== undefined) {
      try {
        writeFileSync(path.resolve(values.output), text)
      } catch (e) {
        throw new CommandError(
          `--output: ${values.output} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          EXIT.failed,
        )
      }
    } else io.out(text)
    return report.explained.unexpected > 0 ? EXIT.failed : EXIT.pass
  } catch (e) {
    return failWith(io, 'diff', e)
  }
}

export async function main(argv: string[]): Promise<number> {
  return run(argv, processIo)
}
