// What every seeding step of the auth service's world shares: the options, the epoch (all times
// derive from it, never from the wall clock), the seeded draws and pools, the store being filled,
// and what earlier steps produced (clients, users, browser sessions) for later ones to refer to.
import type { SeedSettings } from '../settings.ts'
import type { BrowserSession, MasStore, Micros, User } from '../../store/mas/index.ts'
import type { Pools } from './pools.ts'
import type { Draw } from './random.ts'

export interface ClientGroups {
  /** static clients other than the admin client (and the homeserver's) */
  otherStatic: string[]
  /** dynamic clients with the authorization_code grant */
  dynamicUser: string[]
  /** dynamic clients with the client_credentials grant */
  dynamicCc: string[]
}

export interface SeedContext {
  options: SeedSettings
  /** the epoch, in micros */
  E: Micros
  d: Draw
  pools: Pools
  store: MasStore
  clients?: ClientGroups
  users?: User[]
  /** browser sessions per user (same index as users) */
  browserOf?: BrowserSession[][]
}

/** a step's input that an earlier step must have produced */
export function need<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`seeding: ${what} must be seeded first`)
  return v
}
