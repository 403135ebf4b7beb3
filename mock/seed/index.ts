// Builds the whole world deterministically from the options' seed and sizes.
import type { MockOptions } from '../core/options.ts'
import { assembleWorld, type World } from '../store/world.ts'
import { seedMas } from './mas.ts'
import { seedHomeserver } from './homeserver.ts'

export function buildWorld(options: MockOptions): World {
  return assembleWorld(seedMas(options), seedHomeserver(options))
}
