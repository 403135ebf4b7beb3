// Listing invariants, where they are cheap (a listing of at most a few hundred items, read in pages of
// ten): the items a walk reads equal the count the listing states (also with a filter); no item twice; the
// order the direction promises (ids ascending on the auth service, received_ts by dir on the homeserver);
// no next page announced after the last; and every listed id fetchable on its own. Each is checked on the
// target and on the model: broken on the target only, a defect of the target; on both, a gap of the model.
import type { Operation } from './generate.ts'
import type { Answer, Case, SentRequest } from './cases.ts'
import type { Violation } from './oracles.ts'
import { ID, RELATED, fieldsOf, filterProbes, type Item, type ProbeContext } from './filter-rules.ts'
import { visible } from '../../lib/escape.ts'

export interface Asked {
  sent: SentRequest
  answer: Answer
}

export type Ask = (c: Case) => Promise<Asked | undefined>

export interface Problem {
  /** which invariant, for grouping ("walk-count") */
  check: string
  c: Case
  asked: Asked
  violation: Violation
}

const PAGE = 10
const MAX_PAGES = 30
const SOURCE =
  'spec/interface.md, pagination: a walk through the pages reads every item once, in the order of the direction, as many as the count says; every listed id can be fetched'

function listOf(api: 'mas' | 'hs', json: unknown): Record<string, unknown>[] | undefined {
  const b = json as Record<string, unknown> | undefined
  const arr = api === 'mas' ? b?.data : b && Object.values(b).find(Array.isArray)
  return Array.isArray(arr) ? (arr as Record<string, unknown>[]) : undefined
}

function countOf(api: 'mas' | 'hs', json: unknown): number | undefined {
  const b = json as { total?: unknown; total_rooms?: unknown; meta?: { count?: unknown } } | undefined
  // the homeserver's room list counts in total_rooms, its reports in total
  const n = api === 'mas' ? b?.meta?.count : (b?.total ?? b?.total_rooms)
  return typeof n === 'number' ? n : undefined
}

function caseOf(op: Operation, query: [string, string][], note: string, template = op.template): Case {
  return { api: op.api, operation: op.key, method: 'GET', template, params: {}, query, auth: 'admin', kind: 'valid', note }
}

interface Walk {
  items: Record<string, unknown>[]
  pages: Asked[]
  stated?: number
  /** the last page asked announced another that held nothing */
  emptyAfterNext?: Asked
  complete: boolean
}

async function walk(op: Operation, ask: Ask, extra: [string, string][], dir: 'f' | 'b' = 'f'): Promise<Walk | undefined> {
  const out: Walk = { items: [], pages: [], complete: false }
  let query: [string, string][] =
    op.api === 'mas' ? [...extra, ['page[first]', String(PAGE)]] : [...extra, ['limit', String(PAGE)], ['dir', dir]]
  for (let i = 0; i < MAX_PAGES; i++) {
    const a = await ask(caseOf(op, query, 'a walk through the pages'))
    if (!a || a.answer.status !== 200) return i === 0 ? undefined : out
    out.pages.push(a)
    const items = listOf(op.api, a.answer.json)
    if (!items) return undefined
    if (i === 0) {
      out.stated = countOf(op.api, a.answer.json)
      if (out.stated !== undefined && out.stated > PAGE * MAX_PAGES) return undefined
    }
    if (i > 0 && items.length === 0 && op.api === 'hs') {
      // an empty page ends the walk: what came before is all there is
      out.emptyAfterNext = a
      out.complete = true
      return out
    }
    out.items.push(...items)
    if (op.api === 'mas') {
      if (items.length < PAGE) break
      const last = items[items.length - 1]?.id
      if (typeof last !== 'string') break
      query = [...extra, ['page[first]', String(PAGE)], ['page[after]', last]]
    } else {
      // reports page with next_token, the room list with next_batch
      const j = a.answer.json as { next_token?: unknown; next_batch?: unknown }
      const next = j.next_token ?? j.next_batch
      if (next === undefined || next === null) {
        out.complete = true
        return out
      }
      query = [...extra, ['limit', String(PAGE)], ['dir', dir], ['from', String(next)]]
    }
  }
  out.complete = op.api === 'mas'
  return out
}

function tsOf(item: Record<string, unknown>): number | undefined {
  return typeof item.received_ts === 'number' ? item.received_ts : undefined
}

