// Value oracles that need no shared data: each filter's own rule (spec/interface.md and the reference of
// each listing), applied here to the items of the unfiltered walk, gives the items the filtered walk must
// read. The filter's value is taken from the items themselves (a user one of them has, the creation time
// of one of them, a part of a name in other letter case), so the rule holds on any data, the mock's or a
// real server's.
export type Item = Record<string, unknown>

export interface FilterProbe {
  /** the query pairs of the filter (a repeatable filter may give two) */
  query: [string, string][]
  /** does the filter keep this listing item? */
  keep: (item: Item) => boolean
  /** an item the rule cannot tell (a time within a clock's drift of now): not compared */
  unsure?: (item: Item) => boolean
}

/** The key under which an item's id is given to the rules (a MAS item's attributes do not hold it). */
export const ID = '#id'

/**
 * What some rules need besides the listing's own items: the target's clock (its Date header) and the
 * items of another listing of the same target (the sessions whose state a filter of users or clients
 * is about), each walked here in full.
 */
export interface ProbeContext {
  /** the target's now, in milliseconds since the epoch */
  nowMs?: number
  /** the fields of every item of a listing, by its template; absent when the walk was not complete */
  related?: Record<string, Item[] | undefined>
}

export const OAUTH2_SESSIONS = '/api/admin/v1/oauth2-sessions'
export const COMPAT_SESSIONS = '/api/admin/v1/compat-sessions'

/** The other listings a filter's rule reads, by the filter's name. */
export const RELATED: Record<string, string> = {
  'filter[has-active-sessions]': OAUTH2_SESSIONS,
  'filter[has-active-oauth2-session]': OAUTH2_SESSIONS,
  'filter[active-oauth2-client]': OAUTH2_SESSIONS,
  'filter[has-active-compat-session]': COMPAT_SESSIONS,
}

/** Within this much of the target's now a time is neither past nor future for the rule (the Date header has seconds). */
export const CLOCK_MARGIN_MS = 120_000

/** A MAS item's attributes, a homeserver item itself. */
export function fieldsOf(api: 'mas' | 'hs', item: Item): Item {
  return api === 'mas' ? ((item.attributes as Item | undefined) ?? {}) : item
}

/** An RFC 3339 time in microseconds (Date.parse keeps milliseconds only). */
export function micros(t: unknown): number | undefined {
  if (typeof t !== 'string') return undefined
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(t)
  if (!m) return undefined
  const s = Date.parse(`${m[1]}${m[3]}`)
  if (Number.isNaN(s)) return undefined
  return s * 1000 + Number((m[2] ?? '').padEnd(6, '0').slice(0, 6))
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)

/** The first value of a field among the items, and the distinct values (at most two). */
function valuesOf(items: Item[], field: string): string[] {
  const out: string[] = []
  for (const x of items) {
    const v = str(x[field])
    if (v !== undefined && !out.includes(v)) out.push(v)
    if (out.length === 2) break
  }
  return out
}

/** The middle of a string: a part that an exact match would not take for the whole. */
function part(v: string): string {
  const n = v.length
  return n <= 3 ? v : v.slice(1, n - 1)
}

/** Flip the letter case of ASCII letters: a case-insensitive match must not care. */
function otherCase(v: string): string {
  return [...v].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join('')
}

const equals =
  (field: string) =>
  (items: Item[]): FilterProbe[] =>
    valuesOf(items, field)
      .slice(0, 1)
      .map((v) => ({ query: [['?', v]] as [string, string][], keep: (x: Item) => x[field] === v }))

type Rule = (items: Item[], name: string, ctx: ProbeContext) => FilterProbe[]

const named =
  (f: (items: Item[]) => FilterProbe[]): Rule =>
  (items, name) =>
    f(items).map((p) => ({ ...p, query: p.query.map(([k, v]) => [k === '?' ? name : k, v] as [string, string]) }))

/** Status of a session (finished_at), a personal session (revoked_at) or a user (locked_at, deactivated_at). */
function statusRule(items: Item[], name: string): FilterProbe[] {
  const x = items[0]
  if (!x) return []
  const isNull = (it: Item, k: string) => it[k] === null || it[k] === undefined
  const tests: Record<string, (it: Item) => boolean> =
    'revoked_at' in x
      ? { active: (it) => isNull(it, 'revoked_at'), revoked: (it) => !isNull(it, 'revoked_at') }
      : 'locked_at' in x
        ? {
            active: (it) => isNull(it, 'locked_at') && isNull(it, 'deactivated_at'),
            locked: (it) => !isNull(it, 'locked_at'),
            deactivated: (it) => !isNull(it, 'deactivated_at'),
          }
        : 'finished_at' in x
          ? { active: (it) => isNull(it, 'finished_at'), finished: (it) => !isNull(it, 'finished_at') }
          : {}
  return Object.entries(tests).map(([v, keep]) => ({ query: [[name, v]], keep }))
}

