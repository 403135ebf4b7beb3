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
