// The target of a conformance run: base URLs, tokens, prefixes, whether writes are allowed, timeouts.
// The runner (scripts/run/main.ts) builds one and hands it to the suite processes through the environment:
// AC_TARGET holds everything except the tokens (JSON), each token travels in its own variable, so that
// a token never sits inside a structure that might be printed, and never on a command line.

export interface MasTarget {
  /** base URL of the auth service, without a trailing slash */
  url: string
  /** token with the urn:mas:admin scope */
  adminToken?: string
  /** valid token without the admin scope (for the auth checks) */
  userToken?: string
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
}

export const TARGET_ENV = 'AC_TARGET'
export const TOKEN_ENV = {
  masAdmin: 'AC_MAS_ADMIN_TOKEN',
  masUser: 'AC_MAS_USER_TOKEN',
  hsAdmin: 'AC_HS_ADMIN_TOKEN',
  hsUser: 'AC_HS_USER_TOKEN',
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
    mas: mas ? { url: mas.url } : undefined,
    hs: hs ? { url: hs.url, prefix: hs.prefix, clientPrefix: hs.clientPrefix } : undefined,
  }
  const env: Record<string, string> = { [TARGET_ENV]: JSON.stringify(plain) }
  if (mas?.adminToken) env[TOKEN_ENV.masAdmin] = mas.adminToken
  if (mas?.userToken) env[TOKEN_ENV.masUser] = mas.userToken
  if (hs?.adminToken) env[TOKEN_ENV.hsAdmin] = hs.adminToken
  if (hs?.userToken) env[TOKEN_ENV.hsUser] = hs.userToken
  return env
}

/** Every token of the target, for redaction. */
export function knownTokens(target: Target): string[] {
  return [target.mas?.adminToken, target.mas?.userToken, target.hs?.adminToken, target.hs?.userToken].filter(
    (t): t is string => typeof t === 'string' && t.length > 0,
  )
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
    const masUrl = str(mas.url)
    if (masUrl) t.mas = { url: masUrl, adminToken: tok(TOKEN_ENV.masAdmin), userToken: tok(TOKEN_ENV.masUser) }
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
