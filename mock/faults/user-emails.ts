// Faults of the admin API's user-emails family (mock/admin/user-emails.ts), each caught by a named
// check of suites/admin/user-emails.suite.ts.
import { fault } from './def.ts'

const a = <N extends string>(name: N, description: string) => fault(name, 'admin', description)

export const userEmailFaults = [
  a('user-emails-filter-email-case-sensitive', 'filter[email] matches the address only with the same letter case'),
  a('user-emails-duplicate-accepted', 'adding an address already in use (in another letter case) answers 201 instead of 409'),
  a('user-emails-delete-keeps', 'delete answers 204 but the address stays'),
]
