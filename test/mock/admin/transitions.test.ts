// Every row of the interface's state table and error table for area A, with the real statuses and
// titles, the device-sync jobs, and writes that fail leaving nothing behind.
import t from 'tap'
import { API, schemaErrors, startTestMock, titles } from './helpers.ts'

const tm = await startTestMock(t, { seed: 3, sessions: 120 })
const mas = tm.world().mas
const NIL = '01040G2081040G2081040G2081'
const jobs = async () => (await tm.req('GET', '/_mock/jobs')).body.jobs as { userId: string; reason: string }[]

t.test('compat session: finish, finish again, unknown', async (t) => {
  const s = mas.compat.all().find((x) => x.finishedAt === null)!
  const before = (await jobs()).length
  const r = await tm.post(`${API}/compat-sessions/${s.id}/finish`)
  t.equal(r.status, 200)
  t.equal(schemaErrors('admin/compat-session#Single', r.body), '')
  t.equal(r.body.links.self, `${API}/compat-sessions/${s.id}/finish`, 'top-level self is the finish path')
  t.equal(r.body.data.links.self, `${API}/compat-sessions/${s.id}`)
  t.type(r.body.data.attributes.finished_at, 'string')
  t.ok(Math.abs(Date.parse(r.body.data.attributes.finished_at) - Date.now()) < 60_000, 'finished now')
  const after = await jobs()
  t.equal(after.length, before + 1, 'one job scheduled')
  t.same(after[after.length - 1], { ...after[after.length - 1], kind: 'sync-devices', userId: s.userId })
  const get = await tm.get(`${API}/compat-sessions/${s.id}`)
  t.equal(get.body.data.attributes.finished_at, r.body.data.attributes.finished_at, 'the finish is stored')
  const again = await tm.post(`${API}/compat-sessions/${s.id}/finish`)
  t.same([again.status, ...titles(again.body)], [400, `Compatibility session with ID ${s.id} is already finished`])
  t.equal((await jobs()).length, before + 1, 'no job for a refused finish')
  const unknown = await tm.post(`${API}/compat-sessions/${NIL}/finish`)
  t.same([unknown.status, ...titles(unknown.body)], [404, `Compatibility session with ID ${NIL} not found`])
  const unknownGet = await tm.get(`${API}/compat-sessions/${NIL}`)
  t.same([unknownGet.status, ...titles(unknownGet.body)], [404, `Compatibility session ID ${NIL} not found`])
  const withBody = await tm.post(`${API}/compat-sessions/${NIL}/finish`, undefined, {
    raw: 'not json',
    headers: { 'content-type': 'text/plain' },
  })
  t.equal(withBody.status, 404, 'finish takes no body: whatever is sent is ignored')
})

t.test('OAuth 2.0 session: finish with and without a user', async (t) => {
  const withUser = mas.oauth2.all().find((x) => x.finishedAt === null && x.userId !== null && x.scope !== 'openid')!
  const noUser = mas.oauth2.all().find((x) => x.finishedAt === null && x.userId === null && x.clientId !== tm.mock.options.adminClientId)!
  t.ok(withUser && noUser, 'fixtures exist')
  const n0 = (await jobs()).length
  const a = await tm.post(`${API}/oauth2-sessions/${withUser.id}/finish`)
  t.equal(a.status, 200)
  t.equal(schemaErrors('admin/oauth2-session#Single', a.body), '')
  t.equal(a.body.links.self, `${API}/oauth2-sessions/${withUser.id}/finish`)
  t.equal((await jobs()).length, n0 + 1, 'a job for the user')
  const b = await tm.post(`${API}/oauth2-sessions/${noUser.id}/finish`)
  t.equal(b.status, 200)
  t.equal((await jobs()).length, n0 + 1, 'no job without a user')
  const again = await tm.post(`${API}/oauth2-sessions/${noUser.id}/finish`)
  t.same([again.status, ...titles(again.body)], [400, `OAuth 2.0 session with ID ${noUser.id} is already finished`])
  t.same(titles((await tm.post(`${API}/oauth2-sessions/${NIL}/finish`)).body), [`OAuth 2.0 session with ID ${NIL} not found`])
  t.same(titles((await tm.get(`${API}/oauth2-sessions/${NIL}`)).body), [`OAuth 2.0 session ID ${NIL} not found`])
})

