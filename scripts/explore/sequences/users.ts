// The users family of the sequences: create a user, act on it (lock, unlock, deactivate, reactivate,
// set-admin; once, twice one after the other, twice at once), read it again. Shown: the admin flag,
// whether locked or deactivated, and whether a second lock (deactivate) moved its time.
import fc from 'fast-check'
import { dataOf, send, shown, sleep, type SideState } from './common.ts'

export type UserStep =
  | { op: 'create-user'; user: number }
  | {
      op: 'user-act'
      user: number
      act: 'lock' | 'unlock' | 'deactivate' | 'reactivate' | 'set-admin' | 'unset-admin'
      twice?: 'serial' | 'parallel'
    }
  | { op: 'get-user'; user: number }

/** An id no user has (a step on a user this side did not create). */
export const NO_ULID = '01JAAAAAAAAAAAAAAAAAAAAAAA'

function userView(s: SideState, user: number, json: unknown, act?: string): string {
  const a = dataOf(json)?.attributes ?? {}
  const prev = s.times.get(user) ?? {}
  const moved = (k: 'locked' | 'deactivated', v: unknown) => prev[k] !== undefined && prev[k] !== null && v !== null && v !== prev[k]
  const out = {
    admin: a.admin,
    locked: a.locked_at !== null && a.locked_at !== undefined,
    deactivated: a.deactivated_at !== null && a.deactivated_at !== undefined,
    // a second lock (deactivate) keeps the time of the first
    lockedAtMoved: act === 'lock' ? moved('locked', a.locked_at) : false,
    deactivatedAtMoved: act === 'deactivate' ? moved('deactivated', a.deactivated_at) : false,
  }
  s.times.set(user, { locked: a.locked_at, deactivated: a.deactivated_at })
  return JSON.stringify(out)
}

export async function runUser(s: SideState, step: UserStep) {
  switch (step.op) {
    case 'create-user': {
      const r = await send(s, 'mas', 'POST', '/users', { username: `${s.tag}-${step.user}` })
      const id = dataOf(r.json)?.id
      if (typeof id === 'string') s.users.set(step.user, id)
      return shown(r, r.status < 300 ? userView(s, step.user, r.json) : '')
    }
    case 'get-user':
    case 'user-act': {
      const id = s.users.get(step.user) ?? NO_ULID
      if (step.op === 'get-user') {
        const r = await send(s, 'mas', 'GET', `/users/${id}`)
        return shown(r, r.status === 200 ? userView(s, step.user, r.json) : '')
      }
      const act = step.act === 'unset-admin' ? 'set-admin' : step.act
      const body = act === 'set-admin' ? { admin: step.act === 'set-admin' } : undefined
      const once = () => send(s, 'mas', 'POST', `/users/${id}/${act}`, body)
      if (step.twice === 'parallel') {
        const [a, b] = await Promise.all([once(), once()])
        // the order the two answers arrive in is not compared
        return { seen: [a.status, b.status].sort().join('+'), line: `${a.line} (twice at once)` }
      }
      if (step.twice === 'serial') {
        await once()
        // the second act a few milliseconds later: a time it wrongly moves then differs
        await sleep(3)
      }
      const r = await once()
      return shown(r, r.status === 200 ? userView(s, step.user, r.json, act) : '')
    }
  }
}

export function userLine(s: UserStep): string {
  switch (s.op) {
    case 'create-user':
      return `create user u${s.user}`
    case 'get-user':
      return `get user u${s.user}`
    case 'user-act':
      return `${s.act} u${s.user}${s.twice ? ` (twice${s.twice === 'parallel' ? ', at once' : ''})` : ''}`
  }
}

/** user 0 drawn three times as often as user 1: most acts fall on the same user, one after another */
export const drawnUser = fc.constantFrom(0, 0, 0, 1)

export function userArbitraries(): fc.Arbitrary<UserStep>[] {
  // lock, deactivate and reactivate drawn twice as often: their order on one user is where the faults are
  const acts = fc.constantFrom('lock', 'lock', 'unlock', 'deactivate', 'deactivate', 'reactivate', 'reactivate', 'set-admin', 'unset-admin')
  const act = fc
    .record({ user: drawnUser, act: acts, twice: fc.constantFrom(undefined, undefined, 'serial', 'serial', 'parallel') })
    .map(({ user, act, twice }) => ({ op: 'user-act', user, act, ...(twice ? { twice } : {}) }) as UserStep)
  return [
    drawnUser.map((u) => ({ op: 'create-user', user: u }) as UserStep),
    drawnUser.map((u) => ({ op: 'get-user', user: u }) as UserStep),
    act,
    act,
    act,
    act,
  ]
}

export const userNeeds = (s: UserStep): string[] => (s.op === 'create-user' ? [] : [`user:${s.user}`])
export const userMakes = (s: UserStep): string[] => (s.op === 'create-user' ? [`user:${s.user}`] : [])
