// Helpers of the event-report checks (area B): the window, set and order comparisons, the assertions
// on a walk's pages, the filter values every reading of SQL LIKE agrees on, and filing a report through
// the client API (deleted at the end of the file, or listed as left behind). Area knowledge.
import {
  hs,
  hsClient,
  memo,
  skip,
  note,
  cleanup,
  target,
  expectStatus,
  schemaFailed,
  PAGES_DETAILED,
  type Test,
  type As,
} from '../lib/suite.ts'
import { reportWindow, removeReport, like, type Report, type ReportWalk, type ReportFilters, type ReportWindow } from './reports.ts'

/** The window (every report on a small target); skips when its walk failed (the walk checks report that). */
export async function win(): Promise<ReportWindow> {
  const w = await reportWindow()
  if (w.head.stopped) skip(`the listing could not be walked (${w.head.stopped}); see the walk checks`)
  if (w.tail.stopped) skip(`the backward listing could not be walked (${w.tail.stopped}); see the walk checks`)
  return w
}

/** The oldest reports (all of them on a small target): the sample filter values and ids are taken from. */
export async function full(): Promise<Report[]> {
  return (await win()).head.items
}

export async function nonEmpty(): Promise<Report[]> {
  const items = await full()
  if (items.length === 0) skip('the target has no event reports')
  return items
}

/** Reports strictly before `edge` in the order of `dir` (ties at a window's end have no defined order). */
export function beforeEdge(items: Report[], dir: 'b' | 'f', edge: number | undefined): Report[] {
  if (edge === undefined) return items
  return items.filter((r) => (dir === 'f' ? r.received_ts < edge : r.received_ts > edge))
}

export function ids(items: Report[]): number[] {
  return items.map((r) => r.id)
}

/** Set equality of report ids, with the first differences shown. */
export function sameSet(t: Test, found: Report[], wanted: Report[], what: string): boolean {
  const f = ids(found)
  const w = new Set(ids(wanted))
  const fs = new Set(f)
  const dup = f.length !== fs.size
  const missing = [...w].filter((id) => !fs.has(id))
  const extra = [...fs].filter((id) => !w.has(id))
  const ok = !dup && missing.length === 0 && extra.length === 0
  if (ok) return t.pass(`${what} (${w.size} reports)`)
  return t.fail(what, { found: f.length, wanted: w.size, duplicates: dup, missing: missing.slice(0, 10), extra: extra.slice(0, 10) })
}

export function monotone(items: Report[], dir: 'b' | 'f'): string | undefined {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!.received_ts
    const b = items[i]!.received_ts
    if (dir === 'f' ? b < a : b > a)
      return `report ${items[i]!.id} (received_ts ${b}) comes after report ${items[i - 1]!.id} (received_ts ${a})`
  }
  return undefined
}

/** Problems of a walk's pages shown one by one; the rest are counted (a hostile walk has hundreds). */
const DETAILED_PROBLEMS = 10

/** Pages of a walk: 200, schema, the same total everywhere, next_token only while more reports follow. */
export function assertWalk(t: Test, w: ReportWalk, what: string, total: number, start = 0): void {
  let bad = 0
  let offset = start
  let invalid = 0
  for (const p of w.pages) {
    if (p.res.status !== 200) {
      bad++
      expectStatus(t, p.res, 200, `${what}: ${p.request}`)
      continue
    }
    if (!p.schema.valid) {
      bad++
      // the first pages in detail (from the result the walk kept); the rest counted below
      if (invalid++ < PAGES_DETAILED) schemaFailed(t, 'homeserver/event-report#List', p.schema, `${what}: ${p.request}`)
    }
    const n = p.count ?? p.body?.event_reports?.length ?? 0
    if (p.body?.total !== total) {
      bad++
      if (bad <= DETAILED_PROBLEMS) t.fail(`${what}: ${p.request}: total is ${total}`, { found: p.body?.total })
    }
    offset += n
    const hasNext = p.body?.next_token !== undefined
    if (hasNext !== offset < total) {
      bad++
      if (bad <= DETAILED_PROBLEMS)
        t.fail(`${what}: ${p.request}: next_token ${offset < total ? 'present while more reports follow' : 'absent on the last page'}`, {
          next_token: p.body?.next_token,
          reached: offset,
          total,
        })
    }
  }
  if (bad > DETAILED_PROBLEMS) t.fail(`${what}: problems on ${bad - DETAILED_PROBLEMS} more page(s) (the first ${DETAILED_PROBLEMS} above)`)
  if (invalid > PAGES_DETAILED) t.fail(`${what}: ${invalid - PAGES_DETAILED} more page(s) do not match homeserver/event-report#List`)
  if (w.stopped) {
    bad++
    t.fail(`${what}: the walk stopped: ${w.stopped}`)
  }
  if (bad === 0)
    t.pass(
      `${what}: ${w.pages.length} page(s), each 200, matching the schema, with total ${total} and next_token exactly while more follow`,
    )
}

