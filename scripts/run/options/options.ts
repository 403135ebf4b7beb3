// The run command's options: flags and environment variables, checked and normalised. Every mistake is a
// UsageError naming the flag (and the closest known name when it looks misspelt).
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { AREA_NAMES, type Area } from '../../../lib/areas.ts'
import { VersionError, parseVersion } from '../../../lib/versions.ts'
import {
  UsageError,
  checkChoice,
  durationSeconds,
  parseCommandLine,
  positiveNumber,
  type OptionSpecs,
  type ParsedValues,
} from '../../common/index.ts'
import { TARGET_FLAGS, byteSize, targetOptions, type TargetOptions } from '../../common/target-options.ts'

export const REPORTERS = ['tap', 'junit', 'json', 'jsonstream', 'markdown', 'html'] as const
export type Reporter = (typeof REPORTERS)[number]

/** The target options (scripts/common/target-options.ts, shared with snapshot and diff), then the run's own. */
export interface Options extends TargetOptions {
  allowWrites: boolean
  /** --allow-token-in-url: the checks that send a token as ?access_token= may run */
  allowTokenInUrl: boolean
  allowPartial: boolean
  strict: boolean
  logFile?: string
  mockFaults: string[]
  faultMatrix: boolean
  /** areas named with --area (undefined: every area the target has) */
  areas?: Area[]
  grep?: string
  reporter?: Reporter
  output?: string
  /** --jobs; undefined: defaultJobs() (../target/bundled-mock.ts) */
  jobs?: number
  timeoutS: number
  /** --mock-hs-version / --mock-mas-version: the releases the bundled mock claims and behaves as */
  mockHsVersion?: string
  mockMasVersion?: string
}

/** A real target's run ends at this many seconds unless --deadline says otherwise (the bundled mock: none). */
export const DEFAULT_DEADLINE_S = 900

/** The run's deadline in seconds, or undefined for none: --deadline, else 900 s against a real target. */
export function runDeadlineS(o: Options): number | undefined {
  if (o.deadlineS !== undefined) return o.deadlineS > 0 ? o.deadlineS : undefined
  return o.masUrl !== undefined || o.hsUrl !== undefined ? DEFAULT_DEADLINE_S : undefined
}

const FLAGS = {
  ...TARGET_FLAGS,
  'allow-writes': { type: 'boolean' },
  'allow-token-in-url': { type: 'boolean' },
  'allow-partial': { type: 'boolean' },
  strict: { type: 'boolean' },
  'log-file': { type: 'string' },
  'mock-fault': { type: 'string', multiple: true },
  'fault-matrix': { type: 'boolean' },
  area: { type: 'string', multiple: true, choices: AREA_NAMES, list: true },
  grep: { type: 'string', multiple: true },
  reporter: { type: 'string', choices: REPORTERS },
  output: { type: 'string' },
  jobs: { type: 'string' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  // versions of the bundled mock (the versions engineer's block)
  'mock-hs-version': { type: 'string' },
  'mock-mas-version': { type: 'string' },
} as const satisfies OptionSpecs

type Values = ParsedValues<typeof FLAGS>

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  const { values } = parseCommandLine(argv, FLAGS)
  if (values.help) return 'help'
  const o: Options = {
    ...targetOptions(values, env),
    allowWrites: values['allow-writes'] === true,
    allowTokenInUrl: values['allow-token-in-url'] === true,
    allowPartial: values['allow-partial'] === true,
    strict: values.strict === true,
    logFile: values['log-file'],
    mockFaults: values['mock-fault'] ?? [],
    faultMatrix: values['fault-matrix'] === true,
    jobs: positiveNumber('--jobs', values.jobs, { integer: true, max: 64 }),
    timeoutS: durationSeconds('--timeout', values.timeout, { min: 1, max: 3600 }) ?? 120,
  }
  bundledMockOnly(o)
  mockVersionOptions(o, values)
  if (o.faultMatrix && values.timeout === undefined) o.timeoutS = 900
  if (values.area) o.areas = areaOption(values.area)
  if (values.grep) o.grep = grepOption(values.grep)
  outputOptions(o, values)
  if (o.faultMatrix && o.reporter === 'html')
    throw new UsageError('--reporter html describes a run, not a fault matrix; use json or junit with --fault-matrix')
  return o
}

