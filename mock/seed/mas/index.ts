// The auth service's seeded world, the same for the same seed and size: faker (seeded, its own
// instance) draws the word pools once, then a fast seeded PRNG draws every per-item choice, and
// ulidx makes the ids from the item's creation time and that PRNG. All times derive from
// options.epoch, never from the wall clock.
//
// One file per collection under ./mas/, run in a fixed order (each step draws from the one PRNG,
// so the order is part of the world: a new collection goes in a new file, seeded after these):
// clients, users and their browser sessions, compat / OAuth 2.0 / personal sessions, policy data.
// What exists, so that every listing, filter and state has examples: see each step's file.
import { Faker, en, base } from '@faker-js/faker'
import type { SeedSettings } from '../settings.ts'
import { MasStore } from '../../store/mas/index.ts'
import type { SeedContext } from './context.ts'
import { drawPools } from './pools.ts'
import { seededDraw } from './random.ts'
import { seedClients } from './clients.ts'
import { seedBrowserSessions, seedUsers } from './users.ts'
import { sessionPlan } from './sessions.ts'
import { seedCompatSessions } from './compat.ts'
import { seedOAuth2Sessions } from './oauth2.ts'
import { seedPersonalSessions } from './personal.ts'
import { seedPolicyData } from './policy-data.ts'

export { SEEDED_PASSWORD } from './users.ts'

export function seedMas(options: SeedSettings): MasStore {
  const faker = new Faker({ locale: [en, base] })
  faker.seed(options.seed)
  const d = seededDraw(faker)
  const pools = drawPools(faker, d)
  const store = new MasStore(options.serverName, { server_name: options.serverName, admin_clients: [], admin_users: [] }, [
    options.adminClientId,
  ])
  const ctx: SeedContext = { options, E: options.epoch.getTime() * 1000, d, pools, store }
  seedClients(ctx)
  seedUsers(ctx)
  seedBrowserSessions(ctx)
  const plan = sessionPlan(ctx)
  seedCompatSessions(ctx, plan)
  seedOAuth2Sessions(ctx, plan)
  seedPersonalSessions(ctx, plan)
  // Last, so that leaving it out (--no-policy-data) changes nothing else in the world.
  if (options.policyData !== false) seedPolicyData(ctx)
  return store
}
