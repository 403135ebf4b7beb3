// Hand-written valid and invalid samples for every wire shape of areas A and B.
import t, { type Test } from 'tap'
import { validate } from '../../lib/schemas.ts'

type Json = Record<string, unknown>

const ID = '01FSHN9AG0MZAA6S4AF7CTV32E'
const ID2 = '01FSHN9AG0AJ6AC5HQ9X6H4RP4'
const TOKEN = 'mpt_FM44zJN5qePGMLvvMXC4Ds1A3lCWc6_bJ9Wj1'

function clone<T>(v: T): T {
  return structuredClone(v)
}

/** Sets a value at a '/'-separated path of a cloned object; undefined deletes the key. */
function withAt(base: unknown, path: string, value: unknown): unknown {
  const copy = clone(base) as Json
  const parts = path.split('/').filter(Boolean)
  let node: Json = copy
  for (const p of parts.slice(0, -1)) node = node[p] as Json
  const last = parts[parts.length - 1] as string
  if (value === undefined) delete node[last]
  else node[last] = value
  return copy
}

function accepts(t: Test, ref: string, value: unknown, what: string): void {
  const r = validate(ref, value)
  t.ok(r.valid, `${ref} accepts ${what}${r.valid ? '' : `: ${r.text}`}`)
}

function rejects(t: Test, ref: string, value: unknown, what: string, where?: string | RegExp): void {
  const r = validate(ref, value)
  t.notOk(r.valid, `${ref} rejects ${what}`)
  if (where !== undefined && !r.valid) t.match(r.text, where, `${what}: the text points at the failure`)
}

// ---------------------------------------------------------------------------------------------------
// Builders

const compatAttrs = {
  user_id: ID,
  device_id: 'AABBCCDDEE',
  user_session_id: ID2,
  redirect_uri: 'https://example.com/redirect',
  created_at: '2022-01-16T14:40:00Z',
  user_agent: 'Mozilla/5.0',
  last_active_at: '2022-01-16T14:41:00.123Z',
  last_active_ip: '1.2.3.4',
  finished_at: null,
  human_name: 'Laptop',
}
const oauth2Attrs = {
  created_at: '2022-01-16T14:40:00Z',
  finished_at: null,
  user_id: null,
  user_session_id: null,
  client_id: ID,
  scope: 'urn:mas:admin',
  user_agent: null,
  last_active_at: null,
  last_active_ip: '2001:db8::1',
  human_name: null,
}
const personalAttrs = {
  created_at: '2022-01-16T14:40:00.911578Z',
  revoked_at: null,
  owner_user_id: ID,
  owner_client_id: null,
  actor_user_id: ID,
  human_name: 'CI token',
  scope: 'openid urn:mas:admin',
  last_active_at: null,
  last_active_ip: null,
  expires_at: '2022-01-16T15:40:00Z',
}
const policyAttrs = { created_at: '2022-01-16T14:40:00Z', data: { hello: 'world' } }

function resource(type: string, collection: string, attributes: unknown, id = ID): Json {
  return { type, id, attributes, links: { self: `/api/admin/v1/${collection}/${id}` } }
}
function single(type: string, collection: string, attributes: unknown, suffix = ''): Json {
  return { data: resource(type, collection, attributes), links: { self: `/api/admin/v1/${collection}/${ID}${suffix}` } }
}
function item(type: string, collection: string, attributes: unknown, id = ID): Json {
  return { ...resource(type, collection, attributes, id), meta: { page: { cursor: id } } }
}
function page(type: string, collection: string, attributes: unknown): Json {
  return {
    meta: { count: 2 },
    data: [item(type, collection, attributes, ID2), item(type, collection, attributes, ID)],
    links: {
      self: `/api/admin/v1/${collection}?page[first]=2`,
      first: `/api/admin/v1/${collection}?page[first]=2`,
      last: `/api/admin/v1/${collection}?page[last]=2`,
      next: `/api/admin/v1/${collection}?page[after]=${ID}&page[first]=2`,
    },
  }
}

