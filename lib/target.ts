// The target of a conformance run and the whole runner-to-suite contract, in one place: base URLs,
// tokens, prefixes, whether writes are allowed, timeouts, and the environment codec that hands them to
// the suite processes. AC_TARGET holds everything except the tokens (JSON), each token travels in its
// own variable, so that a token never sits inside a structure that might be printed, and never on a
// command line. AC_TARGETS (the fault matrix) lists several targets; AC_STRICT counts deviations as
// failures. Back from the suites come two TAP conventions, also defined here: a TODO whose reason starts
// with `deviation: ` (a known difference of a real release), and `# ac-leftover {json}` comments (data a
// write check could not clean up).

export interface MasTarget {
  /** base URL of the auth service, without a trailing slash */
  url: string
  /** token with the urn:mas:admin scope */
  adminToken?: string
  /** valid token without the admin scope (for the auth checks) */
  userToken?: string
  /**
   * The confidential client the runner registered once for the run, with which the suites introspect
   * the harness's own tokens (which sessions write checks must not end). Registered before any suite
   * starts, so that no suite sees a client appear while it walks the clients listing.
   */
  introspection?: { clientId: string; clientSecret: string }
}

export interface HsTarget {
  /** base URL of the homeserver, without a trailing slash */
  url: string
  /** access token of a server administrator */
  adminToken?: string
  /** access token of a user who is not an administrator */
  userToken?: string
  /** admin API prefix (`_hs` of the interface), default /_synapse */
  prefix: string
  /** client API prefix (`_compat` of the interface), default /_matrix */
  clientPrefix: string
}

export interface Timeouts {
  /** TCP connect */
  connectMs: number
  /** one whole request: headers and body */
  requestMs: number
}

export interface Target {
  mas?: MasTarget
  hs?: HsTarget
  /** checks that finish, revoke, regenerate, create, set policy data or delete run only when true */
  allowWrites: boolean
  /**
   * A token may travel in a URL (`?access_token=`): only when the user said so (`--allow-token-in-url`),
   * or against the bundled mock (its tokens are made for the run and die with it). Proxies and load
   * balancers log URLs, so a real admin token is never put in one by default.
   */
  allowTokenInUrl?: boolean
  /** the target is the bundled mock started by the runner */
  isMock: boolean
  /** base URL of the mock's control API (/_mock/...), when the target is the mock */
  mockControlUrl?: string
  /** request log of the target, for the log area */
  logFile?: string
  /**
   * The log file is a copy of the run's standard input (`--log-file -`): a finished snapshot, which
   * does not grow, so requests sent by the suites cannot appear in it.
   */
  logStdin?: boolean
  /** unique per run; in the User-Agent so that log lines can be correlated with the run */
  runId: string
  userAgent: string
  timeouts: Timeouts
  /** versions found by the runner's preflight (raw strings as the target reported them) */
  versions?: { mas?: string; hs?: string }
  /** production manners of the run (`run --rate/--max-requests/--max-response-size`) */
  limits?: RunLimits
}

/** What bounds a suite process's requests; the runner fills it, the suites' context applies it. */
export interface RunLimits {
  /** requests per second of each suite process (the run's --rate divided by --jobs) */
  requestsPerSecond?: number
  /** requests of the whole run (--max-requests), counted in `budgetFile` across processes */
  maxRequests?: number
  budgetFile?: string
  /** cap on one response's body (--max-response-size) */
  maxResponseBytes?: number
  /** folder where each suite process leaves its request meter (requests per area, endpoint timings) */
  meterDir?: string
  /** the run's deadline (--deadline), epoch ms: no request starts after it, none runs past it */
  deadlineAt?: number
}

function limitsOf(v: unknown): RunLimits | undefined {
  const o = obj(v)
  const num = (x: unknown) => (typeof x === 'number' && x > 0 ? x : undefined)
  const out: RunLimits = {
    requestsPerSecond: num(o.requestsPerSecond),
    maxRequests: num(o.maxRequests),
    budgetFile: str(o.budgetFile),
    maxResponseBytes: num(o.maxResponseBytes),
    meterDir: str(o.meterDir),
    deadlineAt: num(o.deadlineAt),
  }
  for (const k of Object.keys(out) as (keyof RunLimits)[]) if (out[k] === undefined) delete out[k]
  return Object.keys(out).length ? out : undefined
}

