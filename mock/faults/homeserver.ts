// Faults of the homeserver side (area B): each a bug a real implementation could plausibly have,
// switched on at the one place in mock/homeserver/* where it would live.
import { fault } from './def.ts'

export const homeserverFaults = [
  fault('reports-next-token-on-last-page', 'homeserver', 'event_reports sends next_token also on the last page', { differsBy: 'hs' }),
  fault('reports-next-token-off-by-one', 'homeserver', 'event_reports next_token is from + len(page) + 1, skipping a report'),
  fault('reports-dir-ignored', 'homeserver', 'event_reports ignores dir and always lists newest first', { differsBy: 'hs' }),
  fault('reports-total-ignores-filters', 'homeserver', 'event_reports total counts all reports, not the filtered ones'),
  fault('reports-user-filter-exact', 'homeserver', 'event_reports user_id filter matches exactly instead of by substring'),
  fault('reports-room-filter-exact', 'homeserver', 'event_reports room_id filter matches exactly instead of by substring'),
  fault('reports-sender-filter-ignored', 'homeserver', 'event_reports ignores event_sender_user_id', { versions: { hs: 'event-sender-filter' }, differsBy: 'hs' }),
  fault('reports-negative-limit-accepted', 'homeserver', 'event_reports treats a negative limit as the default instead of answering 400', { differsBy: 'hs' }),
  fault('reports-dir-message', 'homeserver', "a bad dir gets 400 M_INVALID_PARAM with a message other than the real one", { differsBy: 'hs' }),
  fault('reports-null-score-as-zero', 'homeserver', 'a report filed without a score is listed with score 0 instead of null'),
  fault('reports-extra-key', 'homeserver', 'listing items carry an 11th key (the raw report content)'),
  fault('reports-missing-event-json', 'homeserver', 'the single report lacks event_json'),
  fault('reports-invalid-id-404', 'homeserver', 'a non-numeric report id gets 404 instead of 400 M_INVALID_PARAM', { differsBy: 'hs' }),
  fault('reports-not-found-500', 'homeserver', 'an unknown report id gets 500 instead of 404 M_NOT_FOUND', { differsBy: 'hs' }),
  fault('reports-oversized-id-500', 'homeserver', 'a report id beyond 64 bits gets 500 M_UNKNOWN instead of 404 (the known defect of the real homeserver on SQLite, here at any release)', { differsBy: 'hs' }),
  fault('reports-listing-overflow-500', 'homeserver', 'a from or limit beyond 64 bits gets 500 M_UNKNOWN instead of a listing or 400 (the known defect of the real homeserver on SQLite, here at any release)', { differsBy: 'hs' }),
  fault('reports-delete-keeps-report', 'homeserver', 'deleting a report answers 200 {} but the report stays', { versions: { hs: 'event-report-delete' }, differsBy: 'hs' }),
  fault('server-version-extra-key', 'homeserver', 'server_version still carries python_version (removed in v1.94.0)', { versions: { hsNot: 'server-version-python-version' }, differsBy: 'hs' }),
  fault('client-report-score-string-accepted', 'homeserver', 'the client report endpoint accepts a score that is not an integer', { differsBy: 'hs' }),
  fault('hs-auth-non-admin-allowed', 'auth', 'homeserver admin endpoints accept a non-admin user', { differsBy: 'hs' }),
  fault('hs-auth-missing-token-403', 'auth', 'a request without a token gets 403 instead of 401 M_MISSING_TOKEN', { differsBy: 'hs' }),
  fault('hs-auth-unknown-token-no-soft-logout', 'auth', 'the 401 M_UNKNOWN_TOKEN body lacks soft_logout', { differsBy: 'hs' }),
  fault('background-updates-hidden', 'upgrade', 'background_updates/status shows no current update while one runs'),
]
