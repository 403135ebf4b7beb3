// The sessions family of the sequences. Personal sessions: create one acting as a user of the sequence,
// revoke it (once, twice: 409 the second time), regenerate it (the old token must stop working and the
// new one work: each is used as the credential of a read, GET /users/{actor}), use its token, read it
// again (revoked_at set, expires_at null once revoked). Compatibility and OAuth 2.0 sessions: finish one
// (once, twice: 400 the second time), read it again. The finished ones are taken from the side's listing
// of active sessions by position, never one behind the run's own tokens (proven by introspection, as
// suites/admin/harness-sessions.ts does; when that cannot be known the finish steps are skipped).
import fc from 'fast-check'
import { introspectionClientMetadata, readRegistration } from '../../../lib/introspection.ts'
import { dataOf, listed, send, shown, type Answer, type SideState } from './common.ts'
import { drawnUser, NO_ULID } from './users.ts'

export type SessionFamily = 'compat-sessions' | 'oauth2-sessions'

export type SessionStep =
  | { op: 'personal'; act: 'create'; slot: number; user: number }
  | { op: 'personal'; act: 'revoke' | 'regenerate' | 'use' | 'get'; slot: number; twice?: boolean }
  | { op: 'finish'; family: SessionFamily; session: number; twice?: boolean }
  | { op: 'get-session'; family: SessionFamily; session: number }

function personalView(json: unknown): string {
  const a = dataOf(json)?.attributes ?? {}
  return JSON.stringify({ revoked: a.revoked_at !== null && a.revoked_at !== undefined, expiresAt: a.expires_at !== null })
}

function finishedView(json: unknown): string {
  const a = dataOf(json)?.attributes ?? {}
  return JSON.stringify({ finished: a.finished_at !== null && a.finished_at !== undefined })
}

const form = (f: Record<string, string>) => new URLSearchParams(f).toString()