const report = {
  id: 2,
  received_ts: 1570897107409,
  room_id: '!ERAgBpSOcCCuTJqQPk:example.org',
  name: 'Matrix HQ',
  event_id: '$YK4arsKKcc0LRoe700pS8DSjOvUT4NDv0HfInlMFw2M',
  user_id: '@foo:example.org',
  reason: 'spam',
  score: -100,
  sender: '@bar:example.org',
  canonical_alias: '#alias1:example.org',
}
const eventJson = {
  auth_events: ['$YK4arsKKcc0LRoe700pS8DSjOvUT4NDv0HfInlMFw2M', '$oggsNXxzPFRE3y53SUNd7nsj69-QzKv03a1RucHu-ws'],
  content: { body: 'hello', msgtype: 'm.text' },
  depth: 546,
  hashes: { sha256: 'xK1//xnmvHJIOvbgXlkI8eEqdvoMmihVDJ9J4SNlsAw' },
  origin_server_ts: 1592291711430,
  prev_events: ['$YK4arsKKcc0LRoe700pS8DSjOvUT4NDv0HfInlMFw2M'],
  prev_state: [],
  room_id: '!ERAgBpSOcCCuTJqQPk:example.org',
  sender: '@bar:example.org',
  signatures: {
    'example.org': { 'ed25519:a_JaEG': 'cs+OUKW/iHx5pEidbWxh0UiNNHwe46Ai9LwNz+Ah16aWDNszVIe2gaAcVZfvNsBhakQTew51tlKmL2kspXk/Dg' },
  },
  type: 'm.room.message',
  unsigned: { age_ts: 1592291711430 },
}

// ---------------------------------------------------------------------------------------------------

t.test('common value types', async (t) => {
  for (const v of [ID, '00000000000000000000000000', '7ZZZZZZZZZZZZZZZZZZZZZZZZZ']) accepts(t, 'admin/common#ULID', v, v)
  for (const [v, what] of [
    [ID.toLowerCase(), 'lower case'],
    [ID.slice(1), '25 characters'],
    [`${ID}0`, '27 characters'],
    ['01FSHN9AG0MZAA6S4AF7CTV3IL', 'I and L'],
    ['01FSHN9AG0MZAA6S4AF7CTV3OU', 'O and U'],
    [42, 'a number'],
  ] as const)
    rejects(t, 'admin/common#ULID', v, what)

  for (const v of ['2022-01-16T14:40:00Z', '2022-01-16T14:40:00.123Z', '2022-01-16T14:40:00.911578Z', '2022-01-16T14:40:00.123456789Z']) {
    accepts(t, 'admin/common#Timestamp', v, v)
  }
  for (const v of [
    '2022-01-16T14:40:00.1Z',
    '2022-01-16T14:40:00.1234Z',
    '2022-01-16T14:40:00+00:00',
    '2022-01-16T14:40:00',
    '2022-01-16 14:40:00Z',
    '2022-13-16T14:40:00Z',
    '2022-01-16T25:40:00Z',
  ]) {
    rejects(t, 'admin/common#Timestamp', v, v)
  }

  for (const v of ['1.2.3.4', '127.0.0.1', '::1', '2001:db8::1', '::ffff:192.0.2.1']) accepts(t, 'admin/common#IPAddress', v, v)
  for (const v of ['1.2.3.4:80', '256.1.1.1', 'localhost', '', '[::1]']) rejects(t, 'admin/common#IPAddress', v, JSON.stringify(v))

  for (const v of ['openid', 'openid urn:mas:admin', 'urn:matrix:org.matrix.msc2967.client:api:*', ''])
    accepts(t, 'admin/common#Scope', v, JSON.stringify(v))
  for (const v of ['openid  urn:mas:admin', ' openid', 'openid ', 'a"b', 'a\\b', 'caf\u00e9', 'a\nb'])
    rejects(t, 'admin/common#Scope', v, JSON.stringify(v))

  accepts(t, 'admin/common#SelfLinks', { self: '/api/admin/v1/x' }, 'a self link')
  rejects(t, 'admin/common#SelfLinks', { self: '/api/admin/v1/x', other: 'y' }, 'an extra link')
  rejects(t, 'admin/common#SelfLinks', {}, 'no self')
})