export type Field = 'user_id' | 'room_id' | 'event_sender_user_id'
// user_id and room_id are SQL `LIKE '%value%'` patterns in the real server (`%` and `_` are wildcards,
// unescaped); event_sender_user_id matches exactly. Expectations are built the same way.
export const matches = (r: Report, f: ReportFilters): boolean =>
  (f.user_id === undefined || like(r.user_id, f.user_id, false)) &&
  (f.room_id === undefined || like(r.room_id, f.room_id, false)) &&
  (f.event_sender_user_id === undefined || r.sender === f.event_sender_user_id)

/**
 * True when every reading of the filter selects the same reports for this value: exact match, plain
 * substring, and the service's LIKE (case-sensitive on PostgreSQL, not on SQLite).
 */
export function unambiguous(all: Report[], attr: 'user_id' | 'room_id' | 'sender', v: string, exactToo: boolean): boolean {
  const values = all.map((r) => r[attr]).filter((x): x is string => typeof x === 'string')
  const sub = values.filter((x) => x.includes(v)).length
  const cs = values.filter((x) => like(x, v, false)).length
  const ci = values.filter((x) => like(x, v, true)).length
  const exact = values.filter((x) => x === v).length
  return sub === cs && cs === ci && (!exactToo || sub === exact)
}

/** The most common value of the field, among those every reading of the filter agrees on. */
export function pick(all: Report[], field: Field, within: ReportFilters = {}): string | undefined {
  const attr = field === 'event_sender_user_id' ? 'sender' : field
  const pool = all.filter((r) => matches(r, within))
  const counts = new Map<string, number>()
  for (const r of pool) {
    const v = r[attr]
    if (typeof v === 'string' && v !== '') counts.set(v, (counts.get(v) ?? 0) + 1)
  }
  for (const [v] of [...counts.entries()].sort((a, b) => b[1] - a[1])) {
    if (unambiguous(all, attr, v, true)) return v
  }
  return undefined
}

// --- writes: file a report through the client API, read it back, delete it

export interface Filed {
  id: number
  roomId: string
  eventId: string
  reason: string
  /** the token that could report the event */
  as: As
}

export function reportPath(roomId: string, eventId: string): string {
  return `/rooms/${encodeURIComponent(roomId)}/report/${encodeURIComponent(eventId)}`
}

/**
 * File one report through the client API. The reporter must be able to see the event: try events of
 * existing reports with the non-admin token, then the admin token; else create a room and a message.
 */
export function filed(t: Test): Promise<Filed | string> {
  return memo('reports:filed', async () => {
    const reporters: As[] = target.hs?.userToken ? ['user', 'admin'] : ['admin']
    const reason = `admin-conformance ${target.runId} ${Date.now()}`
    const tried: string[] = []
    const attempt = async (roomId: string, eventId: string, as: As): Promise<Filed | undefined> => {
      const res = await hsClient('POST', reportPath(roomId, eventId), { as, body: { reason, score: -50 } })
      if (res.status !== 200) {
        tried.push(`${typeof as === 'string' ? as : 'token'} on ${eventId}: ${res.status}`)
        return undefined
      }
      const list = await hs('GET', '/event_reports', { query: { room_id: roomId, dir: 'b', limit: 100 } })
      const mine = ((list.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).find((x) => x.reason === reason)
      if (!mine) {
        tried.push(`the report filed on ${eventId} is not among the room's newest 100 reports`)
        return undefined
      }
      cleanup(() => removeReport(mine.id))
      return { id: mine.id, roomId, eventId, reason, as }
    }
    const all = await full()
    const seen = new Set<string>()
    for (const r of all.filter((x) => x.sender !== null).slice(0, 3)) {
      if (seen.has(r.event_id)) continue
      seen.add(r.event_id)
      for (const as of reporters) {
        const f = await attempt(r.room_id, r.event_id, as)
        if (f) return f
      }
    }
    // No visible event: a room and a message of the reporter's own.
    const as = reporters[0]!
    const room = await hsClient('POST', '/createRoom', { as, body: { name: `admin-conformance ${target.runId}` } })
    const roomId = (room.json as { room_id?: string } | undefined)?.room_id
    if (room.status !== 200 || !roomId)
      return `no reportable event (${tried.join('; ') || 'no reports listed'}), and createRoom answered ${room.status}`
    const sent = await hsClient('PUT', `/rooms/${encodeURIComponent(roomId)}/send/m.room.message/ac${Date.now()}`, {
      as,
      body: { msgtype: 'm.text', body: 'admin-conformance test message' },
    })
    const eventId = (sent.json as { event_id?: string } | undefined)?.event_id
    if (sent.status !== 200 || !eventId) return `no reportable event (${tried.join('; ')}), and sending a message answered ${sent.status}`
    note(t, `created room ${roomId} and event ${eventId} to report`)
    return (await attempt(roomId, eventId, as)) ?? `reporting a fresh event failed (${tried.join('; ')})`
  })
}