/** The users and clients of the sessions behind this side's auth-service tokens, or why not known. */
async function held(s: SideState): Promise<{ userId: string | null; clientId: string | null }[] | string> {
  if (s.shared.held !== undefined) return s.shared.held
  const mas = s.side.mas!
  const reg = await s.side.client.request(mas.url, '/oauth2/registration', {
    method: 'POST',
    body: introspectionClientMetadata(`explore ${s.tag}`),
  })
  const c = readRegistration(reg.status, reg.json)
  if (typeof c === 'string') return (s.shared.held = c)
  s.side.client.addSecret(c.clientSecret)
  const out: { userId: string | null; clientId: string | null }[] = []
  // the homeserver's tokens too: behind an auth service they are its sessions (compat or OAuth 2.0)
  const hs = s.side.hs
  for (const token of new Set([mas.adminToken, mas.userToken, hs?.adminToken, hs?.userToken])) {
    if (!token) continue
    const r = await s.side.client.request(mas.url, '/oauth2/introspect', {
      method: 'POST',
      rawBody: form({ token, client_id: c.clientId, client_secret: c.clientSecret }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    const b = r.json as { active?: unknown; sub?: unknown; client_id?: unknown } | undefined
    if (r.status !== 200 || typeof b?.active !== 'boolean') return (s.shared.held = `introspecting the run's tokens answered ${r.status}`)
    if (b.active)
      out.push({ userId: typeof b.sub === 'string' ? b.sub : null, clientId: typeof b.client_id === 'string' ? b.client_id : null })
  }
  return (s.shared.held = out)
}

/** The active session at this position of the side's listing, none behind the run's own tokens. */
async function session(s: SideState, family: SessionFamily, n: number): Promise<string | undefined> {
  const h = await held(s)
  if (typeof h === 'string') return undefined
  return listed(
    s,
    family,
    async () => {
      const r = await send(s, 'mas', 'GET', `/${family}?filter[status]=active&page[first]=100`)
      const items = (r.json as { data?: { id: string; attributes: Record<string, unknown> }[] } | undefined)?.data ?? []
      return items
        .filter((it) => {
          const user = (it.attributes.user_id ?? null) as string | null
          return !h.some((x) =>
            family === 'compat-sessions'
              ? x.userId !== null && x.userId === user && (x.clientId === null || x.clientId === 'legacy')
              : x.userId === user && x.clientId === (it.attributes.client_id ?? null),
          )
        })
        .map((it) => it.id)
    },
    n,
  )
}

/** Why a step cannot run on this side (it is then skipped on every side), or undefined. */
export async function sessionReady(s: SideState, step: SessionStep): Promise<string | undefined> {
  if (step.op === 'personal') return undefined
  const h = await held(s)
  if (typeof h === 'string') return `the sessions behind the run's tokens are not known (${h}): no session is finished`
  return (await session(s, step.family, step.session)) === undefined ? `no active ${step.family} left to finish` : undefined
}

export async function runSession(s: SideState, step: SessionStep): Promise<{ seen: string; line: string }> {
  if (step.op === 'finish' || step.op === 'get-session') {
    const id = (await session(s, step.family, step.session)) ?? NO_ULID
    if (step.op === 'get-session') {
      const r = await send(s, 'mas', 'GET', `/${step.family}/${id}`)
      return shown(r, r.status === 200 ? finishedView(r.json) : '')
    }
    if (step.twice) await send(s, 'mas', 'POST', `/${step.family}/${id}/finish`)
    const r = await send(s, 'mas', 'POST', `/${step.family}/${id}/finish`)
    return shown(r, r.status === 200 ? finishedView(r.json) : '')
  }
  const key = `personal:${step.slot}`
  const id = s.made.get(key) ?? NO_ULID
  const actor = s.made.get(`${key}:actor`) ?? NO_ULID
  // a read as the actor, with the token as the credential: the status only
  const use = async (token: string | undefined) =>
    token ? (await send(s, 'mas', 'GET', `/users/${actor}`, undefined, token)).status : 'none'
  switch (step.act) {
    case 'create': {
      const actorId = s.users.get(step.user) ?? NO_ULID
      const r = await send(s, 'mas', 'POST', '/personal-sessions', {
        actor_user_id: actorId,
        human_name: `${s.tag} p${step.slot}`,
        scope: 'urn:mas:admin',
        expires_in: 3600,
      })
      const d = dataOf(r.json)
      const token = d?.attributes?.access_token
      if (typeof token === 'string') s.side.client.addSecret(token)
      if (r.status === 201 && typeof d?.id === 'string' && typeof token === 'string') {
        s.made.set(key, d.id)
        s.made.set(`${key}:actor`, actorId)
        s.tokens.set(step.slot, { now: token })
      }
      return shown(r, r.status === 201 ? personalView(r.json) : '')
    }
    case 'revoke': {
      if (step.twice) await send(s, 'mas', 'POST', `/personal-sessions/${id}/revoke`)
      const r = await send(s, 'mas', 'POST', `/personal-sessions/${id}/revoke`)
      return shown(r, r.status === 200 ? personalView(r.json) : '')
    }
    case 'regenerate': {
      const r: Answer = await send(s, 'mas', 'POST', `/personal-sessions/${id}/regenerate`, { expires_in: 600 })
      const token = dataOf(r.json)?.attributes?.access_token
      if (typeof token === 'string') s.side.client.addSecret(token)
      const before = s.tokens.get(step.slot)
      if (r.status === 201 && typeof token === 'string') s.tokens.set(step.slot, { now: token, ...(before ? { old: before.now } : {}) })
      // the token before the regenerate must stop working, the new one work
      const t = s.tokens.get(step.slot)
      return shown(r, r.status === 201 ? `old:${await use(t?.old)} new:${await use(t?.now)}` : '')
    }
    case 'use': {
      const t = s.tokens.get(step.slot)
      const old = t?.old ? ` old:${await use(t.old)}` : ''
      return { seen: `token:${await use(t?.now)}${old}`, line: `GET /api/admin/v1/users/${actor} [personal token p${step.slot}]` }
    }
    case 'get': {
      const r = await send(s, 'mas', 'GET', `/personal-sessions/${id}`)
      return shown(r, r.status === 200 ? personalView(r.json) : '')
    }
  }
}

export function sessionLine(s: SessionStep): string {
  if (s.op === 'finish') return `finish ${s.family} #${s.session}${s.twice ? ' (twice)' : ''}`
  if (s.op === 'get-session') return `get ${s.family} #${s.session}`
  if (s.act === 'create') return `create personal session p${s.slot} acting as u${s.user}`
  return `${s.act} personal session p${s.slot}${'twice' in s && s.twice ? ' (twice)' : ''}`
}

export function sessionArbitraries(): fc.Arbitrary<SessionStep>[] {
  const slot = fc.constantFrom(0, 0, 1)
  const family = fc.constantFrom('compat-sessions', 'oauth2-sessions') as fc.Arbitrary<SessionFamily>
  const n = fc.integer({ min: 0, max: 1 })
  return [
    fc.record({ slot, user: drawnUser }).map((r) => ({ op: 'personal', act: 'create', ...r }) as SessionStep),
    fc
      .record({ slot, twice: fc.boolean() })
      .map((r) => ({ op: 'personal', act: 'revoke', slot: r.slot, ...(r.twice ? { twice: true } : {}) }) as SessionStep),
    slot.map((slot) => ({ op: 'personal', act: 'regenerate', slot }) as SessionStep),
    fc.record({ slot, act: fc.constantFrom('use', 'get') }).map((r) => ({ op: 'personal', ...r }) as SessionStep),
    fc
      .record({ family, session: n, twice: fc.boolean() })
      .map((r) => ({ op: 'finish', family: r.family, session: r.session, ...(r.twice ? { twice: true } : {}) }) as SessionStep),
    fc.record({ family, session: n }).map((r) => ({ op: 'get-session', ...r }) as SessionStep),
  ]
}

export function sessionNeeds(s: SessionStep): string[] {
  if (s.op !== 'personal') return []
  return s.act === 'create' ? [`user:${s.user}`] : [`personal:${s.slot}`]
}
export const sessionMakes = (s: SessionStep): string[] => (s.op === 'personal' && s.act === 'create' ? [`personal:${s.slot}`] : [])
