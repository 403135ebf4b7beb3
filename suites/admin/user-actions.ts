// The five user actions (lock, unlock, set-admin, deactivate, reactivate), checked on one user the
// users suite creates for them: each action's answer, its idempotence (the service keeps the first
// locked_at / deactivated_at and never refuses an action for the user's state), a fresh read, the
// status filter after it, and deactivation ending the user's sessions. When the file ends the user
// is deactivated (users cannot be deleted through the admin API).
// Not a test file: users.suite.ts imports it.
import {
  requireMasFeature,
  skip,
  memo,
  cleanup,
  leftover,
  target,
  note,
  mas,
  expectOk,
  expectStatus,
  shown,
  MAS_API,
  type Test,
} from '../lib/suite.ts'
import { familyCheck, type FamilySpec, type MasItem } from './listing/walk.ts'

type Single = { data: MasItem; links: { self: string } }
const base = `${MAS_API}/users`

/** The user the actions run on, created once per run; a string: why there is none. */
function createdUser(): Promise<{ id: string; username: string } | string> {
  return memo('users:created', async () => {
    const username = `admin-conformance-${String(target.runId)
      .toLowerCase()
      .replace(/[^a-z0-9=_\-./+]/g, '-')}`
    const res = await mas('POST', '/users', { body: { username } })
    if (res.status !== 201) return `creating the user ${username} answered ${res.status}: ${shown(res.json ?? res.text, 200)}`
    const id = String((res.json as Single).data.id)
    cleanup(async () => {
      await mas('POST', `/users/${id}/deactivate`)
    })
    leftover({
      target: 'mas',
      kind: 'user',
      id,
      reason: `${username}, created for the user-action checks and left deactivated; the admin API cannot delete a user`,
    })
    return { id, username }
  })
}

async function userFor(): Promise<{ id: string; username: string }> {
  const u = await createdUser()
  if (typeof u === 'string') skip(u)
  return u
}

async function act(t: Test, id: string, action: string, body?: unknown): Promise<Record<string, any> | undefined> {
  const res = await mas('POST', `/users/${id}/${action}`, body === undefined ? {} : { body })
  const out = expectOk<Single>(t, res, `POST ${base}/${id}/${action}`, { schema: 'admin/user#Single' })
  if (!out) return undefined
  t.equal(out.links?.self, `${base}/${id}/${action}`, `${action}: links.self is the action's path`)
  t.equal(out.data?.links?.self, `${base}/${id}`, `${action}: data.links.self is the user's path`)
  return out.data.attributes
}

async function read(t: Test, id: string): Promise<Record<string, any> | undefined> {
  return expectOk<Single>(t, await mas('GET', `/users/${id}`), `GET ${base}/${id}`, { schema: 'admin/user#Single' })?.data.attributes
}

/** whether `filter[status]=<state>` lists the user (the newest users are last: page backward) */
async function listedAs(id: string, state: string): Promise<boolean> {
  const res = await mas('GET', '/users', { query: { 'filter[status]': state, 'page[last]': 100 } })
  return ((res.json as { data?: MasItem[] } | undefined)?.data ?? []).some((i) => i.id === id)
}

