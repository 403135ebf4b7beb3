// The auth service's other writes in the sequences: registration tokens (create, revoke, unrevoke,
// update — each also twice, and on a revoked token —, read again), user e-mails (add, add the same address
// in capitals, delete, delete again, read again) and upstream OAuth links (add, add the same subject for a
// user again, delete, read again; only when the side lists a provider, else the steps are skipped).
// Shown: status, errcode, and for a token whether it is revoked and its usage limit.
import fc from 'fast-check'
import { dataOf, send, shown, type SideState } from './common.ts'
import { drawnUser, NO_ULID } from './users.ts'

export type AdminWriteStep =
  | { op: 'regtoken'; act: 'create' | 'revoke' | 'unrevoke' | 'update' | 'get'; slot: number; twice?: boolean }
  | { op: 'email'; act: 'add' | 'add-upper' | 'delete' | 'get'; slot: number; user: number; twice?: boolean }
  | { op: 'link'; act: 'add' | 'delete' | 'get'; slot: number; user: number }

function tokenView(json: unknown): string {
  const a = dataOf(json)?.attributes ?? {}
  return JSON.stringify({ revoked: a.revoked_at !== null && a.revoked_at !== undefined, usageLimit: a.usage_limit ?? null })
}

/** The first upstream provider the side lists (null: none). */
async function provider(s: SideState): Promise<string | null> {
  if (s.shared.provider === undefined) {
    const r = await send(s, 'mas', 'GET', '/upstream-oauth-providers?page[first]=1')
    const id = (r.json as { data?: { id?: unknown }[] } | undefined)?.data?.[0]?.id
    s.shared.provider = r.status === 200 && typeof id === 'string' ? id : null
  }
  return s.shared.provider
}

export async function adminWriteReady(s: SideState, step: AdminWriteStep): Promise<string | undefined> {
  if (step.op === 'link' && (await provider(s)) === null) return 'the target lists no upstream OAuth provider: no link is added'
  return undefined
}

export async function runAdminWrite(s: SideState, step: AdminWriteStep): Promise<{ seen: string; line: string }> {
  const key = `${step.op}:${step.slot}`
  const id = s.made.get(key) ?? NO_ULID
  switch (step.op) {
    case 'regtoken': {
      const base = `/user-registration-tokens/${id}`
      const act = async (i: number) => {
        if (step.act === 'create') {
          const r = await send(s, 'mas', 'POST', '/user-registration-tokens', { token: `${s.tag}-t${step.slot}`, usage_limit: 3 })
          const made = dataOf(r.json)?.id
          if (r.status === 201 && typeof made === 'string') s.made.set(key, made)
          return r
        }
        if (step.act === 'get') return send(s, 'mas', 'GET', base)
        // a second update sets another limit: a limit kept shows as the first one
        if (step.act === 'update') return send(s, 'mas', 'PUT', base, { usage_limit: 7 + i })
        return send(s, 'mas', 'POST', `${base}/${step.act}`)
      }
      if (step.twice) await act(0)
      const r = await act(1)
      return shown(r, r.status < 300 ? tokenView(r.json) : '')
    }
    case 'email': {
      const address = `${s.tag}-e${step.slot}@example.test`
      if (step.act === 'add' || step.act === 'add-upper') {
        const r = await send(s, 'mas', 'POST', '/user-emails', {
          user_id: s.users.get(step.user) ?? NO_ULID,
          email: step.act === 'add' ? address : address.toUpperCase(),
        })
        const made = dataOf(r.json)?.id
        if (r.status === 201 && typeof made === 'string' && !s.made.has(key)) s.made.set(key, made)
        return shown(r)
      }
      // delete twice: the second answers 404 once the address is gone
      if (step.act === 'delete' && step.twice) await send(s, 'mas', 'DELETE', `/user-emails/${id}`)
      return shown(await send(s, 'mas', step.act === 'get' ? 'GET' : 'DELETE', `/user-emails/${id}`))
    }
    case 'link': {
      if (step.act === 'add') {
        const r = await send(s, 'mas', 'POST', '/upstream-oauth-links', {
          user_id: s.users.get(step.user) ?? NO_ULID,
          provider_id: (await provider(s)) ?? NO_ULID,
          subject: `${s.tag}-s${step.slot}`,
        })
        const made = dataOf(r.json)?.id
        if (r.status < 300 && typeof made === 'string' && !s.made.has(key)) s.made.set(key, made)
        return shown(r)
      }
      return shown(await send(s, 'mas', step.act === 'get' ? 'GET' : 'DELETE', `/upstream-oauth-links/${id}`))
    }
  }
}

export function adminWriteLine(s: AdminWriteStep): string {
  if (s.op === 'regtoken') return `${s.act} registration token t${s.slot}${s.twice ? ' (twice)' : ''}`
  if (s.op === 'email')
    return s.act === 'add' || s.act === 'add-upper'
      ? `add e-mail e${s.slot}${s.act === 'add-upper' ? ' in capitals' : ''} to u${s.user}`
      : `${s.act} e-mail e${s.slot}${s.twice ? ' (twice)' : ''}`
  return s.act === 'add' ? `add upstream link s${s.slot} to u${s.user}` : `${s.act} upstream link s${s.slot}`
}

export function adminWriteArbitraries(): fc.Arbitrary<AdminWriteStep>[] {
  const slot = fc.constantFrom(0, 0, 1)
  const tokenAct = fc.constantFrom('revoke', 'unrevoke', 'update', 'get') as fc.Arbitrary<'revoke' | 'unrevoke' | 'update' | 'get'>
  return [
    slot.map((slot) => ({ op: 'regtoken', act: 'create', slot }) as AdminWriteStep),
    fc
      .record({ slot, act: tokenAct, twice: fc.boolean() })
      .map((r) => ({ op: 'regtoken', act: r.act, slot: r.slot, ...(r.twice && r.act !== 'get' ? { twice: true } : {}) }) as AdminWriteStep),
    fc
      .record({ slot, user: drawnUser, act: fc.constantFrom('add', 'add', 'add-upper', 'delete', 'get'), twice: fc.boolean() })
      .map(({ twice, ...r }) => ({ op: 'email', ...r, ...(twice && r.act === 'delete' ? { twice: true } : {}) }) as AdminWriteStep),
    fc
      .record({ slot, user: drawnUser, act: fc.constantFrom('add', 'add', 'delete', 'get') })
      .map((r) => ({ op: 'link', ...r }) as AdminWriteStep),
  ]
}

export function adminWriteNeeds(s: AdminWriteStep): string[] {
  if (s.op === 'regtoken') return s.act === 'create' ? [] : [`regtoken:${s.slot}`]
  if (s.act === 'add' || s.act === 'add-upper') return [`user:${s.user}`]
  return [`${s.op}:${s.slot}`]
}
export function adminWriteMakes(s: AdminWriteStep): string[] {
  if (s.op === 'regtoken') return s.act === 'create' ? [`regtoken:${s.slot}`] : []
  return s.act === 'add' ? [`${s.op}:${s.slot}`] : []
}