t.test('admin error body', async (t) => {
  accepts(t, 'admin/error', { errors: [{ title: 'Personal session not found' }] }, 'one title')
  accepts(t, 'admin/error', { errors: [{ title: 'Invalid pagination parameters' }, { title: 'page[after]: invalid length' }] }, 'a chain')
  rejects(t, 'admin/error', { errors: [] }, 'no entries', '/errors must NOT have fewer than 1 items')
  rejects(t, 'admin/error', {}, 'no errors key')
  rejects(t, 'admin/error', { errors: [{ title: 1 }] }, 'a non-string title')
  rejects(t, 'admin/error', { errors: [{ title: 'x', detail: 'y' }] }, 'an extra key in an entry')
  rejects(t, 'admin/error', { errors: [{ title: 'x' }], status: 404 }, 'an extra top-level key')
  rejects(t, 'admin/error', 'Not found', 'a plain-text body')
})

t.test('site-config and version', async (t) => {
  const sc = {
    server_name: 'example.com',
    password_login_enabled: true,
    password_registration_enabled: false,
    password_registration_email_required: true,
    password_registration_token_required: false,
    registration_token_required: false,
    email_change_allowed: true,
    displayname_change_allowed: true,
    password_change_allowed: true,
    account_recovery_allowed: false,
    account_deactivation_allowed: true,
    captcha_enabled: false,
    minimum_password_complexity: 3,
  }
  accepts(t, 'admin/site-config', sc, 'a v1.19+ config')
  accepts(
    t,
    'admin/site-config#SiteConfig',
    withAt(sc, 'password_registration_token_required', undefined),
    'a pre-v1.19 config without password_registration_token_required',
  )
  rejects(t, 'admin/site-config', withAt(sc, 'registration_token_required', undefined), 'a config without registration_token_required')
  rejects(
    t,
    'admin/site-config',
    withAt(sc, 'server_name', undefined),
    'a missing server_name',
    "must have required property 'server_name'",
  )
  rejects(t, 'admin/site-config', withAt(sc, 'minimum_password_complexity', 5), 'complexity 5')
  rejects(t, 'admin/site-config', withAt(sc, 'captcha_enabled', null), 'a null boolean')
  rejects(t, 'admin/site-config', withAt(sc, 'unknown_flag', true), 'an unknown key')
  rejects(t, 'admin/site-config', { data: sc }, 'a data wrapper')

  accepts(t, 'admin/version', { version: 'v1.22.0' }, 'a version')
  rejects(t, 'admin/version', {}, 'no version')
  rejects(t, 'admin/version', { version: '' }, 'an empty version')
  rejects(t, 'admin/version', { version: 'v1', commit: 'abc' }, 'an extra key')
})

