// Faults of the admin API's upstream-oauth-providers and upstream-oauth-links families, each caught
// by a named check of suites/admin/upstream-oauth-providers.suite.ts or upstream-oauth-links.suite.ts.
import { fault } from './def.ts'

const a = <N extends string>(name: N, description: string) => fault(name, 'admin', description)

export const upstreamOAuthFaults = [
  a(
    'upstream-providers-enabled-inverted',
    'filter[enabled] on upstream-oauth-providers returns the disabled providers for true and the enabled ones for false',
  ),
  a('upstream-links-provider-ignored', 'filter[provider] on upstream-oauth-links is checked and printed in links but not applied'),
  a('upstream-links-relink-accepted', 'adding a link for a subject already linked to a user moves it to the new user (201) instead of 409'),
]
