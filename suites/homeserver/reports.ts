// The event-report listing of the homeserver admin API (area B): one page, a walk following
// next_token, and the window shared by the checks of a file (decision 0004: the oldest and the newest
// reports, at most windowSize() of each, whatever the target holds). Area knowledge; the framework stays generic.
import {
  hs,
  memo,
  leftover,
  hsFeature,
  hsFeatureRule,
  hsKnownVersion,
  setRule,
  expectHsError,
  windowSize,
  walkBounds,
  pastBound,
  type Test,
} from '../lib/suite.ts'
import type { HttpResponse } from '../../lib/http.ts'
import { validate } from '../../lib/schemas.ts'

export interface Report {
  id: number
  received_ts: number
  room_id: string
  event_id: string
  user_id: string
  sender: string | null
  reason: string | null
  score: number | null
  name: string | null
  canonical_alias: string | null
  [k: string]: unknown
}

export interface ReportPage {
  request: string
  res: HttpResponse
  body?: { event_reports?: Report[]; next_token?: number; total?: number }
  /** how many reports the page listed (a walk keeps only those of its window in body) */
  count?: number
  schema: ReturnType<typeof validate>
}

export interface ReportWalk {
  items: Report[]
  pages: ReportPage[]
  stopped?: string
  /** set when a window (maxItems) ended the walk while more reports follow */
  truncated?: boolean
}

export type ReportFilters = Partial<Record<'user_id' | 'room_id' | 'event_sender_user_id', string>>

export async function reportsPage(query: Record<string, string | number | undefined>): Promise<ReportPage> {
  const res = await hs('GET', '/event_reports', { query })
  const body = res.status === 200 && res.json && typeof res.json === 'object' ? (res.json as ReportPage['body']) : undefined
  const q = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join('&')
  return { request: `event_reports?${q}`, res, body, schema: validate('homeserver/event-report#List', res.json) }
}

export interface WalkOptions {
  dir?: 'b' | 'f'
  limit?: number
  filters?: ReportFilters
  /** stop after this many reports (a window): `truncated` is set when more follow */
  maxItems?: number
  /** the offset to start at (`from` of the first page) */
  from?: number
  /** dir=f only: stop at the first report received after this time (the end of a window); it and later ones are left out */
  untilTs?: number
}

/** Walk the report listing following next_token (as `from`); with `maxItems` or `untilTs`, a window. */
export async function walkReports(opts: WalkOptions): Promise<ReportWalk> {
  const out: ReportWalk = { items: [], pages: [] }
  const bounds = walkBounds()
  let from: number | undefined = opts.from
  let bytes = 0
  for (let i = 0; ; i++) {
    const past = i > 0 ? pastBound(bounds, i, out.items.length, bytes) : undefined
    if (past) {
      out.stopped = past
      break
    }
    const page = await reportsPage({ ...opts.filters, dir: opts.dir, limit: opts.limit, from })
    bytes += page.res.bytes
    const all = page.res.status === 200 && Array.isArray(page.body?.event_reports) ? page.body!.event_reports! : undefined
    const items = (all ?? []).slice(0, bounds.items + 1 - out.items.length)
    const until = opts.untilTs
    const kept = until === undefined ? items : items.filter((r) => !(r.received_ts > until))
    // What the walk keeps of the page: its counts, the reports kept and its schema result; not its JSON
    // (a hostile page of 72,000 items is tens of MiB of objects) nor its text beyond the head.
    out.pages.push({
      ...page,
      res: { ...page.res, json: undefined },
      body: page.body && { total: page.body.total, next_token: page.body.next_token, ...(all ? { event_reports: kept } : {}) },
      ...(all ? { count: all.length } : {}),
    })
    if (!all) {
      out.stopped = `${page.request} answered ${page.res.status}${page.res.status === 200 ? ' without event_reports' : ''}`
      break
    }
    // A walk that must read to the end (no window) but whose total says it would need more than a walk
    // reads: reported as such, not walked (a total of 10^12 was a walk of 1,806 pages).
    const total = page.body?.total
    if (i === 0 && opts.maxItems === undefined && until === undefined && typeof total === 'number' && total - (from ?? 0) > bounds.items) {
      out.stopped = `total ${total} from offset ${from ?? 0} would need a walk of more than ${bounds.items} reports (4 × the window, AC_WINDOW): not walked`
      break
    }
    out.items.push(...kept)
    if (kept.length < items.length) {
      out.truncated = true
      break
    }
    if (all.length > items.length) {
      if (opts.maxItems !== undefined && out.items.length >= opts.maxItems) out.truncated = true
      else out.stopped = pastBound(bounds, 0, bounds.items + 1, 0)
      break
    }
    const next = page.body!.next_token
    if (next === undefined || next === null) break
    if (opts.maxItems !== undefined && out.items.length >= opts.maxItems) {
      out.truncated = true
      break
    }
    if (items.length === 0) {
      out.stopped = `${page.request} has next_token ${next} on an empty page`
      break
    }
    if (typeof next !== 'number' || (from !== undefined && next <= from)) {
      out.stopped = `${page.request} has next_token ${JSON.stringify(next)}, which does not advance`
      break
    }
    from = next
  }
  return out
}

