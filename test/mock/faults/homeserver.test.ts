// Every homeserver-side fault is wired: switched on, it changes what a client observes, and switched
// off again the mock is clean. (That the conformance suites catch each one is tested with the suites.)
import t from 'tap'
import { homeserverFaults } from '../../../mock/faults/homeserver.ts'
import { ADMIN_TOKEN, USER_TOKEN, createRoom, report, send, startHs, type Hs } from '../homeserver/helpers.ts'

// Without the known defects of the claimed release, as the fault matrix serves the mock.
const hs = await startHs({ reports: 40, deviations: false })
t.teardown(() => hs.close())
const room = await createRoom(hs, USER_TOKEN)
const ev = await send(hs, USER_TOKEN, room)
// A report without score, so that null scores are certain to be listed.
await report(hs, USER_TOKEN, room, ev, {})

const get = (path: string, token: string | null = ADMIN_TOKEN) => hs.req('GET', path, { token })
const ur = `${hs.admin}/user_reports`
const target = [...hs.mock.world().hs.users.keys()].find((u) => !u.startsWith('@admin:'))!
const fileUserReport = (userId: string, reason: string) =>
  hs.req('POST', `/_matrix/client/v3/users/${encodeURIComponent(userId)}/report`, { token: USER_TOKEN, body: { reason } })

// The event context around messages of a room with a few of them.
const msgs = [await send(hs, USER_TOKEN, room), await send(hs, USER_TOKEN, room), await send(hs, USER_TOKEN, room)]
const first = ev
const mid = msgs[1]!
const userOf = [...hs.mock.world().hs.allTokens()].find(([tok]) => tok === USER_TOKEN)![1].userId
const alias = [...hs.mock.world().hs.aliases.keys()][0]!
// A personal session of an active auth-service user, with the client-server API scope but not the admin one.
const actor = hs.mock
  .world()
  .mas.users.all()
  .find((u) => u.lockedAt === null && u.deactivatedAt === null)!
const plainMasToken = hs.mock.world().mas.createPersonalSession(
  {
    ownerUserId: null,
    ownerClientId: null,
    actorUserId: actor.id,
    humanName: 'fault probe',
    scope: 'urn:matrix:org.matrix.msc2967.client:api:*',
    expiresIn: 3600,
  },
  Date.now() * 1000,
).token.value
const ctx = (q: string, eventId: string) => `${hs.admin}/rooms/${encodeURIComponent(room)}/context/${encodeURIComponent(eventId)}${q}`

