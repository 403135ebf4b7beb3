// Checks the session families (compat, OAuth 2.0, personal) declare alike: filters by an id attribute,
// by status and by scope token, the date filters, the links of a filtered listing, and finishing a
// session (compat and OAuth 2.0). Each function registers named checks `<family>: <name>`; the names
// are what the fault matrix (docs/faults.md) lists, so they stay as they are.
// Not a test file: the suite files import it.
import { mas, mostCommon, skip, memo, expectOk, expectMasError, expectStatus, mockControl, MAS_API, UNKNOWN_ULID } from '../lib/suite.ts'
import { familyCheck, allItems, type FamilySpec, type MasItem } from './listing/walk.ts'
import { filterCheck, dateFilterCheck, filterLinksCheck } from './listing/filters.ts'
import { heldSessions, isHeld } from './harness-sessions.ts'

/** `<key>` (an id filter) against the full set filtered on `attr`, with the most common value; `none`: the skip reason when no item has one. */
export function idFilterCheck(spec: FamilySpec, key: string, attr: string, none: string): void {
  filterCheck(spec, `${key} matches the full set filtered client-side`, (items) => {
    const v = mostCommon(items.map((i) => i.attributes[attr] as string | null))
    if (!v) return none
    return { filters: { [key]: v }, expect: (i) => i.attributes[attr] === v }
  })
}

/**
 * `filter[status]` with each of `states` (the active one first) against the full set: active items
 * have `attr` (finished_at, revoked_at) null. `noun` names the items in skip reasons.
 */
export function statusFilterChecks(spec: FamilySpec, attr: string, states: readonly [string, string], noun: string): void {
  for (const state of states) {
    const active = state === states[0]
    filterCheck(spec, `filter[status]=${state} matches the full set filtered client-side`, (items) => {
      const expect = (i: MasItem) => (i.attributes[attr] === null) === active
      if (!items.some(expect)) return `no ${state} ${noun} on the target`
      return { filters: { 'filter[status]': state }, expect }
    })
  }
}

/** The scope tokens of an item. */
export const scopes = (i: MasItem): string[] =>
  String(i.attributes.scope ?? '')
    .split(' ')
    .filter(Boolean)

/** `filter[scope]` with one token: the one that splits the set most evenly says the most about the filter. */
export function scopeTokenFilterCheck(spec: FamilySpec, name: string, noun: string): void {
  filterCheck(spec, name, (items) => {
    const counts = new Map<string, number>()
    for (const i of items) for (const s of new Set(scopes(i))) counts.set(s, (counts.get(s) ?? 0) + 1)
    const candidates = [...counts.entries()].filter(([, n]) => n < items.length)
    const best = candidates.sort((a, b) => Math.abs(a[1] - items.length / 2) - Math.abs(b[1] - items.length / 2))[0]?.[0]
    if (!best) return `every ${noun} has the same scope tokens`
    return { filters: { 'filter[scope]': best }, expect: (i) => scopes(i).includes(best) }
  })
}

/** The creation and last-activity date filters of compat and OAuth 2.0 sessions. */
export function sessionDateFilterChecks(spec: FamilySpec): void {
  dateFilterCheck(spec, 'filter[created-before]', 'created_at', 'before', 'filter-created-before')
  dateFilterCheck(spec, 'filter[created-after]', 'created_at', 'after', 'filter-created-after')
  dateFilterCheck(spec, 'filter[last-active-before]', 'last_active_at', 'before', 'filter-last-active-before')
  dateFilterCheck(spec, 'filter[last-active-after]', 'last_active_at', 'after', 'filter-last-active-after')
}

/** The links of a listing filtered by `<key>` (the most common `attr`) and `filter[status]=active` keep both. */
export function activeFilterLinksCheck(spec: FamilySpec, key: string, attr: string, none: string): void {
  filterLinksCheck(spec, (items) => {
    const v = mostCommon(items.map((i) => i.attributes[attr] as string | null))
    return v ? { [key]: v, 'filter[status]': 'active' } : none
  })
}

export interface FinishOptions {
  /** the sessions safe to finish, oldest first (the checks take the newest) */
  candidates(items: MasItem[]): MasItem[]
  /** the skip reason when there is none */
  none: string
  /** the filter that still lists a finished session, besides status: `[key, attribute]` */
  sameGroup: [string, string]
}

/**
 * Finishing (writes): an active session, then again (400), an unknown one (404), the status filter
 * after it, and the device-sync job it schedules. Titles name the kind and the id as
 * `spec.notFoundTitle` says.
 */
