// User reports (area B, since Synapse v1.152.0): listing, walks with from/next_token in both directions,
// ordering, both filters, parameter errors, single reports, auth; with writes: file a report through the
// client API (MSC4260), read it back, delete it, and the client call's refusals and silent drops. Every
// check skips with the release's reason on a homeserver older than the API. Reports filed here are
// deleted when the file ends; pre-existing reports are only read.
import {
  check,
  hs,
  hsClient,
  skip,
  note,
  cleanup,
  memo,
  target,
  shown,
  requireSynapseFeature,
  setDefaultRule,
  expectOk,
  expectHsError,
  expectStatus,
  expectSchema,
  schemaFailed,
  windowSize,
  walkBounds,
  pastBound,
  PAGES_DETAILED,
  leftover,
  underDeviation,
  type Test,
  type As,
} from '../lib/suite.ts'
import type { HttpResponse } from '../../lib/http.ts'
import { validate, type ValidationResult } from '../../lib/schemas.ts'
import { like } from './reports.ts'

setDefaultRule('reference/real-synapse.md, What 1.160.0 answered (area B); Synapse 1.152.0 release notes (user reports admin API)')

const PREFIX = target.hs?.prefix ?? '/_synapse'
const PATH = `${PREFIX}/admin/v1/user_reports`
const KEYS = ['id', 'received_ts', 'target_user_id', 'user_id', 'reason']
const BAD_ID_MESSAGE = 'The report_id parameter must be a string representing a positive integer.'
const NOT_FOUND = 'User report not found'
const FEATURE = 'user-reports-admin-api'
const LIST_REF = 'homeserver/user-report#List'

interface UserReport {
  id: number
  received_ts: number
  target_user_id: string
  user_id: string
  reason: string
  [k: string]: unknown
}

type Filters = Partial<Record<'user_id' | 'target_user_id', string>>

interface Page {
  request: string
  res: HttpResponse
  body?: { user_reports?: UserReport[]; next_token?: number; total?: number }
  schema: ValidationResult
  /** how many reports the page held (a walk keeps only those within its bounds and window) */
  count?: number
}

interface Walk {
  items: UserReport[]
  pages: Page[]
  stopped?: string
  /** a window (maxItems or untilTs) ended the walk while more reports follow */
  truncated?: boolean
}

async function page(query: Record<string, string | number | undefined>): Promise<Page> {
  const res = await hs('GET', '/user_reports', { query })
  const body = res.status === 200 && res.json && typeof res.json === 'object' ? (res.json as Page['body']) : undefined
  const q = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join('&')
  return { request: `user_reports?${q}`, res, body, schema: validate(LIST_REF, res.json) }
}

/** Walk the listing following next_token; with maxItems or untilTs (dir=f), a window. */
async function walk(opts: {
  dir: 'b' | 'f'
  limit: number
  filters?: Filters
  maxItems?: number
  from?: number
  untilTs?: number
}): Promise<Walk> {
  const out: Walk = { items: [], pages: [] }
  const bounds = walkBounds()
  let from = opts.from
  let bytes = 0
  for (let i = 0; ; i++) {
    const past = i > 0 ? pastBound(bounds, i, out.items.length, bytes) : undefined
    if (past) {
      out.stopped = past
      break
    }
    const p = await page({ ...opts.filters, dir: opts.dir, limit: opts.limit, from })
    bytes += p.res.bytes
    const all = p.body?.user_reports
    const items = Array.isArray(all) ? all.slice(0, bounds.items + 1 - out.items.length) : undefined
    const until = opts.untilTs
    const kept = items === undefined ? [] : until === undefined ? items : items.filter((r) => !(r.received_ts > until))
    // What the walk keeps of the page: its total, next_token, the reports kept and its schema result; not
    // its JSON (a hostile page of 4 MiB is tens of MiB of objects, and a walk reads up to 16 MiB).
    out.pages.push({
      ...p,
      res: { ...p.res, json: undefined },
      body: p.body && { total: p.body.total, next_token: p.body.next_token, ...(items ? { user_reports: kept } : {}) },
      ...(Array.isArray(all) ? { count: all.length } : {}),
    })
    if (p.res.status !== 200 || items === undefined) {
      out.stopped = `${p.request} answered ${p.res.status}${p.res.status === 200 ? ' without user_reports' : ''}`
      break
    }
    out.items.push(...kept)
    if (kept.length < items.length) {
      out.truncated = true
      break
    }
    if (all!.length > items.length) {
      // more reports than a walk reads: a window ends here, anything else is a listing that does not end
      if (opts.maxItems !== undefined && out.items.length >= opts.maxItems) out.truncated = true
      else out.stopped = pastBound(bounds, 0, bounds.items + 1, 0)
      break
    }
    const next = p.body!.next_token
    if (next === undefined || next === null) break
    if (opts.maxItems !== undefined && out.items.length >= opts.maxItems) {
      out.truncated = true
      break
    }
    if (items.length === 0 || typeof next !== 'number' || (from !== undefined && next <= from)) {
      out.stopped = `${p.request} has next_token ${JSON.stringify(next)}, which does not advance`
      break
    }
    from = next
  }
  return out
}

