// The run command's options: flags and environment variables, checked and normalised. Every mistake is a
// UsageError naming the flag (and the closest known name when it looks misspelt).
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import path from 'node:path'
import { AREA_NAMES, type Area } from '../../lib/areas.ts'
import { DEFAULT_CLIENT_PREFIX, DEFAULT_HS_PREFIX, DEFAULT_TIMEOUTS, TargetError, normaliseBaseUrl, normalisePrefix } from '../../lib/target.ts'
import { VersionError, parseVersion } from '../../lib/versions.ts'
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../lib/http.ts'
import { UsageError, checkChoice, durationSeconds, parseCommandLine, positiveNumber, type OptionSpecs, type ParsedValues } from '../common/index.ts'

export const REPORTERS = ['tap', 'junit', 'json', 'jsonstream', 'markdown', 'html'] as const
export type Reporter = (typeof REPORTERS)[number]

export interface Options {
  masUrl?: string
  masToken?: string
  masUserToken?: string
  hsUrl?: string
  hsToken?: string
  hsUserToken?: string
  hsPrefix: string
  clientPrefix: string
  allowWrites: boolean
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
  /** --jobs; undefined: defaultJobs() (bundled-mock.ts) */
  jobs?: number
  timeoutS: number
  requestTimeoutMs: number
  /** --mock-hs-version / --mock-mas-version: the releases the bundled mock claims and behaves as */
  mockHsVersion?: string
  mockMasVersion?: string
  // --- production manners (issue 16): rate, request budget, response size cap
  /** requests per second across the whole run (--rate) */
  rate?: number
  /** requests of the whole run (--max-requests) */
  maxRequests?: number
  /** cap on one response's body, in bytes (--max-response-size) */
  maxResponseBytes: number
  /** --deadline for the whole run, in seconds; 0: none; undefined: the default (runDeadlineS) */
  deadlineS?: number
}

/** A real target's run ends at this many seconds unless --deadline says otherwise (the bundled mock: none). */
export const DEFAULT_DEADLINE_S = 900

/** The run's deadline in seconds, or undefined for none: --deadline, else 900 s against a real target. */
export function runDeadlineS(o: Options): number | undefined {
  if (o.deadlineS !== undefined) return o.deadlineS > 0 ? o.deadlineS : undefined
  return o.masUrl !== undefined || o.hsUrl !== undefined ? DEFAULT_DEADLINE_S : undefined
}

const FLAGS = {
  'mas-url': { type: 'string' },
  'mas-token': { type: 'string' },
  'mas-user-token': { type: 'string' },
  'hs-url': { type: 'string' },
  'hs-token': { type: 'string' },
  'hs-user-token': { type: 'string' },
  'hs-prefix': { type: 'string' },
  'client-prefix': { type: 'string' },
  'allow-writes': { type: 'boolean' },
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
  'request-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  // versions of the bundled mock (the versions engineer's block)
  'mock-hs-version': { type: 'string' },
  'mock-mas-version': { type: 'string' },
  // production manners (issue 16)
  rate: { type: 'string' },
  'max-requests': { type: 'string' },
  'max-response-size': { type: 'string' },
  deadline: { type: 'string' },
} as const satisfies OptionSpecs

type Values = ParsedValues<typeof FLAGS>


export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  const { values } = parseCommandLine(argv, FLAGS)
  if (values.help) return 'help'
  const pick = (flag: string | undefined, name: string) => (flag !== undefined ? flag : env[name] !== undefined && env[name] !== '' ? env[name] : undefined)
  const o: Options = {
    masUrl: pick(values['mas-url'], 'MAS_URL'),
    masToken: pick(values['mas-token'], 'MAS_ADMIN_TOKEN'),
    masUserToken: pick(values['mas-user-token'], 'MAS_USER_TOKEN'),
    hsUrl: pick(values['hs-url'], 'HS_URL'),
    hsToken: pick(values['hs-token'], 'HS_ADMIN_TOKEN'),
    hsUserToken: pick(values['hs-user-token'], 'HS_USER_TOKEN'),
    hsPrefix: DEFAULT_HS_PREFIX,
    clientPrefix: DEFAULT_CLIENT_PREFIX,
    allowWrites: values['allow-writes'] === true,
    allowPartial: values['allow-partial'] === true,
    strict: values.strict === true,
    logFile: values['log-file'],
    mockFaults: values['mock-fault'] ?? [],
    faultMatrix: values['fault-matrix'] === true,
    jobs: positiveNumber('--jobs', values.jobs, { integer: true, max: 64 }),
    timeoutS: durationSeconds('--timeout', values.timeout, { min: 1, max: 3600 }) ?? 120,
    requestTimeoutMs: (durationSeconds('--request-timeout', values['request-timeout'], { min: 0.1, max: 600 }) ?? DEFAULT_TIMEOUTS.requestMs / 1000) * 1000,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  }
  mannerOptions(o, values)
  targetOptions(o, values)
  mockVersionOptions(o, values)
  if (o.faultMatrix && values.timeout === undefined) o.timeoutS = 900
  if (values.area) o.areas = areaOption(values.area)
  if (values.grep) o.grep = grepOption(values.grep)
  outputOptions(o, values)
  if (o.faultMatrix && o.reporter === 'html') throw new UsageError('--reporter html describes a run, not a fault matrix; use json or junit with --fault-matrix')
  return o
}

