// Compatibility sessions (area A): listing, pagination, filters, lookups, errors, and finish (with writes).
import type { FamilySpec } from './listing/walk.ts'
import { unknownFilterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'
import { activeFilterLinksCheck, finishChecks, idFilterCheck, sessionDateFilterChecks, statusFilterChecks } from './session-checks.ts'
import { setDefaultRule } from '../lib/suite.ts'

setDefaultRule('spec/interface.md, Endpoints > Area A (compat-sessions) and Common conventions of area A; reference/mas-admin-api.md')

const spec: FamilySpec = {
  family: 'compat-sessions',
  type: 'compat-session',
  schema: 'admin/compat-session',
  notFoundTitle: (id) => [/compat/i, id],
}

listingChecks(spec)

// --- filters: the filtered listing against the full set filtered client-side

idFilterCheck(spec, 'filter[user]', 'user_id', 'no compat session has a user')
idFilterCheck(
  spec,
  'filter[user-session]',
  'user_session_id',
  'no compat session was started from a browser session (user_session_id is null everywhere)',
)
statusFilterChecks(spec, 'finished_at', ['active', 'finished'], 'compat session')
sessionDateFilterChecks(spec)
activeFilterLinksCheck(spec, 'filter[user]', 'user_id', 'no compat session has a user')

// --- errors of the listing

unknownFilterCheck(spec, 'filter[user]', 'user')
unknownFilterCheck(spec, 'filter[user-session]', 'session')
badFilterCheck(spec, 'an invalid filter[status] value', { 'filter[status]': 'bogus' }, ['filter'])
badFilterCheck(spec, 'a malformed filter[user]', { 'filter[user]': 'not-a-ulid' }, ['filter'])

// --- finish (writes): an active session, then again, then an unknown one

finishChecks(spec, {
  candidates: (items) => items.filter((i) => i.attributes.finished_at === null),
  none: 'no active compat session on the target to finish',
  sameGroup: ['filter[user]', 'user_id'],
})