t.test('compat sessions', async (t) => {
  const s = single('compat-session', 'compat-sessions', compatAttrs)
  accepts(t, 'admin/compat-session#Single', s, 'a single session')
  accepts(
    t,
    'admin/compat-session#Single',
    single('compat-session', 'compat-sessions', { ...compatAttrs, finished_at: '2022-01-16T14:43:00Z' }, '/finish'),
    'the finish response',
  )
  const allNull = {
    ...compatAttrs,
    device_id: null,
    user_session_id: null,
    redirect_uri: null,
    user_agent: null,
    last_active_at: null,
    last_active_ip: null,
    human_name: null,
  }
  accepts(t, 'admin/compat-session#Attributes', allNull, 'all nullable keys null')
  accepts(t, 'admin/compat-session#Page', page('compat-session', 'compat-sessions', compatAttrs), 'a page')
  accepts(
    t,
    'admin/compat-session#Page',
    {
      data: [],
      links: {
        self: '/api/admin/v1/compat-sessions?count=false&page[first]=10',
        first: '/api/admin/v1/compat-sessions?count=false&page[first]=10',
        last: '/api/admin/v1/compat-sessions?count=false&page[last]=10',
      },
    },
    'count=false (no meta)',
  )
  accepts(
    t,
    'admin/compat-session#Page',
    { meta: { count: 2 }, links: { self: '/api/admin/v1/compat-sessions?count=only' } },
    'count=only (no data)',
  )

  rejects(t, 'admin/compat-session#Single', withAt(s, 'data/id', 'nope'), 'a bad ULID id', '/data/id must match pattern')
  rejects(
    t,
    'admin/compat-session#Single',
    withAt(s, 'data/attributes/device_id', undefined),
    'a missing nullable key',
    "/data/attributes must have required property 'device_id'",
  )
  rejects(t, 'admin/compat-session#Single', withAt(s, 'data/attributes/user_id', null), 'user_id null', '/data/attributes/user_id')
  rejects(t, 'admin/compat-session#Single', withAt(s, 'data/attributes/created_at', null), 'created_at null')
  rejects(t, 'admin/compat-session#Single', withAt(s, 'data/attributes/created_at', '2022-01-16T14:40:00+01:00'), 'a non-UTC timestamp')
  rejects(t, 'admin/compat-session#Single', withAt(s, 'data/attributes/last_active_ip', 'nowhere'), 'a bad IP')
  rejects(
    t,
    'admin/compat-session#Single',
    withAt(s, 'data/attributes/extra', 1),
    'an unknown attribute',
    "must NOT have additional property 'extra'",
  )
  rejects(t, 'admin/compat-session#Single', withAt(s, 'data/type', 'oauth2-session'), 'a wrong type', '/data/type must be "compat-session"')
  rejects(
    t,
    'admin/compat-session#Single',
    withAt(s, 'data/meta', { page: { cursor: ID } }),
    'meta on a single resource',
    '/data/meta must not be present',
  )
  rejects(
    t,
    'admin/compat-session#Single',
    withAt(s, 'data/links/self', `/api/admin/v1/oauth2-sessions/${ID}`),
    'a self link of another collection',
  )
  rejects(
    t,
    'admin/compat-session#Single',
    withAt(s, 'links/self', `/api/admin/v1/compat-sessions/${ID}/revoke`),
    'a /revoke top-level link',
  )
  rejects(t, 'admin/compat-session#Single', withAt(s, 'links', undefined), 'no top-level links')

  const p = page('compat-session', 'compat-sessions', compatAttrs)
  rejects(
    t,
    'admin/compat-session#Page',
    withAt(p, 'data/0/meta', undefined),
    'an item without cursor',
    "/data/0 must have required property 'meta'",
  )
  rejects(t, 'admin/compat-session#Page', withAt(p, 'data/0/meta/page/cursor', 'x'), 'a bad cursor')
  rejects(
    t,
    'admin/compat-session#Page',
    withAt(p, 'links/prev', null),
    'a null prev link (absent, not null)',
    '/links/prev must be string',
  )
  rejects(t, 'admin/compat-session#Page', withAt(p, 'meta', null), 'a null meta')
  rejects(t, 'admin/compat-session#Page', withAt(p, 'meta/count', -1), 'a negative count')
  rejects(t, 'admin/compat-session#Page', withAt(p, 'meta/count', '2'), 'a string count')
  rejects(t, 'admin/compat-session#Page', withAt(p, 'links/self', undefined), 'no self link')
  rejects(t, 'admin/compat-session#Page', withAt(p, 'links/self', 'http://host/api/admin/v1/compat-sessions'), 'an absolute self link')
  rejects(t, 'admin/compat-session#Page', withAt(p, 'data', null), 'null data')

  accepts(
    t,
    'admin/compat-session#ListQuery',
    { 'filter[status]': 'finished', 'page[first]': 5, count: 'only', 'filter[created-after]': '2022-01-16T14:40:00+01:00' },
    'a query',
  )
  rejects(t, 'admin/compat-session#ListQuery', { 'filter[status]': 'revoked' }, 'status revoked')
  rejects(t, 'admin/compat-session#ListQuery', { 'page[first]': 0 }, 'page[first]=0')
  rejects(t, 'admin/compat-session#ListQuery', { count: 'maybe' }, 'count=maybe')
})