/** The invariants of one listing on one side. */
export async function listingProblems(
  op: Operation,
  ask: Ask,
  singles: Set<string>,
  filters: { name: string; value: (first: Record<string, unknown>) => string | undefined }[],
  params: string[] = [],
  /** the model's side: an item both walks hold (same id, same texts) must hold its values alike */
  peer?: Ask,
): Promise<Problem[]> {
  const out: Problem[] = []
  const bad = (check: string, asked: Asked, expected: string, c?: Case) =>
    out.push({ check, c: c ?? caseOf(op, [], check), asked, violation: { rule: 'listing-invariant', expected, source: SOURCE } })
  const w = await walk(op, ask, [])
  if (!w || w.pages.length === 0) return out
  const first = w.pages[0]!
  // a room is named by room_id
  const ids = w.items.map((x) => String(x.id ?? x.room_id))
  const pageCase = (a: Asked): Case => ({ ...caseOf(op, [], 'a walk through the pages'), query: querySent(a) })
  if (new Set(ids).size !== ids.length)
    bad(
      'walk-unique',
      w.pages[w.pages.length - 1]!,
      `every item once in a walk of ${w.pages.length} page(s); ${ids.length - new Set(ids).size} item(s) came twice`,
      pageCase(w.pages[w.pages.length - 1]!),
    )
  if (w.complete && w.stated !== undefined && w.stated !== ids.length)
    bad(
      'walk-count',
      first,
      `as many items in the walk as the count says: the first page says ${w.stated}, the walk read ${ids.length}`,
      pageCase(first),
    )
  if (op.api === 'mas') {
    if (ids.some((id, i) => i > 0 && id <= ids[i - 1]!)) bad('walk-order', first, 'ids ascending through the walk', pageCase(first))
    const back = await ask(caseOf(op, [['page[last]', String(PAGE)]], 'the last page'))
    const items = back && back.answer.status === 200 ? listOf('mas', back.answer.json) : undefined
    if (back && items && items.some((x, i) => i > 0 && String(x.id) <= String(items[i - 1]!.id)))
      bad(
        'last-order',
        back,
        'the items of page[last] in ascending id order, as every page',
        caseOf(op, [['page[last]', String(PAGE)]], 'the last page'),
      )
  } else {
    const ts = w.items.map(tsOf)
    if (ts.some((x, i) => i > 0 && x !== undefined && ts[i - 1] !== undefined && x < ts[i - 1]!))
      bad('walk-order', first, 'received_ts not decreasing through a walk with dir=f', pageCase(first))
    if (w.emptyAfterNext)
      bad(
        'next-after-last',
        w.emptyAfterNext,
        'no next_token on the last page (the page it pointed to is empty)',
        pageCase(w.emptyAfterNext),
      )
    const back = await ask(
      caseOf(
        op,
        [
          ['limit', String(PAGE)],
          ['dir', 'b'],
        ],
        'dir=b',
      ),
    )
    const items = back && back.answer.status === 200 ? listOf('hs', back.answer.json) : undefined
    const bts = (items ?? []).map(tsOf)
    if (back && bts.some((x, i) => i > 0 && x !== undefined && bts[i - 1] !== undefined && x > bts[i - 1]!))
      bad(
        'dir-b-order',
        back,
        'received_ts not increasing with dir=b (newest first)',
        caseOf(
          op,
          [
            ['limit', String(PAGE)],
            ['dir', 'b'],
          ],
          'dir=b',
        ),
      )
  }
  // a filter: the count stated with it is the count of its walk
  for (const f of filters) {
    const value = w.items[0] ? f.value(w.items[0]) : undefined
    if (value === undefined) continue
    const fw = await walk(op, ask, [[f.name, value]])
    if (fw && fw.complete && fw.stated !== undefined && fw.stated !== fw.items.length) {
      bad(
        'filter-count',
        fw.pages[0]!,
        `as many items in the walk with ${f.name} as the count says: ${fw.stated} stated, ${fw.items.length} read`,
        { ...caseOf(op, [], ''), query: querySent(fw.pages[0]!) },
      )
    }
    break
  }
  // a filter's values: the filtered walk reads what the unfiltered walk holds that the filter's own rule keeps
  if (w.complete) {
    const idOf = (x: Record<string, unknown>) => String(x.id ?? x.room_id)
    const withId = (x: Record<string, unknown>): Item => ({ ...fieldsOf(op.api, x), [ID]: idOf(x) })
    const byId = new Map(w.items.map((x) => [idOf(x), x]))
    const ctx = await probeContext(op, ask, params, first)
    for (const probe of filterProbes(op.api, op.template, params, w.items.map(withId), ctx)) {
      const fw = await walk(op, ask, probe.query)
      if (!fw || !fw.complete) continue
      const sure = (id: string) => !probe.unsure?.(withId(byId.get(id) ?? {}))
      const want = new Set(ids.filter((id) => probe.keep(withId(byId.get(id)!))))
      const got = new Set(fw.items.map(idOf))
      const missing = [...want].filter((id) => !got.has(id) && sure(id))
      const extra = [...got].filter((id) => !want.has(id) && (!byId.has(id) || sure(id)))
      if (missing.length || extra.length) {
        const q = probe.query.map(([k, v]) => `${k}=${v}`).join('&')
        const list = (xs: string[]) =>
          xs
            .slice(0, 3)
            .map((x) => visible(x))
            .join(', ') + (xs.length > 3 ? ', …' : '')
        bad(
          `filter-values ${q}`,
          fw.pages[0]!,
          `with ${visible(q)}, the ${want.size} item(s) of the unfiltered walk that the filter's rule keeps; ` +
            [
              missing.length ? `${missing.length} missing (${list(missing)})` : '',
              extra.length ? `${extra.length} not kept by the rule (${list(extra)})` : '',
            ]
              .filter(Boolean)
              .join(', '),
          { ...caseOf(op, [], `the filter ${q} checked on the values`), query: querySent(fw.pages[0]!) },
        )
      }
    }
  }
  // the count does not depend on the page's size: one item a page states what the walk read
  if (w.complete && w.stated !== undefined) {
    const q: [string, string][] = op.api === 'mas' ? [['page[first]', '1']] : [['limit', '1']]
    const one = await ask(caseOf(op, q, 'a page of one item'))
    const n = one && one.answer.status === 200 ? countOf(op.api, one.answer.json) : undefined
    if (one && n !== undefined && n !== ids.length)
      bad(
        'page-count',
        one,
        `the count of every item (${ids.length}, read by the walk) on a page of one item too; it says ${n}`,
        caseOf(op, q, 'a page of one item'),
      )
  }
  if (op.api === 'hs') {
    // limit=N lists at most N items (the store's LIMIT N; limit=0 lists none)
    for (const n of [0, 1]) {
      const q: [string, string][] = [['limit', String(n)]]
      const a = await ask(caseOf(op, q, `limit=${n}`))
      const items = a && a.answer.status === 200 ? listOf('hs', a.answer.json) : undefined
      if (a && items && items.length > n) {
        bad(`limit-${n}`, a, `at most ${n} item(s) with limit=${n}; ${items.length} listed`, caseOf(op, q, `limit=${n}`))
        break
      }
    }
    // the room list orders by a column and then the room id, both reversed by dir=b: the walk backwards
    // reads the forward walk's rooms in reverse
    if (w.complete && w.items.length > 1 && w.items.every((x) => typeof x.room_id === 'string' && !('event_id' in x))) {
      const bw = await walk(op, ask, [], 'b')
      if (bw && bw.complete) {
        const back = bw.items.map((x) => String(x.room_id))
        const want = [...ids].reverse()
        if (back.join('\n') !== want.join('\n'))
          bad(
            'dir-b-reverse',
            bw.pages[0]!,
            `with dir=b the rooms of the dir=f walk in reverse order (${want.length} rooms; the first ${visible(want[0] ?? '')}, the answer's first ${visible(back[0] ?? '')})`,
            pageCase(bw.pages[0]!),
          )
      }
    }
    await aroundItems(op, ask, w.items, singles, bad)
  }
  if (peer && w.complete) await peerValues(op, peer, w, bad)
  // timestamps in milliseconds: a *_ts below 10^11 is a time in seconds (before 1973 in milliseconds)
  if (op.api === 'hs') {
    const secs = w.items.find((x) => Object.entries(x).some(([k, v]) => k.endsWith('_ts') && typeof v === 'number' && v > 0 && v < 1e11))
    if (secs)
      bad(
        'ts-unit',
        first,
        `*_ts in milliseconds since the epoch (an item of ${op.template} has one below 10^11: seconds)`,
        pageCase(first),
      )
  }
  // every listed id fetchable (the first three)
  const single = `${op.template}/{${op.api === 'mas' ? 'id' : 'report_id'}}`
  if (singles.has(single)) {
    for (const id of ids.slice(0, 3)) {
      const name = op.api === 'mas' ? 'id' : 'report_id'
      const c: Case = { ...caseOf(op, [], 'a listed id', single), operation: `GET ${single}`, params: { [name]: id } }
      const a = await ask(c)
      const got = a?.answer.json as { data?: { id?: unknown }; id?: unknown } | undefined
      const gotId = op.api === 'mas' ? got?.data?.id : got?.id
      if (a && (a.answer.status !== 200 || String(gotId) !== id)) {
        bad('fetch-listed', a, `200 with the item ${id}, listed by ${op.template}`, c)
        break
      }
      // the item fetched holds the values it was listed with (keys both have)
      const listed = w.items.find((x) => String(x.id ?? x.room_id) === id)
      const fetched = op.api === 'mas' ? (got?.data as Record<string, unknown> | undefined) : (got as Record<string, unknown> | undefined)
      if (a && listed && fetched) {
        const lf = fieldsOf(op.api, listed)
        const sf = fieldsOf(op.api, fetched)
        const differ = Object.keys(lf).filter((k) => k in sf && JSON.stringify(lf[k]) !== JSON.stringify(sf[k]))
        if (differ.length) {
          bad(
            'fetch-equal',
            a,
            `the item ${visible(id)} with the values it is listed with (${differ
              .slice(0, 5)
              .map((x) => visible(x))
              .join(', ')} differ)`,
            c,
          )
          break
        }
      }
    }
  }
  return out
}

