// Event reports (area B): listing, walks with from/next_token in both directions at several page sizes,
// ordering, filters, parameter errors, single reports; with writes: file a report through the client
// API, read it back, delete it. Reports created here are deleted when the file ends.
import {
  check, hs, hsClient, skip, note, cleanup, target, shown, requireSynapseFeature, setDefaultRule, setRule,
  hsFeature, hsFeatureRule, expectOk, expectHsError, expectStatus,
} from '../lib/suite.ts'
import { allReports, walkReports, reportsPage, removeReport, expectUnrouted, like, type Report, type ReportFilters } from './reports.ts'
import { full, nonEmpty, sameSet, monotone, assertWalk, matches, unambiguous, pick, filed, reportPath, type Field } from './report-checks.ts'

setDefaultRule('spec/interface.md, Endpoints > Area B (homeserver admin API); reference/synapse-admin-api.md §1')

const PATH = `${target.hs?.prefix ?? '/_synapse'}/admin/v1/event_reports`
const LIST_KEYS = ['id', 'received_ts', 'room_id', 'event_id', 'user_id', 'sender', 'reason', 'score', 'name', 'canonical_alias']
const BAD_ID_MESSAGE = 'The report_id parameter must be a string representing a positive integer.'

// --- listing

check('event-reports: GET the listing → 200 matching the list schema', ['hs'], async (t) => {
  const res = await hs('GET', '/event_reports')
  const body = expectOk<{ event_reports: Report[]; total: number }>(t, res, `GET ${PATH}`, { schema: 'homeserver/event-report#List' })
  if (!body) return
  const want = [...LIST_KEYS].sort().join(',')
  const bad = (body.event_reports ?? []).filter((r) => Object.keys(r).sort().join(',') !== want)
  t.equal(bad.length, 0, `every item has exactly the ${LIST_KEYS.length} list fields`, { firstBad: shown(bad[0]), keys: bad[0] ? Object.keys(bad[0]) : undefined })
  t.notOk((body.event_reports ?? []).some((r) => 'event_json' in r), 'list items carry no event_json')
})

check('event-reports: the default listing is dir=b with at most 100 reports', ['hs'], async (t) => {
  const all = await full()
  const res = await hs('GET', '/event_reports')
  const body = expectOk<{ event_reports: Report[]; total: number; next_token?: number }>(t, res, `GET ${PATH}`)
  if (!body) return
  const items = body.event_reports ?? []
  t.equal(items.length, Math.min(100, all.length), 'the default limit is 100')
  const newest = [...all].sort((a, b) => b.received_ts - a.received_ts).slice(0, 100)
  t.notOk(monotone(items, 'b'), 'newest first without dir', { problem: monotone(items, 'b') })
  t.same(items.map((r) => r.received_ts), newest.map((r) => r.received_ts), 'the page holds the newest reports')
  t.equal(body.next_token !== undefined, all.length > 100, `next_token ${all.length > 100 ? 'present' : 'absent'} with ${all.length} reports`)
})

check('event-reports: dir=f lists oldest first by received_ts', ['hs'], async (t) => {
  // The reference walk itself: it fails here (not skips) when the listing cannot be walked.
  const w = await allReports()
  const total = w.pages[0]?.body?.total ?? w.items.length
  assertWalk(t, w, 'dir=f', total)
  t.notOk(monotone(w.items, 'f'), 'received_ts never decreases', { problem: monotone(w.items, 'f') })
})

check('event-reports: dir=b lists newest first by received_ts', ['hs'], async (t) => {
  const all = await nonEmpty()
  const w = await walkReports({ dir: 'b', limit: 1000 })
  assertWalk(t, w, 'dir=b', all.length)
  t.notOk(monotone(w.items, 'b'), 'received_ts never increases', { problem: monotone(w.items, 'b') })
  sameSet(t, w.items, all, 'dir=b lists the same reports as dir=f')
})

function pageSizes(n: number): number[] {
  const sizes = new Set<number>([3, 7, Math.max(1, Math.ceil(n / 2))])
  if (n <= 200) sizes.add(1)
  return [...sizes].sort((a, b) => a - b)
}

/**
 * Reports a walk at a small page size reads at most (issue 16): beyond it, the small-page walks cover a
 * window of the listing (its first reports in the walk's order) and are compared with the same window
 * read in one page; the walk with half the total as its page size still covers everything.
 */
const SMALL_PAGE_WINDOW = 300

