// The brute-force side of the store's model-based tests: the admin API's listing filters written
// out plainly over the full data (no index, no cursor arithmetic), and generators of filter sets
// drawn from the data itself. Not a test file (tap lists it as "no tests found").
import { decodeTime } from 'ulidx'
import type { MasStore } from '../../../mock/store/mas/index.ts'

type Item = { id: string } & Record<string, unknown>

/** one admin-API filter: its query pair and the predicate it means */
export interface Filter {
  pair: string
  test: (item: Item) => boolean
}

export interface Family {
  name: string
  items: (mas: MasStore) => readonly Item[]
  /** every filter the family takes, as generators: pick(n) chooses a value from the data */
  filters: (mas: MasStore, pick: (n: number) => number) => Filter[]
}

const iso = (micros: number) => new Date(Math.floor(micros / 1000)).toISOString()
const ms = (micros: number) => Math.floor(micros / 1000)

/** a threshold near existing values: equal to one, or shifted by a few ms either way */
function threshold(values: readonly number[], pick: (n: number) => number): number {
  if (values.length === 0) return Date.parse('2026-01-01T00:00:00Z') * 1000
  const v = values[pick(values.length)]!
  return v + [-2000, -1000, 0, 0, 1000, 2000][pick(6)]!
}

/** strictly after / before on a nullable micros value, as the service compares (null never matches) */
function rangeFilters(key: string, field: string, values: readonly number[], pick: (n: number) => number, sep = '_'): Filter[] {
  const after = threshold(values, pick)
  const before = threshold(values, pick)
  // the filter value is printed in milliseconds: compare with what the server parses back
  const a = ms(after) * 1000
  const b = ms(before) * 1000
  return [
    { pair: `filter[${key}${sep}after]=${iso(after)}`, test: (i) => typeof i[field] === 'number' && (i[field] as number) > a },
    { pair: `filter[${key}${sep}before]=${iso(before)}`, test: (i) => typeof i[field] === 'number' && (i[field] as number) < b },
  ]
}

/** created-before/after bound the ULID's time part (milliseconds), as the service does */
function createdFilters(items: readonly Item[], pick: (n: number) => number): Filter[] {
  const times = items.map((i) => decodeTime(i.id) * 1000)
  const after = ms(threshold(times, pick))
  const before = ms(threshold(times, pick))
  return [
    { pair: `filter[created-after]=${new Date(after).toISOString()}`, test: (i) => decodeTime(i.id) > after },
    { pair: `filter[created-before]=${new Date(before).toISOString()}`, test: (i) => decodeTime(i.id) < before },
  ]
}

const values = (items: readonly Item[], field: string): number[] =>
  items.map((i) => i[field]).filter((v): v is number => typeof v === 'number')

function idOf(items: readonly Item[], field: string, pick: (n: number) => number): string {
  const ids = [...new Set(items.map((i) => i[field]).filter((v): v is string => typeof v === 'string'))]
  return ids.length ? ids[pick(ids.length)]! : '01J00000000000000000000000'
}

function scopeFilter(items: readonly Item[], pick: (n: number) => number): Filter {
  const tokens = [...new Set(items.flatMap((i) => String(i.scope).split(' ')).filter(Boolean))]
  const token = tokens.length ? tokens[pick(tokens.length)]! : 'openid'
  return { pair: `filter[scope]=${encodeURIComponent(token)}`, test: (i) => String(i.scope).split(' ').includes(token) }
}

function lastActive(items: readonly Item[], pick: (n: number) => number): Filter[] {
  return rangeFilters('last-active', 'lastActiveAt', values(items, 'lastActiveAt'), pick, '-')
}

function status(field: string, ended: string, pick: (n: number) => number): Filter {
  const v = pick(2) === 0 ? 'active' : ended
  return { pair: `filter[status]=${v}`, test: (i) => (i[field] === null) === (v === 'active') }
}

