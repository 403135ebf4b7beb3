// Users in the states every world must show, whatever its seed and size: the main seed draws locked
// and deactivated users by chance (a small world may have none) and never a user both locked and
// deactivated (which filter[status]=locked must include). These are added after the main seed's
// users (later creation times, so the first users keep their places), deterministic per seed, with
// no sessions and no password.
import { monotonicFactory } from 'ulidx'
import { seededRandom } from '../random.ts'
import { DAY_US, HOUR_US } from '../time.ts'
import type { SeedSettings } from '../settings.ts'
import type { MasStore, Micros, User } from '../../store/mas/index.ts'

const NAMES = ['archie', 'bea', 'cyril', 'dora', 'edmund', 'fern', 'gus', 'hedda', 'ivo', 'juno', 'kit', 'lotte']

export interface UserStateSpec {
  what: string
  locked: boolean
  deactivated: boolean
  admin: boolean
}

/** the states added to every world */
export const USER_STATES: readonly UserStateSpec[] = [
  { what: 'locked', locked: true, deactivated: false, admin: false },
  { what: 'deactivated', locked: false, deactivated: true, admin: false },
  { what: 'locked and deactivated', locked: true, deactivated: true, admin: false },
  { what: 'locked admin', locked: true, deactivated: false, admin: true },
]

export function seedUserStates(store: MasStore, options: SeedSettings): MasStore {
  const random = seededRandom(options.seed, 0x5eed0005) // a stream apart from the main seed's
  const E: Micros = options.epoch.getTime() * 1000
  const newId = monotonicFactory(random)
  const users: User[] = []
  USER_STATES.forEach((s, i) => {
    const at = E - 290 * DAY_US + i * DAY_US + Math.floor(random() * HOUR_US)
    let name = `${NAMES[Math.floor(random() * NAMES.length)]}.${s.what.split(' ')[0]}${Math.floor(random() * 100)}`
    while (store.findUserByUsername(name)) name += '0'
    users.push({
      id: Buffer.from(newId(Math.floor(at / 1000)), 'latin1').toString('latin1'),
      username: name,
      createdAt: at,
      lockedAt: s.locked ? E - Math.floor((2 + random() * 20) * DAY_US) : null,
      deactivatedAt: s.deactivated ? E - Math.floor((1 + random() * 10) * DAY_US) : null,
      admin: s.admin,
      legacyGuest: false,
      password: null,
    })
  })
  for (const u of users) store.users.insert(u)
  return store
}