/** The reports strictly before `edge` in the walk's order: what two windows of one order share (ties at the boundary have no defined order). */
function beforeEdge(items: Report[], dir: 'b' | 'f', edge: number): Report[] {
  return items.filter((r) => (dir === 'f' ? r.received_ts < edge : r.received_ts > edge))
}

for (const dir of ['f', 'b'] as const) {
  check(`event-reports: ${dir === 'f' ? 'forward' : 'backward'} walks with from/next_token at several page sizes reproduce the full set`, ['hs'], async (t) => {
    const all = await nonEmpty()
    for (const limit of pageSizes(all.length)) {
      const windowed = limit < 50 && all.length > SMALL_PAGE_WINDOW
      const w = await walkReports({ dir, limit, maxItems: windowed ? SMALL_PAGE_WINDOW : undefined })
      assertWalk(t, w, `dir=${dir}&limit=${limit}`, all.length)
      if (windowed) {
        const ref = (await reportsPage({ dir, limit: w.items.length })).body?.event_reports ?? []
        const edge = ref.at(-1)?.received_ts ?? 0
        sameSet(t, beforeEdge(w.items, dir, edge), beforeEdge(ref, dir, edge), `dir=${dir}&limit=${limit}: the first ${w.items.length} reports (a window) equal one page of them`)
      } else sameSet(t, w.items, all, `dir=${dir}&limit=${limit} reaches every report once`)
      t.notOk(monotone(w.items, dir), `dir=${dir}&limit=${limit}: pages put together keep the order`, { problem: monotone(w.items, dir) })
    }
  })
}

check('event-reports: total equals the number of reports walked', ['hs'], async (t) => {
  const w = await allReports()
  t.notOk(w.stopped, 'the listing can be walked to the end', { stopped: w.stopped })
  const totals = w.pages.map((p) => p.body?.total)
  t.ok(totals.every((n) => n === w.items.length), `total is ${w.items.length} on every page`, { found: totals })
})

check('event-reports: next_token appears only while more reports follow', ['hs'], async (t) => {
  const all = await full()
  if (all.length < 2) skip('fewer than two event reports on the target')
  const n = all.length
  const exact = await reportsPage({ limit: n })
  if (expectStatus(t, exact.res, 200, `limit=${n}`)) {
    t.equal(exact.body?.event_reports?.length, n, `limit=${n}: all reports`)
    t.equal(exact.body?.next_token, undefined, `limit=${n} (all of them): no next_token`)
  }
  const short = await reportsPage({ limit: n - 1 })
  if (expectStatus(t, short.res, 200, `limit=${n - 1}`)) {
    t.equal(short.body?.event_reports?.length, n - 1, `limit=${n - 1}: ${n - 1} reports`)
    t.type(short.body?.next_token, 'number', `limit=${n - 1}: a next_token`)
    if (typeof short.body?.next_token === 'number') {
      const last = await reportsPage({ limit: n - 1, from: short.body.next_token })
      if (expectStatus(t, last.res, 200, 'from=next_token')) {
        t.equal(last.body?.event_reports?.length, 1, 'the following page holds the one remaining report')
        t.equal(last.body?.next_token, undefined, 'the last page has no next_token')
      }
    }
  }
  const beyond = await reportsPage({ from: n })
  if (expectStatus(t, beyond.res, 200, `from=${n}`)) {
    t.same(beyond.body?.event_reports, [], `from=${n} (the total): no reports`)
    t.equal(beyond.body?.next_token, undefined, `from=${n}: no next_token`)
    t.equal(beyond.body?.total, n, `from=${n}: total unchanged`)
  }
})

// --- filters: the filtered listing against the full set filtered client-side

function filterCase(name: string, fields: Field[], needsSender: boolean): void {
  check(`event-reports: ${name} matches the full set filtered client-side`, ['hs'], async (t) => {
    if (needsSender) await requireSynapseFeature(t, 'event-sender-filter')
    const all = await nonEmpty()
    const filters: ReportFilters = {}
    for (const field of fields) {
      const v = pick(all, field, filters)
      if (!v) skip(`no usable ${field} value among the reports`)
      filters[field] = v
    }
    const wanted = all.filter((r) => matches(r, filters))
    note(t, `filters ${shown(filters)}: ${wanted.length} of ${all.length} reports expected`)
    const limit = Math.max(1, Math.ceil(wanted.length / 3))
    const w = await walkReports({ dir: 'f', limit, filters })
    assertWalk(t, w, `filtered walk (limit ${limit})`, wanted.length)
    sameSet(t, w.items, wanted, 'the filtered listing equals the full set filtered client-side')
    t.ok(w.pages.every((p) => p.body?.total === wanted.length), `total counts the ${wanted.length} matching reports`, { found: w.pages.map((p) => p.body?.total) })
  })
}