const windowLimit = () => Math.min(1000, windowSize())

/**
 * The reports the checks compare against: the oldest (head, dir=f) and the newest (tail, dir=b) at most
 * windowSize() each; on a small target the head holds them all (complete) and the tail is it reversed.
 */
interface Window {
  total: number
  head: Walk
  tail: Walk
  complete: boolean
  /** received_ts of the head's last report when it is not complete: filtered walks stop there */
  edge?: number
}

function reportWindow(): Promise<Window> {
  return memo('user-reports:window', async () => {
    const head = await walk({ dir: 'f', limit: windowLimit(), maxItems: windowSize() })
    const total = head.pages[0]?.body?.total ?? head.items.length
    const complete = !head.truncated
    const tail = complete
      ? { items: [...head.items].reverse(), pages: [] }
      : await walk({ dir: 'b', limit: windowLimit(), maxItems: windowSize() })
    return { total, head, tail, complete, edge: complete ? undefined : head.items.at(-1)?.received_ts }
  })
}

/** The feature, then the window; skips when the window could not be walked (the walk checks say why). */
async function win(t: Test): Promise<Window> {
  await requireSynapseFeature(t, FEATURE)
  const w = await reportWindow()
  if (w.head.stopped) skip(`the listing could not be walked (${w.head.stopped}); see the walk checks`)
  return w
}

async function nonEmpty(t: Test): Promise<UserReport[]> {
  const w = await win(t)
  if (w.head.items.length === 0) skip('the target has no user reports')
  return w.head.items
}

function sameSet(t: Test, found: UserReport[], wanted: UserReport[], what: string): boolean {
  const f = found.map((r) => r.id)
  const fs = new Set(f)
  const ws = new Set(wanted.map((r) => r.id))
  const missing = [...ws].filter((id) => !fs.has(id))
  const extra = [...fs].filter((id) => !ws.has(id))
  if (f.length === fs.size && missing.length === 0 && extra.length === 0) return t.pass(`${what} (${ws.size} reports)`)
  return t.fail(what, {
    found: f.length,
    wanted: ws.size,
    duplicates: f.length !== fs.size,
    missing: missing.slice(0, 10),
    extra: extra.slice(0, 10),
  })
}

function monotone(items: UserReport[], dir: 'b' | 'f'): string | undefined {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!.received_ts
    const b = items[i]!.received_ts
    if (dir === 'f' ? b < a : b > a)
      return `report ${items[i]!.id} (received_ts ${b}) comes after report ${items[i - 1]!.id} (received_ts ${a})`
  }
  return undefined
}

/** Reports strictly before `edge` in the order of `dir` (ties at a window's end have no defined order). */
function beforeEdge(items: UserReport[], dir: 'b' | 'f', edge: number | undefined): UserReport[] {
  if (edge === undefined) return items
  return items.filter((r) => (dir === 'f' ? r.received_ts < edge : r.received_ts > edge))
}

