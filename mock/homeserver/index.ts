// All routes of the homeserver side (area B and the client API it needs).
import type { Route } from '../http.ts'
import type { MockOptions } from '../options.ts'

export function homeserverRoutes(_options: MockOptions): Route[] {
  return []
}
