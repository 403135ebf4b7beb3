// Event reports (area B): listing, walks with from/next_token in both directions at several page sizes,
// ordering, filters, parameter errors, single reports; with writes: file a report through the client
// API, read it back, delete it. Reports created here are deleted when the file ends.
import {
  check,
  hs,
  hsClient,
  skip,
  note,
  cleanup,
  target,
  shown,
  requireSynapseFeature,
  setDefaultRule,
  setRule,
  hsFeature,
  hsFeatureRule,
  expectOk,
  expectHsError,
  expectStatus,
  expectSchema,
  windowSize,
  underDeviation,
} from '../lib/suite.ts'
import {
  reportWindow,
  walkReports,
  reportsPage,
  removeReport,
  expectUnrouted,
  windowLimit,
  type Report,
  type ReportFilters,
} from './reports.ts'
import {
  win,
  nonEmpty,
  sameSet,
  monotone,
  assertWalk,
  matches,
  unambiguous,
  pick,
  filed,
  reportPath,
  beforeEdge,
  type Field,
} from './report-checks.ts'

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
  t.equal(bad.length, 0, `every item has exactly the ${LIST_KEYS.length} list fields`, {
    firstBad: shown(bad[0]),
    keys: bad[0] ? Object.keys(bad[0]) : undefined,
  })
  t.notOk(
    (body.event_reports ?? []).some((r) => 'event_json' in r),
    'list items carry no event_json',
  )
})

check('event-reports: the default listing is dir=b with at most 100 reports', ['hs'], async (t) => {
  const w = await win()
  const n = w.total
  const res = await hs('GET', '/event_reports')
  const body = expectOk<{ event_reports: Report[]; total: number; next_token?: number }>(t, res, `GET ${PATH}`)
  if (!body) return
  const items = body.event_reports ?? []
  t.equal(items.length, Math.min(100, n), 'the default limit is 100')
  // The newest reports: the tail window (newest first), read again in order of received_ts.
  const newest = [...w.tail.items].sort((a, b) => b.received_ts - a.received_ts).slice(0, 100)
  t.notOk(monotone(items, 'b'), 'newest first without dir', { problem: monotone(items, 'b') })
  // A window smaller than a page: the page begins with the window's reports.
  t.same(
    items.slice(0, newest.length).map((r) => r.received_ts),
    newest.map((r) => r.received_ts),
    `the page holds the newest reports${w.complete ? '' : ` (the first ${newest.length} compared with the window)`}`,
  )
  t.equal(body.next_token !== undefined, n > 100, `next_token ${n > 100 ? 'present' : 'absent'} with ${n} reports`)
})

check('event-reports: dir=f lists oldest first by received_ts', ['hs'], async (t) => {
  // The reference walk itself: it fails here (not skips) when the listing cannot be walked.
  const { head: w, total, complete } = await reportWindow()
  if (!complete) note(t, `${total} reports: the oldest ${w.items.length} are walked (a window)`)
  assertWalk(t, w, 'dir=f', total)
  t.notOk(monotone(w.items, 'f'), 'received_ts never decreases', { problem: monotone(w.items, 'f') })
})

check('event-reports: dir=b lists newest first by received_ts', ['hs'], async (t) => {
  const win0 = await win()
  if (win0.total === 0) skip('the target has no event reports')
  const w = await walkReports({ dir: 'b', limit: windowLimit(), maxItems: win0.complete ? undefined : windowSize() })
  assertWalk(t, w, 'dir=b', win0.total)
  t.notOk(monotone(w.items, 'b'), 'received_ts never increases', { problem: monotone(w.items, 'b') })
  if (win0.complete) {
    sameSet(t, w.items, win0.head.items, 'dir=b lists the same reports as dir=f')
    return
  }
  // A window: the newest reports walked backward equal the same stretch walked forward from its offset.
  const n = w.items.length
  const fwd = await walkReports({ dir: 'f', limit: windowLimit(), from: win0.total - n })
  assertWalk(t, fwd, `dir=f from=${win0.total - n}`, win0.total, win0.total - n)
  const edge = w.items.at(-1)?.received_ts
  sameSet(
    t,
    beforeEdge(w.items, 'b', edge),
    beforeEdge(fwd.items, 'b', edge),
    `the newest ${n} reports walked with dir=b equal them walked with dir=f from offset ${win0.total - n}`,
  )
})

