// Builds the whole world deterministically from the options' seed and sizes.
import type { MockOptions } from '../core/options.ts'
import { assembleWorld, type World } from '../store/world.ts'
import { seedMas } from './mas.ts'
import { seedUserStates } from './mas-users.ts'
import { seedMasExtra } from './mas-extra.ts'
import { seedHomeserver } from './homeserver.ts'
import { joinIdentities } from './identity.ts'

export function buildWorld(options: MockOptions): World {
  const mas = seedUserStates(seedMas(options), options)
  const hs = seedHomeserver(options)
  joinIdentities(mas, hs, options)
  return assembleWorld(seedMasExtra(mas, options), hs)
}