/** Pages of a walk: 200, schema, the same total everywhere, next_token exactly while more reports follow. */
function assertWalk(t: Test, w: Walk, what: string, total: number, start = 0): void {
  let bad = 0
  let offset = start
  for (const p of w.pages) {
    if (p.res.status !== 200) {
      bad++
      expectStatus(t, p.res, 200, `${what}: ${p.request}`)
      continue
    }
    if (!p.schema.valid) {
      // the first pages in detail (from the result the walk kept); the rest counted
      if (bad++ < PAGES_DETAILED) schemaFailed(t, LIST_REF, p.schema, `${what}: ${p.request}`)
      else t.fail(`${what}: ${p.request}: does not match ${LIST_REF}`, { errors: p.schema.errorCount })
    }
    if (p.body?.total !== total) {
      bad++
      t.fail(`${what}: ${p.request}: total is ${total}`, { found: p.body?.total })
    }
    offset += p.count ?? 0
    if ((p.body?.next_token !== undefined) !== offset < total) {
      bad++
      t.fail(`${what}: ${p.request}: next_token ${offset < total ? 'present while more reports follow' : 'absent on the last page'}`, {
        next_token: p.body?.next_token,
        reached: offset,
        total,
      })
    }
  }
  if (w.stopped) {
    bad++
    t.fail(`${what}: the walk stopped: ${w.stopped}`)
  }
  if (bad === 0)
    t.pass(
      `${what}: ${w.pages.length} page(s), each 200, matching the schema, with total ${total} and next_token exactly while more follow`,
    )
}

// user_id and target_user_id are SQL `LIKE '%value%'` in the real server (case-insensitive on SQLite,
// not on PostgreSQL; `%` and `_` wildcards): values are chosen so that every reading agrees.
const matches = (r: UserReport, f: Filters): boolean =>
  (f.user_id === undefined || like(r.user_id, f.user_id, false)) &&
  (f.target_user_id === undefined || like(r.target_user_id, f.target_user_id, false))

function unambiguous(all: UserReport[], field: keyof Filters, v: string, exactToo: boolean): boolean {
  const values = all.map((r) => r[field])
  const sub = values.filter((x) => x.includes(v)).length
  const cs = values.filter((x) => like(x, v, false)).length
  const ci = values.filter((x) => like(x, v, true)).length
  return sub === cs && cs === ci && (!exactToo || sub === values.filter((x) => x === v).length)
}

/** The most common value of the field that every reading of the filter agrees on. */
function pick(all: UserReport[], field: keyof Filters, within: Filters = {}): string | undefined {
  const counts = new Map<string, number>()
  for (const r of all.filter((x) => matches(x, within))) counts.set(r[field], (counts.get(r[field]) ?? 0) + 1)
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([v]) => v)
    .find((v) => unambiguous(all, field, v, true))
}

/**
 * The filtered listing against the window filtered client-side. On a small target: exactly the matching
 * reports, and total counts them. On a large one the filtered walk (dir=f) stops at the window's end, and
 * the reports before that edge must be exactly the window's matches.
 */