t.test('oauth2 sessions', async (t) => {
  const s = single('oauth2-session', 'oauth2-sessions', oauth2Attrs)
  accepts(t, 'admin/oauth2-session#Single', s, 'a client credentials session (no user)')
  accepts(
    t,
    'admin/oauth2-session#Single',
    single('oauth2-session', 'oauth2-sessions', { ...oauth2Attrs, user_id: ID, finished_at: '2022-01-16T14:43:00Z' }, '/finish'),
    'a finished user session',
  )
  accepts(t, 'admin/oauth2-session#Page', page('oauth2-session', 'oauth2-sessions', oauth2Attrs), 'a page')
  rejects(t, 'admin/oauth2-session#Single', withAt(s, 'data/attributes/client_id', null), 'client_id null')
  rejects(t, 'admin/oauth2-session#Single', withAt(s, 'data/attributes/scope', null), 'scope null')
  rejects(t, 'admin/oauth2-session#Single', withAt(s, 'data/attributes/human_name', undefined), 'a missing human_name')
  rejects(t, 'admin/oauth2-session#Single', withAt(s, 'data/type', 'compat-session'), 'a wrong type')
  accepts(
    t,
    'admin/oauth2-session#ListQuery',
    { 'filter[client]': [ID, ID2], 'filter[client-kind]': 'static', 'filter[scope]': ['openid'] },
    'a query',
  )
  rejects(t, 'admin/oauth2-session#ListQuery', { 'filter[client-kind]': 'public' }, 'an unknown client kind')
  rejects(t, 'admin/oauth2-session#ListQuery', { 'filter[client]': ['nope'] }, 'a bad client id')
})