/**
 * The header every request to the bundled mock's control API (/_mock/...) carries, value '1': a
 * browser sends a request with it only after a CORS preflight, which the mock grants no web page.
 */
export const MOCK_CONTROL_HEADER = 'x-admin-conformance'

export const TARGET_ENV = 'AC_TARGET'
/** the fault matrix: a JSON array of {@link MatrixTarget} */
export const TARGETS_ENV = 'AC_TARGETS'
/** '1': the suites treat deviations of a real release as failures */
export const STRICT_ENV = 'AC_STRICT'
/** the reason of a TAP TODO that marks a deviation (not a failure unless strict) */
export const DEVIATION_PREFIX = 'deviation: '
/** the TAP comment word of data left behind: `# ac-leftover {"what": ..., ...}` */
export const LEFTOVER_COMMENT = 'ac-leftover'
export const TOKEN_ENV = {
  masAdmin: 'AC_MAS_ADMIN_TOKEN',
  masUser: 'AC_MAS_USER_TOKEN',
  hsAdmin: 'AC_HS_ADMIN_TOKEN',
  hsUser: 'AC_HS_USER_TOKEN',
  masIntrospectionSecret: 'AC_MAS_INTROSPECTION_SECRET',
} as const

export const DEFAULT_HS_PREFIX = '/_synapse'
export const DEFAULT_CLIENT_PREFIX = '/_matrix'
export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 5_000, requestMs: 10_000 }

export class TargetError extends Error {
  override name = 'TargetError'
}

