// The target options every command that talks to a deployment shares (run, snapshot, diff): base URLs,
// tokens (flags or the environment), prefixes, and the production manners (rate, request budget, response
// size cap, request timeout). Parsed once here so that the commands cannot drift apart.
import {
  DEFAULT_CLIENT_PREFIX,
  DEFAULT_HS_PREFIX,
  DEFAULT_TIMEOUTS,
  TargetError,
  normaliseBaseUrl,
  normalisePrefix,
} from '../../lib/target.ts'
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../lib/http.ts'
import { UsageError } from './messages.ts'
import { durationSeconds, positiveNumber, type OptionSpecs } from './args.ts'

export const TARGET_FLAGS = {
  'mas-url': { type: 'string' },
  'mas-token': { type: 'string' },
  'mas-user-token': { type: 'string' },
  'hs-url': { type: 'string' },
  'hs-token': { type: 'string' },
  'hs-user-token': { type: 'string' },
  'hs-prefix': { type: 'string' },
  'client-prefix': { type: 'string' },
  'request-timeout': { type: 'string' },
  rate: { type: 'string' },
  'max-requests': { type: 'string' },
  'max-response-size': { type: 'string' },
  deadline: { type: 'string' },
} as const satisfies OptionSpecs

export interface TargetOptions {
  masUrl?: string
  masToken?: string
  masUserToken?: string
  hsUrl?: string
  hsToken?: string
  hsUserToken?: string
  hsPrefix: string
  clientPrefix: string
  requestTimeoutMs: number
  /** requests per second across the whole command (--rate) */
  rate?: number
  /** requests of the whole command (--max-requests) */
  maxRequests?: number
  /** cap on one response's body, in bytes (--max-response-size) */
  maxResponseBytes: number
  /** --deadline for the whole command, in seconds; 0: none; undefined: the command's default */
  deadlineS?: number
}

type TargetValues = { [K in keyof typeof TARGET_FLAGS]?: string }

/** The target options from parsed flags and the environment (tokens preferably from the environment). */
export function targetOptions(values: TargetValues, env: NodeJS.ProcessEnv): TargetOptions {
  const pick = (flag: string | undefined, name: string) =>
    flag !== undefined ? flag : env[name] !== undefined && env[name] !== '' ? env[name] : undefined
  const o: TargetOptions = {
    masUrl: pick(values['mas-url'], 'MAS_URL'),
    masToken: pick(values['mas-token'], 'MAS_ADMIN_TOKEN'),
    masUserToken: pick(values['mas-user-token'], 'MAS_USER_TOKEN'),
    hsUrl: pick(values['hs-url'], 'HS_URL'),
    hsToken: pick(values['hs-token'], 'HS_ADMIN_TOKEN'),
    hsUserToken: pick(values['hs-user-token'], 'HS_USER_TOKEN'),
    hsPrefix: DEFAULT_HS_PREFIX,
    clientPrefix: DEFAULT_CLIENT_PREFIX,
    requestTimeoutMs:
      (durationSeconds('--request-timeout', values['request-timeout'], { min: 0.1, max: 600 }) ?? DEFAULT_TIMEOUTS.requestMs / 1000) * 1000,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  }
  const rate = positiveNumber('--rate', values.rate, { min: 0.01, max: 100_000, unit: 'requests per second' })
  if (rate !== undefined) o.rate = rate
  const max = positiveNumber('--max-requests', values['max-requests'], { integer: true, min: 1, max: 100_000_000 })
  if (max !== undefined) o.maxRequests = max
  if (values['max-response-size'] !== undefined) o.maxResponseBytes = byteSize('--max-response-size', values['max-response-size'])
  const d = values.deadline
  if (d !== undefined) o.deadlineS = /^\s*(0+|none)\s*$/i.test(d) ? 0 : durationSeconds('--deadline', d, { min: 1, max: 7 * 24 * 3600 })
  try {
    if (o.masUrl !== undefined) o.masUrl = normaliseBaseUrl(o.masUrl, values['mas-url'] !== undefined ? '--mas-url' : 'MAS_URL')
    if (o.hsUrl !== undefined) o.hsUrl = normaliseBaseUrl(o.hsUrl, values['hs-url'] !== undefined ? '--hs-url' : 'HS_URL')
    if (values['hs-prefix'] !== undefined) o.hsPrefix = normalisePrefix(values['hs-prefix'], '--hs-prefix')
    if (values['client-prefix'] !== undefined) o.clientPrefix = normalisePrefix(values['client-prefix'], '--client-prefix')
  } catch (e) {
    if (e instanceof TargetError) throw new UsageError(e.message)
    throw e
  }
  if (!o.masUrl && (values['mas-token'] !== undefined || values['mas-user-token'] !== undefined)) {
    throw new UsageError('an auth service token was given without --mas-url (or MAS_URL)')
  }
  if (!o.hsUrl && (values['hs-token'] !== undefined || values['hs-user-token'] !== undefined)) {
    throw new UsageError('a homeserver token was given without --hs-url (or HS_URL)')
  }
  return o
}

/** Whether the options name a deployment (a URL of either service). */
export function hasTarget(o: TargetOptions): boolean {
  return o.masUrl !== undefined || o.hsUrl !== undefined
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
}

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

/** The help lines of the target options, for every command that takes them. */
export const TARGET_HELP = `target (tokens preferably from the environment: flags show up in process lists):
  --mas-url URL            auth service base URL (MAS_URL)
  --mas-token T            token with scope urn:mas:admin (MAS_ADMIN_TOKEN)
  --mas-user-token T       token without the admin scope (MAS_USER_TOKEN)
  --hs-url URL             homeserver base URL (HS_URL)
  --hs-token T             a server admin's token (HS_ADMIN_TOKEN)
  --hs-user-token T        a non-admin token (HS_USER_TOKEN)
  --hs-prefix P            homeserver admin prefix (default /_synapse)
  --client-prefix P        client API prefix (default /_matrix)
  --request-timeout S      per request, in seconds (default ${DEFAULT_TIMEOUTS.requestMs / 1000})
  --rate N                 at most N requests per second
  --max-requests N         a request budget; when spent the command stops and fails (exit 1)
  --max-response-size S    cap on one response's body (default 4MiB)
  --deadline S             the whole command's time limit, in seconds (default: none; 0 or none: no limit);
                           when it passes the command stops, writes nothing and fails (exit 1)`