t.test('personal sessions', async (t) => {
  const s = single('personal-session', 'personal-sessions', personalAttrs)
  accepts(t, 'admin/personal-session#Single', s, 'a user-owned session')
  const clientOwned = { ...personalAttrs, owner_user_id: null, owner_client_id: ID2, expires_at: null }
  accepts(t, 'admin/personal-session#Page', page('personal-session', 'personal-sessions', clientOwned), 'a page of client-owned sessions')
  accepts(
    t,
    'admin/personal-session#Single',
    single('personal-session', 'personal-sessions', { ...personalAttrs, revoked_at: '2022-01-16T14:43:00Z', expires_at: null }),
    'a revoked session',
  )

  const created = single('personal-session', 'personal-sessions', { ...personalAttrs, access_token: TOKEN })
  accepts(t, 'admin/personal-session#Created', created, 'the 201 with a token')

  rejects(
    t,
    'admin/personal-session#Single',
    created,
    'an access token in a GET response',
    '/data/attributes/access_token must not be present [admin/personal-session.json#/$defs/Attributes/properties/access_token/not]',
  )
  rejects(
    t,
    'admin/personal-session#Single',
    withAt(s, 'data/attributes/access_token', null),
    'access_token null in a GET response (left out, not null)',
  )
  rejects(
    t,
    'admin/personal-session#Page',
    page('personal-session', 'personal-sessions', { ...personalAttrs, access_token: TOKEN }),
    'an access token in a listing',
    '/data/0/attributes/access_token must not be present',
  )
  rejects(t, 'admin/personal-session#Created', s, 'a 201 without token', "must have required property 'access_token'")
  rejects(
    t,
    'admin/personal-session#Created',
    withAt(created, 'data/attributes/access_token', 'mat_FM44zJN5qePGMLvvMXC4Ds1A3lCWc6_bJ9Wj1'),
    'a token of the wrong kind',
  )
  rejects(t, 'admin/personal-session#Created', withAt(created, 'data/attributes/access_token', 'mpt_short_bJ9Wj1'), 'a malformed token')
  rejects(t, 'admin/personal-session#Created', withAt(created, 'data/attributes/access_token', null), 'a null token')

  rejects(
    t,
    'admin/personal-session#Single',
    withAt(s, 'data/attributes/owner_client_id', ID2),
    'both owners set',
    'must match exactly one schema in oneOf [admin/personal-session.json#/$defs/AttributeFields/oneOf]',
  )
  rejects(t, 'admin/personal-session#Single', withAt(s, 'data/attributes/owner_user_id', null), 'no owner set', 'oneOf')
  rejects(t, 'admin/personal-session#Created', withAt(created, 'data/attributes/owner_client_id', ID2), 'both owners set on create')
  rejects(t, 'admin/personal-session#Single', withAt(s, 'data/attributes/human_name', null), 'human_name null')
  rejects(t, 'admin/personal-session#Single', withAt(s, 'data/attributes/actor_user_id', null), 'actor_user_id null')
  rejects(t, 'admin/personal-session#Single', withAt(s, 'data/attributes/expires_at', undefined), 'a missing expires_at')
  rejects(
    t,
    'admin/personal-session#Single',
    withAt(s, 'data/attributes/other', 1),
    'an unknown attribute',
    "must NOT have property 'other'",
  )

  const body = { actor_user_id: ID, human_name: 'Test Session', scope: 'openid urn:mas:admin', expires_in: 3600 }
  accepts(t, 'admin/personal-session#CreateRequest', body, 'a create body')
  accepts(t, 'admin/personal-session#CreateRequest', { ...body, expires_in: null }, 'a create body without expiry')
  accepts(t, 'admin/personal-session#CreateRequest', { ...body, unknown: 1 }, 'a create body with an unknown key (ignored by the service)')
  rejects(t, 'admin/personal-session#CreateRequest', withAt(body, 'scope', undefined), 'a create body without scope')
  rejects(t, 'admin/personal-session#CreateRequest', withAt(body, 'expires_in', -1), 'a negative expires_in')
  rejects(t, 'admin/personal-session#CreateRequest', withAt(body, 'expires_in', 4294967296), 'expires_in above uint32')
  rejects(t, 'admin/personal-session#CreateRequest', withAt(body, 'expires_in', '3600'), 'a string expires_in')
  rejects(t, 'admin/personal-session#CreateRequest', withAt(body, 'actor_user_id', 'alice'), 'a non-ULID actor')
  accepts(t, 'admin/personal-session#RegenerateRequest', {}, 'an empty regenerate body')
  accepts(t, 'admin/personal-session#RegenerateRequest', { expires_in: 86400 }, 'a regenerate body')
  rejects(t, 'admin/personal-session#RegenerateRequest', { expires_in: 1.5 }, 'a fractional expires_in')
  rejects(t, 'admin/personal-session#RegenerateRequest', null, 'a null body')

  accepts(
    t,
    'admin/personal-session#ListQuery',
    { 'filter[status]': 'revoked', 'filter[expires]': false, 'filter[expires_before]': '2022-02-15T00:00:00Z' },
    'a query',
  )
  rejects(t, 'admin/personal-session#ListQuery', { 'filter[status]': 'finished' }, 'status finished')
})

t.test('policy data', async (t) => {
  const s = single('policy-data', 'policy-data', policyAttrs)
  accepts(t, 'admin/policy-data#Single', s, 'a record')
  accepts(t, 'admin/policy-data#Single', { ...s, links: { self: '/api/admin/v1/policy-data/latest' } }, 'a /latest link')
  rejects(t, 'admin/policy-data#Single', withAt(s, 'data/attributes/data', 42), 'non-object data')
  rejects(t, 'admin/policy-data#Single', withAt(s, 'data/attributes/data', undefined), 'missing data')
  rejects(t, 'admin/policy-data#Single', withAt(s, 'data/type', 'policy_data'), 'a wrong type')
  accepts(t, 'admin/policy-data#SetRequest', { data: { admin_clients: [ID] } }, 'a set body')
  accepts(t, 'admin/policy-data#SetRequest', { data: 42 }, 'any JSON value (the handler, not the parser, refuses it)')
  rejects(t, 'admin/policy-data#SetRequest', {}, 'a body without data')
})