export function finishChecks(spec: FamilySpec, opts: FinishOptions): void {
  const f = spec.family
  const memoKey = `${f}:finished`

  /** The candidates, less every session that could be behind a token the harness holds. */
  const safe = async (): Promise<MasItem[]> => {
    const held = await heldSessions()
    if (typeof held === 'string')
      skip(`cannot tell which ${f} are behind the harness's own tokens (${held}); finishing one could log the harness out`)
    return opts.candidates(await allItems(spec)).filter((i) => !isHeld(i, f, held))
  }

  /** The session finished by the first transition check, shared with the later ones. */
  const finishedOnce = (): Promise<{ id: string } | string> =>
    memo(memoKey, async () => {
      // The newest candidate: on a live target the least likely to be someone's daily device.
      const pick = (await safe()).at(-1)
      if (!pick) return opts.none
      const res = await mas('POST', `/${f}/${pick.id}/finish`)
      return res.status === 200 ? { id: pick.id } : `finishing ${pick.id} answered ${res.status}`
    })

  familyCheck(spec, `finish an active session → 200 with finished_at set, and a fresh read agrees`, ['mas', 'writes'], async (t) => {
    const pick = (await safe()).at(-1)
    if (!pick) skip(opts.none)
    const before = Date.now()
    const res = await mas('POST', `/${f}/${pick.id}/finish`)
    await memo(memoKey, async () => ({ id: pick.id }))
    const body = expectOk<{ data: MasItem; links: { self: string } }>(t, res, `POST ${MAS_API}/${f}/${pick.id}/finish`, {
      schema: `${spec.schema}#Single`,
    })
    if (!body) return
    const at = Date.parse(String(body.data.attributes.finished_at))
    t.ok(Number.isFinite(at), 'finished_at is set', { finished_at: body.data.attributes.finished_at })
    t.ok(at >= before - 120_000, 'finished_at is the time of the request (not an old value)', {
      finished_at: body.data.attributes.finished_at,
    })
    t.equal(body.data.id, pick.id, 'the answer is the finished session')
    t.equal(body.data.links.self, `${MAS_API}/${f}/${pick.id}`, 'data.links.self is the canonical path')
    const again = expectOk<{ data: MasItem }>(t, await mas('GET', `/${f}/${pick.id}`), 'a fresh read', { schema: `${spec.schema}#Single` })
    if (again) t.equal(again.data.attributes.finished_at, body.data.attributes.finished_at, 'a fresh read shows the same finished_at')
  })

  familyCheck(spec, `finish a finished session → 400 naming the session`, ['mas', 'writes'], async (t) => {
    const done = await finishedOnce()
    let id: string
    if (typeof done === 'string') {
      // No session finished here: use one the target lists as finished.
      const old = (await allItems(spec)).find((i) => i.attributes.finished_at !== null)
      if (!old) skip(`${done}, and no finished session is listed`)
      id = old.id
    } else id = done.id
    const res = await mas('POST', `/${f}/${id}/finish`)
    expectMasError(t, res, 400, `POST ${MAS_API}/${f}/${id}/finish again`, [...spec.notFoundTitle(id), /finished/i])
  })

  familyCheck(spec, `finish an unknown session → 404 naming the session`, ['mas', 'writes'], async (t) => {
    const res = await mas('POST', `/${f}/${UNKNOWN_ULID}/finish`)
    expectMasError(t, res, 404, `POST ${MAS_API}/${f}/${UNKNOWN_ULID}/finish`, spec.notFoundTitle(UNKNOWN_ULID))
  })

  familyCheck(spec, `a finished session leaves filter[status]=active`, ['mas', 'writes'], async (t) => {
    const done = await finishedOnce()
    if (typeof done === 'string') skip(done)
    const res = await mas('GET', `/${f}/${done.id}`)
    const body = expectOk<{ data: MasItem }>(t, res, `GET ${MAS_API}/${f}/${done.id}`, { schema: `${spec.schema}#Single` })
    if (!body) return
    t.not(body.data.attributes.finished_at, null, 'finished_at is set on a fresh read')
    const [key, attr] = opts.sameGroup
    const active = await mas('GET', `/${f}`, {
      query: { 'filter[status]': 'active', [key]: String(body.data.attributes[attr]), 'page[first]': 1000 },
    })
    const ids = ((active.json as { data?: MasItem[] } | undefined)?.data ?? []).map((i) => i.id)
    t.equal(active.status, 200, 'the active listing answers')
    t.notOk(ids.includes(done.id), 'filter[status]=active no longer lists it')
  })

  familyCheck(spec, 'finishing a session schedules a device-sync job for its user', ['mas', 'writes'], async (t) => {
    const before = await mockControl('GET', '/jobs')
    const candidates = await safe()
    const pick = candidates.at(-2) ?? candidates.at(-1)
    if (!pick) skip('no active session left to finish')
    const res = await mas('POST', `/${f}/${pick.id}/finish`)
    if (!expectStatus(t, res, 200, `POST ${MAS_API}/${f}/${pick.id}/finish`)) return
    const after = await mockControl('GET', '/jobs')
    type Job = { userId: string; kind: string }
    const jobsOf = (r: typeof before) => (r.json as { jobs?: Job[] } | undefined)?.jobs ?? []
    const added = jobsOf(after).slice(jobsOf(before).length)
    t.ok(
      added.some((j) => j.kind === 'sync-devices' && j.userId === pick.attributes.user_id),
      `a sync-devices job for user ${pick.attributes.user_id} was scheduled`,
      { added },
    )
  })
}
