// All routes of the homeserver side: the admin API (event reports, server_version, background
// updates) under `{hsPrefix}/admin/v1` and the client API slice under `{clientPrefix}/client`.
// Request-log lines of these routes carry no requester: the log grammar's requester forms belong to
// the auth service, and a homeserver user id fits none of them.
import type { Route } from '../core/context.ts'
import type { MockOptions } from '../core/options.ts'
import { Authenticator } from './framework/auth.ts'
import { backgroundUpdateRoutes } from './background-updates.ts'
import { clientReportRoutes } from './client/reports.ts'
import { clientRoutes } from './client/rooms.ts'
import { eventReportRoutes } from './event-reports.ts'
import { serverVersionRoutes } from './server-version.ts'

export function homeserverRoutes(options: MockOptions): Route[] {
  const adminBase = `${options.hsPrefix}/admin/v1`
  const clientBase = `${options.clientPrefix}/client`
  const auth = new Authenticator(options)
  return [
    ...eventReportRoutes(adminBase, auth),
    ...serverVersionRoutes(adminBase, options),
    ...backgroundUpdateRoutes(adminBase, auth),
    ...clientReportRoutes(clientBase, auth),
    ...clientRoutes(clientBase, auth),
  ]
}
