// The homeserver's table: the admin API (event and user reports, server_version, background updates) under
// `{hsPrefix}/admin/v1` and the client API slice under `{clientPrefix}/client`. The route modules
// keep their handlers; this table gives each of their routes its OpenAPI description (or why it has
// none) and its version gate, keyed by method and pattern: a route without a row, or a row without a
// route, stops the mock at start (and fails test/mock/site/openapi.test.ts), so the two cannot drift.
// Request-log lines of these routes carry no requester: the log grammar's requester forms belong to
// the auth service, and a homeserver user id fits none of them.
import type { Route } from '../core/context.ts'
import type { MockOptions } from '../core/options.ts'
import { hsErr, synapseGate, type RouteEntry, type RouteTable } from '../core/table.ts'
import { homeserverHooks } from './framework/http.ts'
import { backgroundUpdateRoutes } from './background-updates.ts'
import { clientReportRoutes } from './client/reports.ts'
import { clientRoutes } from './client/rooms.ts'
import { ClientAuthenticator } from './client/auth.ts'
import { discoveryRoutes } from './client/discovery.ts'
import { eventReportRoutes } from './event-reports.ts'
import { userReportRoutes } from './user-reports.ts'
import { clientUserReportRoutes } from './client/user-reports.ts'
import { serverVersionRoutes } from './server-version.ts'
import { CONTEXT_ERRORS, roomContextRoutes } from './room-context.ts'
import { ROOM_ERRORS, roomRoutes } from './rooms.ts'
import { ACCOUNT_DATA_ERRORS, accountDataRoutes } from './client/account-data.ts'
import { directoryRoutes } from './client/directory.ts'
import { serverKeyRoutes } from './server-keys.ts'

type Row = Pick<RouteEntry, 'doc' | 'since' | 'until'>

const BAD_REPORT_ID = hsErr(
  "report_id is not a non-negative integer: M_INVALID_PARAM 'The report_id parameter must be a string representing a positive integer.'.",
)
const FIXTURE = { undocumented: 'client API the fixtures use to build rooms and events; outside area B' }
const SIGN_IN = { undocumented: 'client API a client calls before signing in (discovery, profile); outside area B' }
const BACKGROUND_TOGGLE = { undocumented: 'pausing background updates is outside area B' }

function reportRow(version: 'v3' | 'r0'): Row {
  return {
    doc: {
      operationId: version === 'v3' ? 'reportEvent' : 'reportEventR0',
      tag: 'client',
      security: 'hs-user',
      summary: version === 'v3' ? 'Report an event (creates an event report)' : 'Report an event (legacy r0 prefix, same behaviour)',
      body: { ref: 'homeserver/client-report#Request' },
      responses: {
        '200': { description: 'Reported: an empty object.', ref: 'homeserver/client-report#Response' },
        '400': hsErr(
          "The body is not a JSON object (M_BAD_JSON 'Content must be a JSON object.'), reason is not a string (M_BAD_JSON \"Param 'reason' must be a string\") or score not an integer (M_BAD_JSON \"Param 'score' must be an integer\").",
        ),
        '403': hsErr(
          'Only v1.78.0 and v1.79.0: the user cannot see the event, M_FORBIDDEN "You don\'t have permission to access that event." (from v1.80.0 that is the 404).',
        ),
        '404': hsErr(
          'The event does not exist or the user cannot see it: M_NOT_FOUND "Unable to report event: it does not exist or you aren\'t able to see it." From v1.78.0; before it such a report is stored.',
        ),
      },
    },
  }
}

