// The client-API calls of report consumers and admin tools in the mock (mock/homeserver/client/
// account-data.ts, directory.ts, mock/homeserver/server-keys.ts), as Debian's matrix-synapse 1.160.0
// answers them: account data GET/PUT (404 M_NOT_FOUND unset, 403 for another user's, the two reserved
// types), alias resolution, and the server's keys signed with the key they list.
import t from 'tap'
import { createPublicKey, verify } from 'node:crypto'
import { ADMIN_TOKEN, USER_TOKEN, createRoom, hsErr, startHs, valid, whoami } from '../helpers.ts'
import { canonicalJson } from '../../../../mock/homeserver/server-keys.ts'

const hs = await startHs()
t.teardown(() => hs.close())
const me = await whoami(hs, USER_TOKEN)
const ad = (user: string, type: string, v = 'v3') => `/_matrix/client/${v}/user/${encodeURIComponent(user)}/account_data/${type}`

t.test('account data: unset → 404, set → read back, replaced by the next PUT, per user and type; r0 the same', async (t) => {
  const type = 'org.matrix.mjolnir.report_poll'
  hsErr(t, await hs.req('GET', ad(me, type), { token: USER_TOKEN }), 404, 'M_NOT_FOUND', 'Account data not found')
  const put = await hs.req('PUT', ad(me, type), { token: USER_TOKEN, body: { from: 7 } })
  t.same([put.status, put.body], [200, {}])
  t.same((await hs.req('GET', ad(me, type), { token: USER_TOKEN })).body, { from: 7 })
  await hs.req('PUT', ad(me, type, 'r0'), { token: USER_TOKEN, body: { from: 9 } })
  const again = await hs.req('GET', ad(me, type), { token: USER_TOKEN })
  t.same(again.body, { from: 9 }, 'replaced, through the r0 prefix too')
  valid(t, 'homeserver/client-api#AccountData', again.body)
  const admin = await whoami(hs, ADMIN_TOKEN)
  hsErr(t, await hs.req('GET', ad(admin, type), { token: ADMIN_TOKEN }), 404, 'M_NOT_FOUND', 'Account data not found')
  hsErr(t, await hs.req('GET', ad(me, 'org.example.other'), { token: USER_TOKEN }), 404, 'M_NOT_FOUND', 'Account data not found')
})

t.test('account data: errors in the real words, the token first', async (t) => {
  const admin = await whoami(hs, ADMIN_TOKEN)
  hsErr(t, await hs.req('GET', ad(admin, 'x'), { token: USER_TOKEN }), 403, 'M_FORBIDDEN', 'Cannot get account data for other users.')
  hsErr(
    t,
    await hs.req('PUT', ad(admin, 'x'), { token: USER_TOKEN, body: {} }),
    403,
    'M_FORBIDDEN',
    'Cannot add account data for other users.',
  )
  hsErr(t, await hs.req('GET', ad(admin, 'x')), 401, 'M_MISSING_TOKEN', 'Missing access token')
  hsErr(t, await hs.req('PUT', ad(me, 'x'), { token: USER_TOKEN, raw: '[]' }), 400, 'M_BAD_JSON', 'Content must be a JSON object.')
  hsErr(t, await hs.req('PUT', ad(me, 'x'), { token: USER_TOKEN, raw: 'nope' }), 400, 'M_NOT_JSON', 'Content not JSON.')
  hsErr(
    t,
    await hs.req('PUT', ad(me, 'm.push_rules'), { token: USER_TOKEN, body: {} }),
    405,
    'M_BAD_JSON',
    'Cannot set m.push_rules through this API. Use /pushrules',
  )
  hsErr(t, await hs.req('PUT', ad(me, 'm.fully_read'), { token: USER_TOKEN, body: {} }), 405, 'M_BAD_JSON')
})

t.test('directory: a local alias resolves, this server first; unknown, invalid and remote ones as the real server answers', async (t) => {
  const server = hs.mock.options.serverName
  const room = await createRoom(hs, USER_TOKEN, { visibility: 'public', room_alias_name: 'lookup_me' })
  const res = await hs.req('GET', `/_matrix/client/v3/directory/room/${encodeURIComponent(`#lookup_me:${server}`)}`)
  t.same(res.body, { room_id: room, servers: [server] })
  valid(t, 'homeserver/client-api#AliasResolution', res.body)
  hsErr(
    t,
    await hs.req('GET', `/_matrix/client/v3/directory/room/${encodeURIComponent(`#nothing:${server}`)}`),
    404,
    'M_NOT_FOUND',
    `Room alias #nothing:${server} not found`,
  )
  for (const bad of ['nothing', '#nothing', '#a:bad host', ''])
    hsErr(
      t,
      await hs.req('GET', `/_matrix/client/v3/directory/room/${encodeURIComponent(bad)}`),
      400,
      'M_INVALID_PARAM',
      'Room alias invalid',
    )
  hsErr(
    t,
    await hs.req('GET', `/_matrix/client/r0/directory/room/${encodeURIComponent('#x:example.invalid')}`),
    502,
    'M_UNKNOWN',
    'Failed to fetch alias',
  )
})

t.test('server keys: signed with the key they list, the same key for the same world, a day of validity', async (t) => {
  const res = await hs.req('GET', '/_matrix/key/v2/server')
  t.equal(res.status, 200)
  valid(t, 'homeserver/client-api#ServerKeys', res.body)
  const server = hs.mock.options.serverName
  t.equal(res.body.server_name, server)
  const [keyId, { key }] = Object.entries(res.body.verify_keys as Record<string, { key: string }>)[0]!
  t.match(keyId, /^ed25519:a_[A-Za-z]{4}$/)
  const { signatures, ...signed } = res.body
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(key, 'base64')])
  t.ok(
    verify(
      null,
      Buffer.from(canonicalJson(signed)),
      createPublicKey({ key: spki, format: 'der', type: 'spki' }),
      Buffer.from(signatures[server][keyId], 'base64'),
    ),
    'the signature verifies',
  )
  const day = res.body.valid_until_ts - Date.now()
  t.ok(day > 23 * 3600_000 && day <= 24 * 3600_000, 'valid for a day')
  t.same(
    (await hs.req('GET', `/_matrix/key/v2/server/${encodeURIComponent(keyId)}`)).body,
    res.body,
    'the deprecated key id form answers the same',
  )
  const same = await startHs({ tokenSecret: hs.mock.options.tokenSecret })
  t.teardown(() => same.close())
  t.same(
    (await same.req('GET', '/_matrix/key/v2/server')).body.verify_keys,
    res.body.verify_keys,
    'the same seed and token secret, the same key',
  )
  const other = await startHs({ seed: hs.mock.options.seed + 1, tokenSecret: hs.mock.options.tokenSecret })
  t.teardown(() => other.close())
  t.not(
    JSON.stringify((await other.req('GET', '/_matrix/key/v2/server')).body.verify_keys),
    JSON.stringify(res.body.verify_keys),
    'another seed, another key',
  )
})

t.test('canonical JSON sorts keys at every level and drops whitespace', async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [1, { z: 'é', y: null }], c: true } }), '{"a":{"c":true,"d":[1,{"y":null,"z":"é"}]},"b":1}')
})