export function userActionChecks(spec: FamilySpec): void {
  familyCheck(spec, 'create a user for the actions → 201, and it reads back', ['mas', 'writes'], async (t) => {
    const u = await userFor()
    const attrs = await read(t, u.id)
    if (!attrs) return
    t.equal(attrs.username, u.username, 'the username as sent')
    t.same([attrs.locked_at, attrs.deactivated_at, attrs.admin], [null, null, false], 'a new user is active and not an admin')
  })

  familyCheck(spec, 'lock → locked_at set; lock again keeps it; filter[status] follows', ['mas', 'writes'], async (t) => {
    const u = await userFor()
    const first = await act(t, u.id, 'lock')
    if (!first) return
    t.ok(typeof first.locked_at === 'string', 'locked_at is set', { locked_at: first.locked_at })
    await new Promise((r) => setTimeout(r, 20))
    const again = await act(t, u.id, 'lock')
    t.equal(again?.locked_at, first.locked_at, 'locking a locked user keeps the first locked_at')
    t.equal((await read(t, u.id))?.locked_at, first.locked_at, 'a fresh read agrees')
    t.ok(await listedAs(u.id, 'locked'), 'filter[status]=locked lists the user')
    t.notOk(await listedAs(u.id, 'active'), 'filter[status]=active no longer lists the user')
  })

  familyCheck(spec, 'unlock → locked_at null; unlock again → 200 unchanged', ['mas', 'writes'], async (t) => {
    const u = await userFor()
    await act(t, u.id, 'lock')
    const first = await act(t, u.id, 'unlock')
    t.equal(first?.locked_at, null, 'locked_at is null')
    t.equal((await read(t, u.id))?.locked_at, null, 'a fresh read agrees')
    const again = await act(t, u.id, 'unlock')
    t.equal(again?.locked_at, null, 'unlocking an unlocked user is a 200 that changes nothing')
    t.ok(await listedAs(u.id, 'active'), 'filter[status]=active lists the user again')
  })

  familyCheck(spec, 'set-admin true then false → the admin flag follows, and a fresh read agrees', ['mas', 'writes'], async (t) => {
    const u = await userFor()
    for (const admin of [true, false]) {
      const a = await act(t, u.id, 'set-admin', { admin })
      t.equal(a?.admin, admin, `set-admin ${admin}: the answer shows admin ${admin}`)
      t.equal((await read(t, u.id))?.admin, admin, `set-admin ${admin}: a fresh read agrees`)
    }
    const missing = await mas('POST', `/users/${u.id}/set-admin`, { body: {} })
    expectStatus(t, missing, 422, 'set-admin without admin')
  })

  familyCheck(
    spec,
    'deactivate → deactivated_at set, lock untouched; again keeps the time; reactivate clears it and keeps a lock',
    ['mas', 'writes'],
    async (t) => {
      const u = await userFor()
      const first = await act(t, u.id, 'deactivate', { skip_erase: true })
      if (!first) return
      t.ok(typeof first.deactivated_at === 'string', 'deactivated_at is set', { deactivated_at: first.deactivated_at })
      t.equal(first.locked_at, null, 'deactivation does not lock the user')
      await new Promise((r) => setTimeout(r, 20))
      const again = await act(t, u.id, 'deactivate', { skip_erase: true })
      t.equal(again?.deactivated_at, first.deactivated_at, 'deactivating again keeps the first deactivated_at')
      t.ok(await listedAs(u.id, 'deactivated'), 'filter[status]=deactivated lists the user')
      await act(t, u.id, 'lock')
      t.ok(await listedAs(u.id, 'locked'), 'a locked and deactivated user is listed by filter[status]=locked')
      t.notOk(await listedAs(u.id, 'active'), 'nor by filter[status]=active')
      const feature = await requireMasFeatureOrNote(t)
      if (!feature) return
      const re = await act(t, u.id, 'reactivate')
      t.equal(re?.deactivated_at, null, 'reactivate clears deactivated_at')
      t.ok(typeof re?.locked_at === 'string', 'reactivate keeps the lock', { locked_at: re?.locked_at })
      await act(t, u.id, 'unlock')
    },
  )

  familyCheck(spec, "deactivate ends the user's sessions (its personal session is revoked)", ['mas', 'writes'], async (t) => {
    await requireMasFeature(t, 'personal-sessions')
    await requireMasFeature(t, 'users-reactivate')
    const u = await userFor()
    await act(t, u.id, 'reactivate')
    const created = await mas('POST', '/personal-sessions', {
      body: { actor_user_id: u.id, human_name: 'admin-conformance deactivation probe', scope: 'openid', expires_in: 600 },
    })
    const session = expectOk<Single>(t, created, 'a personal session acting as the user', { status: 201 })
    if (!session) return
    const sid = session.data.id
    cleanup(async () => {
      await mas('POST', `/personal-sessions/${sid}/revoke`)
    })
    await act(t, u.id, 'deactivate', { skip_erase: true })
    // The service ends sessions in a background job: wait a little for it.
    let revoked: unknown = null
    for (let i = 0; i < 40 && revoked === null; i++) {
      const r = await mas('GET', `/personal-sessions/${sid}`)
      revoked = (r.json as Single | undefined)?.data?.attributes?.revoked_at ?? null
      if (revoked === null) await new Promise((r) => setTimeout(r, 250))
    }
    t.ok(typeof revoked === 'string', 'the personal session acting as the user is revoked', { revoked_at: revoked })
    await act(t, u.id, 'reactivate')
  })
}

/** reactivate exists on the target (v1.0.0), else a note and false */
async function requireMasFeatureOrNote(t: Test): Promise<boolean> {
  try {
    await requireMasFeature(t, 'users-reactivate')
    return true
  } catch (e) {
    note(t, `reactivate not checked: ${(e as Error).message}`)
    return false
  }
}
