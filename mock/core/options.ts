// Every knob of the mock in one place, with its default. The CLI (scripts/mock/main.ts), the runner and the
// tests build a MockOptions through `mockOptions()` so that defaults are never repeated.
import { randomBytes } from 'node:crypto'
import type { LogFormat } from '../../lib/requestlog.ts'
import { masHas } from '../../lib/versions.ts'

const DEFAULT_MAS_VERSION = 'v1.22.0'

export interface MockOptions {
  host: string
  port: number
  seed: number
  /** sessions to seed in all, split evenly across compat, OAuth 2.0 and personal sessions */
  sessions: number
  /** event reports to seed */
  reports: number
  serverName: string
  /** auth service admin token (OAuth 2.0 access token with urn:mas:admin) */
  adminToken: string
  /** auth service token without the admin scope */
  userToken: string
  /** homeserver admin user's token */
  hsAdminToken: string
  /** homeserver non-admin user's token */
  hsUserToken: string
  /** static OAuth 2.0 client allowed the client_credentials grant with urn:mas:admin (as in policy.data.admin_clients) */
  adminClientId: string
  adminClientSecret: string
  /** homeserver role: validate unknown tokens by introspection at this auth service, as Synapse delegating to MAS does */
  hsDelegateUrl?: string
  hsDelegateClientId?: string
  hsDelegateClientSecret?: string
  /**
   * the auth service's link to its homeserver (`matrix.endpoint` and `matrix.secret` of the real
   * configuration): introspection accepts the secret as a Bearer token, and users and devices are
   * provisioned at this URL's `/_synapse/mas/` (mock/auth-service/homeserver-link/)
   */
  homeserverUrl?: string
  homeserverSecret?: string
  masVersion: string
  hsVersion: string
  /** homeserver admin prefix (`_hs` of the interface) and client API prefix (`_compat`) */
  hsPrefix: string
  clientPrefix: string
  logFormat: LogFormat
  /** file to append request-log lines to; undefined: stderr; null: no log */
  logFile?: string | null
  /**
   * the origin CORS answers echo with credentials allowed; undefined: `*` without credentials on the
   * auth service's paths, and no CORS at all on the control API's (core/cors.ts)
   */
  corsOrigin?: string
  /** --allowed-host: Host names the mock answers to besides the loopback names (core/host.ts) */
  allowedHosts?: string[]
  /**
   * A secret of this start, mixed into the tokens of the seeded homeserver users (other than the two
   * token holders): the seed is public (default 1), so tokens drawn from it alone could be guessed.
   * undefined (--fixed-tokens): those tokens follow the seed alone, the same at every start.
   */
  tokenSecret?: string
  /**
   * --auto-approve USERNAME: GET /authorize signs this seeded user in and consents at once (no login
   * or consent page), for tests and UIs that cannot click through; undefined: the pages.
   */
  autoApprove?: string
  /** largest request body accepted, in bytes, above it 413; undefined: each area's real limit (core/limits.ts) */
  maxBody?: number
  faults: string[]
  /** fixed clock for seeding: same seed, same world */
  epoch: Date
  /** --state: directory of the write journal (every acknowledged write survives a restart); undefined: memory only */
  stateDir?: string
  /**
   * Reproduce the known deviations of the claimed releases (lib/data/deviations.json; default true).
   * The fault matrix turns them off: its clean mock then follows the interface document, and the
   * fault that injects the same behaviour proves that the strict checks catch it.
   */
  deviations?: boolean
  /**
   * Seed the policy data records (default true). false: the auth service starts as a fresh one does,
   * with no policy data, so GET /policy-data/latest answers 404 "No policy data found" until a POST.
   */
  policyData?: boolean
}

export function randomToken(prefix: string): string {
  // Opaque tokens in the shapes the real services issue (`mat_`, `syt_`), random unless set.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  const bytes = randomBytes(36)
  let s = ''
  for (let i = 0; i < 30; i++) s += alphabet[bytes[i]! % alphabet.length]
  let c = ''
  for (let i = 30; i < 36; i++) c += alphabet[bytes[i]! % alphabet.length]
  return `${prefix}${s}_${c}`
}

export function mockOptions(over: Partial<MockOptions> = {}, env: NodeJS.ProcessEnv = process.env): MockOptions {
  return {
    host: '127.0.0.1',
    port: 8080,
    seed: 1,
    sessions: 90,
    reports: 40,
    serverName: 'example.test',
    adminToken: env.MOCK_ADMIN_TOKEN || randomToken('mat_'),
    userToken: env.MOCK_USER_TOKEN || randomToken('mat_'),
    hsAdminToken: env.MOCK_HS_ADMIN_TOKEN || randomToken('syt_'),
    hsUserToken: env.MOCK_HS_USER_TOKEN || randomToken('syt_'),
    adminClientId: env.MOCK_ADMIN_CLIENT_ID || '01J00000000000000000ADM1N0',
    adminClientSecret: env.MOCK_ADMIN_CLIENT_SECRET || randomToken('secret_'),
    hsDelegateUrl: env.MOCK_HS_DELEGATE_URL || undefined,
    hsDelegateClientId: env.MOCK_HS_DELEGATE_CLIENT_ID || undefined,
    hsDelegateClientSecret: env.MOCK_HS_DELEGATE_CLIENT_SECRET || undefined,
    masVersion: DEFAULT_MAS_VERSION,
    hsVersion: '1.160.0',
    hsPrefix: '/_synapse',
    clientPrefix: '/_matrix',
    // The log line's shape follows the claimed version unless set (the v1.20 fields: lib/data/mas-features.json).
    logFormat: masHas(over.masVersion ?? DEFAULT_MAS_VERSION, 'log-requester') === false ? 'pre-v1.20' : 'v1.20',
    logFile: undefined,
    corsOrigin: corsOrigin(env.MOCK_CORS_ORIGIN),
    maxBody: undefined,
    faults: [],
    epoch: new Date('2026-01-05T09:00:00Z'),
    tokenSecret: randomBytes(32).toString('base64url'),
    ...over,
  }
}

/** An origin as browsers send it (`scheme://host[:port]`), or an error naming what is wrong. */
export function corsOrigin(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  if (!/^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/.test(value) && !/^https?:\/\/\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/.test(value)) {
    throw new Error(`the CORS origin must look like http://host:port (scheme, host, optional port, no path), got '${value}'`)
  }
  return value
}