/** Each probe returns something that differs between the clean mock and the faulty one. */
const probes: Record<string, (hs: Hs) => Promise<unknown>> = {
  'reports-next-token-on-last-page': async () => (await get(`${hs.reports}?from=35`)).body.next_token,
  'reports-next-token-off-by-one': async () => (await get(`${hs.reports}?limit=5`)).body.next_token,
  'reports-dir-ignored': async () => (await get(`${hs.reports}?dir=f&limit=1`)).body.event_reports[0].id,
  'reports-total-ignores-filters': async () => (await get(`${hs.reports}?room_id=${encodeURIComponent(room)}`)).body.total,
  'reports-user-filter-exact': async () =>
    (await get(`${hs.reports}?user_id=admin`)).body.total + (await get(`${hs.reports}?user_id=%40`)).body.total,
  'reports-room-filter-exact': async () => (await get(`${hs.reports}?room_id=%21`)).body.total,
  'reports-sender-filter-ignored': async () => (await get(`${hs.reports}?event_sender_user_id=%40nobody%3Aexample.test`)).body.total,
  'reports-negative-limit-accepted': async () => (await get(`${hs.reports}?limit=-5`)).status,
  'reports-dir-message': async () => (await get(`${hs.reports}?dir=x`)).body.error,
  'reports-null-score-as-zero': async () => (await get(`${hs.reports}?limit=1`)).body.event_reports[0].score,
  'reports-extra-key': async () => Object.keys((await get(`${hs.reports}?limit=1`)).body.event_reports[0]).length,
  'reports-missing-event-json': async () => 'event_json' in (await get(`${hs.reports}/2`)).body,
  'reports-invalid-id-404': async () => (await get(`${hs.reports}/abc`)).status,
  'reports-not-found-500': async () => (await get(`${hs.reports}/9999`)).status,
  'reports-oversized-id-500': async () => (await get(`${hs.reports}/99999999999999999999999`)).status,
  'reports-listing-overflow-500': async () =>
    (await get(`${hs.reports}?from=99999999999999999999999`)).status + (await get(`${hs.reports}?limit=99999999999999999999999`)).status,
  'reports-delete-keeps-report': async () => {
    // Delete a fresh report each time and see whether it is still there.
    await report(hs, USER_TOKEN, room, ev, {})
    const id = (await get(`${hs.reports}?limit=1`)).body.event_reports[0].id
    await hs.req('DELETE', `${hs.reports}/${id}`, { token: ADMIN_TOKEN })
    return (await get(`${hs.reports}/${id}`)).status
  },
  'user-reports-extra-key': async () => Object.keys((await get(`${ur}?limit=1`)).body.user_reports[0]).length,
  'user-reports-dir-ignored': async () => (await get(`${ur}?dir=f&limit=1`)).body.user_reports[0].id,
  'user-reports-next-token-on-last-page': async () => (await get(`${ur}?from=10`)).body.next_token,
  'user-reports-next-token-off-by-one': async () => (await get(`${ur}?limit=5`)).body.next_token,
  'user-reports-total-ignores-filters': async () => (await get(`${ur}?target_user_id=${encodeURIComponent(target)}`)).body.total,
  'user-reports-user-filter-on-target': async () => (await get(`${ur}?user_id=${encodeURIComponent(target)}`)).body.total,
  'user-reports-target-filter-exact': async () => (await get(`${ur}?target_user_id=%40`)).body.user_reports.length,
  'user-reports-negative-limit-accepted': async () => (await get(`${ur}?limit=-5`)).status,
  'user-reports-not-found-message': async () => (await get(`${ur}/9999`)).body.error,
  'user-reports-single-users-swapped': async () => (await get(`${ur}/2`)).body.user_id,
  'user-reports-received-ts-seconds': async () => (await get(`${ur}/2`)).body.received_ts,
  'user-reports-delete-keeps-report': async () => {
    await fileUserReport(target, 'to delete')
    const id = (await get(`${ur}?limit=1`)).body.user_reports[0].id
    await hs.req('DELETE', `${ur}/${id}`, { token: ADMIN_TOKEN })
    return (await get(`${ur}/${id}`)).status
  },
  'user-reports-oversized-id-500': async () => (await get(`${ur}/99999999999999999999999`)).status,
  'context-ignores-limit': async () => (await get(ctx('?limit=1', first))).body.events_after.length,
  'context-wrong-event': async () => (await get(ctx('?limit=2', mid))).body.event.event_id,
  'context-no-state': async () => (await get(ctx('?limit=1', mid))).body.state.length,
  'rooms-total-is-page': async () => (await get(`${hs.admin}/rooms?limit=2`)).body.total_rooms,
  'rooms-limit-zero-all': async () => (await get(`${hs.admin}/rooms?limit=0`)).body.rooms.length,
  'rooms-dir-ignored': async () => (await get(`${hs.admin}/rooms?dir=b&limit=1`)).body.rooms[0].room_id,
  'rooms-negative-from-accepted': async () => (await get(`${hs.admin}/rooms?from=-1`)).status,
  'rooms-listing-overflow-500': async () =>
    (await get(`${hs.admin}/rooms?from=99999999999999999999`)).status + (await get(`${hs.admin}/rooms?limit=99999999999999999999`)).status,
  'room-unknown-200': async () => (await get(`${hs.admin}/rooms/!nowhere%3Aexample.test`)).status,
  'room-members-total-off': async () => (await get(`${hs.admin}/rooms/${encodeURIComponent(room)}/members`)).body.total,
  'user-admin-always-false': async () =>
    (await get(`${hs.admin}/users/${encodeURIComponent(`@admin:${hs.mock.options.serverName}`)}/admin`)).body.admin,
  'account-data-unset-empty': async () =>
    (await get(`/_matrix/client/v3/user/${encodeURIComponent(userOf)}/account_data/org.example.never`, USER_TOKEN)).status,
  'account-data-put-dropped': async () => {
    const n = String(Math.random())
    await hs.req('PUT', `/_matrix/client/v3/user/${encodeURIComponent(userOf)}/account_data/org.example.put`, {
      token: USER_TOKEN,
      body: { n },
    })
    return (await get(`/_matrix/client/v3/user/${encodeURIComponent(userOf)}/account_data/org.example.put`, USER_TOKEN)).body.n === n
  },
  'alias-unknown': async () => (await get(`/_matrix/client/v3/directory/room/${encodeURIComponent(alias)}`, null)).status,
  'server-keys-bad-signature': async () => (await get('/_matrix/key/v2/server', null)).body.signatures,
  'user-reports-non-admin-allowed': async () => (await get(ur, USER_TOKEN)).status,
  'client-user-report-unknown-target-stored': async () => {
    await fileUserReport('@nobody:example.test', 'dropped')
    const found = (await get(`${ur}?target_user_id=nobody`)).body.user_reports as { id: number }[]
    for (const r of found) await hs.req('DELETE', `${ur}/${r.id}`, { token: ADMIN_TOKEN })
    return found.length
  },
  'client-user-report-long-reason-accepted': async () => {
    const res = await fileUserReport(target, 'y'.repeat(1001))
    for (const r of (await get(`${ur}?limit=5`)).body.user_reports as { id: number; reason: string }[])
      if (r.reason.length > 1000) await hs.req('DELETE', `${ur}/${r.id}`, { token: ADMIN_TOKEN })
    return res.status
  },
  'server-version-extra-key': async () => Object.keys((await get(`${hs.admin}/server_version`, null)).body).length,
  'client-report-score-string-accepted': async () => (await report(hs, USER_TOKEN, room, ev, { score: 'x' })).status,
  'hs-auth-delegated-admin-without-scope': async () => (await get(hs.reports, plainMasToken)).status,
  'hs-auth-non-admin-allowed': async () => (await get(hs.reports, USER_TOKEN)).status,
  'hs-auth-missing-token-403': async () => (await get(hs.reports, null)).status,
  'hs-auth-unknown-token-no-soft-logout': async () => 'soft_logout' in (await get(hs.reports, 'nope')).body,
  'background-updates-hidden': async () => {
    await hs.req('POST', '/_mock/background-updates', { body: {} })
    const n = Object.keys((await get(`${hs.admin}/background_updates/status`)).body.current_updates).length
    await hs.req('DELETE', '/_mock/background-updates')
    return n
  },
}

t.test('every homeserver fault has a probe', async (t) => {
  t.same(Object.keys(probes).sort(), homeserverFaults.map((f) => f.name).sort())
  t.ok(homeserverFaults.length >= 10)
  for (const f of homeserverFaults) t.ok(f.description.length > 10, `${f.name} is described`)
})

for (const fault of homeserverFaults) {
  t.test(fault.name, async (t) => {
    const probe = probes[fault.name]
    if (!probe) return t.fail('no probe')
    hs.mock.faults.set([])
    const clean = await probe(hs)
    hs.mock.faults.set([fault.name])
    const faulty = await probe(hs)
    hs.mock.faults.set([])
    t.not(JSON.stringify(faulty), JSON.stringify(clean), `clean ${JSON.stringify(clean)} vs faulty ${JSON.stringify(faulty)}`)
    t.same(await probe(hs), clean, 'clean again')
  })
}