/** Page size of the window walks: one page for the default window, several for a small AC_WINDOW. */
export function windowLimit(): number {
  return Math.min(1000, windowSize())
}

/**
 * The reports the checks of a file compare against: the oldest (`head`, dir=f) and the newest (`tail`,
 * dir=b, newest first) reports, at most windowSize() of each. On a target with fewer reports the head
 * holds them all (`complete`) and the tail is the head reversed (no second walk).
 */
export interface ReportWindow {
  /** `total` of the head's first page: every report of the target */
  total: number
  head: ReportWalk
  tail: ReportWalk
  complete: boolean
  /** received_ts of the head's last report when it is not complete: windowed filter walks stop there */
  edge?: number
}

export function reportWindow(): Promise<ReportWindow> {
  return memo('reports:window', async () => {
    const head = await walkReports({ dir: 'f', limit: windowLimit(), maxItems: windowSize() })
    const total = head.pages[0]?.body?.total ?? head.items.length
    const complete = !head.truncated
    const tail = complete
      ? { items: [...head.items].reverse(), pages: [] }
      : await walkReports({ dir: 'b', limit: windowLimit(), maxItems: windowSize() })
    return { total, head, tail, complete, edge: complete ? undefined : head.items.at(-1)?.received_ts }
  })
}

/** SQL `LIKE '%needle%'` as the real server applies it: `_` is any one character, `%` any run (unescaped); case-insensitive on SQLite. */
export function like(hay: string, needle: string, ci: boolean): boolean {
  const re = needle
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/_/g, '.')
    .replace(/%/g, '.*')
  return new RegExp(re, ci ? 'is' : 's').test(hay)
}

/**
 * Delete a report the checks filed, at the end of the file. Where the version has no DELETE (before
 * v1.79.0), or the delete fails, the report is listed as left behind (`# ac-leftover`).
 */
export async function removeReport(id: number): Promise<void> {
  const v = await hsKnownVersion()
  if (!(await hsFeature('event-report-delete'))) {
    leftover({
      target: 'hs',
      kind: 'event-report',
      id: String(id),
      reason: `the homeserver is ${v.shown}; DELETE of a report exists since v1.79.0`,
    })
    return
  }
  try {
    const res = await hs('DELETE', `/event_reports/${id}`)
    // 404: already deleted (the delete check does that on purpose)
    if (res.status !== 200 && res.status !== 404)
      leftover({ target: 'hs', kind: 'event-report', id: String(id), reason: `DELETE answered ${res.status}` })
  } catch (e) {
    leftover({ target: 'hs', kind: 'event-report', id: String(id), reason: `DELETE got no answer: ${(e as Error).message}` })
  }
}

/**
 * An unrouted request, as the version answers it: before v1.78.0 `400 M_UNRECOGNIZED "Unrecognized
 * request"` (before authentication); since, 405 for a known path with another method (`knownMethod`
 * given) and 404 for an unknown path, both M_UNRECOGNIZED.
 */
export async function expectUnrouted(t: Test, res: HttpResponse, knownMethod: string | undefined, what: string): Promise<void> {
  setRule(await hsFeatureRule('unrouted-404-405'))
  const status = (await hsFeature('unrouted-404-405')) ? (knownMethod ? 405 : 404) : 400
  expectHsError(t, res, status, 'M_UNRECOGNIZED', `${what} (unrouted)`, 'Unrecognized request')
}
