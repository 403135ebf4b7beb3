// The filters' own rules (scripts/explore/filter-rules.ts) on items made by hand: the value each probe
// takes from the items and the items its rule keeps.
import t from 'tap'
import { filterProbes, micros } from '../../../scripts/explore/filter-rules.ts'

t.test('times in microseconds, as the filters compare them', async (t) => {
  t.equal(micros('2025-01-02T03:04:05.123456Z'), Date.parse('2025-01-02T03:04:05Z') * 1000 + 123456)
  t.equal(micros('2025-01-02T03:04:05Z'), Date.parse('2025-01-02T03:04:05Z') * 1000)
  t.equal(micros('not a time'), undefined)
})

t.test("a filter's value comes from the items; its rule says which items it keeps", async (t) => {
  const sessions = [
    { created_at: '2025-01-01T00:00:00.100000Z', finished_at: null, client_id: 'A', scope: 'openid email' },
    { created_at: '2025-01-01T00:00:00.200000Z', finished_at: '2025-01-02T00:00:00Z', client_id: 'B', scope: 'openid' },
    { created_at: '2025-01-01T00:00:00.300000Z', finished_at: null, client_id: 'A', scope: 'email' },
  ]
  const probes = filterProbes(
    'mas',
    '/api/admin/v1/oauth2-sessions',
    ['filter[status]', 'filter[client]', 'filter[scope]', 'filter[created-after]'],
    sessions,
  )
  const kept = probes.map((p) => [p.query.map(([k, v]) => `${k}=${v}`).join('&'), sessions.map((s) => p.keep(s))])
  t.same(kept, [
    ['filter[status]=active', [true, false, true]],
    ['filter[status]=finished', [false, true, false]],
    ['filter[client]=A&filter[client]=B', [true, true, true]],
    ['filter[scope]=openid&filter[scope]=email', [true, false, false]],
    // the middle item's own time: strictly after, so the item itself is not kept
    ['filter[created-after]=2025-01-01T00:00:00.200000Z', [false, false, true]],
  ])
  const users = [{ username: 'Alice' }, { username: 'bob' }]
  const search = filterProbes('mas', '/api/admin/v1/users', ['filter[search]'], users)
  t.same(search[0]?.query, [['filter[search]', 'LIC']], 'a part of a name in the other letter case')
  t.same(
    users.map((u) => search[0]?.keep(u)),
    [true, false],
  )
  const reports = [{ user_id: '@admin:example.test', room_id: '!r:example.test', sender: '@x:example.test' }]
  const hs = filterProbes('hs', '/_synapse/admin/v1/event_reports', ['user_id', 'event_sender_user_id'], reports)
  t.same(
    hs.map((p) => p.query),
    [[['user_id', 'admin:example.tes']], [['event_sender_user_id', '@x:example.test']]],
    'the user by a part of it (SQL LIKE), the sender whole',
  )
  t.same(filterProbes('hs', '/_synapse/admin/v1/rooms', ['search_term'], reports), [], 'no rule, no probe')
})

t.test("rules that need the target's clock or its sessions", async (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  const tokens = [
    { '#id': 'a', expires_at: '2025-12-01T00:00:00Z', times_used: 0, revoked_at: null, valid: false },
    { '#id': 'b', expires_at: '2026-02-01T00:00:00Z', times_used: 2, revoked_at: null, valid: true },
    { '#id': 'c', expires_at: null, times_used: 0, revoked_at: '2025-01-01T00:00:00Z', valid: false },
    { '#id': 'd', expires_at: '2026-01-01T00:00:30Z', times_used: 0, revoked_at: null, valid: true },
  ]
  const [expired] = filterProbes('mas', '/api/admin/v1/user-registration-tokens', ['filter[expired]'], tokens, { nowMs: now })
  t.same(
    tokens.map((x) => expired!.keep(x)),
    [true, false, false, false],
    'expired: an expiry before the Date header',
  )
  t.same(
    tokens.map((x) => expired!.unsure!(x)),
    [false, false, false, true],
    'within the margin of the clock: not compared',
  )
  t.same(filterProbes('mas', '/api/admin/v1/user-registration-tokens', ['filter[expired]'], tokens), [], 'no clock, no probe')
  const clients = [
    { '#id': 'C1', grant_types: ['authorization_code', 'refresh_token'] },
    { '#id': 'C2', grant_types: ['client_credentials'] },
  ]
  const sessions = [
    { client_id: 'C1', user_id: 'U1', finished_at: null },
    { client_id: 'C2', user_id: 'U2', finished_at: '2025-01-01T00:00:00Z' },
  ]
  const probes = filterProbes('mas', '/api/admin/v1/oauth2-clients', ['filter[grant-type]', 'filter[has-active-sessions]'], clients, {
    related: { '/api/admin/v1/oauth2-sessions': sessions },
  })
  t.same(
    probes.map((p) => [p.query.map(([k, v]) => `${k}=${v}`).join('&'), clients.map((c) => p.keep(c))]),
    [
      ['filter[grant-type]=authorization_code', [true, false]],
      ['filter[grant-type]=refresh_token', [true, false]],
      // a grant type no client can declare lists none
      ['filter[grant-type]=password', [false, false]],
      // a finished session is no active one
      ['filter[has-active-sessions]=true', [true, false]],
      ['filter[has-active-sessions]=false', [false, true]],
    ],
  )
  t.same(
    filterProbes('mas', '/api/admin/v1/oauth2-clients', ['filter[has-active-sessions]'], clients, { related: {} }),
    [],
    'the sessions not walked in full: no probe',
  )
})
