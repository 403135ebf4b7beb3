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
  fault('reports-sender-filter-ignored', 'homeserver', 'event_reports ignores event_sender_user_id', {
    versions: { hs: 'event-sender-filter' },
    differsBy: 'hs',
  }),
  fault('reports-negative-limit-accepted', 'homeserver', 'event_reports treats a negative limit as the default instead of answering 400', {
    differsBy: 'hs',
  }),
  fault('reports-dir-message', 'homeserver', 'a bad dir gets 400 M_INVALID_PARAM with a message other than the real one', {
    differsBy: 'hs',
  }),
  fault('reports-null-score-as-zero', 'homeserver', 'a report filed without a score is listed with score 0 instead of null'),
  fault('reports-extra-key', 'homeserver', 'listing items carry an 11th key (the raw report content)'),
  fault('reports-missing-event-json', 'homeserver', 'the single report lacks event_json'),
  fault('reports-invalid-id-404', 'homeserver', 'a non-numeric report id gets 404 instead of 400 M_INVALID_PARAM', { differsBy: 'hs' }),
  fault('reports-not-found-500', 'homeserver', 'an unknown report id gets 500 instead of 404 M_NOT_FOUND', { differsBy: 'hs' }),
  fault(
    'reports-oversized-id-500',
    'homeserver',
    'a report id beyond 64 bits gets 500 M_UNKNOWN instead of 404 (the known defect of the real homeserver on SQLite, here at any release)',
    { differsBy: 'hs' },
  ),
  fault(
    'reports-listing-overflow-500',
    'homeserver',
    'a from or limit beyond 64 bits on the event- or user-report listing gets 500 M_UNKNOWN instead of a listing or 400 (the known defect of the real homeserver on SQLite, here at any release)',
    { differsBy: 'hs' },
  ),
  fault('reports-delete-keeps-report', 'homeserver', 'deleting a report answers 200 {} but the report stays', {
    versions: { hs: 'event-report-delete' },
    differsBy: 'hs',
  }),
  fault('server-version-extra-key', 'homeserver', 'server_version still carries python_version (removed in v1.94.0)', {
    versions: { hsNot: 'server-version-python-version' },
    differsBy: 'hs',
  }),
  fault('client-report-score-string-accepted', 'homeserver', 'the client report endpoint accepts a score that is not an integer', {
    differsBy: 'hs',
  }),
  fault('context-ignores-limit', 'homeserver', 'the event context answers more events after the event than limit leaves for them', {
    versions: { hs: 'admin-event-context' },
  }),
  fault('context-wrong-event', 'homeserver', 'the event context centres on a neighbour instead of the event asked for', {
    versions: { hs: 'admin-event-context' },
  }),
  fault('context-no-state', 'homeserver', 'the event context answers an empty state list', { versions: { hs: 'admin-event-context' } }),
  fault('user-reports-extra-key', 'homeserver', 'user_reports items carry a sixth key', { versions: { hs: 'user-reports-admin-api' } }),
  fault('user-reports-dir-ignored', 'homeserver', 'user_reports ignores dir and always lists newest first', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('user-reports-next-token-on-last-page', 'homeserver', 'user_reports sends next_token also on the last page', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('user-reports-next-token-off-by-one', 'homeserver', 'user_reports next_token is from + len(page) + 1, skipping a report', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('user-reports-total-ignores-filters', 'homeserver', 'user_reports total counts all reports, not the filtered ones', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('user-reports-user-filter-on-target', 'homeserver', 'user_reports applies the user_id filter to target_user_id', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('user-reports-target-filter-exact', 'homeserver', 'user_reports target_user_id filter matches exactly instead of by substring', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault(
    'user-reports-negative-limit-accepted',
    'homeserver',
    'user_reports treats a negative limit as the default instead of answering 400',
    { versions: { hs: 'user-reports-admin-api' } },
  ),
  fault(
    'user-reports-not-found-message',
    'homeserver',
    "an unknown user report gets 404 with the event-report text 'Event report not found'",
    { versions: { hs: 'user-reports-admin-api' } },
  ),
  fault('user-reports-single-users-swapped', 'homeserver', 'the single user report swaps user_id and target_user_id', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('user-reports-received-ts-seconds', 'homeserver', 'user reports show received_ts in seconds instead of milliseconds', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault(
    'user-reports-oversized-id-500',
    'homeserver',
    'a user report id beyond 64 bits gets 500 M_UNKNOWN instead of 404 (the known defect of the real homeserver on SQLite, here at any release)',
    { versions: { hs: 'user-reports-admin-api' }, differsBy: 'hs' },
  ),
  fault('user-reports-delete-keeps-report', 'homeserver', 'deleting a user report answers 200 {} but the report stays', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('user-reports-non-admin-allowed', 'auth', 'the user_reports endpoints accept any valid token, admin or not', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault(
    'client-user-report-unknown-target-stored',
    'homeserver',
    'a report against a user that does not exist is stored (the real server drops it)',
    { versions: { hs: 'user-reports-admin-api' } },
  ),
  fault('client-user-report-long-reason-accepted', 'homeserver', 'the user report endpoint accepts a reason longer than 1000 characters', {
    versions: { hs: 'user-reports-admin-api' },
  }),
  fault('rooms-total-is-page', 'homeserver', 'the room list answers total_rooms as the size of the page, not of every matching room'),
  fault('rooms-limit-zero-all', 'homeserver', 'the room list treats limit=0 as no limit and lists every room'),
  fault('rooms-dir-ignored', 'homeserver', 'the room list ignores dir=b and answers the forward order'),
  fault(
    'rooms-negative-from-accepted',
    'homeserver',
    'the room list treats a negative from as 0 instead of answering 400 M_INVALID_PARAM',
    {
      versions: { hs: 'negative-integer-generic-message' },
      differsBy: 'hs',
    },
  ),
  fault(
    'rooms-listing-overflow-500',
    'homeserver',
    'a from or limit beyond 64 bits on the room list gets 500 M_UNKNOWN instead of a listing or 400 (the known defect of the real homeserver on SQLite, here at any release)',
    { differsBy: 'hs' },
  ),
  fault('room-unknown-200', 'homeserver', 'the details of an unknown room answer 200 with nulls instead of 404 M_NOT_FOUND'),
  fault('room-members-total-off', 'homeserver', 'the members of a room answer a total one more than the members listed'),
  fault('user-admin-always-false', 'homeserver', 'whether a user is a server admin answers false for every user'),
  fault(
    'account-data-unset-empty',
    'homeserver',
    'account data never set answers 200 {} instead of 404 M_NOT_FOUND (the moderation bots stop on it)',
  ),
  fault('account-data-put-dropped', 'homeserver', 'setting account data answers 200 {} but stores nothing'),
  fault('alias-unknown', 'homeserver', 'resolving a local alias that exists answers 404 M_NOT_FOUND'),
  fault('server-keys-bad-signature', 'homeserver', 'the server keys carry a signature that does not verify with the key they list'),
  fault(
    'hs-auth-delegated-admin-without-scope',
    'auth',
    'an auth-service token without urn:synapse:admin:* is a server admin on the homeserver admin API',
    { versions: { hs: 'delegated-auth' } },
  ),
  fault('hs-auth-non-admin-allowed', 'auth', 'homeserver admin endpoints accept a non-admin user', { differsBy: 'hs' }),
  fault('hs-auth-missing-token-403', 'auth', 'a request without a token gets 403 instead of 401 M_MISSING_TOKEN', { differsBy: 'hs' }),
  fault('hs-auth-unknown-token-no-soft-logout', 'auth', 'the 401 M_UNKNOWN_TOKEN body lacks soft_logout', { differsBy: 'hs' }),
  fault('background-updates-hidden', 'upgrade', 'background_updates/status shows no current update while one runs'),
]