t.test('event reports', async (t) => {
  accepts(t, 'homeserver/event-report#ListItem', report, 'a list item')
  accepts(
    t,
    'homeserver/event-report#ListItem',
    { ...report, score: null, reason: null, sender: null, canonical_alias: null, name: null },
    'a list item with every nullable key null',
  )
  accepts(t, 'homeserver/event-report#ListItem', { ...report, reason: '' }, 'a blank reason')
  rejects(
    t,
    'homeserver/event-report#ListItem',
    { ...report, event_json: eventJson },
    'an 11th key (event_json) in a listing',
    "must NOT have property 'event_json'",
  )
  rejects(
    t,
    'homeserver/event-report#ListItem',
    { ...report, extra: 1 },
    'an 11th key',
    "(root) must NOT have property 'extra' [homeserver/event-report.json#/$defs/ListItem/propertyNames/enum]",
  )
  rejects(t, 'homeserver/event-report#ListItem', withAt(report, 'name', undefined), 'a missing key (name)')
  rejects(t, 'homeserver/event-report#ListItem', withAt(report, 'score', '-100'), 'a string score')
  rejects(t, 'homeserver/event-report#ListItem', withAt(report, 'id', '2'), 'a string id')
  rejects(t, 'homeserver/event-report#ListItem', withAt(report, 'room_id', null), 'a null room_id')
  rejects(t, 'homeserver/event-report#ListItem', withAt(report, 'event_id', 'YK4ars'), 'an event id without $')

  const list = { event_reports: [report, { ...report, id: 3 }], total: 4, next_token: 2 }
  accepts(t, 'homeserver/event-report#List', list, 'a page with more to come')
  accepts(t, 'homeserver/event-report#List', { event_reports: [], total: 0 }, 'the last (empty) page')
  rejects(t, 'homeserver/event-report#List', withAt(list, 'next_token', '2'), 'next_token as string', '/next_token must be integer')
  rejects(t, 'homeserver/event-report#List', withAt(list, 'next_token', null), 'next_token null (absent, not null)')
  rejects(t, 'homeserver/event-report#List', withAt(list, 'total', undefined), 'no total')
  rejects(t, 'homeserver/event-report#List', withAt(list, 'event_reports/0/extra', 1), 'an item with an 11th key')
  rejects(t, 'homeserver/event-report#List', { ...list, prev_token: 0 }, 'an unknown top-level key')

  const one = { ...report, event_json: eventJson }
  accepts(t, 'homeserver/event-report#Single', one, 'a single report')
  accepts(t, 'homeserver/event-report#Single', withAt(one, 'event_json/prev_state', undefined), 'an event without prev_state (v1.68+)')
  accepts(t, 'homeserver/event-report#Single', withAt(one, 'event_json/state_key', ''), 'an event with more keys')
  accepts(
    t,
    'homeserver/event-report#Single',
    withAt(one, 'event_json/prev_events', [['$abc:example.org', { sha256: 'x' }]]),
    'event references of room version 1',
  )
  rejects(t, 'homeserver/event-report#Single', report, 'no event_json', "must have required property 'event_json'")
  rejects(t, 'homeserver/event-report#Single', { ...one, extra: 1 }, 'a 12th key')
  rejects(t, 'homeserver/event-report#Single', withAt(one, 'event_json/depth', '546'), 'a string depth')
  rejects(t, 'homeserver/event-report#Single', withAt(one, 'event_json/unsigned/age_ts', 'x'), 'a string age_ts')
  rejects(t, 'homeserver/event-report#Single', withAt(one, 'event_json/signatures', { 'example.org': 'sig' }), 'flat signatures')
  rejects(t, 'homeserver/event-report#Single', withAt(one, 'event_json/type', undefined), 'an event without type')

  accepts(t, 'homeserver/event-report#DeleteResponse', {}, 'the empty object')
  rejects(t, 'homeserver/event-report#DeleteResponse', { deleted: true }, 'a non-empty object')
  rejects(t, 'homeserver/event-report#DeleteResponse', [], 'an array')

  accepts(t, 'homeserver/event-report#ListQuery', { from: 0, limit: 10, dir: 'f', event_sender_user_id: '@bar:example.org' }, 'a query')
  rejects(t, 'homeserver/event-report#ListQuery', { dir: 'x' }, 'dir x')
  rejects(t, 'homeserver/event-report#ListQuery', { from: -1 }, 'a negative from')
})