function bundledMockOnly(o: Options): void {
  const hasTarget = o.masUrl !== undefined || o.hsUrl !== undefined
  if (hasTarget && o.mockFaults.length > 0)
    throw new UsageError('--mock-fault applies to the bundled mock only; leave out --mas-url/--hs-url')
  if (hasTarget && o.faultMatrix) throw new UsageError('--fault-matrix applies to the bundled mock only; leave out --mas-url/--hs-url')
}

// --- versions of the bundled mock (the versions engineer's block) ---
/** A release version as the mock will claim it: strict (`1.67.0` or `v1.67.0`), anything else is a usage error. */
function mockVersion(flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  try {
    parseVersion(raw)
  } catch (e) {
    if (e instanceof VersionError) throw new UsageError(`${flag}: ${e.message}`)
    throw e
  }
  return raw.trim()
}

function mockVersionOptions(o: Options, values: Values): void {
  o.mockHsVersion = mockVersion('--mock-hs-version', values['mock-hs-version'])
  o.mockMasVersion = mockVersion('--mock-mas-version', values['mock-mas-version'])
  const given = [o.mockHsVersion !== undefined && '--mock-hs-version', o.mockMasVersion !== undefined && '--mock-mas-version'].filter(
    Boolean,
  )
  if (given.length && (o.masUrl !== undefined || o.hsUrl !== undefined)) {
    throw new UsageError(
      `${given.join(' and ')} ${given.length > 1 ? 'apply' : 'applies'} to the bundled mock only; leave out --mas-url/--hs-url (a real target reports its own version)`,
    )
  }
}
// --- end of the versions block ---

function areaOption(raw: string[]): Area[] {
  const areas = raw
    .flatMap((a) => a.split(','))
    .map((a) => a.trim())
    .filter(Boolean)
  for (const a of areas) checkChoice('--area', a, AREA_NAMES)
  if (areas.length === 0) throw new UsageError('--area needs at least one area')
  return [...new Set(areas as Area[])]
}

/** One or more patterns (plain or /re/flags), checked here; several select the checks matching any. */
function grepOption(raw: string[]): string {
  for (const g of raw) {
    const m = /^\/(.*)\/([a-z]*)$/s.exec(g)
    try {
      new RegExp(m ? m[1]! : g, m ? m[2] : '')
    } catch (e) {
      throw new UsageError(`--grep '${g}' is not a regular expression: ${(e as Error).message}`)
    }
  }
  return raw.length === 1 ? raw[0]! : raw.map((p) => `(?:${/^\/(.*)\/[a-z]*$/s.exec(p)?.[1] ?? p})`).join('|')
}

/** The grep pattern as a RegExp (what tap does with it: /re/flags or a plain pattern). */
export function grepRegExp(grep: string): RegExp {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(grep)
  return m ? new RegExp(m[1]!, m[2]) : new RegExp(grep)
}

function outputOptions(o: Options, values: Values): void {
  if (values.reporter !== undefined) {
    checkChoice('--reporter', values.reporter, REPORTERS)
    o.reporter = values.reporter as Reporter
  }
  if (values.output === undefined) return
  if (values.output === '') throw new UsageError('--output needs a file name')
  o.output = path.resolve(values.output)
  const ext = path.extname(o.output).toLowerCase()
  o.reporter ??= ext === '.xml' ? 'junit' : ext === '.json' ? 'json' : ext === '.html' || ext === '.htm' ? 'html' : 'tap'
  const dir = path.dirname(o.output)
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--output: the folder ${dir} does not exist`)
  if (existsSync(o.output) && statSync(o.output).isDirectory()) throw new UsageError(`--output: ${o.output} is a folder; give a file name`)
  try {
    accessSync(existsSync(o.output) ? o.output : dir, constants.W_OK)
  } catch {
    throw new UsageError(`--output: ${o.output} cannot be written (no write permission)`)
  }
}

export { byteSize }
