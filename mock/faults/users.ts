// Faults of the admin API's user family (mock/admin/users.ts), each switched on at the one place a
// real server would get it wrong, and each caught by a named check of suites/admin/users.suite.ts.
import { fault } from './def.ts'

const a = <N extends string>(name: N, description: string, more?: Parameters<typeof fault>[3]) => fault(name, 'admin', description, more)

export const userFaults = [
  a('users-search-case-sensitive', 'filter[search] matches the username case-sensitively and takes % and _ literally'),
  a('users-filter-locked-excludes-deactivated', 'filter[status]=locked leaves out locked users that are also deactivated'),
  a('users-lock-resets-time', 'locking an already locked user moves its locked_at to now'),
  a('users-unlock-noop', 'unlock answers 200 but the user stays locked'),
  a('users-deactivate-resets-time', 'deactivating an already deactivated user moves its deactivated_at to now'),
  a('users-deactivate-locks', 'deactivate also sets locked_at'),
  a('users-deactivate-keeps-sessions', 'deactivating a user leaves its sessions active'),
  a('users-reactivate-unlocks', 'reactivate also clears locked_at'),
  a('users-set-admin-ignored', 'set-admin answers 200 without changing the admin flag'),
]