function targetOptions(o: Options, values: Values): void {
  try {
    if (o.masUrl !== undefined) o.masUrl = normaliseBaseUrl(o.masUrl, values['mas-url'] !== undefined ? '--mas-url' : 'MAS_URL')
    if (o.hsUrl !== undefined) o.hsUrl = normaliseBaseUrl(o.hsUrl, values['hs-url'] !== undefined ? '--hs-url' : 'HS_URL')
    if (values['hs-prefix'] !== undefined) o.hsPrefix = normalisePrefix(values['hs-prefix'], '--hs-prefix')
    if (values['client-prefix'] !== undefined) o.clientPrefix = normalisePrefix(values['client-prefix'], '--client-prefix')
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message)
    throw e
  }
  const hasTarget = o.masUrl !== undefined || o.hsUrl !== undefined
  if (!o.masUrl && (values['mas-token'] !== undefined || values['mas-user-token'] !== undefined)) {
    throw new UsageError('an auth service token was given without --mas-url (or MAS_URL)')
  }
  if (!o.hsUrl && (values['hs-token'] !== undefined || values['hs-user-token'] !== undefined)) {
    throw new UsageError('a homeserver token was given without --hs-url (or HS_URL)')
  }
  if (hasTarget && o.mockFaults.length > 0) throw new UsageError('--mock-fault applies to the bundled mock only; leave out --mas-url/--hs-url')
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
  const given = [o.mockHsVersion !== undefined && '--mock-hs-version', o.mockMasVersion !== undefined && '--mock-mas-version'].filter(Boolean)
  if (given.length && (o.masUrl !== undefined || o.hsUrl !== undefined)) {
    throw new UsageError(`${given.join(' and ')} ${given.length > 1 ? 'apply' : 'applies'} to the bundled mock only; leave out --mas-url/--hs-url (a real target reports its own version)`)
  }
}
// --- end of the versions block ---

function areaOption(raw: string[]): Area[] {
  const areas = raw.flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean)
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

// --- production manners (issue 16)

/** --rate, --max-requests and --max-response-size. */
function mannerOptions(o: Options, values: Values): void {
  const rate = positiveNumber('--rate', values.rate, { min: 0.01, max: 100_000, unit: 'requests per second' })
  if (rate !== undefined) o.rate = rate
  const max = positiveNumber('--max-requests', values['max-requests'], { integer: true, min: 1, max: 100_000_000 })
  if (max !== undefined) o.maxRequests = max
  if (values['max-response-size'] !== undefined) o.maxResponseBytes = byteSize('--max-response-size', values['max-response-size'])
  const d = values.deadline
  if (d !== undefined) o.deadlineS = /^\s*(0+|none)\s*$/i.test(d) ? 0 : durationSeconds('--deadline', d, { min: 1, max: 7 * 24 * 3600 })
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 }

/** `4MiB`, `512k`, `1048576` (bytes); units are binary (k = 1024). At least 1 KiB, at most 1 GiB. */
export function byteSize(option: string, raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw)
  const unit = m?.[2]?.toLowerCase() ?? ''
  const n = m && unit in UNITS ? Math.floor(Number(m[1]) * UNITS[unit]!) : NaN
  if (!Number.isFinite(n) || n < 1024 || n > 1024 ** 3) {
    throw new UsageError(`${option} must be a size from 1KiB to 1GiB, such as 4MiB, 512KiB or 1048576 (bytes), got '${raw.slice(0, 40)}'`)
  }
  return n
}
