// Faults of the admin API's user-sessions family (mock/admin/user-sessions.ts), each caught by a
// named check of suites/admin/user-sessions.suite.ts.
import { fault } from './def.ts'

const a = <N extends string>(name: N, description: string, more?: Parameters<typeof fault>[3]) => fault(name, 'admin', description, more)

export const userSessionFaults = [
  a('user-sessions-status-ignored', 'filter[status] on user-sessions is accepted and printed in links but not applied'),
  a(
    'user-sessions-last-active-after-inclusive',
    'filter[last-active-after] on user-sessions also matches sessions last active at exactly the given time',
    { versions: { mas: 'filter-last-active-after' } },
  ),
]