export const FAMILIES: Family[] = [
  {
    name: 'compat-sessions',
    items: (m) => m.compat.all() as unknown as Item[],
    filters: (m, pick) => {
      const items = m.compat.all() as unknown as Item[]
      const user = idOf(items, 'userId', pick)
      const bs = idOf(items, 'userSessionId', pick)
      return [
        { pair: `filter[user]=${user}`, test: (i) => i.userId === user },
        { pair: `filter[user-session]=${bs}`, test: (i) => i.userSessionId === bs },
        status('finishedAt', 'finished', pick),
        ...createdFilters(items, pick),
        ...lastActive(items, pick),
      ]
    },
  },
  {
    name: 'oauth2-sessions',
    items: (m) => m.oauth2.all() as unknown as Item[],
    filters: (m, pick) => {
      const items = m.oauth2.all() as unknown as Item[]
      const user = idOf(items, 'userId', pick)
      const bs = idOf(items, 'userSessionId', pick)
      const c1 = idOf(items, 'clientId', pick)
      const c2 = idOf(items, 'clientId', pick)
      const kind = pick(2) === 0 ? 'static' : 'dynamic'
      return [
        { pair: `filter[user]=${user}`, test: (i) => i.userId === user },
        { pair: `filter[user-session]=${bs}`, test: (i) => i.userSessionId === bs },
        { pair: `filter[client]=${c1}&filter[client]=${c2}`, test: (i) => i.clientId === c1 || i.clientId === c2 },
        { pair: `filter[client-kind]=${kind}`, test: (i) => m.getClient(String(i.clientId))?.kind === kind },
        scopeFilter(items, pick),
        status('finishedAt', 'finished', pick),
        ...createdFilters(items, pick),
        ...lastActive(items, pick),
      ]
    },
  },
  {
    name: 'personal-sessions',
    items: (m) => m.personal.all() as unknown as Item[],
    filters: (m, pick) => {
      const items = m.personal.all() as unknown as Item[]
      const owner = idOf(items, 'ownerUserId', pick)
      const client = idOf(items, 'ownerClientId', pick)
      const actor = idOf(items, 'actorUserId', pick)
      const expires = pick(2) === 0
      return [
        { pair: `filter[owner_user]=${owner}`, test: (i) => i.ownerUserId === owner },
        { pair: `filter[owner_client]=${client}`, test: (i) => i.ownerClientId === client },
        { pair: `filter[actor_user]=${actor}`, test: (i) => i.actorUserId === actor },
        scopeFilter(items, pick),
        status('revokedAt', 'revoked', pick),
        { pair: `filter[expires]=${expires}`, test: (i) => (i.tokenExpiresAt !== null) === expires },
        ...rangeFilters('expires', 'tokenExpiresAt', values(items, 'tokenExpiresAt'), pick),
      ]
    },
  },
]

const bool = (pick: (n: number) => number) => pick(2) === 0

/** a user for filter[user]: one the family's records name, or any existing user (maybe one with none) */
function userOf(m: MasStore, items: readonly Item[], pick: (n: number) => number): string {
  return items.length && bool(pick) ? idOf(items, 'userId', pick) : idOf(m.users.all() as unknown as Item[], 'id', pick)
}
const live = (items: readonly Item[]) => items.filter((i) => i.deleted !== true)

/** a piece of a value (the text of a contains-search), without the ILIKE wildcards `%` and `_` */
function pieceOf(values: readonly string[], pick: (n: number) => number): string {
  const plain = values.map((v) => v.replace(/[%_]/g, '')).filter((v) => v.length >= 2)
  if (!plain.length) return 'a'
  const v = plain[pick(plain.length)]!
  const from = pick(v.length - 1)
  return v.slice(from, from + 1 + pick(4)).toUpperCase()
}