async function compareFiltered(t: Test, filters: Filters, what: string): Promise<void> {
  const w0 = await win(t)
  const wanted = w0.head.items.filter((r) => matches(r, filters))
  const limit = Math.max(1, Math.ceil(wanted.length / 3))
  const w = await walk({ dir: 'f', limit, filters, untilTs: w0.edge, maxItems: w0.complete ? undefined : windowSize() })
  if (w0.complete) {
    assertWalk(t, w, `${what} (limit ${limit})`, wanted.length)
    sameSet(t, w.items, wanted, `${what}: the filtered listing equals the full set filtered client-side`)
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
    t.equal(total, w.items.length, `${what}: the filtered listing ended within the window, and total counts its ${w.items.length} reports`)
}

// --- listing

check('user-reports: GET the listing → 200 matching the list schema, items with exactly the five keys', ['hs'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  const body = expectOk<{ user_reports: UserReport[]; total: number }>(t, await hs('GET', '/user_reports'), `GET ${PATH}`, {
    schema: 'homeserver/user-report#List',
  })
  if (!body) return
  const want = [...KEYS].sort().join(',')
  const bad = (body.user_reports ?? []).filter((r) => Object.keys(r).sort().join(',') !== want)
  t.equal(bad.length, 0, `every item has exactly ${KEYS.join(', ')}`, { firstBad: shown(bad[0]) })
  t.ok(body.total >= (body.user_reports ?? []).length, 'total is at least the number of items on the first page', { total: body.total })
})

check('user-reports: the default listing is dir=b (newest first, at most 100); dir=f lists oldest first', ['hs'], async (t) => {
  // The reference walk itself: it fails here (not skips) when the listing cannot be walked.
  await requireSynapseFeature(t, FEATURE)
  const w = await reportWindow()
  assertWalk(t, w.head, 'dir=f', w.total)
  if (w.head.stopped) return
  const res = await hs('GET', '/user_reports')
  const body = expectOk<{ user_reports: UserReport[]; next_token?: number }>(t, res, `GET ${PATH}`)
  if (!body) return
  const items = body.user_reports ?? []
  t.equal(items.length, Math.min(100, w.total), 'the default limit is 100')
  t.notOk(monotone(items, 'b'), 'newest first without dir', { problem: monotone(items, 'b') })
  const newest = [...w.tail.items].sort((a, b) => b.received_ts - a.received_ts).slice(0, 100)
  t.same(
    items.slice(0, newest.length).map((r) => r.received_ts),
    newest.map((r) => r.received_ts),
    'the page holds the newest reports',
  )
  t.equal(body.next_token !== undefined, w.total > 100, `next_token ${w.total > 100 ? 'present' : 'absent'} with ${w.total} reports`)
  t.notOk(monotone(w.head.items, 'f'), 'dir=f: received_ts never decreases', { problem: monotone(w.head.items, 'f') })
})

for (const dir of ['f', 'b'] as const) {
  check(
    `user-reports: ${dir === 'f' ? 'forward' : 'backward'} walks with from/next_token at several page sizes reach every report once`,
    ['hs'],
    async (t) => {
      const w0 = await win(t)
      if (w0.total === 0) skip('the target has no user reports')
      const ref = dir === 'f' ? w0.head.items : w0.tail.items
      const sizes = new Set([3, Math.max(1, Math.ceil(ref.length / 2))])
      if (ref.length <= 200) sizes.add(1)
      for (const limit of [...sizes].sort((a, b) => a - b)) {
        const w = await walk({ dir, limit, maxItems: w0.complete ? undefined : ref.length })
        assertWalk(t, w, `dir=${dir}&limit=${limit}`, w0.total)
        t.notOk(monotone(w.items, dir), `dir=${dir}&limit=${limit}: pages put together keep the order`, { problem: monotone(w.items, dir) })
        if (w0.complete) sameSet(t, w.items, ref, `dir=${dir}&limit=${limit} reaches every report once`)
        else {
          const part = ref.slice(0, w.items.length)
          const edge = part.at(-1)?.received_ts
          sameSet(
            t,
            beforeEdge(w.items, dir, edge),
            beforeEdge(part, dir, edge),
            `dir=${dir}&limit=${limit}: the first ${w.items.length} reports equal the same stretch of the reference walk`,
          )
        }
      }
    },
  )
}

check('user-reports: next_token only while more reports follow; limit=0 and from at the total', ['hs'], async (t) => {
  const w = await win(t)
  if (w.total < 2) skip('fewer than two user reports on the target')
  const n = w.total
  const zero = await page({ limit: 0 })
  if (expectStatus(t, zero.res, 200, 'limit=0')) {
    t.same(zero.body?.user_reports, [], 'limit=0: no reports')
    t.equal(zero.body?.total, n, `limit=0: total ${n}`)
    t.equal(zero.body?.next_token, 0, 'limit=0: next_token 0 (from + limit < total)')
  }
  const last = await page({ dir: 'f', from: n - 1, limit: 5 })
  if (expectStatus(t, last.res, 200, `dir=f&from=${n - 1}`)) {
    t.equal(last.body?.user_reports?.length, 1, `from=${n - 1} (total - 1): the one last report`)
    t.equal(last.body?.next_token, undefined, `from=${n - 1}&limit=5: no next_token`)
  }
  const short = await page({ dir: 'f', from: n - 2, limit: 1 })
  if (expectStatus(t, short.res, 200, `dir=f&from=${n - 2}&limit=1`)) {
    t.equal(short.body?.user_reports?.length, 1, `from=${n - 2}&limit=1: one report`)
    t.equal(short.body?.next_token, n - 1, `from=${n - 2}&limit=1: next_token ${n - 1}`)
  }
  const beyond = await page({ from: n })
  if (expectStatus(t, beyond.res, 200, `from=${n}`)) {
    t.same(beyond.body?.user_reports, [], `from=${n} (the total): no reports`)
    t.equal(beyond.body?.next_token, undefined, `from=${n}: no next_token`)
    t.equal(beyond.body?.total, n, `from=${n}: total unchanged`)
  }
})

// --- filters

for (const fields of [['user_id'], ['target_user_id'], ['target_user_id', 'user_id']] as const) {
  check(`user-reports: filter ${fields.join(' and ')} matches the full set filtered client-side`, ['hs'], async (t) => {
    const all = await nonEmpty(t)
    const filters: Filters = {}
    for (const field of fields) {
      const v = pick(all, field, filters)
      if (!v) skip(`no usable ${field} value among the reports`)
      filters[field] = v
    }
    note(t, `filters ${shown(filters)}: ${all.filter((r) => matches(r, filters)).length} of ${all.length} reports expected`)
    await compareFiltered(t, filters, `filtered walk ${shown(filters)}`)
  })
}

check('user-reports: user_id and target_user_id match by substring', ['hs'], async (t) => {
  const all = await nonEmpty(t)
  for (const field of ['target_user_id', 'user_id'] as const) {
    // A proper prefix of a local part (the sigil and a few characters) that every reading of LIKE agrees on.
    let part: string | undefined
    for (const v of new Set(all.map((r) => r[field]))) {
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
    await compareFiltered(t, { [field]: part }, `${field}=${part} (every report whose ${field} contains it)`)
  }
})

// --- parameter errors (the API came after v1.106.0: the generic integer parser's messages throughout)

check('user-reports: invalid from, limit or dir → 400 M_INVALID_PARAM with the real messages', ['hs'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  const cases: [Record<string, string>, string][] = [
    [{ from: 'abc' }, 'Query parameter from must be an integer'],
    [{ from: '-1' }, 'Query parameter from must be a positive integer.'],
    [{ limit: 'abc' }, 'Query parameter limit must be an integer'],
    [{ limit: '-5' }, 'Query parameter limit must be a positive integer.'],
    [{ dir: 'bar' }, "Query parameter 'dir' must be one of ['b', 'f']"],
  ]
  for (const [query, message] of cases) {
    expectHsError(
      t,
      await hs('GET', '/user_reports', { query }),
      400,
      'M_INVALID_PARAM',
      Object.entries(query)
        .map(([k, v]) => `${k}=${v}`)
        .join('&'),
      message,
    )
  }
})

// Integers past 64 bits: a listing (nothing that far) or a 400, never a server error. The real homeserver
// on SQLite answers 500 (a known defect, lib/data/deviations.json), as its event-report listing does.
check('user-reports: from or limit beyond 64 bits → 200 or 400, never a 5xx', ['hs'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  for (const name of ['from', 'limit']) {
    const res = await hs('GET', '/user_reports', { query: { [name]: '99999999999999999999999' } })
    const clear = res.status === 200 || res.status === 400
    await underDeviation(
      'user-report-listing-overflow-500',
      () =>
        void t.ok(clear, `GET ${PATH}?${name}=99999999999999999999999: status 200 or 400`, {
          found: res.status,
          expected: 'status 200 or 400',
        }),
    )
    if (res.status === 400) expectSchema(t, 'homeserver/error', res.json, `${name}=99999999999999999999999: error body`, res)
  }
})

async function unknownId(t: Test): Promise<number> {
  const w = await win(t)
  return [...w.head.items, ...w.tail.items].reduce((m, r) => Math.max(m, r.id), 0) + 1_000_000
}

check('user-reports: invalid report ids → 400 M_INVALID_PARAM, an unknown one → 404 M_NOT_FOUND', ['hs'], async (t) => {
  const id = await unknownId(t)
  for (const bad of ['-123', 'abcdef', '']) {
    expectHsError(t, await hs('GET', `/user_reports/${bad}`), 400, 'M_INVALID_PARAM', `GET ${PATH}/${bad}`, BAD_ID_MESSAGE)
  }
  expectHsError(t, await hs('GET', `/user_reports/${id}`), 404, 'M_NOT_FOUND', `GET ${PATH}/${id}`, NOT_FOUND)
})

// An id past the 64-bit range is no report: a clear 400 or 404, never a server error. The real homeserver
// on SQLite answers 500 (a known defect, lib/data/deviations.json): reported as such, not as a pass.
const OVERSIZED_ID = '99999999999999999999999'

check('user-reports: a report id beyond 64 bits → 400 or 404, never a 5xx', ['hs'], async (t) => {
  await requireSynapseFeature(t, 'user-reports-admin-api')
  const res = await hs('GET', `/user_reports/${OVERSIZED_ID}`)
  const clear = res.status === 400 || res.status === 404
  await underDeviation(
    'user-report-id-overflow-500',
    () => void t.ok(clear, `GET ${PATH}/${OVERSIZED_ID}: status 400 or 404`, { found: res.status, expected: 'status 400 or 404' }),
  )
  if (clear) expectSchema(t, 'homeserver/error', res.json, `GET ${PATH}/${OVERSIZED_ID}: error body`, res)
})

check('user-reports: a single report equals its listed item', ['hs'], async (t) => {
  const all = await nonEmpty(t)
  const newest = (await win(t)).tail.items[0]!
  const picks = [...new Map([all[0]!, all[Math.floor(all.length / 2)]!, newest].map((r) => [r.id, r])).values()]
  for (const r of picks) {
    const body = expectOk<UserReport>(t, await hs('GET', `/user_reports/${r.id}`), `GET ${PATH}/${r.id}`, {
      schema: 'homeserver/user-report#UserReport',
    })
    if (body) t.same(body, r, `report ${r.id}: the single response equals the listed item`)
  }
})

// --- auth

check('user-reports: no token → 401 M_MISSING_TOKEN on the listing and a single report', ['hs-url'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  for (const p of ['/user_reports', '/user_reports/1'])
    expectHsError(t, await hs('GET', p, { as: 'none' }), 401, 'M_MISSING_TOKEN', `GET ${PREFIX}/admin/v1${p} without a token`)
  expectHsError(
    t,
    await hs('GET', '/user_reports', { as: 'none', query: { dir: 'bogus' } }),
    401,
    'M_MISSING_TOKEN',
    'no token and dir=bogus (auth before parameters)',
  )
})

check('user-reports: a non-admin token → 403 M_FORBIDDEN', ['hs-user'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  for (const p of ['/user_reports', '/user_reports/1']) {
    expectHsError(
      t,
      await hs('GET', p, { as: 'user' }),
      403,
      'M_FORBIDDEN',
      `GET ${PREFIX}/admin/v1${p} as a non-admin`,
      'You are not a server admin',
    )
  }
  expectHsError(
    t,
    await hs('GET', '/user_reports', { as: 'user', query: { limit: '-5' } }),
    403,
    'M_FORBIDDEN',
    'non-admin token and limit=-5 (the admin check before parameters)',
  )
})

// --- writes: file through the client API, read back, delete

const REPORT_PATH = (userId: string) => `/users/${encodeURIComponent(userId)}/report`

async function whoami(as: As): Promise<string | undefined> {
  const res = await hsClient('GET', '/account/whoami', { as })
  return (res.json as { user_id?: string } | undefined)?.user_id
}

/** Delete a report this file filed, at the end of the file; listed as left behind when that fails. */
async function removeUserReport(id: number): Promise<void> {
  try {
    const res = await hs('DELETE', `/user_reports/${id}`)
    if (res.status !== 200 && res.status !== 404)
      leftover({ target: 'hs', kind: 'user-report', id: String(id), reason: `DELETE answered ${res.status}` })
  } catch (e) {
    leftover({ target: 'hs', kind: 'user-report', id: String(id), reason: `DELETE got no answer: ${(e as Error).message}` })
  }
}

/** The reports against `targetId` whose reason is `reason` (the newest 1000 against that target). */
async function findByReason(targetId: string, reason: string): Promise<UserReport[]> {
  const res = await hs('GET', '/user_reports', { query: { target_user_id: targetId, dir: 'b', limit: 1000 } })
  return ((res.json as { user_reports?: UserReport[] } | undefined)?.user_reports ?? []).filter(
    (r) => r.reason === reason && r.target_user_id === targetId,
  )
}

interface Filed {
  id: number
  reporter: string
  targetId: string
  reason: string
  as: As
  filedAt: number
}

/** File one report: the non-admin token reports the admin (or the admin reports itself without one). */
function filed(): Promise<Filed | string> {
  return memo('user-reports:filed', async () => {
    const as: As = target.hs?.userToken ? 'user' : 'admin'
    const reporter = await whoami(as)
    const targetId = await whoami('admin')
    if (!reporter || !targetId) return 'whoami did not name the token holders'
    const reason = `admin-conformance ${target.runId} ${Date.now()} ☃`
    const filedAt = Date.now()
    const res = await hsClient('POST', REPORT_PATH(targetId), { as, body: { reason } })
    if (res.status !== 200) return `POST ${REPORT_PATH(targetId)} answered ${res.status}`
    const mine = await findByReason(targetId, reason)
    for (const r of mine) cleanup(() => removeUserReport(r.id))
    if (mine.length !== 1) return `the report filed against ${targetId} is listed ${mine.length} times among the newest 1000 against them`
    return { id: mine[0]!.id, reporter, targetId, reason, as, filedAt }
  })
}

check('user-reports: a report filed through the client API is listed and reads back', ['hs', 'writes'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  const before = await page({ limit: 0 })
  const f = await filed()
  if (typeof f === 'string') {
    t.fail(f)
    return
  }
  t.pass(`the report filed through ${target.hs!.clientPrefix}/client/v3/users/{userId}/report is listed with id ${f.id}`)
  const body = expectOk<UserReport>(t, await hs('GET', `/user_reports/${f.id}`), `GET ${PATH}/${f.id}`, {
    schema: 'homeserver/user-report#UserReport',
  })
  if (body) {
    t.equal(body.user_id, f.reporter, 'user_id is the reporter')
    t.equal(body.target_user_id, f.targetId, 'target_user_id is the reported user')
    t.equal(body.reason, f.reason, 'reason is as sent (non-ASCII included)')
    t.ok(Math.abs(body.received_ts - f.filedAt) < 3_600_000, 'received_ts is the time of filing, in milliseconds', {
      received_ts: body.received_ts,
      filedAt: f.filedAt,
    })
  }
  const after = await page({ limit: 0 })
  if (typeof before.body?.total === 'number') t.equal(after.body?.total, before.body.total + 1, 'total grew by one')
})

check(
  'user-reports: a report against a user that does not exist or is not local → 200 {} and nothing stored',
  ['hs', 'writes'],
  async (t) => {
    await requireSynapseFeature(t, FEATURE)
    const me = await whoami('admin')
    if (!me) skip('whoami did not name the admin')
    const server = me.slice(me.indexOf(':') + 1)
    const reason = `admin-conformance ${target.runId} dropped`
    const before = await page({ limit: 0 })
    for (const who of [`@admin-conformance-nobody-${target.runId.toLowerCase()}:${server}`, '@someone:other.invalid']) {
      const res = await hsClient('POST', REPORT_PATH(who), { body: { reason } })
      const body = expectOk(t, res, `POST ${target.hs!.clientPrefix}/client/v3${REPORT_PATH(who)}`, {
        schema: 'homeserver/user-report#FileResponse',
      })
      if (body !== undefined) t.same(body, {}, `${who}: an empty object`)
      const stored = await findByReason(who, reason)
      for (const r of stored) cleanup(() => removeUserReport(r.id))
      t.equal(stored.length, 0, `${who}: no report stored`)
    }
    const after = await page({ limit: 0 })
    t.equal(after.body?.total, before.body?.total, 'total unchanged')
  },
)

check('user-reports: the client call refuses a missing, non-string or too long reason → 400', ['hs', 'writes'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  const me = await whoami('admin')
  if (!me) skip('whoami did not name the admin')
  const before = await page({ limit: 0 })
  const long = `admin-conformance ${target.runId} `.padEnd(1001, 'x')
  const what = `POST ${target.hs!.clientPrefix}/client/v3${REPORT_PATH(me)}`
  expectHsError(t, await hsClient('POST', REPORT_PATH(me), { body: {} }), 400, 'M_MISSING_PARAM', `${what} with {}`)
  expectHsError(t, await hsClient('POST', REPORT_PATH(me), { body: { reason: 5 } }), 400, 'M_BAD_JSON', `${what} with reason 5`)
  expectHsError(
    t,
    await hsClient('POST', REPORT_PATH(me), { body: { reason: long } }),
    400,
    'M_BAD_JSON',
    `${what} with a reason of 1001 characters`,
    'Reason must be less than 1000 characters',
  )
  for (const r of await findByReason(me, long)) cleanup(() => removeUserReport(r.id))
  const after = await page({ limit: 0 })
  t.equal(after.body?.total, before.body?.total, 'no report was stored')
})

check('user-reports: delete → 200 {}, then the report is gone', ['hs', 'writes'], async (t) => {
  await requireSynapseFeature(t, FEATURE)
  const f = await filed()
  if (typeof f === 'string') skip(`no report could be filed: ${f}`)
  const before = await page({ limit: 0 })
  const body = expectOk(t, await hs('DELETE', `/user_reports/${f.id}`), `DELETE ${PATH}/${f.id}`, {
    schema: 'homeserver/user-report#DeleteResponse',
  })
  if (body !== undefined) t.same(body, {}, 'the body is an empty object')
  expectHsError(t, await hs('GET', `/user_reports/${f.id}`), 404, 'M_NOT_FOUND', `GET ${PATH}/${f.id} after the delete`, NOT_FOUND)
  expectHsError(t, await hs('DELETE', `/user_reports/${f.id}`), 404, 'M_NOT_FOUND', `DELETE ${PATH}/${f.id} again`, NOT_FOUND)
  const after = await page({ limit: 0 })
  if (typeof before.body?.total === 'number') t.equal(after.body?.total, before.body.total - 1, 'total shrank by one')
  t.equal((await findByReason(f.targetId, f.reason)).length, 0, 'the listing no longer has it')
})

check('user-reports: delete with an invalid id → 400, an unknown id → 404, no token → 401', ['hs', 'writes'], async (t) => {
  const id = await unknownId(t)
  for (const bad of ['-123', 'abcdef'])
    expectHsError(t, await hs('DELETE', `/user_reports/${bad}`), 400, 'M_INVALID_PARAM', `DELETE ${PATH}/${bad}`, BAD_ID_MESSAGE)
  expectHsError(t, await hs('DELETE', `/user_reports/${id}`), 404, 'M_NOT_FOUND', `DELETE ${PATH}/${id}`, NOT_FOUND)
  expectHsError(
    t,
    await hs('DELETE', `/user_reports/${id}`, { as: 'none' }),
    401,
    'M_MISSING_TOKEN',
    `DELETE ${PATH}/${id} without a token`,
  )
})
