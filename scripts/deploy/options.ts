// What deploy() takes and returns, its defaults, and the checks of its options (a DeployError of kind
// 'usage' for anything wrong, before anything is started).
import { DELEGATION_MODES, DELEGATION_SINCE, delegationMode, splitImage, type DelegationMode } from './versions.ts'
import type { FixtureOptions } from './fixtures.ts'
import type { PhaseRecord } from './progress.ts'
import type { Role } from './service.ts'
import type { FailureKind } from './errors.ts'
import { DeployError } from './errors.ts'
import { parseImage } from './engine.ts'
import { AREAS, type Area, type SuiteResult } from './suites.ts'

export const DEFAULT_IMAGES = {
  mas: 'ghcr.io/element-hq/matrix-authentication-service:latest',
  homeserver: 'docker.io/matrixdotorg/synapse:latest',
  postgres: 'docker.io/library/postgres:17',
} as const

export type Writes = 'on' | 'off' | 'both'
export const WRITES: readonly Writes[] = ['on', 'off', 'both']

export interface Timeouts {
  /** reaching the Docker engine */
  engineMs: number
  /** pulling one missing image */
  pullMs: number
  /** creating and starting one container */
  startMs: number
  /** one service's health check passing */
  healthMs: number
  /** stopping one container before it is killed */
  stopMs: number
  /** one area of the suites */
  runMs: number
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  engineMs: 20_000,
  pullMs: 600_000,
  startMs: 120_000,
  healthMs: 180_000,
  stopMs: 10_000,
  runMs: 1_800_000,
}

export interface DeployOptions {
  masImage?: string
  hsImage?: string
  pgImage?: string
  /** the images are the bundled mock standing in for the auth service and the homeserver */
  standIn?: boolean
  /** start no PostgreSQL (only sensible with standIn: the real services need it) */
  skipDb?: boolean
  /** leave everything running and print URLs and tokens */
  keep?: boolean
  /** suite areas to run; [] runs none (default: all of AREAS) */
  areas?: Area[]
  /** host ports (default: free ones) */
  ports?: Partial<{ mas: number; homeserver: number; postgres: number }>
  serverName?: string
  /** how the homeserver delegates auth (default: from the homeserver image tag); 'none' is its own login */
  delegation?: DelegationMode
  /** the suites' writes: 'on' (default) runs with --allow-writes, 'off' read-only, 'both' read-only then with writes */
  writes?: Writes
  /** where configs, logs and reports go (default: a new directory under the system temp dir) */
  outDir?: string
  fixtures?: Partial<FixtureOptions>
  timeouts?: Partial<Timeouts>
  signal?: AbortSignal
  /** tear down on SIGINT/SIGTERM of this process (the CLI sets it) */
  handleSignals?: boolean
  /** where progress lines go (default: stderr) */
  write?: (line: string) => void
  /** command used instead of RUNNER_COMMAND (suites.ts) to run the suites (tests); it gets the `run` options */
  runnerCommand?: string[]
}

export interface KeptAccess {
  /** empty when no auth service runs (the homeserver's own login) */
  masAdminToken: string
  masAdminTokenExpiresAt?: number
  hsAdminToken: string
  masUserToken: string
  hsUserToken: string
  /** undefined when no auth service runs */
  adminClient?: { id: string; secret: string }
  containers: string[]
}

export interface DeployResult {
  exitCode: number
  ok: boolean
  runId: string
  outDir: string
  phases: PhaseRecord[]
  urls: { mas: string; homeserver: string; postgres?: string }
  suites: SuiteResult[]
  logFiles: Partial<Record<Role, string>>
  fixtures?: {
    users: number
    rooms: number
    events: number
    reports: number
    personalSessions: number
    oauthSessions: number
    notes: string[]
  }
  error?: { kind: FailureKind; message: string; details: string[] }
  kept: boolean
  /** tokens and client credentials: only when kept */
  access?: KeptAccess
  /** containers of this run still present after teardown (empty when teardown worked, or all of them when kept) */
  leftovers: string[]
  /** removes a kept deployment; a no-op otherwise */
  teardown: () => Promise<void>
}