/** Rows by `METHOD pattern-after-the-prefix`; `{admin}` and `{client}` stand for the two bases. */
const ROWS: Record<string, Row> = {
  'GET {admin}/event_reports': {
    doc: {
      operationId: 'listEventReports',
      tag: 'event-report',
      summary: 'List event reports',
      security: 'hs-admin',
      description: 'Offset pagination: while next_token is present, call again with from set to it.',
      query: 'homeserver/event-report#ListQuery',
      responses: {
        '200': { description: 'A page of reports.', ref: 'homeserver/event-report#List' },
        '400': hsErr(
          "from or limit not a non-negative integer, or dir not b or f: M_INVALID_PARAM, in the claimed release's words (for example 'The start parameter must be a positive integer.', \"Query parameter 'dir' must be one of ['b', 'f']\"); a non-ASCII filter: M_UNKNOWN \"Query parameter '<name>' must be ascii\".",
        ),
        '500': hsErr(
          "from or limit beyond 64 bits at a release with the known defect event-report-listing-overflow-500 (the default claimed one, unless --no-deviations): M_UNKNOWN 'Internal server error', as the real homeserver on SQLite answers.",
        ),
      },
    },
  },
  'GET {admin}/event_reports/:report_id?': {
    doc: {
      operationId: 'getEventReport',
      tag: 'event-report',
      summary: 'Get an event report with the reported event',
      security: 'hs-admin',
      responses: {
        '200': { description: 'The report and event_json.', ref: 'homeserver/event-report#Single' },
        '400': BAD_REPORT_ID,
        '404': hsErr("The report does not exist, or its event or room data is gone: M_NOT_FOUND 'Event report not found'."),
        '500': hsErr(
          "An id beyond 64 bits at a release with the known defect event-report-id-overflow-500 (the default claimed one, unless --no-deviations): M_UNKNOWN 'Internal server error', as the real homeserver on SQLite answers.",
        ),
      },
    },
  },
  'DELETE {admin}/event_reports/:report_id?': {
    ...synapseGate('event-report-delete'),
    doc: {
      operationId: 'deleteEventReport',
      tag: 'event-report',
      summary: 'Delete an event report',
      security: 'hs-admin',
      responses: {
        '200': { description: 'Deleted: an empty object.', ref: 'homeserver/event-report#DeleteResponse' },
        '400': BAD_REPORT_ID,
        '404': hsErr("The report does not exist: M_NOT_FOUND 'Event report not found'."),
        '500': hsErr(
          "An id beyond 64 bits at a release with the known defect event-report-id-overflow-500 (unless --no-deviations): M_UNKNOWN 'Internal server error'.",
        ),
      },
    },
  },
  'GET {admin}/rooms/:roomId?/context/:eventId?': {
    ...synapseGate('admin-event-context'),
    doc: {
      operationId: 'getEventContext',
      tag: 'room-context',
      summary: 'Get the events around an event, with the room state',
      security: 'hs-admin',
      description:
        'What report consumers fetch for each report (limit=1: the event and the one after it). limit (default 10) is split: floor(limit / 2) events before, newest first; the rest after, oldest first. filter narrows them (types, not_types, senders, not_senders).',
      query: 'homeserver/room-context#Query',
      responses: {
        '200': {
          description: 'The event, its neighbours and the state at the last one, in the client format.',
          ref: 'homeserver/room-context#Context',
        },
        '400': hsErr(
          `limit not an integer (M_INVALID_PARAM, in the claimed release's words) or filter not a JSON object (M_NOT_JSON '${CONTEXT_ERRORS.filterNotJson}', from v1.106.0; before, 500).`,
        ),
        '404': hsErr(
          `The event does not exist: M_NOT_FOUND '${CONTEXT_ERRORS.eventNotFound}'; it is in another room than the one asked for: M_UNKNOWN '${CONTEXT_ERRORS.roomNotFound}'.`,
        ),
      },
    },
  },
  'GET {admin}/user_reports': {
    ...synapseGate('user-reports-admin-api'),
    doc: {
      operationId: 'listUserReports',
      tag: 'user-report',
      summary: 'List user reports',
      security: 'hs-admin',
      description: 'Offset pagination: while next_token is present, call again with from set to it. Ordered by received_ts.',
      query: 'homeserver/user-report#ListQuery',
      responses: {
        '200': { description: 'A page of user reports.', ref: 'homeserver/user-report#List' },
        '400': hsErr(
          "from or limit not a non-negative integer ('Query parameter limit must be a positive integer.', 'Query parameter from must be an integer'), or dir not b or f (\"Query parameter 'dir' must be one of ['b', 'f']\"): M_INVALID_PARAM; a non-ASCII filter: M_UNKNOWN \"Query parameter '<name>' must be ascii\".",
        ),
        '500': hsErr(
          "from or limit beyond 64 bits at a release with the known defect user-report-listing-overflow-500 (the default claimed one, unless --no-deviations): M_UNKNOWN 'Internal server error', as the real homeserver on SQLite answers.",
        ),
      },
    },
  },
  'GET {admin}/user_reports/:report_id?': {
    ...synapseGate('user-reports-admin-api'),
    doc: {
      operationId: 'getUserReport',
      tag: 'user-report',
      summary: 'Get a user report',
      security: 'hs-admin',
      responses: {
        '200': { description: 'The report: the five keys of a listed item.', ref: 'homeserver/user-report#UserReport' },
        '400': BAD_REPORT_ID,
        '404': hsErr("The report does not exist: M_NOT_FOUND 'User report not found'."),
      },
    },
  },
  'DELETE {admin}/user_reports/:report_id?': {
    ...synapseGate('user-reports-admin-api'),
    doc: {
      operationId: 'deleteUserReport',
      tag: 'user-report',
      summary: 'Delete a user report',
      security: 'hs-admin',
      responses: {
        '200': { description: 'Deleted: an empty object.', ref: 'homeserver/user-report#DeleteResponse' },
        '400': BAD_REPORT_ID,
        '404': hsErr("The report does not exist: M_NOT_FOUND 'User report not found'."),
      },
    },
  },
  'GET {admin}/rooms': {
    doc: {
      operationId: 'listRooms',
      tag: 'rooms',
      summary: 'List the rooms of the server',
      security: 'hs-admin',
      description:
        'Offset pagination as admin UIs page it (limit=0 asks for total_rooms alone): next_batch while from + limit < total_rooms, prev_batch when from > 0. Ordered by order_by, then room_id, reversed by dir=b; search_term matches a name or a canonical alias localpart by substring, or a room id exactly.',
      query: 'homeserver/rooms#ListQuery',
      responses: {
        '200': { description: 'A page of rooms and how many match.', ref: 'homeserver/rooms#List' },
        '400': hsErr(
          `from or limit not a non-negative integer, order_by or dir not one of their values (M_INVALID_PARAM, in the claimed release's words); an empty search_term: M_INVALID_PARAM '${ROOM_ERRORS.searchEmpty}'.`,
        ),
        '500': hsErr(
          "from or limit beyond 64 bits at a release with the known defect room-listing-overflow-500 (the default claimed one, unless --no-deviations): M_UNKNOWN 'Internal server error', as the real homeserver on SQLite answers.",
        ),
      },
    },
  },
  'GET {admin}/rooms/:roomId?': {
    doc: {
      operationId: 'getRoom',
      tag: 'rooms',
      summary: 'Get the details of a room',
      security: 'hs-admin',
      responses: {
        '200': { description: "The room's statistics and state summary; the keys differ by release.", ref: 'homeserver/rooms#Room' },
        '404': hsErr(`The room is unknown: M_NOT_FOUND '${ROOM_ERRORS.roomNotFound}'.`),
      },
    },
  },
  'GET {admin}/rooms/:roomId?/members': {
    doc: {
      operationId: 'getRoomMembers',
      tag: 'rooms',
      summary: 'List the joined members of a room',
      security: 'hs-admin',
      responses: {
        '200': { description: 'The joined members and their number.', ref: 'homeserver/rooms#Members' },
        '404': hsErr(`The room is unknown: M_NOT_FOUND '${ROOM_ERRORS.roomNotFound}'.`),
      },
    },
  },
  'GET {admin}/rooms/:roomId?/state': {
    doc: {
      operationId: 'getRoomState',
      tag: 'rooms',
      summary: 'Get the current state of a room',
      security: 'hs-admin',
      query: 'homeserver/rooms#StateQuery',
      responses: {
        '200': { description: 'The current state events in the client format.', ref: 'homeserver/rooms#State' },
        '404': hsErr(`The room is unknown: M_NOT_FOUND '${ROOM_ERRORS.roomNotFound}'.`),
      },
    },
  },
  'GET {admin}/users/:userId?/admin': {
    doc: {
      operationId: 'getUserAdmin',
      tag: 'rooms',
      summary: 'Whether a user is a server admin',
      security: 'hs-admin',
      responses: {
        '200': { description: 'admin: true or false (false for an unknown local user).', ref: 'homeserver/rooms#UserAdmin' },
        '400': hsErr(
          `Not a user id (M_INVALID_PARAM "Expected UserID string to start with '@'" or "… of the form '@localname:domain'"), or not a local one (M_UNKNOWN '${ROOM_ERRORS.notLocal}').`,
        ),
      },
    },
  },
  'GET {admin}/server_version': {
    doc: {
      operationId: 'getServerVersion',
      tag: 'homeserver',
      summary: 'Get the homeserver version',
      security: 'none',
      responses: { '200': { description: 'The version.', ref: 'homeserver/server-version#ServerVersion' } },
    },
  },
  'GET {admin}/background_updates/status': {
    doc: {
      operationId: 'getBackgroundUpdatesStatus',
      tag: 'homeserver',
      summary: 'Get the status of database background updates',
      security: 'hs-admin',
      description: 'Before an upgrade, wait until current_updates is empty.',
      responses: { '200': { description: 'Whether updates are enabled and which run now.', ref: 'homeserver/background-updates#Status' } },
    },
  },
  'GET {admin}/background_updates/enabled': { doc: BACKGROUND_TOGGLE },
  'POST {admin}/background_updates/enabled': { doc: BACKGROUND_TOGGLE },
  'POST {client}/v3/rooms/:roomId?/report/:eventId?': reportRow('v3'),
  'POST {client}/r0/rooms/:roomId?/report/:eventId?': reportRow('r0'),
  'POST {client}/v3/users/:userId?/report': {
    ...synapseGate('client-user-report'),
    doc: {
      operationId: 'reportUser',
      tag: 'client',
      security: 'hs-user',
      summary: 'Report a user (creates a user report; MSC4260)',
      description: 'Also 200 {} when the user is not on this server or does not exist: then nothing is stored.',
      body: { ref: 'homeserver/user-report#FileRequest' },
      responses: {
        '200': { description: 'Reported (or silently dropped): an empty object.', ref: 'homeserver/user-report#FileResponse' },
        '400': hsErr(
          "The body is not JSON (M_NOT_JSON 'Content not JSON.') or not an object (M_BAD_JSON 'Content must be a JSON object.'); reason missing (M_MISSING_PARAM) or not a string (M_BAD_JSON), with pydantic's validation message; reason longer than 1000 characters (M_BAD_JSON 'Reason must be less than 1000 characters').",
        ),
      },
    },
  },
  ...Object.fromEntries(
    (['v3', 'r0'] as const).flatMap((v) => [
      [
        `GET {client}/${v}/user/:userId?/account_data/:type?`,
        {
          doc:
            v === 'r0'
              ? { undocumented: 'the legacy r0 prefix of the account data call, same servlet as v3' }
              : {
                  operationId: 'getAccountData',
                  tag: 'client',
                  security: 'hs-user',
                  summary: "Get one type of the user's global account data",
                  description: 'What the moderation bots keep their report-polling position in (org.matrix.mjolnir.report_poll).',
                  responses: {
                    '200': { description: 'The content last set.', ref: 'homeserver/client-api#AccountData' },
                    '403': hsErr(`Another user's: M_FORBIDDEN '${ACCOUNT_DATA_ERRORS.getOther}'.`),
                    '404': hsErr(`Never set: M_NOT_FOUND '${ACCOUNT_DATA_ERRORS.notFound}'.`),
                  },
                },
        },
      ],
      [
        `PUT {client}/${v}/user/:userId?/account_data/:type?`,
        {
          doc:
            v === 'r0'
              ? { undocumented: 'the legacy r0 prefix of the account data call, same servlet as v3' }
              : {
                  operationId: 'setAccountData',
                  tag: 'client',
                  security: 'hs-user',
                  summary: "Set one type of the user's global account data",
                  body: { ref: 'homeserver/client-api#AccountData' },
                  responses: {
                    '200': { description: 'Stored: an empty object.', ref: 'homeserver/client-api#Empty' },
                    '400': hsErr(
                      "The body is not JSON (M_NOT_JSON 'Content not JSON.') or not an object (M_BAD_JSON 'Content must be a JSON object.').",
                    ),
                    '403': hsErr(`Another user's: M_FORBIDDEN '${ACCOUNT_DATA_ERRORS.putOther}'.`),
                    '405': hsErr('m.fully_read and m.push_rules have their own APIs: M_BAD_JSON.'),
                  },
                },
        },
      ],
      [
        `GET {client}/${v}/directory/room/:alias?`,
        {
          doc:
            v === 'r0'
              ? { undocumented: 'the legacy r0 prefix of alias resolution, same servlet as v3' }
              : {
                  operationId: 'resolveRoomAlias',
                  tag: 'client',
                  security: 'none',
                  summary: 'Resolve a room alias to its room',
                  responses: {
                    '200': {
                      description: 'The room and servers to join it through, this server first.',
                      ref: 'homeserver/client-api#AliasResolution',
                    },
                    '400': hsErr("Not an alias: M_INVALID_PARAM 'Room alias invalid'."),
                    '404': hsErr("A local alias nobody created: M_NOT_FOUND 'Room alias <alias> not found'."),
                    '502': hsErr("An alias of another server (the mock speaks no federation): M_UNKNOWN 'Failed to fetch alias'."),
                  },
                },
        },
      ],
    ]),
  ),
  'GET {key}/v2/server': {
    doc: {
      operationId: 'getServerKeys',
      tag: 'homeserver',
      security: 'none',
      summary: "Get the server's signing keys",
      description:
        'Signed with the key it lists (ed25519, canonical JSON); valid_until_ts one day ahead. Admin tools read server_name from it.',
      responses: { '200': { description: 'The server name, its verify keys and the signature.', ref: 'homeserver/client-api#ServerKeys' } },
    },
  },
  'GET {key}/v2/server/:keyId?': { doc: { undocumented: 'the deprecated form with a key id, the same answer' } },
  'POST {client}/unstable/rooms/:roomId?/report/:eventId?': {
    doc: { undocumented: 'the unstable prefix of the report call, same servlet as v3' },
  },
  'GET {client}/versions': { doc: FIXTURE },
  'GET /.well-known/matrix/client': { doc: SIGN_IN },
  'GET {client}/unstable/org.matrix.msc2965/auth_issuer': { ...synapseGate('client-auth-issuer'), doc: SIGN_IN },
  'GET {client}/unstable/org.matrix.msc2965/auth_metadata': { ...synapseGate('client-auth-metadata-unstable'), doc: SIGN_IN },
  'GET {client}/v1/auth_metadata': { ...synapseGate('client-auth-metadata'), doc: SIGN_IN },
  ...Object.fromEntries(
    ['r0', 'v3'].flatMap((v) =>
      ['', '/displayname', '/avatar_url'].map((f) => [`GET {client}/${v}/profile/:userId${f}`, { doc: SIGN_IN }]),
    ),
  ),
  ...Object.fromEntries(
    ['r0', 'v3'].flatMap((v) =>
      [
        'GET /account/whoami',
        'POST /createRoom',
        'POST /rooms/:roomId/join',
        'POST /join/:target',
        'PUT /rooms/:roomId/send/:eventType/:txnId',
      ].map((r) => {
        const [method, path] = r.split(' ')
        return [`${method} {client}/${v}${path}`, { doc: FIXTURE }]
      }),
    ),
  ),
}

