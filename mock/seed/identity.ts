// One identity world, as a homeserver delegating to the auth service has it: every homeserver user is
// an auth-service user of the same username, and every auth-service user has a homeserver account with
// a profile. Run after both sides are seeded and before the auth service's extra records, so that the
// users added here get e-mail addresses and upstream links as the seeded ones do. Deterministic per
// seed: ids come from a stream of their own, times from the other side's record.
// - a homeserver user missing from the auth service becomes an active auth-service user (an admin if
//   the homeserver user is one), with the seeded password, so that one can also sign in as them;
// - an auth-service user missing from the homeserver gets a homeserver account whose display name is
//   the username, as Synapse registers it.
import type { SeedSettings } from './settings.ts'
import type { MasStore, User } from '../store/mas/index.ts'
import type { HomeserverStore } from '../store/homeserver/index.ts'
import { SEEDED_PASSWORD } from './mas/index.ts'
import { idsFor } from './mas/extra.ts'
import { seededRandom } from './random.ts'

export function joinIdentities(mas: MasStore, hs: HomeserverStore, options: SeedSettings): void {
  const missing = [...hs.users.values()].filter((u) => !mas.findUserByUsername(u.localpart))
  const ids = idsFor(
    missing.map((u) => u.createdTs * 1000),
    seededRandom(options.seed, 0x1de47),
  )
  const masUsers = [...mas.users.all()]
  missing.forEach((u, i) => {
    const user: User = {
      id: ids[i]!,
      username: u.localpart,
      createdAt: u.createdTs * 1000,
      lockedAt: null,
      deactivatedAt: null,
      admin: u.admin,
      legacyGuest: false,
      password: SEEDED_PASSWORD,
    }
    mas.users.insert(user)
  })
  for (const u of masUsers) hs.addUser(u.username, { displayName: u.username, createdTs: Math.floor(u.createdAt / 1000) })
}
