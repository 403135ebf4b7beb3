// The client-API calls report consumers and admin tools make besides filing reports (area B, beyond the
// interface): a user's account data (where the moderation bots keep their report-polling position; an
// unset type must be 404 M_NOT_FOUND, which they read as "no position yet"), room alias resolution, and
// the server's signing keys (synadm reads the server name from them). Reads run everywhere; setting
// account data needs --allow-writes and uses a type of this harness's own.
import { createPublicKey, verify } from 'node:crypto'
import { check, hs, hsClient, hsRaw, skip, target, expectOk, expectHsError, diag, memo, setDefaultRule, leftover } from '../lib/suite.ts'

setDefaultRule('Matrix client-server API, Client Config (account data) and Room aliases; server-server API, Publishing Keys')

const CLIENT = `${target.hs?.clientPrefix ?? '/_matrix'}/client/v3`
const TYPE = 'org.matrix.admin-conformance.probe'

const userId = (): Promise<string | undefined> =>
  memo('hs-user-whoami', async () => {
    const res = await hsClient('GET', '/account/whoami', { as: 'user' })
    return res.status === 200 ? (res.json as { user_id?: string } | undefined)?.user_id : undefined
  })

async function me(): Promise<string> {
  const id = await userId()
  if (!id) skip('whoami did not answer for the non-admin token')
  return id
}

const adPath = (user: string, type: string) => `/user/${encodeURIComponent(user)}/account_data/${encodeURIComponent(type)}`

check('account data: a type never set → 404 M_NOT_FOUND "Account data not found"', ['hs-user'], async (t) => {
  const user = await me()
  const type = `${TYPE}.never-set`
  expectHsError(
    t,
    await hsClient('GET', adPath(user, type), { as: 'user' }),
    404,
    'M_NOT_FOUND',
    `GET ${CLIENT}${adPath(user, type)}`,
    'Account data not found',
  )
})

check("account data: another user's → 403 M_FORBIDDEN; no token → 401 M_MISSING_TOKEN", ['hs-user'], async (t) => {
  const user = await me()
  const other = '@someone-else:example.invalid'
  expectHsError(
    t,
    await hsClient('GET', adPath(other, TYPE), { as: 'user' }),
    403,
    'M_FORBIDDEN',
    `GET ${CLIENT}${adPath(other, TYPE)}`,
    'Cannot get account data for other users.',
  )
  expectHsError(
    t,
    await hsClient('GET', adPath(user, TYPE), { as: 'none' }),
    401,
    'M_MISSING_TOKEN',
    `GET ${CLIENT}${adPath(user, TYPE)} without a token`,
  )
})

check('account data: PUT then GET → the content as set, a later PUT replacing it', ['hs-user', 'writes'], async (t) => {
  const user = await me()
  for (const content of [{ from: 1 }, { from: 42, note: 'report poll position' }]) {
    const put = await hsClient('PUT', adPath(user, TYPE), { as: 'user', body: content })
    expectOk(t, put, `PUT ${CLIENT}${adPath(user, TYPE)}`, { schema: 'homeserver/client-api#Empty' })
    const res = await hsClient('GET', adPath(user, TYPE), { as: 'user' })
    const body = expectOk(t, res, `GET ${CLIENT}${adPath(user, TYPE)}`, { schema: 'homeserver/client-api#AccountData' })
    if (body) t.same(body, content, 'reads back as set', diag(res))
  }
  // The client API has no delete for account data: the type is emptied and said to be left behind.
  const emptied = await hsClient('PUT', adPath(user, TYPE), { as: 'user', body: {} })
  expectOk(t, emptied, `PUT ${CLIENT}${adPath(user, TYPE)} {} (emptied after the check)`, { schema: 'homeserver/client-api#Empty' })
  leftover({
    target: 'hs',
    kind: 'account data',
    id: `${user} ${TYPE}`,
    reason: 'the client API cannot delete account data; the type is left holding {}',
  })
})

check('directory: a canonical alias of a listed room resolves to that room; a non-alias → 400 M_INVALID_PARAM', ['hs'], async (t) => {
  const bad = '/directory/room/not-an-alias'
  expectHsError(t, await hsClient('GET', bad, { as: 'none' }), 400, 'M_INVALID_PARAM', `GET ${CLIENT}${bad}`, 'Room alias invalid')
  const list = await hs('GET', '/rooms', { query: { order_by: 'canonical_alias', dir: 'b', limit: 20 } })
  const rooms = list.status === 200 ? ((list.json as { rooms?: { room_id: string; canonical_alias: string | null }[] }).rooms ?? []) : []
  const server = (await userId())?.split(':').slice(1).join(':')
  const room = rooms.find((r) => r.canonical_alias && (!server || r.canonical_alias.endsWith(`:${server}`)))
  if (!room) skip('no listed room has a local canonical alias (or the admin room list did not answer)')
  const path = `/directory/room/${encodeURIComponent(room.canonical_alias!)}`
  const res = await hsClient('GET', path, { as: 'none' })
  const body = expectOk<{ room_id: string; servers: string[] }>(t, res, `GET ${CLIENT}${path}`, {
    schema: 'homeserver/client-api#AliasResolution',
  })
  if (!body) return
  t.equal(body.room_id, room.room_id, 'the room the alias is canonical for', diag(res))
  if (server) t.equal(body.servers[0], server, 'this server first', diag(res))
})

check(
  'server keys: GET /_matrix/key/v2/server → 200 matching the schema, signed by the key it lists',
  ['hs-url'],
  async (t) => {
    const path = '/_matrix/key/v2/server'
    const res = await hsRaw('GET', path, { as: 'none' })
    // The key resource is a listener's choice (`keys`, or `federation` which includes it): a listener
    // serving only client and admin answers 404 M_UNRECOGNIZED, which says nothing of the keys.
    const errcode = (res.json as { errcode?: unknown } | undefined)?.errcode
    if (res.status === 404 && errcode === 'M_UNRECOGNIZED') skip('this listener does not serve the key resource (keys or federation)')
    const body = expectOk<
      { server_name: string; verify_keys: Record<string, { key: string }>; signatures: Record<string, Record<string, string>> } & Record<
        string,
        unknown
      >
    >(t, res, `GET ${path}`, { schema: 'homeserver/client-api#ServerKeys' })
    if (!body) return
    const [keyId, verifyKey] = Object.entries(body.verify_keys).find(([id]) => id.startsWith('ed25519:')) ?? []
    const sig = keyId ? body.signatures[body.server_name]?.[keyId] : undefined
    if (!keyId || !verifyKey || !sig) return void t.fail('an ed25519 key and its signature by server_name', diag(res))
    const { signatures: _s, unsigned: _u, ...signed } = body
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(verifyKey.key, 'base64')])
    const ok = verify(
      null,
      Buffer.from(canonical(signed)),
      createPublicKey({ key: spki, format: 'der', type: 'spki' }),
      Buffer.from(sig, 'base64'),
    )
    t.ok(ok, `the signature verifies with ${keyId} over the canonical JSON`, diag(res))
    const user = await userId()
    if (user) t.equal(body.server_name, user.split(':').slice(1).join(':'), 'server_name is the domain of the users', diag(res))
  },
  { rule: 'Matrix server-server API, Publishing Keys (GET /_matrix/key/v2/server)' },
)

/** Canonical JSON: keys sorted, no insignificant whitespace. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`
}
