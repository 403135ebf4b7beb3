// The event context (area B, beyond the interface document): GET <prefix>/admin/v1/rooms/{room}/context/{event},
// what every report consumer fetches before it acts on a report (the moderation bots ask `?limit=1`).
// Read-only: the events come from the target's own reports; a target with none skips with that reason.
import type { Test } from '../lib/check.ts'
import { check, hs, skip, target, expectOk, expectHsError, requireSynapseFeature, hsFeature, diag, setDefaultRule } from '../lib/suite.ts'

setDefaultRule('Synapse docs/admin_api/rooms.md, Event Context API (synapse/rest/admin/rooms.py RoomEventContextServlet)')

const PATH = `${target.hs?.prefix ?? '/_synapse'}/admin/v1/rooms`
const SCHEMA = 'homeserver/room-context#Context'

interface Ev {
  event_id: string
  room_id: string
  type: string
  origin_server_ts: number
  state_key?: string
}
interface Context {
  events_before: Ev[]
  event: Ev
  events_after: Ev[]
  state: Ev[]
}

let reported: Promise<{ roomId: string; eventId: string } | undefined> | undefined

/** A reported event whose event still exists (the first of a small page of reports with a sender). */
function aReportedEvent(): Promise<{ roomId: string; eventId: string } | undefined> {
  reported ??= (async () => {
    // The oldest reports: their events have the most events after them, so that limit shows.
    const res = await hs('GET', '/event_reports', { query: { limit: 20, dir: 'f' } })
    const items = (
      (res.json as { event_reports?: { room_id: string; event_id: string; sender: string | null }[] } | undefined)?.event_reports ?? []
    ).filter((r) => r.sender)
    return items[0] ? { roomId: items[0].room_id, eventId: items[0].event_id } : undefined
  })()
  return reported
}

async function needEvent(t: Test): Promise<{ roomId: string; eventId: string }> {
  await requireSynapseFeature(t, 'admin-event-context')
  const e = await aReportedEvent()
  if (!e) skip('the target has no event report whose event still exists')
  return e
}

const path = (roomId: string, eventId: string) => `/rooms/${encodeURIComponent(roomId)}/context/${encodeURIComponent(eventId)}`
const shownPath = (roomId: string, eventId: string, q = '') =>
  `GET ${PATH}/${encodeURIComponent(roomId)}/context/${encodeURIComponent(eventId)}${q}`

check('room-context: limit=1, as report consumers fetch it → 200 matching the schema, centred on the reported event', ['hs'], async (t) => {
  const { roomId, eventId } = await needEvent(t)
  const res = await hs('GET', path(roomId, eventId), { query: { limit: 1 } })
  const body = expectOk<Context>(t, res, shownPath(roomId, eventId, '?limit=1'), { schema: SCHEMA })
  if (!body) return
  t.equal(body.event?.event_id, eventId, 'event is the reported event', diag(res))
  t.equal(body.event?.room_id, roomId, 'in the reported room', diag(res))
  t.equal(body.events_before?.length, 0, 'limit=1 leaves floor(1/2) = 0 events before it', diag(res))
  t.ok((body.events_after?.length ?? 0) <= 1, 'and at most 1 after it', diag(res, { after: body.events_after?.length }))
})

check(
  'room-context: limit=4 → at most 2 before (newest first) and 2 after (oldest first), all in the room; the state holds m.room.create',
  ['hs'],
  async (t) => {
    const { roomId, eventId } = await needEvent(t)
    const res = await hs('GET', path(roomId, eventId), { query: { limit: 4 } })
    const body = expectOk<Context>(t, res, shownPath(roomId, eventId, '?limit=4'), { schema: SCHEMA })
    if (!body) return
    const { events_before: before, events_after: after, event, state } = body
    t.ok(
      before.length <= 2 && after.length <= 2,
      'floor(4/2) = 2 before, the other 2 after, at most',
      diag(res, { before: before.length, after: after.length }),
    )
    const ts = (list: Ev[]) => list.map((e) => e.origin_server_ts)
    t.ok(
      ts(before).every((x, i, a) => i === 0 || a[i - 1]! >= x) && before.every((e) => e.origin_server_ts <= event.origin_server_ts),
      'events_before newest first, none after the event',
      diag(res, { before: ts(before), event: event.origin_server_ts }),
    )
    t.ok(
      ts(after).every((x, i, a) => i === 0 || a[i - 1]! <= x) && after.every((e) => e.origin_server_ts >= event.origin_server_ts),
      'events_after oldest first, none before the event',
      diag(res, { after: ts(after), event: event.origin_server_ts }),
    )
    const ids = [...before, ...after].map((e) => e.event_id)
    t.notOk(ids.includes(eventId) || new Set(ids).size !== ids.length, 'the event and its neighbours are distinct', diag(res, { ids }))
    t.ok(
      [...before, ...after, ...state].every((e) => e.room_id === roomId),
      'every event and state event is in the room',
      diag(res),
    )
    t.ok(
      state.some((e) => e.type === 'm.room.create' && e.state_key === ''),
      'the state holds the room’s m.room.create',
      diag(res, { types: state.map((e) => e.type) }),
    )
  },
)