function pageSizes(n: number): number[] {
  const sizes = new Set<number>([3, 7, Math.max(1, Math.ceil(n / 2))])
  if (n <= 200) sizes.add(1)
  return [...sizes].sort((a, b) => a - b)
}

/**
 * Reports a walk at a small page size reads at most (decision 0004): beyond it, the small-page walks cover a
 * window of the listing (its first reports in the walk's order) and are compared with the same stretch
 * of the reference walk at that end; the walk with half the window as its page size covers the window.
 */
const SMALL_PAGE_WINDOW = 300

for (const dir of ['f', 'b'] as const) {
  check(
    `event-reports: ${dir === 'f' ? 'forward' : 'backward'} walks with from/next_token at several page sizes reproduce the full set`,
    ['hs'],
    async (t) => {
      const w0 = await win()
      if (w0.total === 0) skip('the target has no event reports')
      // The reference: the whole listing on a small target, else the window at this end (head or tail).
      const ref = dir === 'f' ? w0.head.items : w0.tail.items
      for (const limit of pageSizes(ref.length)) {
        const windowed = limit < 50 && ref.length > SMALL_PAGE_WINDOW
        const cap = windowed ? SMALL_PAGE_WINDOW : w0.complete ? undefined : ref.length
        const w = await walkReports({ dir, limit, maxItems: cap })
        assertWalk(t, w, `dir=${dir}&limit=${limit}`, w0.total)
        if (cap !== undefined) {
          const part = ref.slice(0, w.items.length)
          const edge = part.at(-1)?.received_ts ?? 0
          sameSet(
            t,
            beforeEdge(w.items, dir, edge),
            beforeEdge(part, dir, edge),
            `dir=${dir}&limit=${limit}: the first ${w.items.length} reports (a window) equal the same stretch of the reference walk`,
          )
        } else sameSet(t, w.items, ref, `dir=${dir}&limit=${limit} reaches every report once`)
        t.notOk(monotone(w.items, dir), `dir=${dir}&limit=${limit}: pages put together keep the order`, { problem: monotone(w.items, dir) })
      }
    },
  )
}

check('event-reports: total equals the number of reports walked', ['hs'], async (t) => {
  const w = await reportWindow()
  t.notOk(w.head.stopped, 'the listing can be walked', { stopped: w.head.stopped })
  const totals = [...w.head.pages, ...w.tail.pages].map((p) => p.body?.total)
  if (w.complete) {
    t.ok(
      totals.every((n) => n === w.head.items.length),
      `total is ${w.head.items.length} on every page`,
      { found: totals },
    )
    return
  }
  // A window: the same total on every page of both ends, and the last offset holds exactly one report.
  t.ok(
    totals.every((n) => n === w.total),
    `total is ${w.total} on every page of the oldest and the newest ${windowSize()}`,
    { found: [...new Set(totals)] },
  )
  const last = await reportsPage({ dir: 'f', from: w.total - 1, limit: 10 })
  if (expectStatus(t, last.res, 200, `dir=f&from=${w.total - 1}`)) {
    t.equal(last.body?.event_reports?.length, 1, `from=${w.total - 1} (total - 1) holds exactly the one last report`)
    t.equal(last.body?.event_reports?.[0]?.id, w.tail.items[0]?.id, 'and it is the newest report')
  }
})

