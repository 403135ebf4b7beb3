// Builds the whole world deterministically from the options' seed and sizes.
import type { SeedSettings } from './settings.ts'
import { assembleWorld, type World } from '../store/world.ts'
import { seedMas } from './mas/index.ts'
import { seedUserStates } from './mas/user-states.ts'
import { seedMasExtra } from './mas/extra.ts'
import { seedHomeserver } from './homeserver/index.ts'

export function buildWorld(options: SeedSettings): World {
  return assembleWorld(seedMasExtra(seedUserStates(seedMas(options), options), options), seedHomeserver(options))
}
