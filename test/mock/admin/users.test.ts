// The users family of the mock: every filter against the store filtered here, the links, the five
// actions (idempotent, exact paths and titles), deactivation's effect on sessions, body errors, and
// each users-* fault changing exactly what it names.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'
import { ilikeContains } from '../../../mock/admin/users.ts'

const tm = await startTestMock(t, { seed: 5, sessions: 150 })
const mas = tm.world().mas
const NIL = '01040G2081040G2081040G2081'
const ids = (xs: readonly { id: string }[]) => xs.map((x) => x.id)

t.test('the seed has users in every state', async (t) => {
  const users = mas.users.all()
  t.ok(
    users.some((u) => u.lockedAt !== null && u.deactivatedAt === null),
    'a locked user',
  )
  t.ok(
    users.some((u) => u.deactivatedAt !== null),
    'a deactivated user',
  )
  t.ok(
    users.some((u) => u.admin),
    'an admin',
  )
  t.ok(
    users.some((u) => u.legacyGuest),
    'a legacy guest',
  )
})

t.test('listing: schema, default page, count, links', async (t) => {
  const r = await tm.get(`${API}/users?filter[search]=a&count=true`)
  t.equal(r.status, 200, 'the admin UI’s first call is answered')
  t.equal(schemaErrors('admin/user#Page', r.body), '')
  t.equal(r.body.links.self, `${API}/users?filter[search]=a&page[first]=10`)
  const all = await tm.all(`${API}/users`, 7)
  t.same(ids(all), ids(mas.users.all()), 'the walk is the store, oldest first')
  const only = await tm.get(`${API}/users?filter[admin]=true&count=only`)
  t.same(only.body, {
    meta: { count: mas.users.all().filter((u) => u.admin).length },
    links: { self: `${API}/users?filter[admin]=true&count=only` },
  })
})

t.test('every filter equals the store filtered here', async (t) => {
  const users = mas.users.all()
  const activeOAuth2 = (id: string, client?: string) =>
    mas.oauth2.all().some((s) => s.userId === id && s.finishedAt === null && (client === undefined || s.clientId === client))
  const activeCompat = (id: string) => mas.compat.all().some((s) => s.userId === id && s.finishedAt === null)
  const client = mas.oauth2.all().find((s) => s.userId !== null && s.finishedAt === null)!.clientId
  const name = users[3]!.username
  const cases: [string, (u: (typeof users)[number]) => boolean][] = [
    ['filter[admin]=true', (u) => u.admin],
    ['filter[admin]=false', (u) => !u.admin],
    ['filter[legacy-guest]=true', (u) => u.legacyGuest],
    ['filter[legacy-guest]=false', (u) => !u.legacyGuest],
    ['filter[status]=active', (u) => u.lockedAt === null && u.deactivatedAt === null],
    ['filter[status]=locked', (u) => u.lockedAt !== null],
    ['filter[status]=deactivated', (u) => u.deactivatedAt !== null],
    [`filter[search]=${name.slice(1, 4).toUpperCase()}`, (u) => u.username.includes(name.slice(1, 4))],
    [`filter[search]=${name[0]}_${name[2]}`, (u) => new RegExp(`${name[0]}.${name[2]}`).test(u.username)],
    [`filter[active-oauth2-client]=${client}`, (u) => activeOAuth2(u.id, client)],
    ['filter[has-active-oauth2-session]=true', (u) => activeOAuth2(u.id)],
    ['filter[has-active-oauth2-session]=false', (u) => !activeOAuth2(u.id)],
    ['filter[has-active-compat-session]=true', (u) => activeCompat(u.id)],
    ['filter[has-active-compat-session]=false', (u) => !activeCompat(u.id)],
    ['filter[admin]=false&filter[status]=active', (u) => !u.admin && u.lockedAt === null && u.deactivatedAt === null],
  ]
  for (const [q, keep] of cases) {
    const want = users.filter(keep)
    t.ok(want.length > 0 || q.includes('guest'), `${q}: the seed has matches`)
    const got = await tm.all(`${API}/users?${q}`, 5)
    t.same(ids(got), ids(want), q)
    const count = await tm.get(`${API}/users?${q}&count=only`)
    t.equal(count.body.meta.count, want.length, `${q}: count`)
  }
})