check('room-context: limit=0 → the event alone', ['hs'], async (t) => {
  const { roomId, eventId } = await needEvent(t)
  const res = await hs('GET', path(roomId, eventId), { query: { limit: 0 } })
  const body = expectOk<Context>(t, res, shownPath(roomId, eventId, '?limit=0'), { schema: SCHEMA })
  if (!body) return
  t.same(
    [body.events_before.length, body.event.event_id, body.events_after.length],
    [0, eventId, 0],
    'no neighbours, the event itself',
    diag(res),
  )
})

check('room-context: an event not in the room → 404 M_NOT_FOUND "Event not found."', ['hs'], async (t) => {
  const { roomId } = await needEvent(t)
  const missing = `$admin-conformance-no-such-event:${roomId.split(':').slice(1).join(':') || 'example.invalid'}`
  expectHsError(
    t,
    await hs('GET', path(roomId, missing), { query: { limit: 1 } }),
    404,
    'M_NOT_FOUND',
    shownPath(roomId, missing, '?limit=1'),
    'Event not found.',
  )
})

check("room-context: limit that is not an integer → 400 M_INVALID_PARAM in the release's words", ['hs'], async (t) => {
  const { roomId, eventId } = await needEvent(t)
  const quoted = !(await hsFeature('integer-message-unquoted-name'))
  expectHsError(
    t,
    await hs('GET', path(roomId, eventId), { query: { limit: 'abc' } }),
    400,
    'M_INVALID_PARAM',
    shownPath(roomId, eventId, '?limit=abc'),
    `Query parameter ${quoted ? "'limit'" : 'limit'} must be an integer`,
  )
})

check('room-context: a filter that is not JSON → 400 M_NOT_JSON (from v1.106.0)', ['hs'], async (t) => {
  const { roomId, eventId } = await needEvent(t)
  await requireSynapseFeature(t, 'query-json-not-json')
  expectHsError(
    t,
    await hs('GET', path(roomId, eventId), { query: { filter: 'not json' } }),
    400,
    'M_NOT_JSON',
    shownPath(roomId, eventId, '?filter=not%20json'),
    'Query parameter filter must be a valid JSON object',
  )
})

check('room-context: a filter on types narrows the neighbours, never the event', ['hs'], async (t) => {
  const { roomId, eventId } = await needEvent(t)
  const filter = JSON.stringify({ types: ['m.room.member'] })
  const res = await hs('GET', path(roomId, eventId), { query: { limit: 6, filter } })
  const body = expectOk<Context>(t, res, shownPath(roomId, eventId, `?limit=6&filter=${encodeURIComponent(filter)}`), { schema: SCHEMA })
  if (!body) return
  t.equal(body.event.event_id, eventId, 'the event itself is kept', diag(res))
  const others = [...body.events_before, ...body.events_after].filter((e) => e.type !== 'm.room.member')
  t.same(
    others.map((e) => e.type),
    [],
    'only m.room.member events around it',
    diag(res),
  )
})

check('room-context: no token → 401 M_MISSING_TOKEN; a non-admin → 403 M_FORBIDDEN', ['hs', 'hs-user'], async (t) => {
  const { roomId, eventId } = await needEvent(t)
  expectHsError(
    t,
    await hs('GET', path(roomId, eventId), { as: 'none' }),
    401,
    'M_MISSING_TOKEN',
    `${shownPath(roomId, eventId)} without a token`,
  )
  expectHsError(
    t,
    await hs('GET', path(roomId, eventId), { as: 'user' }),
    403,
    'M_FORBIDDEN',
    `${shownPath(roomId, eventId)} as a non-admin`,
    'You are not a server admin',
  )
})
