// Everything the mock knows, rebuilt from (seed, sizes) by mock/seed.ts. Handlers read it through ctx.world;
// a reset swaps the whole object, so no request ever sees half of an old world and half of a new one.
import type { MasStore } from './mas.ts'
import type { HomeserverStore } from './homeserver.ts'

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
  average_items_per_ms: number
}

export interface World {
  mas: MasStore
  hs: HomeserverStore
  jobs: DeviceSyncJob[]
  backgroundUpdates: { enabled: boolean; current: BackgroundUpdate[] }
}
