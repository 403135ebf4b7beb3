// Enum values, read from the schemas so that code never repeats them (re-exported by lib/schemas.ts).
import type {
  AdminEnvelopeIncludeCount,
  CompatSessionStatus,
  EventReportDirection,
  OAuth2SessionClientKind,
  OAuth2SessionStatus,
  PersonalSessionStatus,
  UserSessionStatus,
} from './types.gen.ts'
import { schemaFor } from './schema-registry.ts'

function enumOf<T extends string>(ref: string): readonly T[] {
  const values = schemaFor(ref).enum
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
    throw new Error(`schema '${ref}' is not a string enum`)
  }
  return Object.freeze([...values]) as readonly T[]
}

/** filter[status] of compat sessions: active, finished. */
export const COMPAT_SESSION_STATUSES = enumOf<CompatSessionStatus>('admin/compat-session#Status')
/** filter[status] of OAuth 2.0 sessions: active, finished. */
export const OAUTH2_SESSION_STATUSES = enumOf<OAuth2SessionStatus>('admin/oauth2-session#Status')
/** filter[status] of personal sessions: active, revoked. */
export const PERSONAL_SESSION_STATUSES = enumOf<PersonalSessionStatus>('admin/personal-session#Status')
/** filter[status] of user (browser) sessions: active, finished. */
export const USER_SESSION_STATUSES = enumOf<UserSessionStatus>('admin/user-session#Status')
/** filter[client-kind] of OAuth 2.0 sessions: dynamic, static. */
export const OAUTH2_CLIENT_KINDS = enumOf<OAuth2SessionClientKind>('admin/oauth2-session#ClientKind')
/** The count query parameter of every listing: true, false, only. */
export const INCLUDE_COUNT_VALUES = enumOf<AdminEnvelopeIncludeCount>('admin/envelope#IncludeCount')
/** dir of the event report listing: b (newest first, default), f (oldest first). */
export const EVENT_REPORT_DIRECTIONS = enumOf<EventReportDirection>('homeserver/event-report#Direction')