t.test('personal session: create, use, revoke, regenerate', async (t) => {
  const actor = mas.users.all().find((u) => u.deactivatedAt === null && u.lockedAt === null)!
  const created = await tm.post(`${API}/personal-sessions`, {
    actor_user_id: actor.id,
    human_name: 'CI token',
    scope: 'urn:mas:admin openid openid',
    expires_in: 3600,
    extra: 'ignored',
  })
  t.equal(created.status, 201)
  t.equal(schemaErrors('admin/personal-session#Created', created.body), '', 'valid create answer')
  const a = created.body.data.attributes
  t.match(a.access_token, /^mpt_[A-Za-z0-9]{30}_[A-Za-z0-9]{6}$/)
  t.equal(a.scope, 'openid urn:mas:admin', 'scope stored as a sorted set')
  t.equal(a.owner_client_id, tm.mock.options.adminClientId, 'owned by the calling client')
  t.equal(a.owner_user_id, null)
  t.equal(a.actor_user_id, actor.id)
  t.equal(Date.parse(a.expires_at) - Date.parse(a.created_at), 3600_000)
  const id = created.body.data.id
  t.equal(created.body.links.self, `${API}/personal-sessions/${id}`)
  const token = a.access_token as string

  const get = await tm.get(`${API}/personal-sessions/${id}`)
  t.notOk('access_token' in get.body.data.attributes, 'the token is not shown again')
  t.equal(schemaErrors('admin/personal-session#Single', get.body), '')
  const asAdmin = await tm.get(`${API}/version`, token)
  t.equal(asAdmin.status, 200, 'a personal token with urn:mas:admin calls the admin API')
  const { responses } = await tm.log()
  t.same(responses[responses.length - 1]!.requester, { kind: 'user', id: actor.id, username: actor.username }, 'the requester is the actor')

  // a session created by that token is owned by its actor, so the admin client may not regenerate it
  const own = await tm.post(`${API}/personal-sessions`, { actor_user_id: actor.id, human_name: 'nested', scope: 'openid' }, { token })
  t.equal(own.status, 201)
  t.equal(own.body.data.attributes.owner_user_id, actor.id)
  t.equal(own.body.data.attributes.expires_at, null, 'no expires_in: never expires')
  const notYours = await tm.post(`${API}/personal-sessions/${own.body.data.id}/regenerate`, {})
  t.same([notYours.status, ...titles(notYours.body)], [403, 'Session does not belong to you'])

  const regen = await tm.post(`${API}/personal-sessions/${id}/regenerate`, { expires_in: 86400 })
  t.equal(regen.status, 201)
  t.equal(schemaErrors('admin/personal-session#Created', regen.body), '')
  t.equal(regen.body.data.id, id, 'same session')
  t.not(regen.body.data.attributes.access_token, token, 'a new token')
  t.equal(Date.parse(regen.body.data.attributes.expires_at) - Date.now() > 86_000_000, true)
  const old = await tm.get(`${API}/version`, token)
  t.same([old.status, ...titles(old.body)], [401, 'Access token expired'], 'the old token stops working')
  const fresh = await tm.get(`${API}/version`, regen.body.data.attributes.access_token)
  t.equal(fresh.status, 200, 'the new token works')

  const revoked = await tm.post(`${API}/personal-sessions/${id}/revoke`)
  t.equal(revoked.status, 200)
  t.equal(revoked.body.links.self, `${API}/personal-sessions/${id}`, 'revoke answers the canonical path')
  t.type(revoked.body.data.attributes.revoked_at, 'string')
  t.equal(revoked.body.data.attributes.expires_at, null)
  const dead = await tm.get(`${API}/version`, regen.body.data.attributes.access_token)
  t.same([dead.status, ...titles(dead.body)], [401, 'Access token revoked'])
  const twice = await tm.post(`${API}/personal-sessions/${id}/revoke`)
  t.same([twice.status, ...titles(twice.body)], [409, `Personal session with ID ${id} is already revoked`])
  const regenRevoked = await tm.post(`${API}/personal-sessions/${id}/regenerate`, {})
  t.same([regenRevoked.status, ...titles(regenRevoked.body)], [422, 'Session not valid'])
  t.same(titles((await tm.post(`${API}/personal-sessions/${NIL}/revoke`)).body), [`Personal session with ID ${NIL} not found`])
  t.same(titles((await tm.post(`${API}/personal-sessions/${NIL}/regenerate`, {})).body), ['Session not found'])
  t.same(titles((await tm.get(`${API}/personal-sessions/${NIL}`)).body), ['Personal session not found'])

  const expired = await tm.post(`${API}/personal-sessions`, {
    actor_user_id: actor.id,
    human_name: 'instant',
    scope: 'urn:mas:admin',
    expires_in: 0,
  })
  await new Promise((r) => setTimeout(r, 5))
  const late = await tm.get(`${API}/version`, expired.body.data.attributes.access_token)
  t.same(titles(late.body), ['Access token expired'], 'expires_in 0 makes an expired token')
  const revive = await tm.post(`${API}/personal-sessions/${expired.body.data.id}/regenerate`, {})
  t.equal(revive.status, 201, 'an expired (not revoked) session can be regenerated')
  t.equal(revive.body.data.attributes.expires_at, null)
})

