// --hs-version switches every versioned behaviour of the homeserver side, on both sides of each
// release that changed it (the rows of lib/data/synapse-features.json), not only the version string.
import t from 'tap'
import { ADMIN_TOKEN, USER_TOKEN, createRoom, hsErr, report, send, startHs, type Hs } from './helpers.ts'

const started = new Map<string, Hs>()
async function at(version: string): Promise<Hs> {
  let hs = started.get(version)
  if (!hs) {
    hs = await startHs({ hsVersion: version })
    started.set(version, hs)
  }
  return hs
}
t.teardown(async () => {
  for (const hs of started.values()) await hs.close()
})

const list = async (version: string, query: string, token: string | null = ADMIN_TOKEN) => {
  const hs = await at(version)
  return hs.req('GET', `${hs.reports}${query}`, { token })
}

t.test('dir: "Unknown direction" checked last before v1.77.0, the enum message at parse time since', async (t) => {
  hsErr(t, await list('1.76.0', '?dir=bar'), 400, 'M_INVALID_PARAM', 'Unknown direction: bar')
  hsErr(t, await list('1.76.0', '?dir=bar&user_id=%C3%A9'), 400, 'M_UNKNOWN', "Query parameter 'user_id' must be ascii")
  hsErr(t, await list('1.76.0', '?dir=bar&limit=-5'), 400, 'M_INVALID_PARAM', 'The limit parameter must be a positive integer.')
  hsErr(t, await list('1.77.0', '?dir=bar'), 400, 'M_INVALID_PARAM', "Query parameter 'dir' must be one of ['b', 'f']")
  hsErr(t, await list('1.77.0', '?dir=bar&user_id=%C3%A9'), 400, 'M_INVALID_PARAM', "Query parameter 'dir' must be one of ['b', 'f']")
  hsErr(t, await list('1.77.0', '?dir=bar&limit=-5'), 400, 'M_INVALID_PARAM', "Query parameter 'dir' must be one of ['b', 'f']")
  hsErr(t, await list('1.106.0', '?dir=bar&limit=-5'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be a positive integer.')
})

t.test('from and limit: the servlet messages before v1.106.0, the parser messages since', async (t) => {
  hsErr(t, await list('1.105.0', '?limit=-5'), 400, 'M_INVALID_PARAM', 'The limit parameter must be a positive integer.')
  hsErr(t, await list('1.105.0', '?from=-1&limit=-1'), 400, 'M_INVALID_PARAM', 'The start parameter must be a positive integer.')
  hsErr(t, await list('1.105.0', '?limit=abc'), 400, 'M_INVALID_PARAM', "Query parameter 'limit' must be an integer")
  hsErr(t, await list('1.105.0', '?limit=-5&room_id=%C3%A9'), 400, 'M_UNKNOWN', "Query parameter 'room_id' must be ascii")
  hsErr(t, await list('1.106.0', '?limit=-5'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be a positive integer.')
  hsErr(t, await list('1.106.0', '?from=-1&limit=-1'), 400, 'M_INVALID_PARAM', 'Query parameter from must be a positive integer.')
  hsErr(t, await list('1.106.0', '?limit=abc'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be an integer')
  hsErr(t, await list('1.106.0', '?limit=-5&room_id=%C3%A9'), 400, 'M_INVALID_PARAM', 'Query parameter limit must be a positive integer.')
})

t.test('unrouted requests: 400 before authentication until v1.78.0, then 404/405; DELETE of a report since v1.79.0', async (t) => {
  const unrec = { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' }
  for (const [version, unknown, wrongMethod, del] of [
    ['1.67.0', 400, 400, 400],
    ['1.77.0', 400, 400, 400],
    ['1.78.0', 404, 405, 405],
    ['1.79.0', 404, 405, 404],
    ['1.157.1', 404, 405, 404],
  ] as const) {
    const hs = await at(version)
    const u = await hs.req('GET', `${hs.admin}/no_such_endpoint`, { token: null })
    t.equal(u.status, unknown, `${version}: unknown path → ${unknown}`)
    t.same(u.body, unrec, `${version}: unknown path body`)
    const m = await hs.req('POST', `${hs.admin}/server_version`, { token: null, body: {} })
    t.equal(m.status, wrongMethod, `${version}: POST on server_version → ${wrongMethod}`)
    t.equal(m.headers.allow, undefined, `${version}: no Allow header`)
    const d = await hs.req('DELETE', `${hs.reports}/987654`, { token: null })
    t.equal(
      d.status,
      del === 404 ? 401 : del,
      `${version}: DELETE of a report without a token → ${del === 404 ? '401 (the route exists)' : del}`,
    )
    const da = await hs.req('DELETE', `${hs.reports}/987654`, { token: ADMIN_TOKEN })
    t.equal(da.status, del, `${version}: DELETE of an unknown report as admin → ${del}`)
  }
})

t.test('OPTIONS answers 204 on every path at every version, with or without a preflight', async (t) => {
  for (const version of ['1.67.0', '1.78.0', '1.157.1']) {
    const hs = await at(version)
    for (const path of [hs.reports, `${hs.admin}/no_such_endpoint`, '/_matrix/client/v3/nope']) {
      for (const headers of [{}, { origin: 'https://ui.example.invalid', 'access-control-request-method': 'DELETE' }] as Record<
        string,
        string
      >[]) {
        const res = await hs.req('OPTIONS', path, { headers })
        t.equal(res.status, 204, `${version} OPTIONS ${path}${Object.keys(headers).length ? ' (preflight)' : ''}`)
        t.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, DELETE, OPTIONS')
        t.equal(res.headers['access-control-allow-headers'], 'X-Requested-With, Content-Type, Authorization, Date')
        t.equal(res.headers['cache-control'], undefined, 'no Cache-Control without a JSON body')
        t.equal(res.text, '')
      }
    }
  }
})

t.test('headers: Cache-Control on JSON, Server names the release, Expose-Headers by release', async (t) => {
  for (const [version, expose] of [
    ['1.79.0', undefined],
    ['1.80.0', 'Synapse-Trace-Id'],
    ['1.87.0', 'Synapse-Trace-Id'],
    ['1.88.0', 'Synapse-Trace-Id, Server'],
  ] as const) {
    const res = await list(version, '', null)
    t.equal(res.headers['cache-control'], 'no-cache, no-store, must-revalidate', `${version}: Cache-Control`)
    t.equal(res.headers.server, `Synapse/${version}`, `${version}: Server`)
    t.equal(res.headers['access-control-expose-headers'], expose, `${version}: Expose-Headers ${expose ?? 'absent'}`)
    t.equal(res.headers['access-control-allow-origin'], '*')
  }
})

t.test('server_version: python_version until v1.94.0', async (t) => {
  const body = async (v: string) => {
    const hs = await at(v)
    return (await hs.req('GET', `${hs.admin}/server_version`)).body
  }
  t.same(Object.keys(await body('1.93.0')).sort(), ['python_version', 'server_version'])
  t.same(await body('1.94.0'), { server_version: '1.94.0' })
})

t.test('event_sender_user_id: ignored before v1.122.0, a filter since', async (t) => {
  for (const [version, filtered] of [
    ['1.121.0', false],
    ['1.122.0', true],
  ] as const) {
    const hs = await at(version)
    const room = await createRoom(hs, USER_TOKEN)
    await report(hs, USER_TOKEN, room, await send(hs, USER_TOKEN, room), { reason: 'x' })
    const all = await hs.req('GET', `${hs.reports}?limit=0`, { token: ADMIN_TOKEN })
    const res = await hs.req('GET', `${hs.reports}?limit=0&event_sender_user_id=%40nobody%3Aexample.invalid`, { token: ADMIN_TOKEN })
    t.ok(all.body.total > 0)
    t.equal(res.body.total, filtered ? 0 : all.body.total, `${version}: ${filtered ? 'filters' : 'ignored'}`)
    const bad = await hs.req('GET', `${hs.reports}?event_sender_user_id=%C3%A9`, { token: ADMIN_TOKEN })
    t.equal(bad.status, filtered ? 400 : 200, `${version}: a non-ASCII value is ${filtered ? 'rejected' : 'not even read'}`)
  }
})

t.test('client reports: stored unchecked before v1.78.0; 404 for unknown events since; 403 then 404 for hidden ones', async (t) => {
  for (const [version, unknown, hidden] of [
    ['1.77.0', 200, 200],
    ['1.78.0', 404, 403],
    ['1.79.0', 404, 403],
    ['1.80.0', 404, 404],
  ] as const) {
    const hs = await at(version)
    const room = await createRoom(hs, ADMIN_TOKEN, { visibility: 'private' })
    const event = await send(hs, ADMIN_TOKEN, room)
    const before = (await hs.req('GET', `${hs.reports}?limit=0`, { token: ADMIN_TOKEN })).body.total as number
    const u = await report(hs, USER_TOKEN, room, `$missing-${version}:example.test`, { reason: 'unknown event' })
    t.equal(u.status, unknown, `${version}: a report on an unknown event → ${unknown}`)
    const h = await report(hs, USER_TOKEN, room, event, { reason: 'hidden event' })
    t.equal(h.status, hidden, `${version}: a report on an event the reporter cannot see → ${hidden}`)
    if (hidden === 403) t.equal(h.body.error, "You don't have permission to access that event.")
    const nowhere = await report(hs, USER_TOKEN, '!nowhere:example.test', `$nothing-${version}:example.test`, {})
    t.equal(nowhere.status, unknown, `${version}: a report in an unknown room → ${unknown}`)
    const after = await hs.req('GET', `${hs.reports}?limit=1000&dir=b`, { token: ADMIN_TOKEN })
    const added = unknown === 200 ? 2 : 0 // the unknown event and the hidden one; the unknown room's is never listed
    t.equal(after.body.total, before + added, `${version}: ${added} reports listed more`)
    if (unknown === 200) {
      const ghost = after.body.event_reports.find((r: { event_id: string }) => r.event_id === `$missing-${version}:example.test`)
      t.equal(ghost?.sender, null, 'the report on an unknown event is listed with sender null')
      hsErr(t, await hs.req('GET', `${hs.reports}/${ghost?.id}`, { token: ADMIN_TOKEN }), 404, 'M_NOT_FOUND', 'Event report not found')
    }
  }
})

t.test('a version that does not parse is taken as the newest release', async (t) => {
  for (const v of ['1.200.0rc1', 'develop']) {
    hsErr(t, await list(v, '?dir=bar'), 400, 'M_INVALID_PARAM', "Query parameter 'dir' must be one of ['b', 'f']")
    const hs = await at(v)
    t.equal((await hs.req('GET', `${hs.admin}/nope`)).status, 404, `${v}: unknown path 404`)
    t.same(Object.keys((await hs.req('GET', `${hs.admin}/server_version`)).body), ['server_version'], `${v}: no python_version`)
  }
})

t.test(
  'event_json in the shape of the release: prev_state until v1.68.0, origin until v1.134.0, the Rust key order from v1.155.0',
  async (t) => {
    const eventJson = async (version: string) => {
      const hs = await startHs({ hsVersion: version, reports: 5 })
      t.teardown(() => hs.close())
      const page = (await hs.req('GET', `${hs.reports}?dir=f&limit=50`, { token: ADMIN_TOKEN })).body as {
        event_reports: { id: number; sender: string | null }[]
      }
      const r = page.event_reports.find((x) => x.sender !== null)!
      return (await hs.req('GET', `${hs.reports}/${r.id}`, { token: ADMIN_TOKEN })).body.event_json as Record<string, unknown>
    }
    const old = ['auth_events', 'prev_events', 'type', 'room_id', 'sender', 'content', 'depth']
    const tail = ['origin_server_ts', 'hashes', 'signatures', 'unsigned']
    // 1.67.0 as its recorded probes show it (test/fixtures/synapse/probes-1.67.0.json).
    t.same(Object.keys(await eventJson('1.67.0')), [...old, 'prev_state', 'origin', ...tail], '1.67.0: prev_state and origin')
    t.same(Object.keys(await eventJson('1.68.0')), [...old, 'origin', ...tail], '1.68.0: no prev_state')
    t.same(Object.keys(await eventJson('1.133.0')), [...old, 'origin', ...tail], '1.133.0: origin still')
    t.same(Object.keys(await eventJson('1.134.0')), [...old, ...tail], '1.134.0: no origin')
    // What a real 1.160.0 stored for a message in a version 11 room (its default).
    const rust = [
      'signatures',
      'unsigned',
      'room_id',
      'auth_events',
      'prev_events',
      'content',
      'depth',
      'hashes',
      'origin_server_ts',
      'sender',
      'type',
    ]
    t.same(Object.keys(await eventJson('1.155.0')), rust, '1.155.0: the Rust event class order')
    t.same(Object.keys(await eventJson('1.160.0')), rust, '1.160.0 likewise')
  },
)

t.test('known defects: ids, from and limit beyond 64 bits answer 500 where lib/data lists them, unless --no-deviations', async (t) => {
  const big = '99999999999999999999999'
  const internal = { errcode: 'M_UNKNOWN', error: 'Internal server error' }
  for (const version of ['1.67.0', '1.160.0']) {
    const hs = await at(version)
    const get = await hs.req('GET', `${hs.reports}/${big}`, { token: ADMIN_TOKEN })
    t.equal(get.status, 500, `${version}: GET of report ${big} → 500`)
    t.same(get.body, internal)
    t.equal((await hs.req('GET', `${hs.reports}/9223372036854775808`, { token: ADMIN_TOKEN })).status, 500, `${version}: 2^63 → 500`)
    t.equal((await hs.req('GET', `${hs.reports}/9223372036854775807`, { token: ADMIN_TOKEN })).status, 404, `${version}: 2^63-1 → 404`)
    t.equal((await list(version, `?from=${big}`)).status, 500, `${version}: from=${big} → 500`)
    t.equal((await list(version, `?limit=${big}`)).status, 500, `${version}: limit=${big} → 500`)
    t.equal((await list(version, '?from=9223372036854775807')).status, 200, `${version}: from=2^63-1 → 200`)
  }
  const before = await at('1.66.0')
  t.equal(
    (await before.req('GET', `${before.reports}/${big}`, { token: ADMIN_TOKEN })).status,
    404,
    '1.66.0 (before the examined releases): 404',
  )
  const clean = await startHs({ deviations: false })
  t.teardown(() => clean.close())
  hsErr(t, await clean.req('GET', `${clean.reports}/${big}`, { token: ADMIN_TOKEN }), 404, 'M_NOT_FOUND', 'Event report not found')
  const page = await clean.req('GET', `${clean.reports}?from=${big}`, { token: ADMIN_TOKEN })
  t.equal(page.status, 200, '--no-deviations: from beyond 64 bits lists nothing')
  t.same(page.body.event_reports, [])
})