/** A time bound: the value is an item's own time, so that an inclusive bound shows. */
function boundRule(field: string, after: boolean, unit: 'ms' | 'us'): Rule {
  return (items, name) => {
    const times = items.map((x) => x[field]).filter((t): t is string => micros(t) !== undefined)
    const v = times[Math.floor(times.length / 2)]
    if (v === undefined) return []
    const at = (t: unknown) => {
      const us = micros(t)
      return us === undefined ? undefined : unit === 'ms' ? Math.floor(us / 1000) : us
    }
    const bound = at(v)!
    return [
      {
        query: [[name, v]],
        keep: (x) => {
          const t = at(x[field])
          return t !== undefined && (after ? t > bound : t < bound)
        },
      },
    ]
  }
}

const boolRule =
  (test: (x: Item) => boolean): Rule =>
  (_items, name) => [
    { query: [[name, 'true']], keep: test },
    { query: [[name, 'false']], keep: (x) => !test(x) },
  ]

const isNull = (v: unknown) => v === null || v === undefined

/** The ids of what unfinished sessions of a related listing name in `field` (a user, a client). */
function activeOf(ctx: ProbeContext, listing: string, field: string, where: (s: Item) => boolean = () => true): Set<string> | undefined {
  const sessions = ctx.related?.[listing]
  if (!sessions) return undefined
  return new Set(
    sessions
      .filter((s) => isNull(s.finished_at) && where(s))
      .map((s) => str(s[field]))
      .filter((v): v is string => !!v),
  )
}

/** `true` keeps the items whose id an unfinished session names, `false` the others (and vice versa). */
const hasActive =
  (listing: string, field: string): Rule =>
  (_items, name, ctx) => {
    const active = activeOf(ctx, listing, field)
    if (!active) return []
    return [
      { query: [[name, 'true']], keep: (x) => active.has(String(x[ID])) },
      { query: [[name, 'false']], keep: (x) => !active.has(String(x[ID])) },
    ]
  }

/** The registration tokens' expiry against the target's own clock (its Date header). */
const expiredRule: Rule = (_items, name, ctx) => {
  const now = ctx.nowMs
  if (now === undefined) return []
  const at = (x: Item) => {
    const us = micros(x.expires_at)
    return us === undefined ? undefined : us / 1000
  }
  const past = (x: Item) => {
    const t = at(x)
    return t !== undefined && t < now
  }
  const unsure = (x: Item) => {
    const t = at(x)
    return t !== undefined && Math.abs(t - now) < CLOCK_MARGIN_MS
  }
  return [
    { query: [[name, 'true']], keep: past, unsure },
    { query: [[name, 'false']], keep: (x) => !past(x), unsure },
  ]
}

