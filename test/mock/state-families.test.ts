// The state journal and the control API's reset for the families beyond the interface document's
// sessions (user e-mails, user actions, registration tokens, upstream links, browser cookies): a
// torn last record of one of their kinds is dropped and never replayed half, the whole ones replay
// byte-identically, and `POST /_mock/reset` brings back the clean seeded world (faults cleared, a
// new journal that a restart replays as empty).
import t, { type Test } from 'tap'
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { encodeRecord } from '../../mock/store/journal/codec.ts'
import { startTestMock, API, type TestMock } from './admin/helpers.ts'
import { browserLogin, signedIn } from './state-helpers.ts'

const LISTINGS = ['users', 'user-emails', 'user-registration-tokens', 'upstream-oauth-links', 'user-sessions', 'oauth2-sessions'].map(
  (p) => `${API}/${p}?page[first]=1000`,
)
const listings = async (m: TestMock) => Promise.all(LISTINGS.map(async (p) => (await m.get(p)).text))

/** one write of each new family; what a restart must show */
async function writeEach(t: Test, m: TestMock): Promise<{ urls: string[]; cookie: string; username: string }> {
  const users = await m.all(`${API}/users?filter[status]=active`)
  const [u1, u2] = [users[0], users[1]]
  const email = await m.post(`${API}/user-emails`, { user_id: u1.id, email: 'journal@example.test' })
  t.equal(email.status, 201, 'an e-mail added')
  const token = await m.post(`${API}/user-registration-tokens`, { token: 'journal-token', usage_limit: 4 })
  t.equal(token.status, 201, 'a registration token added')
  t.equal(
    (
      await m.req('PUT', `${API}/user-registration-tokens/${token.body.data.id}`, {
        headers: { authorization: `Bearer ${m.admin}`, 'content-type': 'application/json' },
        body: '{"usage_limit":9}',
      })
    ).status,
    200,
    'and updated',
  )
  t.equal((await m.post(`${API}/users/${u2.id}/lock`)).status, 200, 'a user locked')
  const provider = (await m.all(`${API}/upstream-oauth-providers`))[0]
  const link = await m.post(`${API}/upstream-oauth-links`, { user_id: u1.id, provider_id: provider.id, subject: 'journal-subject' })
  t.equal(link.status, 201, 'a link added')
  const cookie = await browserLogin(m.url, u1.attributes.username, 'mock-password')
  t.ok(cookie && (await signedIn(m.url, cookie, u1.attributes.username)), 'a browser sign-in')
  // display names: asked at creation, and changed on the account page (the homeserver's profile)
  t.equal((await m.post(`${API}/users`, { username: 'journal.named', displayname: 'Journal Named' })).status, 201, 'a user with a name')
  const renamed = await fetch(`${m.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: cookie! },
    body: JSON.stringify({
      query:
        'mutation SetDisplayName($userId: ID!, $displayName: String) { setDisplayName(input: {userId: $userId, displayName: $displayName}) { status } }',
      variables: { userId: `user:${u1.id}`, displayName: 'Journal Renamed' },
    }),
  })
  t.match(await renamed.json(), { data: { setDisplayName: { status: 'SET' } } }, 'a display name changed')
  const server = m.world().hs.serverName
  return {
    urls: [
      `/_matrix/client/v3/profile/@journal.named:${server}`,
      `/_matrix/client/v3/profile/@${u1.attributes.username}:${server}`,
      `${API}/user-emails/${email.body.data.id}`,
      `${API}/user-registration-tokens/${token.body.data.id}`,
      `${API}/users/${u2.id}`,
      `${API}/upstream-oauth-links/${link.body.data.id}`,
    ],
    cookie: cookie!,
    username: u1.attributes.username,
  }
}

t.test('a torn last record of a new kind is dropped; the whole ones replay', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-families-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const opts = {
    seed: 11,
    sessions: 60,
    reports: 10,
    stateDir: dir,
    hsAdminToken: 'syt_hs_admin',
    hsUserToken: 'syt_hs_user',
    adminClientSecret: 'families-secret',
  }
  const a = await startTestMock(t, opts)
  const { urls, cookie, username } = await writeEach(t, a)
  const before = await Promise.all(urls.map(async (u) => (await a.get(u)).text))
  const lists = await listings(a)
  const journal = path.join(dir, 'journal')
  const length = readFileSync(journal).length
  await a.close()

  // a crash in the middle of an e-mail's record (and of a token's change before it was whole)
  const torn = encodeRecord({
    t: 'mas.email',
    email: { id: '01ZZZZZZZZZZZZZZZZZZZZZZZZ', userId: 'x', email: 'torn@example.test', createdAt: 0, deleted: false },
  })
  appendFileSync(journal, torn.subarray(0, torn.length - 5))
  const b = await startTestMock(t, { ...opts, adminToken: a.admin, userToken: a.user })
  t.same(
    await Promise.all(urls.map(async (u) => (await b.get(u)).text)),
    before,
    'the e-mail, token, locked user, link and display names are byte-identical',
  )
  t.same(await listings(b), lists, 'so are the listings of every family')
  t.ok(await signedIn(b.url, cookie, username), 'the browser cookie still signs in')
  t.equal(
    (await b.get(`${API}/user-emails?filter[email]=torn@example.test&count=only`)).body.meta.count,
    0,
    'the torn e-mail was not replayed',
  )
  const info = (await b.req('GET', '/_mock/info')).body
  t.match(info.state, { tornTail: { offset: length, bytes: torn.length - 5 } }, 'info names the dropped tail')
  t.equal(readFileSync(journal).length, length, 'the tail was cut off the file')
  await b.close()
})

t.test('reset: the clean seeded world for every family, faults cleared, a new journal', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-families-reset-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const opts = {
    seed: 12,
    sessions: 60,
    reports: 10,
    stateDir: dir,
    hsAdminToken: 'syt_hs_admin',
    hsUserToken: 'syt_hs_user',
    adminClientSecret: 'reset-secret',
  }
  const a = await startTestMock(t, opts)
  const clean = await listings(a)
  const { urls, cookie, username } = await writeEach(t, a)
  const faults = await a.req('PUT', '/_mock/faults', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ faults: ['user-emails-delete-keeps'] }),
  })
  t.equal(faults.status, 200, 'a fault switched on')
  t.not((await listings(a)).join(), clean.join(), 'the writes show before the reset')

  const reset = (await a.req('POST', '/_mock/reset')).body
  t.same(reset.reset.faultsCleared, ['user-emails-delete-keeps'], 'reset says which faults it cleared')
  t.match(reset.state, { journalStartedBy: 'reset', records: 0 }, 'reset starts a new journal')
  t.same(await listings(a), clean, 'every family lists as the clean seeded world, byte for byte')
  // (the seeded user and the seeded profile stay, as they were)
  for (const u of urls.filter((u) => !u.includes('/users/') && !u.includes(`/profile/@${username}:`)))
    t.equal((await a.get(u)).status, 404, `${u.split('/')[4]}: the new record is gone`)
  const own = await a.get(`/_matrix/client/v3/profile/@${username}:${a.world().hs.serverName}`)
  t.equal(own.status, 200)
  t.not(own.body.displayname, 'Journal Renamed', "the seeded user's display name is the seeded one again")
  t.notOk(await signedIn(a.url, cookie, username), 'the browser cookie no longer signs in')
  t.same((await a.req('GET', '/_mock/faults')).body.active, [], 'no fault is active')
  await a.close()

  const b = await startTestMock(t, { ...opts, adminToken: a.admin, userToken: a.user })
  t.match(
    (await b.req('GET', '/_mock/info')).body.state,
    { journalStartedBy: 'reset', replayed: 0 },
    'a restart replays the empty journal of the reset',
  )
  t.same(await listings(b), clean, 'and shows the clean world')
  await b.close()
})
