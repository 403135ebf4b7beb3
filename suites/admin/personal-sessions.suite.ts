// Personal sessions (area A): listing, pagination, filters, lookups, errors; with writes: create, use the
// token, revoke, revoke again, regenerate. Everything created here is revoked when the file ends.
import {
  setDefaultRule,
  mas,
  skip,
  memo,
  cleanup,
  client,
  target,
  shown,
  expectOk,
  expectMasError,
  MAS_API,
  UNKNOWN_ULID,
  type Test,
} from '../lib/suite.ts'
import { familyCheck, allItems, type FamilySpec, type MasItem } from './listing/walk.ts'
import { filterCheck, dateFilterCheck, unknownFilterCheck, badFilterCheck } from './listing/filters.ts'
import { listingChecks } from './listing/checks.ts'
import { activeFilterLinksCheck, idFilterCheck, scopeTokenFilterCheck, statusFilterChecks } from './session-checks.ts'

setDefaultRule('spec/interface.md, Endpoints > Area A (personal-sessions) and Common conventions of area A; reference/mas-admin-api.md')

const spec: FamilySpec = {
  family: 'personal-sessions',
  type: 'personal-session',
  schema: 'admin/personal-session',
  // The service's GET title is "Personal session not found", without the id.
  notFoundTitle: () => [/personal session/i],
  feature: 'personal-sessions',
}
const f = spec.family
const base = `${MAS_API}/${f}`

listingChecks(spec)

// --- filters

for (const key of ['owner_user', 'owner_client', 'actor_user'] as const)
  idFilterCheck(spec, `filter[${key}]`, `${key}_id`, `no personal session has ${key}_id`)
scopeTokenFilterCheck(spec, 'filter[scope] matches the full set filtered client-side', 'personal session')
statusFilterChecks(spec, 'revoked_at', ['active', 'revoked'], 'personal session')

for (const value of ['true', 'false'] as const) {
  filterCheck(spec, `filter[expires]=${value} matches the full set filtered client-side`, (items) => {
    // expires_at is the active token's expiry: null when it never expires and when the session is revoked.
    const expect = (i: MasItem) => (i.attributes.expires_at !== null) === (value === 'true')
    if (!items.some(expect)) return `no personal session ${value === 'true' ? 'has' : 'lacks'} an expiry`
    return { filters: { 'filter[expires]': value }, expect }
  })
}

dateFilterCheck(spec, 'filter[expires_before]', 'expires_at', 'before')
dateFilterCheck(spec, 'filter[expires_after]', 'expires_at', 'after')

activeFilterLinksCheck(spec, 'filter[actor_user]', 'actor_user_id', 'no personal session on the target')

// --- errors of the listing

unknownFilterCheck(spec, 'filter[owner_client]', 'client')
unknownFilterCheck(spec, 'filter[owner_user]', 'user')
unknownFilterCheck(spec, 'filter[actor_user]', 'user')
badFilterCheck(spec, 'an invalid filter[status] value', { 'filter[status]': 'finished' }, ['filter'])
badFilterCheck(spec, 'an invalid scope in filter[scope]', { 'filter[scope]': 'not a valid scope' }, ['scope'])
badFilterCheck(spec, 'an invalid filter[expires] value', { 'filter[expires]': 'maybe' }, ['filter'])

// --- transitions (writes)

interface Created {
  id: string
  token: string
  body: { data: MasItem }
}

/**
 * A user to act as, taken from the listings (personal sessions' actors, else the users of compat and
 * OAuth 2.0 sessions). A deactivated user cannot get a personal session (410): a short-lived probe
 * session, revoked at once, finds the first candidate that can.
 */
function actorUser(): Promise<string | undefined> {
  return memo('personal:actor', async () => {
    const candidates: string[] = []
    const add = (ids: (string | null | undefined)[]) => {
      const counts = new Map<string, number>()
      for (const id of ids) if (id) counts.set(id, (counts.get(id) ?? 0) + 1)
      for (const [id] of [...counts.entries()].sort((a, b) => b[1] - a[1])) if (!candidates.includes(id)) candidates.push(id)
    }
    add((await allItems(spec, { allowEmpty: true })).map((i) => i.attributes.actor_user_id as string))
    for (const other of ['compat-sessions', 'oauth2-sessions']) {
      if (candidates.length >= 5) break
      const res = await mas('GET', `/${other}`, { query: { 'page[first]': 50 } })
      add(((res.json as { data?: MasItem[] } | undefined)?.data ?? []).map((i) => i.attributes.user_id as string | null))
    }
    for (const id of candidates.slice(0, 5)) {
      const res = await mas('POST', `/${f}`, {
        body: { actor_user_id: id, human_name: humanName('probe'), scope: 'openid', expires_in: 60 },
      })
      const created = (res.json as { data?: MasItem } | undefined)?.data
      if (typeof created?.attributes?.access_token === 'string') client.addSecret(created.attributes.access_token)
      if (res.status === 201 && created) await mas('POST', `/${f}/${created.id}/revoke`)
      if (res.status !== 410) return id
    }
    return undefined
  })
}