/** `http(s)://host[:port][/path]` without a trailing slash; anything else is a TargetError naming the flag. */
export function normaliseBaseUrl(raw: string, what: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new TargetError(`${what}: '${raw}' is not a URL (expected http://host:port)`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TargetError(`${what}: '${raw}' must be an http:// or https:// URL`)
  if (u.username || u.password) throw new TargetError(`${what}: credentials in the URL are not supported; pass tokens with the token flags`)
  if (u.search || u.hash) throw new TargetError(`${what}: '${raw}' must not have a query string or fragment`)
  return (u.origin + u.pathname).replace(/\/+$/, '')
}

/** `/_name` (one or more segments), no trailing slash. */
export function normalisePrefix(raw: string, what: string): string {
  const p = raw.replace(/\/+$/, '')
  if (!/^(\/[A-Za-z0-9_.~-]+)+$/.test(p)) throw new TargetError(`${what}: '${raw}' must look like /_synapse`)
  return p
}

export function userAgentFor(version: string, runId: string): string {
  return `admin-conformance/${version} run/${runId}`
}

/** The environment variables that carry a target to a suite process. */
export function targetEnv(target: Target): Record<string, string> {
  const { mas, hs, ...rest } = target
  const plain = {
    ...rest,
    mas: mas ? { url: mas.url, introspectionClientId: mas.introspection?.clientId } : undefined,
    hs: hs ? { url: hs.url, prefix: hs.prefix, clientPrefix: hs.clientPrefix } : undefined,
  }
  const env: Record<string, string> = { [TARGET_ENV]: JSON.stringify(plain) }
  if (mas?.adminToken) env[TOKEN_ENV.masAdmin] = mas.adminToken
  if (mas?.userToken) env[TOKEN_ENV.masUser] = mas.userToken
  if (mas?.introspection) env[TOKEN_ENV.masIntrospectionSecret] = mas.introspection.clientSecret
  if (hs?.adminToken) env[TOKEN_ENV.hsAdmin] = hs.adminToken
  if (hs?.userToken) env[TOKEN_ENV.hsUser] = hs.userToken
  return env
}

/** Every token of the target, for redaction. */
export function knownTokens(target: Target): string[] {
  return [
    target.mas?.adminToken,
    target.mas?.userToken,
    target.mas?.introspection?.clientSecret,
    target.hs?.adminToken,
    target.hs?.userToken,
  ].filter((t): t is string => typeof t === 'string' && t.length > 0)
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined
}

/**
 * The target of this suite process. Reads AC_TARGET (set by the runner); without it, falls back to the
 * run command's own variables (MAS_URL, MAS_ADMIN_TOKEN, ..., HS_URL, ...) so that one suite file can be
 * run by hand with `npx tap suites/admin/version.suite.ts`. Read-only unless AC_ALLOW_WRITES=1.
 */
export function loadTarget(env: NodeJS.ProcessEnv = process.env): Target {
  const raw = env[TARGET_ENV]
  const tok = (name: string) => str(env[name])
  if (raw) {
    let parsed: Record<string, unknown>
    try {
      parsed = obj(JSON.parse(raw))
    } catch (e) {
      throw new TargetError(`${TARGET_ENV} is not JSON: ${(e as Error).message}`)
    }
    const mas = obj(parsed.mas)
    const hs = obj(parsed.hs)
    const timeouts = obj(parsed.timeouts)
    const versions = obj(parsed.versions)
    const runId = str(parsed.runId) ?? 'manual'
    const t: Target = {
      allowWrites: parsed.allowWrites === true,
      isMock: parsed.isMock === true,
      runId,
      userAgent: str(parsed.userAgent) ?? userAgentFor('0', runId),
      timeouts: {
        connectMs: typeof timeouts.connectMs === 'number' ? timeouts.connectMs : DEFAULT_TIMEOUTS.connectMs,
        requestMs: typeof timeouts.requestMs === 'number' ? timeouts.requestMs : DEFAULT_TIMEOUTS.requestMs,
      },
      versions: { mas: str(versions.mas), hs: str(versions.hs) },
    }
    const mockControlUrl = str(parsed.mockControlUrl)
    if (mockControlUrl) t.mockControlUrl = mockControlUrl
    const logFile = str(parsed.logFile)
    if (logFile) t.logFile = logFile
    if (parsed.logStdin === true) t.logStdin = true
    if (parsed.allowTokenInUrl === true) t.allowTokenInUrl = true
    const limits = limitsOf(parsed.limits)
    if (limits) t.limits = limits
    const masUrl = str(mas.url)
    if (masUrl) {
      t.mas = { url: masUrl, adminToken: tok(TOKEN_ENV.masAdmin), userToken: tok(TOKEN_ENV.masUser) }
      const clientId = str(mas.introspectionClientId)
      const clientSecret = tok(TOKEN_ENV.masIntrospectionSecret)
      if (clientId && clientSecret) t.mas.introspection = { clientId, clientSecret }
    }
    const hsUrl = str(hs.url)
    if (hsUrl) {
      t.hs = {
        url: hsUrl,
        adminToken: tok(TOKEN_ENV.hsAdmin),
        userToken: tok(TOKEN_ENV.hsUser),
        prefix: str(hs.prefix) ?? DEFAULT_HS_PREFIX,
        clientPrefix: str(hs.clientPrefix) ?? DEFAULT_CLIENT_PREFIX,
      }
    }
    return t
  }
  const runId = 'manual'
  const t: Target = {
    allowWrites: env.AC_ALLOW_WRITES === '1',
    isMock: false,
    runId,
    userAgent: userAgentFor('0', runId),
    timeouts: { ...DEFAULT_TIMEOUTS },
  }
  const masUrl = str(env.MAS_URL)
  if (masUrl) t.mas = { url: normaliseBaseUrl(masUrl, 'MAS_URL'), adminToken: tok('MAS_ADMIN_TOKEN'), userToken: tok('MAS_USER_TOKEN') }
  const hsUrl = str(env.HS_URL)
  if (hsUrl) {
    t.hs = {
      url: normaliseBaseUrl(hsUrl, 'HS_URL'),
      adminToken: tok('HS_ADMIN_TOKEN'),
      userToken: tok('HS_USER_TOKEN'),
      prefix: DEFAULT_HS_PREFIX,
      clientPrefix: DEFAULT_CLIENT_PREFIX,
    }
  }
  return t
}

// ---------------------------------------------------------------------------------------------------
// The fault matrix: several targets in one suite process

/** One target of the fault matrix: its label, the suite folders it applies to ([] = all), the target. */
export interface MatrixTarget {
  label: string
  /** suite folders ('suites/admin') whose files run against this target; empty: every folder */
  dirs: string[]
  target: Target
}

/** The AC_TARGETS value for a matrix (tokens stay in their own variables, shared by every target). */
export function targetsEnv(list: MatrixTarget[]): Record<string, string> {
  return {
    [TARGETS_ENV]: JSON.stringify(
      list.map((m) => ({ label: m.label, dirs: m.dirs, target: JSON.parse(targetEnv(m.target)[TARGET_ENV]!) as unknown })),
    ),
  }
}

/**
 * The matrix targets for a suite file in `dir` ('suites/admin'), or undefined when AC_TARGETS is not set.
 * Each entry's tokens come from the environment's token variables.
 */
export function loadTargets(dir: string, env: NodeJS.ProcessEnv = process.env): { label: string; target: Target }[] | undefined {
  const raw = env[TARGETS_ENV]
  if (raw === undefined) return undefined
  let list: unknown
  try {
    list = JSON.parse(raw)
  } catch (e) {
    throw new TargetError(`${TARGETS_ENV} is not JSON: ${(e as Error).message}`)
  }
  if (!Array.isArray(list)) throw new TargetError(`${TARGETS_ENV} must be a JSON array`)
  const out: { label: string; target: Target }[] = []
  for (const entry of list as { label?: unknown; dirs?: unknown; target?: unknown }[]) {
    const dirs = Array.isArray(entry.dirs) ? entry.dirs.map(String) : []
    if (dirs.length && dir && !dirs.includes(dir)) continue
    const target = loadTarget({ ...env, [TARGET_ENV]: JSON.stringify(entry.target ?? {}) })
    out.push({ label: String(entry.label ?? `target ${out.length + 1}`), target })
  }
  return out
}

/** Data a write check could not remove, as the suites report it: `{ target, kind, id, reason }`. */
export interface LeftoverItem {
  /** which service holds it */
  target: 'mas' | 'hs'
  /** what it is: 'compat session', 'event report', 'oauth2 client' ... */
  kind: string
  id: string
  /** why it could not be removed */
  reason: string
}

/** A leftover as the runner lists it: the item's fields (when well-formed) and one line that says what it is. */
export interface Leftover extends Partial<LeftoverItem> {
  what: string
}

/** The TAP comment text (without '# ') for a leftover: pass it to `t.comment(...)` at the file's top level. */
export function leftoverComment(l: LeftoverItem): string {
  return `${LEFTOVER_COMMENT} ${JSON.stringify(l)}`
}

const SERVICE: Record<string, string> = { mas: 'auth service', hs: 'homeserver' }

/** A leftover from a TAP comment line ('# ac-leftover {...}'), or undefined. */
export function parseLeftoverComment(line: string): Leftover | undefined {
  const m = new RegExp(`^\\s*#\\s*${LEFTOVER_COMMENT}\\s+(\\{.*\\})\\s*$`).exec(line)
  if (!m) return undefined
  let v: unknown
  try {
    v = JSON.parse(m[1]!)
  } catch {
    return undefined
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined
  const o = v as Record<string, unknown>
  const text = (k: string) => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined)
  const out: Leftover = { what: '' }
  for (const k of ['target', 'kind', 'id', 'reason'] as const) if (text(k)) (out as unknown as Record<string, string>)[k] = text(k)!
  const named = [text('kind'), text('id')].filter(Boolean).join(' ')
  out.what =
    text('what') ?? (named ? `${named}${text('target') ? ` on the ${SERVICE[text('target')!] ?? text('target')}` : ''}` : JSON.stringify(o))
  return out
}