export function checkOptions(o: DeployOptions): void {
  for (const [flag, ref] of [
    ['--mas-image', o.masImage],
    ['--hs-image', o.hsImage],
    ['--pg-image', o.pgImage],
  ] as const) {
    if (ref !== undefined && !parseImage(ref)) throw new DeployError('usage', `${flag}: not a valid image reference: '${ref}'`)
  }
  const ports = Object.entries(o.ports ?? {}).filter(([, p]) => p !== undefined)
  for (const [role, p] of ports) {
    if (!Number.isInteger(p) || p! < 1 || p! > 65535)
      throw new DeployError('usage', `port for ${role} must be an integer from 1 to 65535, got ${p}`)
  }
  const values = ports.map(([, p]) => p)
  if (new Set(values).size !== values.length) throw new DeployError('usage', `ports must be distinct, got ${values.join(', ')}`)
  for (const a of o.areas ?? [])
    if (!(AREAS as readonly string[]).includes(a)) throw new DeployError('usage', `unknown area '${a}' (known: ${AREAS.join(', ')})`)
  for (const [k, v] of Object.entries(o.timeouts ?? {})) {
    if (v !== undefined && (!Number.isFinite(v) || v <= 0))
      throw new DeployError('usage', `timeout ${k} must be a positive number of milliseconds, got ${v}`)
  }
  const f = o.fixtures ?? {}
  for (const [k, v] of Object.entries(f)) {
    if (v !== undefined && (!Number.isInteger(v) || v < (k === 'users' ? 1 : 0) || v > 1000))
      throw new DeployError('usage', `fixture count ${k} must be an integer from ${k === 'users' ? 1 : 0} to 1000, got ${v}`)
  }
  if (o.delegation !== undefined && !DELEGATION_MODES.includes(o.delegation))
    throw new DeployError('usage', `unknown delegation mode '${o.delegation}' (${DELEGATION_MODES.join(', ')})`)
  if (o.writes !== undefined && !WRITES.includes(o.writes))
    throw new DeployError('usage', `unknown writes mode '${o.writes}' (${WRITES.join(', ')})`)
  const own = ownLogin(o)
  if (o.standIn && o.delegation === 'none')
    throw new DeployError(
      'usage',
      "the mock standing in for the homeserver delegates to the auth service's role: delegation 'none' needs a real homeserver image",
    )
  if (own && o.masImage !== undefined) {
    throw new DeployError(
      'usage',
      `the homeserver image ${o.hsImage ?? ''} predates delegation to the auth service (Synapse before ${DELEGATION_SINCE.msc3861}): no auth service can be wired to it, so none is started and --mas-image has no use`,
      [
        'the admin area needs a homeserver that delegates (--delegation msc3861 or stable, or a newer --hs-image), or run it against the auth service with `admin-conformance run`',
      ],
    )
  }
  if (o.skipDb && !o.standIn && !own) {
    throw new DeployError(
      'usage',
      'skipping the database only works with the mock standing in (--stand-in) or a homeserver with its own login (SQLite): the auth service needs PostgreSQL',
    )
  }
}

/** The delegation mode a deployment uses: the option, else the homeserver image's tag (never 'none' for the stand-in). */
export function effectiveDelegation(o: DeployOptions, defaultHsImage: string): DelegationMode {
  if (o.delegation) return o.delegation
  const mode = delegationMode(splitImage(o.hsImage ?? defaultHsImage).tag)
  return o.standIn && mode === 'none' ? 'stable' : mode
}

/** true when the homeserver keeps its own login (no auth service is started). */
export function ownLogin(o: DeployOptions): boolean {
  return !o.standIn && effectiveDelegation(o, DEFAULT_IMAGES.homeserver) === 'none'
}
