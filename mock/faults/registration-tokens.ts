// Faults of the admin API's user-registration-tokens family (mock/admin/user-registration-tokens.ts),
// each caught by a named check of suites/admin/user-registration-tokens.suite.ts.
import { fault } from './def.ts'

const a = <N extends string>(name: N, description: string) => fault(name, 'admin', description)

export const registrationTokenFaults = [
  a('registration-tokens-expiry-ignores-time', 'filter[expired]=true lists every token with an expiry, also those expiring in the future'),
  a('registration-tokens-update-ignores-limit', 'PUT answers 200 but leaves usage_limit as it was'),
  a('registration-tokens-unrevoke-unrevoked-200', 'unrevoking a token that is not revoked answers 200 instead of 400'),
]