// The service matches user_id and room_id as substrings (SQL LIKE '%value%'); event_sender_user_id exactly.
check('event-reports: user_id and room_id filters match by substring', ['hs'], async (t) => {
  const all = await nonEmpty()
  for (const field of ['user_id', 'room_id'] as const) {
    // A proper prefix of a value (the sigil and the first characters of the local part) that every
    // reading of LIKE agrees on.
    const values = [...new Set(all.map((r) => r[field]))]
    let part: string | undefined
    for (const v of values) {
      const local = v.slice(0, v.indexOf(':') > 0 ? v.indexOf(':') : v.length)
      for (let n = Math.min(4, local.length - 1); n >= 2 && !part; n--) {
        const p = local.slice(0, n)
        if (!/[_%\\]/.test(p) && unambiguous(all, field, p, false) && all.some((r) => r[field] !== p && r[field].includes(p))) part = p
      }
      if (part) break
    }
    if (!part) {
      t.pass(`${field}: no substring found that every LIKE reading agrees on`, { skip: 'no usable value' })
      continue
    }
    const wanted = all.filter((r) => like(r[field], part!, false))
    const w = await walkReports({ dir: 'f', limit: 1000, filters: { [field]: part } })
    assertWalk(t, w, `${field}=${part}`, wanted.length)
    sameSet(t, w.items, wanted, `${field}=${part} selects every report whose ${field} contains it`)
  }
})

filterCase('filter user_id', ['user_id'], false)
filterCase('filter room_id', ['room_id'], false)
filterCase('filter event_sender_user_id', ['event_sender_user_id'], true)
filterCase('the combination of user_id and room_id', ['room_id', 'user_id'], false)
filterCase('the combination of user_id, room_id and event_sender_user_id', ['room_id', 'user_id', 'event_sender_user_id'], true)

// --- parameter errors

/** The message for a negative from/limit: the generic integer parser's since v1.106.0, the servlet's before. */
async function negativeMessage(param: 'from' | 'limit'): Promise<string> {
  setRule(await hsFeatureRule('negative-integer-generic-message'))
  if (await hsFeature('negative-integer-generic-message')) return `Query parameter ${param} must be a positive integer.`
  return `The ${param === 'from' ? 'start' : 'limit'} parameter must be a positive integer.`
}

/** The message for a from/limit that is not an integer: the name unquoted since v1.106.0, quoted before. */
async function integerMessage(param: 'from' | 'limit'): Promise<string> {
  const unquoted = await hsFeature('integer-message-unquoted-name')
  setRule(await hsFeatureRule('integer-message-unquoted-name'))
  return unquoted ? `Query parameter ${param} must be an integer` : `Query parameter '${param}' must be an integer`
}

check('event-reports: invalid from → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  expectHsError(t, await hs('GET', '/event_reports', { query: { from: 'abc' } }), 400, 'M_INVALID_PARAM', 'from=abc', await integerMessage('from'))
  expectHsError(t, await hs('GET', '/event_reports', { query: { from: '-1' } }), 400, 'M_INVALID_PARAM', 'from=-1', await negativeMessage('from'))
})

check('event-reports: invalid limit → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  expectHsError(t, await hs('GET', '/event_reports', { query: { limit: 'abc' } }), 400, 'M_INVALID_PARAM', 'limit=abc', await integerMessage('limit'))
  expectHsError(t, await hs('GET', '/event_reports', { query: { limit: '-5' } }), 400, 'M_INVALID_PARAM', 'limit=-5', await negativeMessage('limit'))
})

check('event-reports: invalid dir → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  // The message changed in v1.77.0 (the generic enum parser); each release is held to its own text.
  const generic = await hsFeature('dir-error-enum-message')
  setRule(await hsFeatureRule('dir-error-enum-message'))
  const message = generic ? "Query parameter 'dir' must be one of ['b', 'f']" : 'Unknown direction: bar'
  expectHsError(t, await hs('GET', '/event_reports', { query: { dir: 'bar' } }), 400, 'M_INVALID_PARAM', 'dir=bar', message)
})