check('event-reports: next_token appears only while more reports follow', ['hs'], async (t) => {
  const w = await win()
  if (w.total < 2) skip('fewer than two event reports on the target')
  // The last k reports by offset (all of them on a small target): the page sizes that end exactly at the
  // total and one short of it. The cost does not grow with the target.
  const k = Math.min(w.total, windowLimit())
  const start = w.total - k
  const at = start ? { from: start } : {}
  const exact = await reportsPage({ ...at, limit: k })
  if (expectStatus(t, exact.res, 200, `limit=${k}`)) {
    t.equal(exact.body?.event_reports?.length, k, `${start ? `from=${start}&` : ''}limit=${k}: the last ${k} reports`)
    t.equal(exact.body?.next_token, undefined, `${start ? `from=${start}&` : ''}limit=${k} (up to the total): no next_token`)
  }
  const n = k
  const short = await reportsPage({ ...at, limit: n - 1 })
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
  const beyond = await reportsPage({ from: w.total })
  if (expectStatus(t, beyond.res, 200, `from=${w.total}`)) {
    t.same(beyond.body?.event_reports, [], `from=${w.total} (the total): no reports`)
    t.equal(beyond.body?.next_token, undefined, `from=${w.total}: no next_token`)
    t.equal(beyond.body?.total, w.total, `from=${w.total}: total unchanged`)
  }
})

// --- filters: the filtered listing against the full set (or the window) filtered client-side

/**
 * The filtered listing compared with the window filtered client-side. On a small target the window is
 * every report: the walk must give exactly the matching reports and `total` must count them. On a large
 * one the filtered walk stops at the window's end (its last received_ts); the reports before that edge
 * must be exactly the window's matches, and `total` must be the same on every page and cover at least
 * the matches walked; where the filtered walk ends before the edge, `total` must equal what it walked.
 */
async function compareFiltered(
  t: Parameters<Parameters<typeof check>[2]>[0],
  filters: ReportFilters,
  limit: number,
  what: string,
): Promise<void> {
  const w0 = await win()
  const wanted = w0.head.items.filter((r) => matches(r, filters))
  const w = await walkReports({ dir: 'f', limit, filters, untilTs: w0.edge, maxItems: w0.complete ? undefined : windowSize() })
  if (w0.complete) {
    assertWalk(t, w, `${what} (limit ${limit})`, wanted.length)
    sameSet(t, w.items, wanted, `${what}: the filtered listing equals the full set filtered client-side`)
    t.ok(
      w.pages.every((p) => p.body?.total === wanted.length),
      `${what}: total counts the ${wanted.length} matching reports`,
      { found: w.pages.map((p) => p.body?.total) },
    )
    return
  }
  const total = w.pages[0]?.body?.total
  if (!t.ok(typeof total === 'number', `${what}: the first filtered page has a total`, { found: total })) return
  assertWalk(t, w, `${what} (limit ${limit}, up to the window's end)`, total!)
  const edge = Math.min(w0.edge!, w.truncated ? (w.items.at(-1)?.received_ts ?? w0.edge!) : w0.edge!)
  sameSet(
    t,
    beforeEdge(w.items, 'f', edge),
    beforeEdge(wanted, 'f', edge),
    `${what}: the filtered listing up to the window's end equals the window filtered client-side`,
  )
  if (!w.truncated)
    t.equal(
      total,
      w.items.length,
      `${what}: the filtered listing ended within the window, and total counts the ${w.items.length} reports it holds`,
    )
  else
    t.ok(
      total! >= w.items.length && total! <= w0.total,
      `${what}: total (${total}) counts at least the ${w.items.length} matches walked and at most every report`,
    )
}

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
    note(t, `filters ${shown(filters)}: ${wanted.length} of ${all.length} reports${(await win()).complete ? '' : ' (a window)'} expected`)
    await compareFiltered(t, filters, Math.max(1, Math.ceil(wanted.length / 3)), 'filtered walk')
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
    await compareFiltered(t, { [field]: part }, windowLimit(), `${field}=${part} (every report whose ${field} contains it)`)
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
  expectHsError(
    t,
    await hs('GET', '/event_reports', { query: { from: 'abc' } }),
    400,
    'M_INVALID_PARAM',
    'from=abc',
    await integerMessage('from'),
  )
  expectHsError(
    t,
    await hs('GET', '/event_reports', { query: { from: '-1' } }),
    400,
    'M_INVALID_PARAM',
    'from=-1',
    await negativeMessage('from'),
  )
})