t.test('ILIKE semantics of filter[search]', async (t) => {
  t.ok(ilikeContains('AB')('xaby'))
  t.ok(ilikeContains('a%c')('xabbbcx'))
  t.ok(ilikeContains('a_c')('abc'))
  t.notOk(ilikeContains('a_c')('ac'))
  t.ok(ilikeContains('a.c')('a.c'))
  t.notOk(ilikeContains('a.c')('abc'), '. is literal')
})

t.test('listing errors', async (t) => {
  const status = await tm.get(`${API}/users?filter[status]=finished`)
  t.same([status.status, titles(status.body)[0]], [400, 'Invalid filter parameters'])
  t.match(titles(status.body)[1], /unknown variant `finished`, expected one of `active`, `locked`, `deactivated`/)
  const admin = await tm.get(`${API}/users?filter[admin]=yes`)
  t.equal(admin.status, 400)
  const twice = await tm.get(`${API}/users?filter[search]=a&filter[search]=b`)
  t.same([twice.status, titles(twice.body)[2]], [400, 'filter[search]: unsupported value'])
  const client = await tm.get(`${API}/users?filter[active-oauth2-client]=${NIL}`)
  t.same([client.status, ...titles(client.body)], [404, `Client ID ${NIL} not found`])
  const page = await tm.get(`${API}/users?page[first]=0`)
  t.equal(page.status, 400)
})

t.test('lock, lock again, unlock, unlock again', async (t) => {
  const u = mas.users.all().find((x) => x.lockedAt === null && x.deactivatedAt === null && !x.admin)!
  const before = await tm.all(`${API}/users`, 50) // fills the listing's JSON cache
  t.ok(before.length > 0)
  const lock = await tm.post(`${API}/users/${u.id}/lock`)
  t.equal(lock.status, 200)
  t.equal(schemaErrors('admin/user#Single', lock.body), '')
  t.equal(lock.body.links.self, `${API}/users/${u.id}/lock`)
  t.equal(lock.body.data.links.self, `${API}/users/${u.id}`)
  const lockedAt = lock.body.data.attributes.locked_at
  t.type(lockedAt, 'string')
  const listed = (await tm.all(`${API}/users?filter[status]=locked`, 50)).find((x) => x.id === u.id)
  t.equal(listed?.attributes.locked_at, lockedAt, 'the listing shows the lock (no stale cached item)')
  await new Promise((r) => setTimeout(r, 5))
  const again = await tm.post(`${API}/users/${u.id}/lock`)
  t.same([again.status, again.body.data.attributes.locked_at], [200, lockedAt], 'locking again keeps the first time')
  const unlock = await tm.post(`${API}/users/${u.id}/unlock`)
  t.same([unlock.status, unlock.body.data.attributes.locked_at, unlock.body.links.self], [200, null, `${API}/users/${u.id}/unlock`])
  const unlock2 = await tm.post(`${API}/users/${u.id}/unlock`)
  t.same([unlock2.status, unlock2.body.data.attributes.locked_at], [200, null])
  for (const action of ['lock', 'unlock', 'deactivate', 'reactivate']) {
    const r = await tm.post(`${API}/users/${NIL}/${action}`)
    t.same([r.status, ...titles(r.body)], [404, `User ID ${NIL} not found`], `${action} of an unknown user`)
    const bad = await tm.post(`${API}/users/not-a-ulid/${action}`)
    t.same([bad.status, titles(bad.body)[0]], [400, 'Invalid ULID in path'])
  }
})

