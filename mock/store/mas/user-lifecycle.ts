// What the auth service's deactivation job does to a user's sessions, applied at once by the mock:
// the browser, OAuth 2.0 and compatibility sessions of the user end, and the personal sessions
// acting as the user or owned by the user are revoked (with their tokens).
import type { Micros, MasStore, PersonalSession } from './index.ts'
import type { Keyed, OrderedCollection } from '../ordered.ts'

/** every item in all of the buckets, oldest first */
function itemsIn<T extends Keyed, I extends string, R extends string>(
  all: OrderedCollection<T, I, R>,
  conditions: { index: I; keys: string[] }[],
): T[] {
  const q = { in: conditions }
  const n = all.count(q).count
  return n === 0 ? [] : all.page(q, 'forward', n).items
}

export function endUserSessions(
  store: MasStore,
  userId: string,
  at: Micros,
): { browser: number; oauth2: number; compat: number; personal: number } {
  const browser = itemsIn(store.userSessions, [{ index: 'user', keys: [userId] }]).filter((s) => s.finishedAt === null)
  for (const s of browser) store.finishBrowserSession(s, at)
  const oauth2 = itemsIn(store.oauth2, [
    { index: 'user', keys: [userId] },
    { index: 'status', keys: ['active'] },
  ])
  for (const s of oauth2) store.finishOAuth2Session(s, at)
  const compat = itemsIn(store.compat, [
    { index: 'user', keys: [userId] },
    { index: 'status', keys: ['active'] },
  ])
  for (const s of compat) store.finishCompatSession(s, at)
  const personal = new Map<string, PersonalSession>()
  for (const index of ['actor', 'ownerUser'] as const) {
    for (const s of itemsIn(store.personal, [
      { index, keys: [userId] },
      { index: 'status', keys: ['active'] },
    ]))
      personal.set(s.id, s)
  }
  for (const s of personal.values()) store.revokePersonalSession(s, at)
  return { browser: browser.length, oauth2: oauth2.length, compat: compat.length, personal: personal.size }
}
