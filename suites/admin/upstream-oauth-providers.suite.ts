// Upstream OAuth 2.0 providers (area A, beyond the interface document): listing, pagination, the
// enabled filter against the full set, lookups, errors. Read-only: providers come from the
// configuration. (The listing exists since v1.3.0, the lookup by id since v1.4.0: the family's
// checks ask for the latter.)
import { type FamilySpec, type MasItem } from './listing/walk.ts'
import { filterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'

const spec: FamilySpec = {
  family: 'upstream-oauth-providers',
  type: 'upstream-oauth-provider',
  schema: 'admin/upstream-oauth-provider',
  // the service's title names no id
  notFoundTitle: () => ['Provider not found'],
  feature: 'upstream-oauth-provider-get',
}

listingChecks(spec)

for (const enabled of [true, false]) {
  filterCheck(spec, `filter[enabled]=${enabled} matches the full set filtered on disabled_at`, (items) => {
    const expect = (i: MasItem) => (i.attributes.disabled_at === null) === enabled
    return items.some(expect)
      ? { filters: { 'filter[enabled]': String(enabled) }, expect }
      : `no ${enabled ? 'enabled' : 'disabled'} provider on the target`
  })
}

badFilterCheck(spec, 'an invalid filter[enabled] value', { 'filter[enabled]': 'yes' }, ['Invalid filter parameters'])