type Bad = (check: string, asked: Asked, expected: string, c?: Case) => void

const CONTEXT = '/_synapse/admin/v1/rooms/{roomId}/context/{eventId}'
const MEMBERS = '/_synapse/admin/v1/rooms/{roomId}/members'
/** the limit the event context is asked with: one event before, one after */
const CONTEXT_LIMIT = 2
/** how many listed items each check around them asks about */
const AROUND = 3

function eventOf(v: unknown): { id?: string; ts?: number } {
  const e = v as { event_id?: unknown; origin_server_ts?: unknown } | undefined
  return {
    ...(typeof e?.event_id === 'string' ? { id: e.event_id } : {}),
    ...(typeof e?.origin_server_ts === 'number' ? { ts: e.origin_server_ts } : {}),
  }
}

/**
 * What the homeserver answers about a listed item: a reported event's context (the event asked for in its
 * middle, at most limit/2 events before it and the rest after, the older before and the newer after, and the
 * room's state, which holds at least its creation); a listed room's members (as many as its total says).
 */
async function aroundItems(op: Operation, ask: Ask, items: Record<string, unknown>[], singles: Set<string>, bad: Bad): Promise<void> {
  if (singles.has(CONTEXT) && op.template.endsWith('/event_reports')) {
    for (const x of items.filter((i) => typeof i.room_id === 'string' && typeof i.event_id === 'string').slice(0, AROUND)) {
      const c: Case = {
        ...caseOf(op, [['limit', String(CONTEXT_LIMIT)]], 'the context of a reported event', CONTEXT),
        operation: `GET ${CONTEXT}`,
        params: { roomId: String(x.room_id), eventId: String(x.event_id) },
      }
      const a = await ask(c)
      const j = a?.answer.json as { event?: unknown; events_before?: unknown; events_after?: unknown; state?: unknown } | undefined
      if (!a || a.answer.status !== 200 || !j || !Array.isArray(j.events_before) || !Array.isArray(j.events_after)) continue
      const ev = eventOf(j.event)
      const before = j.events_before.map(eventOf)
      const after = j.events_after.map(eventOf)
      const half = Math.floor(CONTEXT_LIMIT / 2)
      const id = visible(String(x.event_id))
      if (ev.id !== x.event_id)
        bad('context-event', a, `the event ${id} in the middle of its context; the answer centres on ${visible(String(ev.id))}`, c)
      else if (before.length > half || after.length > CONTEXT_LIMIT - half)
        bad(
          'context-limit',
          a,
          `with limit=${CONTEXT_LIMIT} at most ${half} event(s) before and ${CONTEXT_LIMIT - half} after; ${before.length} before and ${after.length} after`,
          c,
        )
      else if (
        ev.ts !== undefined &&
        (before.some((b) => b.ts !== undefined && b.ts > ev.ts!) || after.some((b) => b.ts !== undefined && b.ts < ev.ts!))
      )
        bad('context-order', a, `events_before not newer and events_after not older than the event ${id} (origin_server_ts)`, c)
      else if (Array.isArray(j.state) && !j.state.some((e) => (e as { type?: unknown } | null)?.type === 'm.room.create'))
        bad(
          'context-state',
          a,
          `the room's state at the event ${id}, which holds at least its m.room.create; ${j.state.length} state event(s)`,
          c,
        )
      else continue
      break
    }
  }
  if (singles.has(MEMBERS) && items.every((x) => typeof x.room_id === 'string')) {
    for (const x of items.slice(0, AROUND)) {
      const c: Case = {
        ...caseOf(op, [], "a listed room's members", MEMBERS),
        operation: `GET ${MEMBERS}`,
        params: { roomId: String(x.room_id) },
      }
      const a = await ask(c)
      const j = a?.answer.json as { members?: unknown; total?: unknown } | undefined
      if (a && a.answer.status === 200 && Array.isArray(j?.members) && typeof j.total === 'number' && j.total !== j.members.length) {
        bad('members-total', a, `the members' total equal to the members listed (${j.members.length}); it says ${j.total}`, c)
        break
      }
    }
  }
}