check('event-reports: invalid report ids → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  for (const id of ['-123', 'abcdef', '']) {
    expectHsError(t, await hs('GET', `/event_reports/${id}`), 400, 'M_INVALID_PARAM', `GET ${PATH}/${id}`, BAD_ID_MESSAGE)
  }
})

async function unknownId(): Promise<number> {
  const all = await full()
  return all.reduce((m, r) => Math.max(m, r.id), 0) + 1_000_000
}

check('event-reports: an unknown report → 404 M_NOT_FOUND', ['hs'], async (t) => {
  const id = await unknownId()
  expectHsError(t, await hs('GET', `/event_reports/${id}`), 404, 'M_NOT_FOUND', `GET ${PATH}/${id}`, 'Event report not found')
})

// --- single reports

check('event-reports: a single report has the list fields and an event_json of the right shape', ['hs'], async (t) => {
  const all = await nonEmpty()
  const picks = [...new Set([0, Math.floor(all.length / 2), all.length - 1])].map((i) => all[i]!)
  for (const r of picks) {
    const res = await hs('GET', `/event_reports/${r.id}`)
    if (r.sender === null && res.status === 404) {
      // The listing shows the event missing (sender null: unknown or purged event); a healthy server
      // then answers exactly 404 M_NOT_FOUND for the single report.
      expectHsError(t, res, 404, 'M_NOT_FOUND', `GET ${PATH}/${r.id} (its event is gone: sender null in the listing)`, 'Event report not found')
      continue
    }
    const body = expectOk<Report & { event_json: Record<string, unknown> }>(t, res, `GET ${PATH}/${r.id}`, { schema: 'homeserver/event-report#Single' })
    if (!body) continue
    const listed = Object.fromEntries(LIST_KEYS.map((k) => [k, r[k]]))
    const single = Object.fromEntries(LIST_KEYS.map((k) => [k, body[k]]))
    t.same(single, listed, `report ${r.id}: the list fields equal the listed item`)
    const ev = body.event_json
    t.ok(ev && typeof ev === 'object', `report ${r.id}: event_json is an object`)
    if (!ev || typeof ev !== 'object') continue
    t.equal(ev.room_id, r.room_id, `report ${r.id}: event_json.room_id is the report's room`)
    if (r.sender !== null) t.equal(ev.sender, r.sender, `report ${r.id}: event_json.sender is the report's sender`)
  }
})

check('event-reports: a report filed through the client API appears in the listing and reads back', ['hs', 'writes'], async (t) => {
  const before = await reportsPage({ limit: 1 })
  const started = Date.now()
  const f = await filed(t)
  if (typeof f === 'string') {
    t.fail(f)
    return
  }
  t.pass(`the report filed through ${target.hs!.clientPrefix}/client/v3/rooms/{roomId}/report/{eventId} is listed with id ${f.id}`)
  const res = await hs('GET', `/event_reports/${f.id}`)
  const body = expectOk<Report>(t, res, `GET ${PATH}/${f.id}`, { schema: 'homeserver/event-report#Single' })
  if (body) {
    t.equal(body.room_id, f.roomId, 'room_id is the reported room')
    t.equal(body.event_id, f.eventId, 'event_id is the reported event')
    t.equal(body.reason, f.reason, 'reason is as sent')
    t.equal(body.score, -50, 'score is as sent')
    t.ok(Math.abs(body.received_ts - started) < 3_600_000, 'received_ts is the time of filing', { received_ts: body.received_ts })
  }
  const after = await reportsPage({ limit: 1 })
  if (typeof before.body?.total === 'number') t.equal(after.body?.total, before.body.total + 1, 'total grew by one')
})