t.test('deactivate ends the sessions, reactivate does not unlock', async (t) => {
  const u = mas.users
    .all()
    .find(
      (x) =>
        x.deactivatedAt === null &&
        x.lockedAt === null &&
        mas.compat.all().some((s) => s.userId === x.id && s.finishedAt === null) &&
        mas.oauth2.all().some((s) => s.userId === x.id && s.finishedAt === null),
    )!
  t.ok(u, 'a user with active sessions')
  // (the filters derive their users once per write of the sessions: asked before and after the write)
  const withActive = async (kind: string) => ids(await tm.all(`${API}/users?filter[has-active-${kind}-session]=true`, 50))
  t.ok((await withActive('oauth2')).includes(u.id), 'listed with an active OAuth 2.0 session')
  t.ok((await withActive('compat')).includes(u.id), 'listed with an active compat session')
  const noCt = await tm.req('POST', `${API}/users/${u.id}/deactivate`, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.equal(noCt.status, 200, 'no body, no Content-Type: accepted')
  t.equal(noCt.body.links.self, `${API}/users/${u.id}/deactivate`)
  const at = noCt.body.data.attributes
  t.type(at.deactivated_at, 'string')
  t.equal(at.locked_at, null, 'deactivation does not lock')
  t.notOk(
    mas.compat.all().some((s) => s.userId === u.id && s.finishedAt === null),
    'compat sessions finished',
  )
  t.notOk(
    mas.oauth2.all().some((s) => s.userId === u.id && s.finishedAt === null),
    'OAuth 2.0 sessions finished',
  )
  t.notOk(
    mas.personal.all().some((s) => (s.actorUserId === u.id || s.ownerUserId === u.id) && s.revokedAt === null),
    'personal sessions revoked',
  )
  t.notOk((await withActive('oauth2')).includes(u.id), 'no longer listed with an active OAuth 2.0 session')
  t.notOk((await withActive('compat')).includes(u.id), 'no longer listed with an active compat session')
  const again = await tm.post(`${API}/users/${u.id}/deactivate`, { skip_erase: true })
  t.same([again.status, again.body.data.attributes.deactivated_at], [200, at.deactivated_at], 'deactivating again keeps the time')
  const badBody = await tm.post(`${API}/users/${u.id}/deactivate`, undefined, { raw: '{', headers: { 'content-type': 'application/json' } })
  t.equal(badBody.status, 400, 'a JSON Content-Type with a broken body is rejected')
  const wrongCt = await tm.post(`${API}/users/${u.id}/deactivate`, undefined, { raw: 'x', headers: { 'content-type': 'text/plain' } })
  t.equal(wrongCt.status, 415)
  await tm.post(`${API}/users/${u.id}/lock`)
  const re = await tm.post(`${API}/users/${u.id}/reactivate`)
  t.same(
    [re.status, re.body.data.attributes.deactivated_at, typeof re.body.data.attributes.locked_at],
    [200, null, 'string'],
    'reactivate leaves the lock',
  )
})

t.test('set-admin: both ways, body errors', async (t) => {
  const u = mas.users.all().find((x) => !x.admin)!
  const on = await tm.post(`${API}/users/${u.id}/set-admin`, { admin: true })
  t.same([on.status, on.body.data.attributes.admin, on.body.links.self], [200, true, `${API}/users/${u.id}/set-admin`])
  const off = await tm.post(`${API}/users/${u.id}/set-admin`, { admin: false })
  t.same([off.status, off.body.data.attributes.admin], [200, false])
  const missing = await tm.post(`${API}/users/${u.id}/set-admin`, {})
  t.same([missing.status], [422])
  t.match(missing.text, /missing field `admin`/)
  const wrong = await tm.post(`${API}/users/${u.id}/set-admin`, { admin: 'yes' })
  t.equal(wrong.status, 422)
  t.match(wrong.text, /expected a boolean/)
  const nul = await tm.post(`${API}/users/${u.id}/set-admin`, { admin: null })
  t.equal(nul.status, 422)
  t.equal(
    nul.text,
    'Failed to deserialize the JSON body into the target type: admin: invalid type: null, expected a boolean at line 1 column 13',
    'null is a wrong type, with its position',
  )
  const arr = await tm.post(`${API}/users/${u.id}/set-admin`, [])
  t.match(arr.text, /expected struct UserSetAdminRequest at line 1 column 2/, "the struct's serde name")
  const none = await tm.post(`${API}/users/${NIL}/set-admin`, { admin: true })
  t.same([none.status, ...titles(none.body)], [404, `User ID ${NIL} not found`])
})

t.test('the users-* faults change what they name', async (t) => {
  const target = mas.users.all().find((x) => x.lockedAt === null && x.deactivatedAt === null && /[a-z]/.test(x.username))!
  const use = async (fault: string, fn: () => Promise<void>) => {
    tm.mock.faults.set([fault])
    try {
      await fn()
    } finally {
      tm.mock.faults.set([])
    }
  }
  await use('users-search-case-sensitive', async () => {
    const r = await tm.get(`${API}/users?filter[search]=${target.username.toUpperCase()}&count=only`)
    t.equal(r.body.meta.count, 0, 'upper-case search finds nothing')
  })
  await use('users-filter-locked-excludes-deactivated', async () => {
    const both = mas.users.all().filter((u) => u.lockedAt !== null && u.deactivatedAt !== null).length
    const r = await tm.get(`${API}/users?filter[status]=locked&count=only`)
    t.equal(r.body.meta.count, mas.users.all().filter((u) => u.lockedAt !== null).length - both)
  })
  await use('users-unlock-noop', async () => {
    await tm.post(`${API}/users/${target.id}/lock`)
    const r = await tm.post(`${API}/users/${target.id}/unlock`)
    t.type(r.body.data.attributes.locked_at, 'string')
  })
  await tm.post(`${API}/users/${target.id}/unlock`)
  await use('users-set-admin-ignored', async () => {
    const r = await tm.post(`${API}/users/${target.id}/set-admin`, { admin: !target.admin })
    t.equal(r.body.data.attributes.admin, target.admin)
  })
  await use('users-deactivate-locks', async () => {
    const r = await tm.post(`${API}/users/${target.id}/deactivate`, { skip_erase: true })
    t.type(r.body.data.attributes.locked_at, 'string')
  })
  await use('users-reactivate-unlocks', async () => {
    const r = await tm.post(`${API}/users/${target.id}/reactivate`)
    t.equal(r.body.data.attributes.locked_at, null)
  })
})

// Types as strict as the service's serde structs (crates/handlers/src/admin/v1/**: `#[serde(default)]
// bool` refuses null, `Option<bool>` takes it; each struct's serde rename names it in the messages).
t.test('request bodies: null refused where the field is a plain bool, accepted where it is an Option', async (t) => {
  const data = 'Failed to deserialize the JSON body into the target type: '
  const u = mas.users.all().find((x) => x.deactivatedAt === null && !x.admin)!
  const erase = await tm.post(`${API}/users/${u.id}/deactivate`, { skip_erase: null })
  t.same(
    [erase.status, erase.text],
    [422, `${data}skip_erase: invalid type: null, expected a boolean at line 1 column 18`],
    'deactivate: skip_erase null',
  )
  const shape = await tm.post(`${API}/users/${u.id}/deactivate`, 'yes')
  t.same([shape.status, shape.text], [422, `${data}invalid type: string "yes", expected struct DeactivateUserRequest at line 1 column 5`])
  const add = await tm.post(`${API}/users`, { username: 'strict-null', skip_homeserver_check: null })
  t.same(
    [add.status, add.text],
    [422, `${data}skip_homeserver_check: invalid type: null, expected a boolean at line 1 column 54`],
    'add user: skip_homeserver_check null',
  )
  const pw = await tm.post(`${API}/users/${u.id}/set-password`, { password: 'correct horse battery staple 9', skip_password_check: null })
  t.not(pw.status, 422, 'set-password: skip_password_check is an Option<bool>, null is None')
  for (const [path, body, name] of [
    ['/user-emails', 7, 'AddUserEmailRequest'],
    ['/user-registration-tokens', 'x', 'AddUserRegistrationTokenRequest'],
    ['/upstream-oauth-links', true, 'AddUpstreamOauthLinkRequest'],
  ] as const) {
    const r = await tm.post(`${API}${path}`, body)
    t.match(r.text, new RegExp(`expected struct ${name} at`), `${path}: ${name}`)
  }
})