t.test('server version, errors, background updates, client report', async (t) => {
  accepts(t, 'homeserver/server-version', { server_version: '1.157.1' }, 'a version')
  accepts(t, 'homeserver/server-version', { server_version: '1.93.0', python_version: '3.11.4' }, 'a pre-v1.94 body with python_version')
  rejects(t, 'homeserver/server-version', {}, 'no server_version')
  rejects(t, 'homeserver/server-version', { server_version: '1.157.1', build: 'x' }, 'an unknown key')

  accepts(t, 'homeserver/error', { errcode: 'M_NOT_FOUND', error: 'Event report not found' }, 'a not-found error')
  accepts(t, 'homeserver/error', { errcode: 'M_UNKNOWN_TOKEN', error: 'Invalid access token passed.', soft_logout: false }, 'a token error')
  rejects(t, 'homeserver/error', { errcode: 'NOT_FOUND', error: 'x' }, 'an errcode without M_')
  rejects(t, 'homeserver/error', { errcode: 'M_FORBIDDEN' }, 'no error text')
  rejects(t, 'homeserver/error', { errcode: 'M_UNKNOWN_TOKEN', error: 'x', soft_logout: 'no' }, 'a string soft_logout')

  accepts(t, 'homeserver/background-updates#Status', { enabled: true, current_updates: {} }, 'nothing running')
  accepts(
    t,
    'homeserver/background-updates#Status',
    {
      enabled: true,
      current_updates: {
        master: { name: 'populate_stats_process_rooms', total_item_count: 50, total_duration_ms: 1234.005, average_items_per_ms: 0.1 },
      },
    },
    'an update running',
  )
  // What a real 1.160.0 answers right after start: no item done yet, no average.
  accepts(
    t,
    'homeserver/background-updates#Status',
    {
      enabled: true,
      current_updates: { master: { name: 'redactions_recheck', total_item_count: 0, total_duration_ms: 0.0, average_items_per_ms: null } },
    },
    'an update just started: average null',
  )
  rejects(
    t,
    'homeserver/background-updates#Status',
    {
      enabled: true,
      current_updates: { master: { name: 'redactions_recheck', total_item_count: 5, total_duration_ms: 3, average_items_per_ms: null } },
    },
    'null average once items are done',
  )
  rejects(t, 'homeserver/background-updates#Status', { current_updates: {} }, 'no enabled')
  rejects(t, 'homeserver/background-updates#Status', { enabled: true, current_updates: { master: { name: 'x' } } }, 'an incomplete update')

  accepts(t, 'homeserver/client-report#Request', {}, 'an empty body')
  accepts(t, 'homeserver/client-report#Request', { reason: 'spam', score: -100 }, 'reason and score')
  accepts(t, 'homeserver/client-report#Request', { score: 5 }, 'a score out of the conventional range')
  rejects(t, 'homeserver/client-report#Request', { reason: null, score: null }, 'nulls')
  rejects(t, 'homeserver/client-report#Request', { reason: 10, score: 'string' }, 'wrong types')
  rejects(t, 'homeserver/client-report#Request', { score: 1.5 }, 'a fractional score')
  rejects(t, 'homeserver/client-report#Request', { score: true }, 'a boolean score')
  accepts(t, 'homeserver/client-report#Response', {}, 'the empty response')
})
