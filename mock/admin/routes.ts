// The auth service's admin API table: every route under /api/admin/v1, from the rows each family's
// file declares beside its handlers (handler, OpenAPI description, the versions that have it, by
// lib/data/mas-features.json). Handlers read the world from ctx.world (a reset swaps it), so the
// table is built once.
import type { RouteEntry, RouteTable } from '../core/table.ts'
import { SITE_CONFIG_ENTRIES } from './site-config.ts'
import { VERSION_ENTRIES } from './version.ts'
import { COMPAT_SESSION_ENTRIES } from './compat-sessions.ts'
import { OAUTH2_SESSION_ENTRIES } from './oauth2-sessions.ts'
import { PERSONAL_SESSION_ENTRIES } from './personal-sessions.ts'
import { POLICY_DATA_ENTRIES } from './policy-data.ts'
import { USER_ENTRIES } from './users.ts'
import { USER_EMAIL_ENTRIES } from './user-emails.ts'
import { USER_SESSION_ENTRIES } from './user-sessions.ts'
import { OAUTH2_CLIENT_ENTRIES } from './oauth2-clients.ts'
import { PROVIDER_ENTRIES } from './upstream-oauth-providers.ts'
import { LINK_ENTRIES } from './upstream-oauth-links.ts'
import { REGISTRATION_TOKEN_ENTRIES } from './user-registration-tokens.ts'

export const ADMIN_BASE = '/api/admin/v1'

/** Area A, in the order of the interface document, then the user endpoints the fixtures use. */
const ENTRIES: RouteEntry[] = [
  ...SITE_CONFIG_ENTRIES,
  ...VERSION_ENTRIES,
  ...COMPAT_SESSION_ENTRIES,
  ...OAUTH2_SESSION_ENTRIES,
  ...PERSONAL_SESSION_ENTRIES,
  ...POLICY_DATA_ENTRIES,
  ...USER_ENTRIES,
  ...USER_EMAIL_ENTRIES,
  ...USER_SESSION_ENTRIES,
  ...OAUTH2_CLIENT_ENTRIES,
  ...PROVIDER_ENTRIES,
  ...LINK_ENTRIES,
  ...REGISTRATION_TOKEN_ENTRIES,
]

export function adminTable(): RouteTable {
  return {
    api: 'mas-admin',
    area: 'mas',
    version: (options) => options.masVersion,
    routes: ENTRIES.map((e) => ({ ...e, pattern: `${ADMIN_BASE}${e.pattern}` })),
  }
}
