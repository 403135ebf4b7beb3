// Faults of the homeserver side (area B): each a bug a real implementation could plausibly have,
// switched on at the one place in mock/homeserver/* where it would live.
import type { FaultDef } from './registry.ts'

export const homeserverFaults: FaultDef[] = [
  { name: 'reports-next-token-on-last-page', area: 'homeserver', description: 'event_reports sends next_token also on the last page' },
  { name: 'reports-next-token-off-by-one', area: 'homeserver', description: 'event_reports next_token is from + len(page) + 1, skipping a report' },
  { name: 'reports-dir-ignored', area: 'homeserver', description: 'event_reports ignores dir and always lists newest first' },
  { name: 'reports-total-ignores-filters', area: 'homeserver', description: 'event_reports total counts all reports, not the filtered ones' },
  { name: 'reports-user-filter-exact', area: 'homeserver', description: 'event_reports user_id filter matches exactly instead of by substring' },
  { name: 'reports-room-filter-exact', area: 'homeserver', description: 'event_reports room_id filter matches exactly instead of by substring' },
  { name: 'reports-sender-filter-ignored', area: 'homeserver', description: 'event_reports ignores event_sender_user_id' },
  { name: 'reports-negative-limit-accepted', area: 'homeserver', description: 'event_reports treats a negative limit as the default instead of answering 400' },
  { name: 'reports-dir-message', area: 'homeserver', description: "a bad dir gets 400 M_INVALID_PARAM with a message other than the real one" },
  { name: 'reports-null-score-as-zero', area: 'homeserver', description: 'a report filed without a score is listed with score 0 instead of null' },
  { name: 'reports-extra-key', area: 'homeserver', description: 'listing items carry an 11th key (the raw report content)' },
  { name: 'reports-missing-event-json', area: 'homeserver', description: 'the single report lacks event_json' },
  { name: 'reports-invalid-id-404', area: 'homeserver', description: 'a non-numeric report id gets 404 instead of 400 M_INVALID_PARAM' },
  { name: 'reports-not-found-500', area: 'homeserver', description: 'an unknown report id gets 500 instead of 404 M_NOT_FOUND' },
  { name: 'reports-delete-keeps-report', area: 'homeserver', description: 'deleting a report answers 200 {} but the report stays' },
  { name: 'server-version-extra-key', area: 'homeserver', description: 'server_version still carries python_version (removed in v1.94.0)' },
  { name: 'client-report-score-string-accepted', area: 'homeserver', description: 'the client report endpoint accepts a score that is not an integer' },
  { name: 'hs-auth-non-admin-allowed', area: 'auth', description: 'homeserver admin endpoints accept a non-admin user' },
  { name: 'hs-auth-missing-token-403', area: 'auth', description: 'a request without a token gets 403 instead of 401 M_MISSING_TOKEN' },
  { name: 'hs-auth-unknown-token-no-soft-logout', area: 'auth', description: 'the 401 M_UNKNOWN_TOKEN body lacks soft_logout' },
  { name: 'background-updates-hidden', area: 'upgrade', description: 'background_updates/status shows no current update while one runs' },
]
