// What the sequence families (users, sessions, admin writes, reports) share: one side's state during a
// sequence, the requests each step sends, and how an answer is shown for the comparison.
import type { Side } from '../engine.ts'

/** What a step showed on one side: compared between the sides, never the side's own data. */
export type Seen = string

/** Per side, kept across the runs of one exploration: what the side listed once (ids by position). */
export interface Shared {
  lists: Map<string, string[]>
  /** the next unused position of each list: each run takes fresh items, in the order it first uses them */
  next: Map<string, number>
  /** the sessions behind the side's own tokens, or why they cannot be known */
  held?: { userId: string | null; clientId: string | null }[] | string
  /** the first upstream provider the side lists (null: none) */
  provider?: string | null
  /** a room and a message of the reporter's own, made once per exploration (room creation is rate-limited) */
  ownEvent?: { roomId: string; eventId: string } | string
  /** the users behind the side's homeserver tokens (whoami) */
  whoami?: Map<'admin' | 'user', string | undefined>
}

export interface SideState {
  side: Side
  /** a prefix of the names this sequence creates, unique per run */
  tag: string
  /** the id of each user created in this sequence, by its number */
  users: Map<number, string>
  /** the last locked_at / deactivated_at each user showed */
  times: Map<number, { locked?: unknown; deactivated?: unknown }>
  shared: Shared
  /** the position this run took in a shared list for each of its item numbers (`key:n`) */
  picked: Map<string, number>
  /** what this sequence created, by family and slot: `personal:0` → id, … */
  made: Map<string, string>
  /** personal tokens by slot: the current one and the one before a regenerate */
  tokens: Map<number, { now: string; old?: string }>
}

export type Answer = { status: number; json: unknown; line: string }

export const errcodeOf = (json: unknown) => {
  const j = json as { errcode?: unknown } | undefined
  return typeof j?.errcode === 'string' ? j.errcode : ''
}

/** Status, errcode and the values the step is about, as compared. */
export const shown = (r: Answer, extra = ''): { seen: Seen; line: string } => ({
  seen: `${r.status}${errcodeOf(r.json) ? ` ${errcodeOf(r.json)}` : ''}${extra ? ` ${extra}` : ''}`,
  line: r.line,
})

/** An admin API request (auth service or homeserver), with the side's admin token unless another is given. */
export async function send(s: SideState, api: 'mas' | 'hs', method: string, path: string, body?: unknown, token?: string): Promise<Answer> {
  const svc = api === 'mas' ? s.side.mas : s.side.hs
  if (!svc) throw new Error(`no ${api} on this side`)
  const prefix = api === 'mas' ? '/api/admin/v1' : `${s.side.prefixes.hsPrefix}/admin/v1`
  const res = await s.side.client.request(svc.url, prefix + path, {
    method,
    token: token ?? svc.adminToken ?? null,
    ...(body !== undefined ? { body } : {}),
  })
  return { status: res.status, json: res.json, line: `${method} ${prefix}${path}` }
}

/** A homeserver client-API request (`/_matrix/client/v3…`) with one of the side's homeserver tokens. */
export async function sendClient(s: SideState, as: 'admin' | 'user', method: string, path: string, body?: unknown): Promise<Answer> {
  const hs = s.side.hs
  if (!hs) throw new Error('no hs on this side')
  const prefix = `${s.side.prefixes.clientPrefix}/client/v3`
  const res = await s.side.client.request(hs.url, prefix + path, {
    method,
    token: (as === 'user' ? hs.userToken : hs.adminToken) ?? null,
    ...(body !== undefined ? { body } : {}),
  })
  return { status: res.status, json: res.json, line: `${method} ${prefix}${path}` }
}

/** The `data` of an admin API answer. */
export const dataOf = (json: unknown) =>
  (json as { data?: { id?: unknown; attributes?: Record<string, unknown> } } | undefined)?.data ?? undefined

/**
 * Ids listed once per side and exploration (`key`). A run's item n is the next position no earlier run
 * took (every side takes positions in the same order, as the steps run in step on every side), so that
 * a run acts on items of its own: a run shrunk alone repeats.
 */
export async function listed(s: SideState, key: string, load: () => Promise<string[]>, n: number): Promise<string | undefined> {
  if (!s.shared.lists.has(key)) s.shared.lists.set(key, await load())
  const k = `${key}:${n}`
  if (!s.picked.has(k)) {
    const at = s.shared.next.get(key) ?? 0
    s.shared.next.set(key, at + 1)
    s.picked.set(k, at)
  }
  return s.shared.lists.get(key)![s.picked.get(k)!]
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