async function create(t: Test, what: string, body: Record<string, unknown>): Promise<Created | undefined> {
  const res = await mas('POST', `/${f}`, { body })
  const token = (res.json as { data?: MasItem } | undefined)?.data?.attributes?.access_token
  if (typeof token === 'string') client.addSecret(token)
  const created = expectOk<{ data: MasItem }>(t, res, what, { status: 201, schema: `${spec.schema}#Created` })
  const id = created?.data?.id
  if (!created || typeof id !== 'string' || typeof token !== 'string') {
    t.fail(`${what}: the answer carries the session id and data.attributes.access_token`, { body: shown(res.json) })
    return undefined
  }
  cleanup(async () => {
    await mas('POST', `/${f}/${id}/revoke`)
  })
  return { id, token, body: created }
}

function humanName(tag: string): string {
  return `admin-conformance ${tag} ${target.runId}`
}

/** The session created by the first transition check; later checks revoke it. */
function firstSession(t: Test): Promise<Created | undefined> {
  return memo('personal:first', async () => {
    const actor = await actorUser()
    if (!actor) return undefined
    return create(t, `POST ${base}`, { actor_user_id: actor, human_name: humanName('create'), scope: 'urn:mas:admin', expires_in: 3600 })
  })
}

async function adminWorks(token: string): Promise<number> {
  return (await mas('GET', '/version', { as: { token } })).status
}

familyCheck(spec, 'create → 201 with an access token, and a fresh read agrees', ['mas', 'writes'], async (t) => {
  const actor = await actorUser()
  if (!actor) skip('no user found in the listings to act as')
  const before = Date.now()
  const c = await firstSession(t)
  if (!c) return
  const a = c.body.data.attributes
  t.equal(a.actor_user_id, actor, 'actor_user_id is the requested user')
  t.equal(a.human_name, humanName('create'), 'human_name is as requested')
  t.ok(String(a.scope).split(' ').includes('urn:mas:admin'), 'scope holds the requested token', { scope: a.scope })
  t.equal(a.revoked_at, null, 'revoked_at is null')
  const exp = Date.parse(String(a.expires_at))
  t.ok(Math.abs(exp - (before + 3600_000)) < 300_000, 'expires_at is about an hour from now (expires_in 3600)', {
    expires_at: a.expires_at,
  })
  t.ok((a.owner_user_id === null) !== (a.owner_client_id === null), 'exactly one owner is set', {
    owner_user_id: a.owner_user_id,
    owner_client_id: a.owner_client_id,
  })
  const res = await mas('GET', `/${f}/${c.id}`)
  const fresh = expectOk<{ data: MasItem }>(t, res, `GET ${base}/${c.id}`, { schema: `${spec.schema}#Single` })
  if (fresh) {
    t.notOk('access_token' in fresh.data.attributes, 'a read does not return the access token')
    const { access_token: _t, last_active_at: _a, last_active_ip: _i, ...createdRest } = a
    const { last_active_at: _b, last_active_ip: _j, ...freshRest } = fresh.data.attributes
    t.same(freshRest, createdRest, 'a fresh read has the created attributes')
  }
  const listed = await mas('GET', `/${f}`, { query: { 'filter[actor_user]': actor, 'filter[status]': 'active', 'page[last]': 50 } })
  const ids = ((listed.json as { data?: MasItem[] } | undefined)?.data ?? []).map((i) => i.id)
  t.ok(ids.includes(c.id), "the listing of the actor's active sessions includes it")
})

familyCheck(spec, 'a created token with urn:mas:admin works against the admin API', ['mas', 'writes'], async (t) => {
  const c = await firstSession(t)
  if (!c) skip('no personal session could be created')
  t.equal(await adminWorks(c.token), 200, 'GET /api/admin/v1/version with the new token → 200')
})

familyCheck(spec, 'revoke → 200 with revoked_at set, and the token is rejected', ['mas', 'writes'], async (t) => {
  const c = await firstSession(t)
  if (!c) skip('no personal session could be created')
  const res = await mas('POST', `/${f}/${c.id}/revoke`)
  const body = expectOk<{ data: MasItem }>(t, res, `POST ${base}/${c.id}/revoke`, { schema: `${spec.schema}#Single` })
  if (body) {
    t.ok(Number.isFinite(Date.parse(String(body.data.attributes.revoked_at))), 'revoked_at is set', {
      revoked_at: body.data.attributes.revoked_at,
    })
    t.equal(body.data.attributes.expires_at, null, 'expires_at is null once revoked')
  }
  t.equal(await adminWorks(c.token), 401, 'the revoked token → 401')
  const fresh = expectOk<{ data: MasItem }>(t, await mas('GET', `/${f}/${c.id}`), 'a fresh read')
  if (fresh && body) t.equal(fresh.data.attributes.revoked_at, body.data.attributes.revoked_at, 'a fresh read shows the same revoked_at')
})