/** Keys whose value is a string on both items. */
function texts(a: Item, b: Item): string[] {
  return Object.keys(a).filter((k) => typeof a[k] === 'string' && typeof b[k] === 'string')
}

/**
 * An item both sides list (the same id and the same texts: the same data, as a mock with a fault and the
 * model share; a real server's items never meet the model's) holds a value where the model holds one, and
 * none where the model holds none (a null score listed as 0).
 */
async function peerValues(op: Operation, peer: Ask, w: Walk, bad: Bad): Promise<void> {
  const pw = await walk(op, peer, [])
  if (!pw || !pw.complete) return
  const idOf = (x: Record<string, unknown>) => String(x.id ?? x.room_id)
  const theirs = new Map(pw.items.map((x) => [idOf(x), fieldsOf(op.api, x)]))
  for (const [i, x] of w.items.entries()) {
    const mine = fieldsOf(op.api, x)
    const model = theirs.get(idOf(x))
    if (!model) continue
    const shared = texts(mine, model)
    if (shared.length < 2 || shared.some((k) => mine[k] !== model[k])) continue
    const differ = Object.keys(mine).filter((k) => k in model && (mine[k] === null) !== (model[k] === null))
    if (differ.length === 0) continue
    const page = w.pages[Math.min(Math.floor(i / PAGE), w.pages.length - 1)]!
    bad(
      'model-values',
      page,
      `the item ${visible(idOf(x))} as the model lists the same item: ${differ
        .slice(0, 3)
        .map((k) => `${visible(k)} ${model[k] === null ? 'null' : 'not null'}`)
        .join(', ')}`,
      { ...caseOf(op, [], 'an item the model lists too'), query: querySent(page) },
    )
    return
  }
}

/** What a filter's rule needs besides the items: the target's clock and the related listings' items. */
async function probeContext(op: Operation, ask: Ask, params: string[], first: Asked): Promise<ProbeContext> {
  const date = first.answer.date ? Date.parse(first.answer.date) : NaN
  const ctx: ProbeContext = { ...(Number.isNaN(date) ? {} : { nowMs: date }), related: {} }
  for (const p of params) {
    const listing = RELATED[p]
    if (!listing || listing in ctx.related!) continue
    const other = await walk({ ...op, template: listing, key: `GET ${listing}` }, ask, [])
    ctx.related![listing] = other?.complete ? other.items.map((x) => fieldsOf(op.api, x)) : undefined
  }
  return ctx
}

/** The query a page was asked with, back from the path sent. */
function querySent(a: Asked): [string, string][] {
  const q = a.sent.path.split('?')[1] ?? ''
  return q
    ? q.split('&').map((kv) => {
        const [k, v = ''] = kv.split('=')
        return [decodeURIComponent(k!), decodeURIComponent(v)] as [string, string]
      })
    : []
}