/** The auth service's filters whose rule needs only the listed items (or the target's clock, or its sessions). */
const MAS_RULES: Record<string, Rule> = {
  'filter[status]': statusRule,
  'filter[user]': named(equals('user_id')),
  'filter[user-session]': named(equals('user_session_id')),
  'filter[provider]': named(equals('provider_id')),
  'filter[subject]': named(equals('subject')),
  'filter[owner_user]': named(equals('owner_user_id')),
  'filter[owner_client]': named(equals('owner_client_id')),
  'filter[actor_user]': named(equals('actor_user_id')),
  // repeatable since the release that has it: any of the clients given
  'filter[client]': (items, name) => {
    const vs = valuesOf(items, 'client_id')
    return vs.length === 0 ? [] : [{ query: vs.map((v) => [name, v] as [string, string]), keep: (x) => vs.includes(String(x.client_id)) }]
  },
  // every token given, in any order
  'filter[scope]': (items, name) => {
    const scopes = items.map((x) => str(x.scope)?.split(' ') ?? [])
    const first = scopes.find((s) => s.length >= 2) ?? scopes.find((s) => s.length > 0)
    if (!first) return []
    const want = first.slice(0, 2)
    return [
      {
        query: want.map((t) => [name, t] as [string, string]),
        keep: (x) => want.every((t) => (str(x.scope)?.split(' ') ?? []).includes(t)),
      },
    ]
  },
  // the whole address, case-insensitively
  'filter[email]': (items, name) => {
    const v = valuesOf(items, 'email')[0]
    return v === undefined ? [] : [{ query: [[name, otherCase(v)]], keep: (x) => String(x.email).toLowerCase() === v.toLowerCase() }]
  },
  // a part of the username, case-insensitively (letters and digits only: % and _ are wildcards)
  'filter[search]': (items, name) => {
    const v = valuesOf(items, 'username')
      .map((u) => part(u).replace(/[^A-Za-z0-9]/g, ''))
      .find((p) => p.length > 0)
    return v === undefined
      ? []
      : [{ query: [[name, otherCase(v)]], keep: (x) => String(x.username).toLowerCase().includes(v.toLowerCase()) }]
  },
  'filter[admin]': boolRule((x) => x.admin === true),
  'filter[enabled]': boolRule((x) => x.disabled_at === null || x.disabled_at === undefined),
  // registration tokens: used at least once, revoked, past their expiry on the target's clock, valid as listed
  'filter[used]': boolRule((x) => typeof x.times_used === 'number' && x.times_used > 0),
  'filter[revoked]': boolRule((x) => !isNull(x.revoked_at)),
  'filter[expired]': expiredRule,
  'filter[valid]': (items, name, ctx) =>
    items.some((x) => typeof x.valid === 'boolean') ? boolRule((x) => x.valid === true)(items, name, ctx) : [],
  // the clients declaring a grant type: the types the items declare, and one no client can declare
  // (`password`, which the service does not offer), which must list none
  'filter[grant-type]': (items, name) => {
    const declared = [
      ...new Set(items.flatMap((x) => (Array.isArray(x.grant_types) ? x.grant_types.filter((g) => typeof g === 'string') : []))),
    ]
    return [...declared.slice(0, 2), 'password'].map((g) => ({
      query: [[name, g]],
      keep: (x: Item) => Array.isArray(x.grant_types) && x.grant_types.includes(g),
    }))
  },
  // a session's state is read from the sessions listing itself: unfinished there is active
  'filter[has-active-sessions]': hasActive(OAUTH2_SESSIONS, 'client_id'),
  'filter[has-active-oauth2-session]': hasActive(OAUTH2_SESSIONS, 'user_id'),
  'filter[has-active-compat-session]': hasActive(COMPAT_SESSIONS, 'user_id'),
  // the users with an unfinished session of this client
  'filter[active-oauth2-client]': (_items, name, ctx) => {
    const client = [...(activeOf(ctx, OAUTH2_SESSIONS, 'client_id') ?? [])][0]
    if (client === undefined) return []
    const users = activeOf(ctx, OAUTH2_SESSIONS, 'user_id', (s) => s.client_id === client)!
    return [{ query: [[name, client]], keep: (x) => users.has(String(x[ID])) }]
  },
  // creation bounds compare the id's millisecond; last activity compares microseconds
  'filter[created-after]': boundRule('created_at', true, 'ms'),
  'filter[created-before]': boundRule('created_at', false, 'ms'),
  'filter[last-active-after]': boundRule('last_active_at', true, 'us'),
  'filter[last-active-before]': boundRule('last_active_at', false, 'us'),
}

/** The homeserver's report filters: user and room by substring (SQL LIKE), the event's sender exactly. */
const substring =
  (field: string): Rule =>
  (items, name) => {
    const v = valuesOf(items, field)[0]
    if (v === undefined) return []
    const p = part(v)
    return [{ query: [[name, p]], keep: (x) => typeof x[field] === 'string' && (x[field] as string).includes(p) }]
  }

const HS_RULES: Record<string, Record<string, Rule>> = {
  event_reports: {
    user_id: substring('user_id'),
    room_id: substring('room_id'),
    event_sender_user_id: named(equals('sender')),
  },
  user_reports: {
    user_id: substring('user_id'),
    target_user_id: substring('target_user_id'),
  },
}

/** The probes of a listing's filters, given the fields of its unfiltered items (each with its id under ID). */
export function filterProbes(api: 'mas' | 'hs', template: string, params: string[], items: Item[], ctx: ProbeContext = {}): FilterProbe[] {
  const rules = api === 'mas' ? MAS_RULES : HS_RULES[template.split('/').pop() ?? '']
  if (!rules) return []
  return params.flatMap((p) => (rules[p] ? rules[p](items, p, ctx) : []))
}