check('event-reports: invalid limit → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  expectHsError(
    t,
    await hs('GET', '/event_reports', { query: { limit: 'abc' } }),
    400,
    'M_INVALID_PARAM',
    'limit=abc',
    await integerMessage('limit'),
  )
  expectHsError(
    t,
    await hs('GET', '/event_reports', { query: { limit: '-5' } }),
    400,
    'M_INVALID_PARAM',
    'limit=-5',
    await negativeMessage('limit'),
  )
})

check('event-reports: invalid dir → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  // The message changed in v1.77.0 (the generic enum parser); each release is held to its own text.
  const generic = await hsFeature('dir-error-enum-message')
  setRule(await hsFeatureRule('dir-error-enum-message'))
  const message = generic ? "Query parameter 'dir' must be one of ['b', 'f']" : 'Unknown direction: bar'
  expectHsError(t, await hs('GET', '/event_reports', { query: { dir: 'bar' } }), 400, 'M_INVALID_PARAM', 'dir=bar', message)
})

// Integers past 64 bits: a listing (nothing that far) or a 400, never a server error. The real homeserver
// on SQLite answers 500 (a known defect, lib/data/deviations.json).
check('event-reports: from or limit beyond 64 bits → 200 or 400, never a 5xx', ['hs'], async (t) => {
  for (const name of ['from', 'limit']) {
    const res = await hs('GET', '/event_reports', { query: { [name]: '99999999999999999999999' } })
    const clear = res.status === 200 || res.status === 400
    await underDeviation(
      'event-report-listing-overflow-500',
      () =>
        void t.ok(clear, `GET ${PATH}?${name}=99999999999999999999999: status 200 or 400`, {
          found: res.status,
          expected: 'status 200 or 400',
        }),
    )
    if (res.status === 400) expectSchema(t, 'homeserver/error', res.json, `${name}=99999999999999999999999: error body`, res)
  }
})

check('event-reports: invalid report ids → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  for (const id of ['-123', 'abcdef', '']) {
    expectHsError(t, await hs('GET', `/event_reports/${id}`), 400, 'M_INVALID_PARAM', `GET ${PATH}/${id}`, BAD_ID_MESSAGE)
  }
})

async function unknownId(): Promise<number> {
  const w = await win()
  return [...w.head.items, ...w.tail.items].reduce((m, r) => Math.max(m, r.id), 0) + 1_000_000
}

check('event-reports: an unknown report → 404 M_NOT_FOUND', ['hs'], async (t) => {
  const id = await unknownId()
  expectHsError(t, await hs('GET', `/event_reports/${id}`), 404, 'M_NOT_FOUND', `GET ${PATH}/${id}`, 'Event report not found')
})

// An id past the 64-bit range is no report: a clear 400 or 404, never a server error. The real homeserver
// on SQLite answers 500 (a known defect, lib/data/deviations.json): reported as such, not as a pass.
const OVERSIZED_ID = '99999999999999999999999'

check('event-reports: a report id beyond 64 bits → 400 or 404, never a 5xx', ['hs'], async (t) => {
  const res = await hs('GET', `/event_reports/${OVERSIZED_ID}`)
  const clear = res.status === 400 || res.status === 404
  await underDeviation(
    'event-report-id-overflow-500',
    () => void t.ok(clear, `GET ${PATH}/${OVERSIZED_ID}: status 400 or 404`, { found: res.status, expected: 'status 400 or 404' }),
  )
  if (clear) expectSchema(t, 'homeserver/error', res.json, `GET ${PATH}/${OVERSIZED_ID}: error body`, res)
})

