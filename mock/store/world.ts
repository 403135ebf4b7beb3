// Everything the mock knows, rebuilt from (seed, sizes) by mock/seed/. Handlers read it through ctx.world;
// a reset swaps the whole object, so no request ever sees half of an old world and half of a new one.
// Every write after seeding is recorded through the world's one Recorder (the state journal listens
// there): the stores' write methods, and the world's own lists below, which are wrapped so that a
// plain assignment (`jobs.push(…)`, `backgroundUpdates.enabled = …`) is recorded too.
import type { MasStore } from './mas/index.ts'
import type { HomeserverStore } from './homeserver/index.ts'
import { Recorder, type WorldWrite } from './recorder.ts'

/** a device-sync job scheduled by finishing a session (the real service queues SyncDevicesJob) */
export interface DeviceSyncJob {
  id: number
  kind: 'sync-devices'
  userId: string
  /** what scheduled it, e.g. `compat-session 01J…/finish` */
  reason: string
  scheduledAt: string
}

export interface BackgroundUpdate {
  database: string
  name: string
  total_item_count: number
  total_duration_ms: number
  /** null while no item is done yet (total_item_count 0), as the real server answers */
  average_items_per_ms: number | null
}

export interface World {
  mas: MasStore
  hs: HomeserverStore
  jobs: DeviceSyncJob[]
  backgroundUpdates: { enabled: boolean; current: BackgroundUpdate[] }
  /** where every write is recorded before it is applied */
  recorder: Recorder
}

type Target = WorldWrite['target']

/** A world around two seeded stores; their writes and the world's own go to one new recorder. */
export function assembleWorld(mas: MasStore, hs: HomeserverStore): World {
  const recorder = new Recorder()
  mas.recorder = recorder
  hs.recorder = recorder
  const raw = { jobs: [] as DeviceSyncJob[], backgroundUpdates: { enabled: true, current: [] as BackgroundUpdate[] } }
  const recorded = <T extends object>(target: Target, value: T): T =>
    new Proxy(value, {
      set(obj, key, v) {
        // values are plain JSON (jobs, flags, lists of updates): recorded as they are assigned
        if (typeof key === 'string') recorder.record({ t: 'world.set', target, key, value: v })
        return Reflect.set(obj, key, v)
      },
    })
  return { mas, hs, recorder, jobs: recorded('jobs', raw.jobs), backgroundUpdates: recorded('backgroundUpdates', raw.backgroundUpdates) }
}

/** Applies a recorded write to the world's own data (the replay of a journal). */
export function applyWorldWrite(world: World, w: WorldWrite): void {
  const target = (w.target === 'jobs' ? world.jobs : world.backgroundUpdates) as unknown as Record<string, unknown>
  const recorder = world.recorder
  const sink = recorder.sink
  recorder.sink = null
  try {
    target[w.key] = w.value
  } finally {
    recorder.sink = sink
  }
}