check('event-reports: a report filed without score or reason lists them as null', ['hs', 'writes'], async (t) => {
  const where = await filed(t)
  if (typeof where === 'string') skip(`no report could be filed: ${where}`)
  const before = await hs('GET', '/event_reports', { query: { room_id: where.roomId, dir: 'b', limit: 1000 } })
  const known = new Set(((before.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).map((r) => r.id))
  const path = reportPath(where.roomId, where.eventId)
  const res = await hsClient('POST', path, { as: where.as, body: {} })
  if (!expectStatus(t, res, 200, `POST ${target.hs!.clientPrefix}/client/v3${path} with {}`)) return
  const after = await hs('GET', '/event_reports', { query: { room_id: where.roomId, dir: 'b', limit: 1000 } })
  const fresh = ((after.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).filter((r) => !known.has(r.id) && r.event_id === where.eventId)
  for (const r of fresh) cleanup(() => removeReport(r.id))
  if (!t.equal(fresh.length, 1, 'the new report is listed once')) return
  t.equal(fresh[0]!.score, null, 'score is null')
  t.equal(fresh[0]!.reason, null, 'reason is null')
})

check('event-reports: the client report endpoint rejects a score that is not an integer → 400 M_BAD_JSON', ['hs', 'writes'], async (t) => {
  const where = await filed(t)
  if (typeof where === 'string') skip(`no report could be filed: ${where}`)
  const path = reportPath(where.roomId, where.eventId)
  const before = await reportsPage({ limit: 1 })
  const res = await hsClient('POST', path, { as: where.as, body: { reason: `admin-conformance ${target.runId} bad score`, score: 'string' } })
  if (res.status === 200) {
    // the bug filed a report: remove it
    const list = await hs('GET', '/event_reports', { query: { room_id: where.roomId, dir: 'b', limit: 100 } })
    for (const r of ((list.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).filter((x) => x.reason === `admin-conformance ${target.runId} bad score`)) {
      cleanup(() => removeReport(r.id))
    }
  }
  expectHsError(t, res, 400, 'M_BAD_JSON', `POST ${target.hs!.clientPrefix}/client/v3${path} with score "string"`)
  const after = await reportsPage({ limit: 1 })
  t.equal(after.body?.total, before.body?.total, 'no report was stored')
})

check('event-reports: delete → 200 {}, then the report is gone', ['hs', 'writes'], async (t) => {
  const f = await filed(t)
  if (typeof f === 'string') skip(`no report could be filed: ${f}`)
  if (!(await hsFeature('event-report-delete'))) {
    // Before v1.79.0 the route does not exist: the request is unrouted, and the report stays.
    await expectUnrouted(t, await hs('DELETE', `/event_reports/${f.id}`), 'GET', `DELETE ${PATH}/${f.id}`)
    expectOk(t, await hs('GET', `/event_reports/${f.id}`), `GET ${PATH}/${f.id} after the unrouted DELETE (the report stays)`)
    return
  }
  setRule(await hsFeatureRule('event-report-delete'))
  const before = await reportsPage({ limit: 1 })
  const res = await hs('DELETE', `/event_reports/${f.id}`)
  const body = expectOk(t, res, `DELETE ${PATH}/${f.id}`, { schema: 'homeserver/event-report#DeleteResponse' })
  if (body !== undefined) t.same(body, {}, 'the body is an empty object')
  expectHsError(t, await hs('GET', `/event_reports/${f.id}`), 404, 'M_NOT_FOUND', `GET ${PATH}/${f.id} after the delete`, 'Event report not found')
  expectHsError(t, await hs('DELETE', `/event_reports/${f.id}`), 404, 'M_NOT_FOUND', `DELETE ${PATH}/${f.id} again`, 'Event report not found')
  const after = await reportsPage({ limit: 1 })
  if (typeof before.body?.total === 'number') t.equal(after.body?.total, before.body.total - 1, 'total shrank by one')
  const room = await hs('GET', '/event_reports', { query: { room_id: f.roomId, limit: 1000 } })
  t.notOk(((room.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).some((r) => r.id === f.id), 'the listing no longer has it')
})

check('event-reports: delete with an invalid id → 400, with an unknown id → 404', ['hs', 'writes'], async (t) => {
  if (!(await hsFeature('event-report-delete'))) {
    // Before v1.79.0 every DELETE here is unrouted, whatever the id.
    for (const id of ['-123', 'abcdef', String(await unknownId())]) await expectUnrouted(t, await hs('DELETE', `/event_reports/${id}`), 'GET', `DELETE ${PATH}/${id}`)
    return
  }
  setRule(await hsFeatureRule('event-report-delete'))
  for (const id of ['-123', 'abcdef']) {
    expectHsError(t, await hs('DELETE', `/event_reports/${id}`), 400, 'M_INVALID_PARAM', `DELETE ${PATH}/${id}`, BAD_ID_MESSAGE)
  }
  const id = await unknownId()
  expectHsError(t, await hs('DELETE', `/event_reports/${id}`), 404, 'M_NOT_FOUND', `DELETE ${PATH}/${id}`, 'Event report not found')
})