/** the families added with the whole admin API: users, e-mails, registration tokens, upstream links, browser sessions */
export const MORE_FAMILIES: Family[] = [
  {
    name: 'users',
    items: (m) => m.users.all() as unknown as Item[],
    filters: (m, pick) => {
      const items = m.users.all()
      const activeOf = (all: readonly { userId: string | null; finishedAt: number | null; clientId?: string }[], client?: string) =>
        new Set(all.filter((s) => s.finishedAt === null && (client === undefined || s.clientId === client)).map((s) => s.userId))
      const oauth2 = activeOf(m.oauth2.all())
      const compat = activeOf(m.compat.all())
      const client = idOf(m.oauth2.all() as unknown as Item[], 'clientId', pick)
      const withClient = activeOf(m.oauth2.all(), client)
      const [admin, guest, hasO, hasC] = [bool(pick), bool(pick), bool(pick), bool(pick)]
      const st = (['active', 'locked', 'deactivated'] as const)[pick(3)]!
      const search = pieceOf(
        items.map((u) => u.username),
        pick,
      )
      return [
        { pair: `filter[admin]=${admin}`, test: (i) => i.admin === admin },
        { pair: `filter[legacy-guest]=${guest}`, test: (i) => i.legacyGuest === guest },
        {
          pair: `filter[search]=${encodeURIComponent(search)}`,
          test: (i) => String(i.username).toLowerCase().includes(search.toLowerCase()),
        },
        {
          pair: `filter[status]=${st}`,
          test: (i) =>
            st === 'active'
              ? i.lockedAt === null && i.deactivatedAt === null
              : st === 'locked'
                ? i.lockedAt !== null
                : i.deactivatedAt !== null,
        },
        { pair: `filter[active-oauth2-client]=${client}`, test: (i) => withClient.has(i.id) },
        { pair: `filter[has-active-oauth2-session]=${hasO}`, test: (i) => oauth2.has(i.id) === hasO },
        { pair: `filter[has-active-compat-session]=${hasC}`, test: (i) => compat.has(i.id) === hasC },
      ]
    },
  },
  {
    name: 'user-emails',
    items: (m) => live(m.extra.emails.all() as unknown as Item[]),
    filters: (m, pick) => {
      const items = live(m.extra.emails.all() as unknown as Item[])
      const user = userOf(m, items, pick)
      const all = items.map((i) => String(i.email))
      const email = all.length ? all[pick(all.length)]! : 'nobody@example.org'
      // the service compares LOWER(email): a differently cased address finds the same one
      const asked = bool(pick) ? email.toUpperCase() : email
      return [
        { pair: `filter[user]=${user}`, test: (i) => i.userId === user },
        { pair: `filter[email]=${encodeURIComponent(asked)}`, test: (i) => String(i.email).toLowerCase() === email.toLowerCase() },
      ]
    },
  },
  {
    name: 'user-registration-tokens',
    items: (m) => m.extra.tokens.all() as unknown as Item[],
    filters: (_m, pick) => {
      const now = Date.now() * 1000
      const facts: Record<string, (i: Item) => boolean> = {
        used: (i) => (i.timesUsed as number) > 0,
        revoked: (i) => i.revokedAt !== null,
        expired: (i) => i.expiresAt !== null && (i.expiresAt as number) < now,
        valid: (i) =>
          (i.usageLimit === null || (i.timesUsed as number) < (i.usageLimit as number)) &&
          i.revokedAt === null &&
          (i.expiresAt === null || (i.expiresAt as number) >= now),
      }
      return Object.entries(facts).map(([k, f]) => {
        const want = bool(pick)
        return { pair: `filter[${k}]=${want}`, test: (i: Item) => f(i) === want }
      })
    },
  },
  {
    name: 'upstream-oauth-links',
    items: (m) => live(m.extra.links.all() as unknown as Item[]),
    filters: (m, pick) => {
      const items = live(m.extra.links.all() as unknown as Item[])
      const user = userOf(m, items, pick)
      const provider = idOf(m.extra.providers.all() as unknown as Item[], 'id', pick)
      const subjects = items.map((i) => String(i.subject))
      const subject = subjects.length ? subjects[pick(subjects.length)]! : 'none'
      const names = items.map((i) => i.humanAccountName).filter((v): v is string => typeof v === 'string')
      const han = names.length ? names[pick(names.length)]! : 'none'
      return [
        { pair: `filter[user]=${user}`, test: (i) => i.userId === user },
        { pair: `filter[provider]=${provider}`, test: (i) => i.providerId === provider },
        { pair: `filter[subject]=${encodeURIComponent(subject)}`, test: (i) => i.subject === subject },
        { pair: `filter[human-account-name]=${encodeURIComponent(han)}`, test: (i) => i.humanAccountName === han },
      ]
    },
  },
  {
    name: 'user-sessions',
    items: (m) => m.userSessions.all() as unknown as Item[],
    filters: (m, pick) => {
      const items = m.userSessions.all() as unknown as Item[]
      const user = userOf(m, items, pick)
      return [
        { pair: `filter[user]=${user}`, test: (i) => i.userId === user },
        status('finishedAt', 'finished', pick),
        ...createdFilters(items, pick),
        ...lastActive(items, pick),
      ]
    },
  },
]

/** ids of the items passing every filter, ascending */
export function bruteForce(items: readonly Item[], filters: readonly Filter[]): string[] {
  return items.filter((i) => filters.every((f) => f.test(i))).map((i) => i.id)
}
