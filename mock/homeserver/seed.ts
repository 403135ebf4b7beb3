import type { MockOptions } from '../options.ts'
import type { HomeserverStore } from '../store/homeserver.ts'
export function seedHomeserver(_options: MockOptions): HomeserverStore {
  return {}
}
