// The journal's first record: which seeded world its writes apply to. Replaying writes over another
// world (another seed, other sizes, other tokens) would fail halfway or, worse, succeed wrongly, so a
// journal is only replayed when the options rebuild the world it was written against.
import { readFileSync } from 'node:fs'

export const FORMAT = 1
const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** options that shape the seeded world (compared, and printed in errors) */
export const WORLD_KEYS = [
  'seed',
  'sessions',
  'reports',
  'serverName',
  'masVersion',
  'hsVersion',
  'adminClientId',
  'hsDelegateClientId',
  'policyData',
] as const
/** secrets that are part of the world (tokens and client secrets are stored in it): compared, never printed */
export const SECRET_KEYS = [
  'adminToken',
  'userToken',
  'hsAdminToken',
  'hsUserToken',
  'adminClientSecret',
  'hsDelegateClientSecret',
] as const

export type WorldKey = (typeof WORLD_KEYS)[number]
export type SecretKey = (typeof SECRET_KEYS)[number]

/** What the journal reads of the mock's options (a MockOptions is one): the world's settings, its secrets, its clock. */
export type WorldSettings = { readonly [K in WorldKey]?: string | number | boolean } & { readonly [K in SecretKey]?: string } & {
  readonly epoch: Date
}

export interface JournalHeader {
  kind: 'admin-conformance mock state'
  format: number
  /** the admin-conformance version that wrote it */
  package: string
  createdAt: string
  /** why this journal was started: a first start, or a reset/seed of the control API */
  cause: string
  epoch: string
  world: Partial<Record<WorldKey, string | number | boolean>>
  secrets: Partial<Record<SecretKey, string>>
}

export function headerFor(options: WorldSettings, cause: string): JournalHeader {
  const world: JournalHeader['world'] = {}
  for (const k of WORLD_KEYS) if (options[k] !== undefined) world[k] = options[k]
  const secrets: JournalHeader['secrets'] = {}
  for (const k of SECRET_KEYS) if (options[k] !== undefined) secrets[k] = options[k]
  return {
    kind: 'admin-conformance mock state',
    format: FORMAT,
    package: PACKAGE_VERSION,
    createdAt: new Date().toISOString(),
    cause,
    epoch: options.epoch.toISOString(),
    world,
    secrets,
  }
}

export function isHeader(v: unknown): v is JournalHeader {
  const h = v as JournalHeader
  return (
    typeof h === 'object' &&
    h !== null &&
    h.kind === 'admin-conformance mock state' &&
    typeof h.world === 'object' &&
    typeof h.secrets === 'object'
  )
}

/** What differs between the journal's world and the options' (empty: the journal fits). Never shows a secret. */
export function mismatches(h: JournalHeader, options: WorldSettings): string[] {
  const out: string[] = []
  if (h.format !== FORMAT) out.push(`journal format ${h.format}, this mock writes format ${FORMAT}`)
  for (const k of WORLD_KEYS) {
    if ((h.world[k] ?? undefined) !== (options[k] ?? undefined))
      out.push(`${k}: journal ${JSON.stringify(h.world[k] ?? null)}, options ${JSON.stringify(options[k] ?? null)}`)
  }
  if (h.epoch !== options.epoch.toISOString()) out.push(`epoch: journal ${h.epoch}, options ${options.epoch.toISOString()}`)
  for (const k of SECRET_KEYS)
    if ((h.secrets[k] ?? undefined) !== (options[k] ?? undefined)) out.push(`${k}: differs from the one the journal was written with`)
  return out
}