t.test('personal session: create errors and atomicity', async (t) => {
  const count = mas.personal.size
  const deactivated = mas.users.all().find((u) => u.deactivatedAt !== null)
  const locked = mas.users.all().find((u) => u.lockedAt !== null && u.deactivatedAt === null)
  const ok = mas.users.all()[0]!
  const cases: [unknown, number, string][] = [
    [{ actor_user_id: NIL, human_name: 'x', scope: 'openid' }, 404, 'User not found'],
    [{ actor_user_id: ok.id, human_name: 'x', scope: 'invalid\nscope' }, 400, 'Invalid scope'],
    [{ actor_user_id: ok.id, human_name: 'x', scope: '' }, 400, 'Invalid scope'],
    [{ actor_user_id: ok.id, human_name: 'x', scope: 'a  b' }, 400, 'Invalid scope'],
  ]
  if (deactivated) cases.push([{ actor_user_id: deactivated.id, human_name: 'x', scope: 'openid' }, 410, 'User is not active'])
  for (const [body, status, title] of cases) {
    const r = await tm.post(`${API}/personal-sessions`, body)
    t.same([r.status, ...titles(r.body)], [status, title], JSON.stringify(body))
  }
  t.equal(mas.personal.size, count, 'nothing was created')
  if (locked)
    t.equal(
      (await tm.post(`${API}/personal-sessions`, { actor_user_id: locked.id, human_name: 'x', scope: 'openid' })).status,
      201,
      'a locked actor is fine',
    )

  const col = (raw: string, after: string) => raw.indexOf(after) + after.length
  const noName = `{"actor_user_id":"${ok.id}","scope":"openid"}`
  const numName = `{"actor_user_id":"${ok.id}","human_name":42,"scope":"openid"}`
  const negative = `{"actor_user_id":"${ok.id}","human_name":"x","scope":"openid","expires_in":-1}`
  const badUlid = '{"actor_user_id":"nope","human_name":"x","scope":"openid"}'
  const data = 'Failed to deserialize the JSON body into the target type: '
  const shapes: [string | undefined, string, number, string][] = [
    [undefined, '{}', 415, 'Expected request with `Content-Type: application/json`'],
    ['text/plain', '{}', 415, 'Expected request with `Content-Type: application/json`'],
    ['application/json', '', 400, 'Failed to parse the request body as JSON: EOF while parsing a value at line 1 column 0'],
    [
      'application/json',
      '{"actor_user_id":',
      400,
      'Failed to parse the request body as JSON: EOF while parsing a value at line 1 column 17',
    ],
    ['application/json', '{"a":1,}', 400, 'Failed to parse the request body as JSON: trailing comma at line 1 column 8'],
    ['application/json', '{\n  "a" 1}', 400, 'Failed to parse the request body as JSON: expected `:` at line 2 column 7'],
    ['application/json; charset=utf-8', '{}', 422, `${data}missing field \`actor_user_id\` at line 1 column 2`],
    ['application/vnd.api+json', noName, 422, `${data}missing field \`human_name\` at line 1 column ${noName.length}`],
    [
      'application/json',
      numName,
      422,
      `${data}human_name: invalid type: integer \`42\`, expected a string at line 1 column ${col(numName, '42')}`,
    ],
    ['application/json', badUlid, 422, `${data}actor_user_id: invalid length at line 1 column ${col(badUlid, '"nope"')}`],
    [
      'application/json',
      negative,
      422,
      `${data}expires_in: invalid value: integer \`-1\`, expected u32 at line 1 column ${col(negative, '-1')}`,
    ],
    ['application/json', '[]', 422, `${data}invalid type: sequence, expected struct CreatePersonalSessionRequest at line 1 column 2`],
  ]
  for (const [ct, raw, status, text] of shapes) {
    const r = await tm.post(`${API}/personal-sessions`, undefined, { raw, headers: ct ? { 'content-type': ct } : {} })
    t.equal(r.status, status, raw)
    t.equal(r.text, text, raw)
    t.match(r.headers.get('content-type'), /^text\/plain/)
  }
  t.equal(mas.personal.size, count + (locked ? 1 : 0), 'no half-applied write')
  const noBody = await tm.post(`${API}/personal-sessions/${mas.personal.all()[0]!.id}/regenerate`)
  t.equal(noBody.status, 415, 'regenerate needs a JSON body, {} at least')
  const badPath = await tm.post(`${API}/personal-sessions/nope/regenerate`, undefined, { raw: 'x' })
  t.same(titles(badPath.body), ['Invalid ULID in path', 'invalid length'], 'the path is checked before the body')
})

