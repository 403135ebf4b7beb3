// Builds the whole world deterministically from the options' seed and sizes.
import type { MockOptions } from './options.ts'
import type { World } from './world.ts'
import { seedMas } from './admin/seed.ts'
import { seedHomeserver } from './homeserver/seed.ts'

export function buildWorld(options: MockOptions): World {
  return {
    mas: seedMas(options),
    hs: seedHomeserver(options),
    jobs: [],
    backgroundUpdates: { enabled: true, current: [] },
  }
}
