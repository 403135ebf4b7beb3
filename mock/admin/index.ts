// All routes of the auth service side (area A and its public endpoints).
import type { Route } from '../http.ts'
import type { MockOptions } from '../options.ts'

export function adminRoutes(_options: MockOptions): Route[] {
  return []
}
