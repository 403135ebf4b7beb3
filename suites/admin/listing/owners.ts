// Which users (or clients) have an active session, as the truth for the users' and clients' session
// filters, at a cost that does not grow with the target (decision 0004): a few pages of the active sessions,
// then, when those did not settle every id of the window, a lookup of a sample of the others
// (`filter[user]=` / `filter[client]=` with `page[first]=1`). Ids neither seen nor sampled stay unknown
// and are left out of the comparison.
import { mas, skip } from '../../lib/suite.ts'
import type { MasItem } from './walk.ts'

/** Pages of 100 active sessions read at most; then a sample of per-id lookups. */
const TRUTH_PAGES = 1
const SAMPLE = 4

export interface OwnerQuery {
  family: 'oauth2-sessions' | 'compat-sessions'
  /** the session attribute naming the owner: user_id or client_id */
  attr: 'user_id' | 'client_id'
  /** the filter that selects one owner's sessions */
  ownerFilter: 'filter[user]' | 'filter[client]'
  /** the ids whose answer is wanted (the window of the filtered listing) */
  ids: readonly string[]
  /** more filters on the sessions (filter[client] for one client's users) */
  extra?: Record<string, string>
}

async function page(family: string, query: Record<string, string | number>): Promise<MasItem[]> {
  const res = await mas('GET', `/${family}`, { query })
  const data = (res.json as { data?: MasItem[] } | undefined)?.data
  if (res.status !== 200 || !Array.isArray(data)) skip(`the ${family} listing answered ${res.status}; its own checks report it`)
  return data
}

/** id → whether it has an active session, for the ids this could settle. */
export async function activeOwners(q: OwnerQuery): Promise<Map<string, boolean>> {
  const wanted = new Set(q.ids)
  const seen = new Set<string>()
  let after: string | undefined
  let complete = false
  for (let i = 0; i < TRUTH_PAGES; i++) {
    const data = await page(q.family, {
      ...q.extra,
      'filter[status]': 'active',
      'page[first]': 100,
      ...(after ? { 'page[after]': after } : {}),
    })
    for (const s of data) if (s.attributes[q.attr]) seen.add(String(s.attributes[q.attr]))
    if (data.length < 100) {
      complete = true
      break
    }
    if ([...wanted].every((id) => seen.has(id))) break
    after = data.at(-1)!.id
  }
  const out = new Map<string, boolean>()
  for (const id of q.ids) if (seen.has(id) || complete) out.set(id, seen.has(id))
  if (complete) return out
  const rest = q.ids.filter((id) => !out.has(id))
  const step = Math.max(1, Math.floor(rest.length / SAMPLE))
  for (let i = 0; i < rest.length && out.size < q.ids.length && i / step < SAMPLE; i += step) {
    const id = rest[i]!
    const data = await page(q.family, { ...q.extra, 'filter[status]': 'active', [q.ownerFilter]: id, 'page[first]': 1 })
    out.set(id, data.length > 0)
  }
  return out
}
