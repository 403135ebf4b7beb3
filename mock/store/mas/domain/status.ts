// Which value of the schemas' status enums means "still going" and which means "ended", for the
// store's status indexes. The values are typed by the types generated from the schemas and checked
// against the schemas' enums when this module loads, so a schema change fails loudly here instead
// of leaving an index keyed by values no filter can ask for.
import { COMPAT_SESSION_STATUSES, OAUTH2_SESSION_STATUSES, PERSONAL_SESSION_STATUSES } from '../../../../lib/schemas.ts'
import type { CompatSessionStatus, OAuth2SessionStatus, PersonalSessionStatus } from '../../../../lib/types.gen.ts'

export interface StatusPair<S extends string> {
  active: S
  ended: S
  /** the status of an item whose end time is `endedAt` */
  of(endedAt: number | null): S
}

function statusPair<S extends string>(name: string, values: readonly S[], active: S, ended: S): StatusPair<S> {
  for (const v of [active, ended])
    if (!values.includes(v)) throw new Error(`the schema's ${name} enum (${values.join(', ')}) has no '${v}'`)
  return { active, ended, of: (endedAt) => (endedAt === null ? active : ended) }
}

export const COMPAT_STATUS = statusPair<CompatSessionStatus>('compat session status', COMPAT_SESSION_STATUSES, 'active', 'finished')
export const OAUTH2_STATUS = statusPair<OAuth2SessionStatus>('OAuth 2.0 session status', OAUTH2_SESSION_STATUSES, 'active', 'finished')
export const PERSONAL_STATUS = statusPair<PersonalSessionStatus>('personal session status', PERSONAL_SESSION_STATUSES, 'active', 'revoked')