// --- single reports

check('event-reports: a single report has the list fields and an event_json of the right shape', ['hs'], async (t) => {
  const all = await nonEmpty()
  // The oldest, one from the middle of the window, and the newest (sampled ids: the cost does not grow).
  const newest = (await win()).tail.items[0]!
  const picks = [...new Map([all[0]!, all[Math.floor(all.length / 2)]!, newest].map((r) => [r.id, r])).values()]
  for (const r of picks) {
    const res = await hs('GET', `/event_reports/${r.id}`)
    if (r.sender === null && res.status === 404) {
      // The listing shows the event missing (sender null: unknown or purged event); a healthy server
      // then answers exactly 404 M_NOT_FOUND for the single report.
      expectHsError(
        t,
        res,
        404,
        'M_NOT_FOUND',
        `GET ${PATH}/${r.id} (its event is gone: sender null in the listing)`,
        'Event report not found',
      )
      continue
    }
    const body = expectOk<Report & { event_json: Record<string, unknown> }>(t, res, `GET ${PATH}/${r.id}`, {
      schema: 'homeserver/event-report#Single',
    })
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
  const fresh = ((after.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).filter(
    (r) => !known.has(r.id) && r.event_id === where.eventId,
  )
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
  const res = await hsClient('POST', path, {
    as: where.as,
    body: { reason: `admin-conformance ${target.runId} bad score`, score: 'string' },
  })
  if (res.status === 200) {
    // the bug filed a report: remove it
    const list = await hs('GET', '/event_reports', { query: { room_id: where.roomId, dir: 'b', limit: 100 } })
    for (const r of ((list.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).filter(
      (x) => x.reason === `admin-conformance ${target.runId} bad score`,
    )) {
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
  expectHsError(
    t,
    await hs('GET', `/event_reports/${f.id}`),
    404,
    'M_NOT_FOUND',
    `GET ${PATH}/${f.id} after the delete`,
    'Event report not found',
  )
  expectHsError(
    t,
    await hs('DELETE', `/event_reports/${f.id}`),
    404,
    'M_NOT_FOUND',
    `DELETE ${PATH}/${f.id} again`,
    'Event report not found',
  )
  const after = await reportsPage({ limit: 1 })
  if (typeof before.body?.total === 'number') t.equal(after.body?.total, before.body.total - 1, 'total shrank by one')
  const room = await hs('GET', '/event_reports', { query: { room_id: f.roomId, limit: 1000 } })
  t.notOk(
    ((room.json as { event_reports?: Report[] } | undefined)?.event_reports ?? []).some((r) => r.id === f.id),
    'the listing no longer has it',
  )
})

check('event-reports: delete with an invalid id → 400, with an unknown id → 404', ['hs', 'writes'], async (t) => {
  if (!(await hsFeature('event-report-delete'))) {
    // Before v1.79.0 every DELETE here is unrouted, whatever the id.
    for (const id of ['-123', 'abcdef', String(await unknownId())])
      await expectUnrouted(t, await hs('DELETE', `/event_reports/${id}`), 'GET', `DELETE ${PATH}/${id}`)
    return
  }
  setRule(await hsFeatureRule('event-report-delete'))
  for (const id of ['-123', 'abcdef']) {
    expectHsError(t, await hs('DELETE', `/event_reports/${id}`), 400, 'M_INVALID_PARAM', `DELETE ${PATH}/${id}`, BAD_ID_MESSAGE)
  }
  const id = await unknownId()
  expectHsError(t, await hs('DELETE', `/event_reports/${id}`), 404, 'M_NOT_FOUND', `DELETE ${PATH}/${id}`, 'Event report not found')
})