familyCheck(spec, 'revoke a revoked session → 409 naming the session', ['mas', 'writes'], async (t) => {
  const c = await firstSession(t)
  if (!c) skip('no personal session could be created')
  // Make sure it is revoked (the previous check may have been filtered out).
  await mas('POST', `/${f}/${c.id}/revoke`)
  const res = await mas('POST', `/${f}/${c.id}/revoke`)
  expectMasError(t, res, 409, `POST ${base}/${c.id}/revoke again`, [/personal session/i, c.id, /revoked/i])
})

familyCheck(spec, 'regenerate → 201 with a new token; the old token is rejected', ['mas', 'writes'], async (t) => {
  const actor = await actorUser()
  if (!actor) skip('no user found in the listings to act as')
  const c = await create(t, `POST ${base}`, {
    actor_user_id: actor,
    human_name: humanName('regenerate'),
    scope: 'urn:mas:admin',
    expires_in: 3600,
  })
  if (!c) return
  t.equal(await adminWorks(c.token), 200, 'the first token works')
  const before = Date.now()
  const res = await mas('POST', `/${f}/${c.id}/regenerate`, { body: { expires_in: 600 } })
  const newToken = (res.json as { data?: MasItem } | undefined)?.data?.attributes?.access_token
  if (typeof newToken === 'string') client.addSecret(newToken)
  const body = expectOk<{ data: MasItem }>(t, res, `POST ${base}/${c.id}/regenerate`, { status: 201, schema: `${spec.schema}#Created` })
  if (!body) return
  t.equal(body.data.id, c.id, 'the same session id')
  t.ok(typeof newToken === 'string' && newToken !== c.token, 'a new access token is returned')
  const exp = Date.parse(String(body.data.attributes.expires_at))
  t.ok(Math.abs(exp - (before + 600_000)) < 300_000, 'expires_at follows the new expires_in (600 s)', {
    expires_at: body.data.attributes.expires_at,
  })
  t.equal(await adminWorks(c.token), 401, 'the old token → 401')
  if (typeof newToken === 'string') t.equal(await adminWorks(newToken), 200, 'the new token works')
})

familyCheck(spec, 'create with an invalid scope → 400', ['mas', 'writes'], async (t) => {
  const actor = await actorUser()
  if (!actor) skip('no user found in the listings to act as')
  const res = await mas('POST', `/${f}`, {
    body: { actor_user_id: actor, human_name: humanName('bad scope'), scope: 'openid  urn:mas:admin' },
  })
  const token = (res.json as { data?: MasItem } | undefined)?.data?.attributes?.access_token
  if (typeof token === 'string') {
    client.addSecret(token)
    const id = (res.json as { data: MasItem }).data.id
    cleanup(async () => void (await mas('POST', `/${f}/${id}/revoke`)))
  }
  expectMasError(t, res, 400, 'scope "openid  urn:mas:admin" (double space)', ['scope'])
})

familyCheck(spec, 'create for an unknown user → 404', ['mas', 'writes'], async (t) => {
  const res = await mas('POST', `/${f}`, { body: { actor_user_id: UNKNOWN_ULID, human_name: humanName('unknown user'), scope: 'openid' } })
  if (res.status === 201) {
    const b = res.json as { data: MasItem }
    client.addSecret(b.data.attributes.access_token)
    cleanup(async () => void (await mas('POST', `/${f}/${b.data.id}/revoke`)))
  }
  expectMasError(t, res, 404, `actor_user_id ${UNKNOWN_ULID}`, ['user'])
})

familyCheck(spec, 'revoke an unknown session → 404 naming it', ['mas', 'writes'], async (t) => {
  const res = await mas('POST', `/${f}/${UNKNOWN_ULID}/revoke`)
  expectMasError(t, res, 404, `POST ${base}/${UNKNOWN_ULID}/revoke`, [/personal session/i, UNKNOWN_ULID])
})

familyCheck(spec, 'regenerate an unknown session → 404', ['mas', 'writes'], async (t) => {
  const res = await mas('POST', `/${f}/${UNKNOWN_ULID}/regenerate`, { body: {} })
  expectMasError(t, res, 404, `POST ${base}/${UNKNOWN_ULID}/regenerate`, [/session/i])
})