/** Each route with its row; throws when a route has no row or a row no route (the table drifted). */
function withRows(routes: Route[], adminBase: string, clientBase: string): RouteEntry[] {
  // the key API sits beside the client API, under the same prefix
  const keyBase = clientBase.replace(/\/client$/, '/key')
  const unused = new Set(Object.keys(ROWS))
  const entries = routes.map((r) => {
    const key = `${r.method} ${r.pattern.replace(adminBase, '{admin}').replace(clientBase, '{client}').replace(keyBase, '{key}')}`
    const row = ROWS[key]
    if (!row) throw new Error(`homeserver table: route ${key} has no row (description or reason) in mock/homeserver/routes.ts`)
    unused.delete(key)
    return { ...r, ...row }
  })
  if (unused.size > 0) throw new Error(`homeserver table: rows without a route: ${[...unused].join(', ')}`)
  return entries
}

export function homeserverTable(options: MockOptions): RouteTable {
  const adminBase = `${options.hsPrefix}/admin/v1`
  const clientBase = `${options.clientPrefix}/client`
  // Admin and client routes check tokens alike, as a homeserver delegating to the auth service does.
  const clientAuth = new ClientAuthenticator(options)
  const auth = clientAuth
  const routes = [
    ...eventReportRoutes(adminBase, auth),
    ...roomContextRoutes(adminBase, auth),
    ...roomRoutes(adminBase, auth),
    ...userReportRoutes(adminBase, auth),
    ...serverVersionRoutes(adminBase, options),
    ...backgroundUpdateRoutes(adminBase, auth),
    ...clientReportRoutes(clientBase, clientAuth),
    ...clientUserReportRoutes(clientBase, clientAuth),
    ...clientRoutes(clientBase, clientAuth),
    ...discoveryRoutes(clientBase),
    ...accountDataRoutes(clientBase, clientAuth),
    ...directoryRoutes(clientBase),
    ...serverKeyRoutes(options.clientPrefix),
  ]
  return {
    api: 'homeserver',
    area: 'hs',
    version: (o) => o.hsVersion,
    routes: withRows(routes, adminBase, clientBase),
    hooks: { hs: homeserverHooks },
  }
}