t.test('policy data: set, latest, by id, invalid', async (t) => {
  const latest0 = await tm.get(`${API}/policy-data/latest`)
  t.equal(latest0.status, 200)
  t.equal(schemaErrors('admin/policy-data#Single', latest0.body), '')
  t.equal(latest0.body.links.self, `${API}/policy-data/${latest0.body.data.id}`, 'latest answers its canonical path')
  const set = await tm.post(`${API}/policy-data`, { data: { hello: 'world', admin_clients: [] } })
  t.equal(set.status, 201)
  t.equal(schemaErrors('admin/policy-data#Single', set.body), '')
  t.same(set.body.data.attributes.data, { hello: 'world', admin_clients: [] }, 'stored as sent, not merged')
  const latest = await tm.get(`${API}/policy-data/latest`)
  t.equal(latest.body.data.id, set.body.data.id, 'the new record is the latest')
  // The mock claims MAS v1.22.0, which has the deviation policy-data-get-returns-latest
  // (lib/data/deviations.json): GET by id answers the latest record whatever the id.
  const byId = await tm.get(`${API}/policy-data/${latest0.body.data.id}`)
  t.equal(byId.status, 200)
  t.equal(byId.body.data.id, set.body.data.id, 'v1.22: an older id answers the latest record (the deviation)')
  const unknown = await tm.get(`${API}/policy-data/${NIL}`)
  t.equal(unknown.status, 200, 'v1.22: an unknown id answers 200 with the latest record (the deviation)')
  t.equal(unknown.body.data.id, set.body.data.id)
  const size = mas.policyData.size
  for (const [data, cause] of [
    [42, 'Cannot merge a number into a object'],
    ['x', 'Cannot merge a string into a object'],
    [[1], 'Cannot merge a array into a object'],
    [{ admin_clients: 'x' }, 'Cannot merge a string into a array'],
    [{ server_name: true }, 'Cannot merge a boolean into a string'],
  ] as const) {
    const r = await tm.post(`${API}/policy-data`, { data })
    t.equal(r.status, 400, JSON.stringify(data))
    t.same(titles(r.body), ['Failed to instanciate policy with the provided data', 'invalid policy data', cause])
  }
  t.equal(mas.policyData.size, size, 'invalid data is not stored')
  const missing = await tm.post(`${API}/policy-data`, { hello: 'world' })
  t.equal(missing.status, 422)
  t.match(missing.text, /missing field `data`/)
})

t.test('policy data: none at all', async (t) => {
  const empty = await startTestMock(t, { seed: 3, sessions: 0 })
  const ids = empty
    .world()
    .mas.policyData.all()
    .map((p) => p.id)
  // remove the seeded records through the store to reach the empty state
  const store = empty.world().mas
  ;(store.policyData as unknown as { items: unknown[] }).items = []
  const r = await empty.get(`${API}/policy-data/latest`)
  t.same([r.status, ...titles(r.body)], [404, 'No policy data found'])
  t.equal((await empty.get(`${API}/policy-data/${ids[0]}`)).status, 404)
  t.equal((await empty.get(`${API}/oauth2-sessions`)).body.meta.count, 2, 'only the sessions of the two configured tokens')
  t.equal((await empty.get(`${API}/compat-sessions`)).body.meta.count, 0)
})

t.test('site-config and version', async (t) => {
  const sc = await tm.get(`${API}/site-config`)
  t.equal(sc.status, 200)
  t.equal(schemaErrors('admin/site-config', sc.body), '')
  t.equal(sc.body.server_name, tm.mock.options.serverName)
  t.equal(sc.body.registration_token_required, sc.body.password_registration_token_required)
  const v = await tm.get(`${API}/version`)
  t.same(v.body, { version: tm.mock.options.masVersion })
  t.equal(schemaErrors('admin/version', v.body), '')
})
