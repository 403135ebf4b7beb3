// synadm, Debian's admin CLI for Synapse, against the mock, configured as an operator would (a
// config file with the base URL, the admin and client API paths and an admin token; non-interactive,
// minified JSON). It runs inside the Debian root filesystem that .ci/synapse.sh makes. synadm exits 0
// even when the server refuses (it prints a warning and the error body), so each command is judged by
// its exit status and its parsed output, compared with the mock's own answer to the same request.
// synadm has no event-report command: its `raw` command reads them. What it calls that the mock does
// not serve (the users admin API: `user list`, `user details`, `user membership`, `user whois`) is
// asserted as not served, as the README says.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { visible } from '../../lib/escape.ts'
import { startTestMock } from '../mock/admin/helpers.ts'
import { debianClients, inRoot, required, scratch, type Ran } from '../fixtures/clients/debian/chroot.ts'

const PKG = 'synadm'
const avail = await debianClients([PKG])

if (!avail.ok) {
  if (required) t.fail(`synadm must run here (AC_REQUIRE_SYNAPSE=1) but cannot: ${avail.reason}`)
  else t.pass(`skipped: ${avail.reason}; set AC_REQUIRE_SYNAPSE=1 to make this a failure`, { skip: true })
} else {
  t.test(`${PKG}: its commands against the mock`, async (t) => {
    t.comment(`${PKG} ${avail.versions[PKG]} (Debian, in ${avail.root})`)
    const tm = await startTestMock(t, { seed: 26 })
    const adminToken = tm.mock.options.hsAdminToken
    const dir = scratch(t, avail.root)
    // JSON is YAML. The token stays in this 0700 file inside the root, never on a command line.
    writeFileSync(
      join(dir.outside, 'synadm.yaml'),
      JSON.stringify({
        user: 'admin',
        token: adminToken,
        base_url: tm.url,
        admin_path: '/_synapse/admin',
        matrix_path: '/_matrix',
        format: 'minified',
        timeout: 30,
        server_discovery: 'well-known',
        homeserver: 'auto-retrieval',
        ssl_verify: false,
      }),
      { mode: 0o600 },
    )
    const synadm = async (...args: string[]): Promise<Ran & { json: any }> => {
      const r = await inRoot(avail.root, ['/usr/bin/synadm', '--batch', '-c', `${dir.inside}/synadm.yaml`, '-o', 'minified', ...args])
      let json: unknown
      try {
        json = JSON.parse(r.stdout)
      } catch {
        json = undefined
      }
      if (json === undefined || r.code !== 0)
        t.comment(`synadm ${args.join(' ')}: exit ${r.code}\n${visible(r.stdout.slice(0, 500))}\n${visible(r.stderr.slice(0, 500))}`)
      return { ...r, json }
    }
    const admin = (p: string) => tm.get(`/_synapse/admin${p}`, adminToken)

    const version = await synadm('version')
    t.equal(version.code, 0, 'synadm version exits 0')
    t.same(version.json, { server_version: '1.160.0' }, 'and prints the release the mock claims')

    const rooms = await admin('/v1/rooms')
    t.equal(rooms.status, 200, "the mock's own room list answers")
    const list = await synadm('room', 'list')
    t.equal(list.code, 0, 'synadm room list exits 0')
    t.ok(rooms.body.rooms.length > 0, `the mock seeded ${rooms.body.rooms.length} rooms`)
    t.same(
      list.json?.rooms?.map((r: { room_id: string }) => r.room_id),
      rooms.body.rooms.map((r: { room_id: string }) => r.room_id),
      'synadm room list shows every seeded room, in the order the server gave',
    )
    t.equal(list.json?.total_rooms, rooms.body.total_rooms, 'with the total')
    const page = await synadm('room', 'list', '--from', '2', '--limit', '3', '--sort', 'joined_members', '--reverse')
    const pageMock = await admin('/v1/rooms?from=2&limit=3&order_by=joined_members&dir=b')
    t.equal(page.code, 0, 'synadm room list --from --limit --sort --reverse exits 0')
    t.equal(page.json?.rooms?.length, 3, 'and shows one page of 3')
    t.same(page.json, pageMock.body, 'the same page as the mock answers to from, limit, order_by and dir')

    const roomId: string = rooms.body.rooms[0].room_id
    const details = await synadm('room', 'details', roomId)
    t.equal(details.code, 0, 'synadm room details exits 0')
    t.same(details.json, (await admin(`/v1/rooms/${encodeURIComponent(roomId)}`)).body, 'and shows the room as the mock serves it')
    t.equal(details.json?.room_id, roomId, 'the room asked for')
    const members = await synadm('room', 'members', roomId)
    const membersMock = await admin(`/v1/rooms/${encodeURIComponent(roomId)}/members`)
    t.equal(members.code, 0, 'synadm room members exits 0')
    t.ok(membersMock.body.total > 0, `the room has ${membersMock.body.total} members`)
    t.same(members.json, membersMock.body, 'and lists them with the total')
    const state = await synadm('room', 'state', roomId)
    const stateMock = await admin(`/v1/rooms/${encodeURIComponent(roomId)}/state`)
    t.equal(state.code, 0, 'synadm room state exits 0')
    t.same(
      state.json?.state?.map((e: { event_id: string }) => e.event_id),
      stateMock.body.state.map((e: { event_id: string }) => e.event_id),
      `and shows the room's ${stateMock.body.state.length} state events`,
    )
    t.ok(
      state.json?.state?.some((e: { type: string }) => e.type === 'm.room.create'),
      'the create event among them',
    )

    // Alias resolution goes through the client API (r0, as synadm still asks).
    const aliased = rooms.body.rooms.find((r: { canonical_alias: string | null }) => r.canonical_alias)
    t.ok(aliased, 'a seeded room has a canonical alias')
    const resolved = await synadm('room', 'resolve', aliased.canonical_alias)
    t.equal(resolved.code, 0, 'synadm room resolve exits 0')
    t.equal(resolved.json, aliased.room_id, 'and resolves the alias to its room')
    const unknownAlias = await synadm('room', 'resolve', '#no-such-alias:example.test')
    t.match(unknownAlias.json, { errcode: 'M_NOT_FOUND' }, 'an unknown alias: M_NOT_FOUND')
    t.match(unknownAlias.stderr, /status code 404/, 'synadm warns of the 404')

    // Event reports: synadm has no command for them; its raw command reads the admin API.
    const reportsMock = await admin('/v1/event_reports?limit=100')
    t.ok(reportsMock.body.total > 0, `the mock seeded ${reportsMock.body.total} event reports`)
    const reports = await synadm('raw', 'v1/event_reports?limit=100')
    t.equal(reports.code, 0, 'synadm raw v1/event_reports exits 0')
    t.same(
      reports.json?.event_reports?.map((r: { id: number }) => r.id),
      reportsMock.body.event_reports.map((r: { id: number }) => r.id),
      'and shows every seeded report id',
    )
    t.equal(reports.json?.total, reportsMock.body.total, 'with the total')
    const firstId: number = reportsMock.body.event_reports[0].id
    const one = await synadm('raw', `v1/event_reports/${firstId}`)
    t.same(one.json, (await admin(`/v1/event_reports/${firstId}`)).body, `synadm raw v1/event_reports/${firstId} shows that report`)
    const userReports = await synadm('raw', 'v1/user_reports')
    t.same(userReports.json, (await admin('/v1/user_reports')).body, 'synadm raw v1/user_reports shows the user reports')

    // Not served: the users admin API (README, "Homeserver families"). synadm finds the server name for
    // a bare localpart through GET /_matrix/key/v2/server first, which the mock serves.
    const owner: string = details.json.creator
    const localpart = owner.slice(1, owner.indexOf(':'))
    const unserved: [string, string[]][] = [
      ['GET /_synapse/admin/v2/users', ['user', 'list']],
      ['GET /_synapse/admin/v2/users/{user}', ['user', 'details', localpart]],
      ['GET /_synapse/admin/v1/users/{user}/joined_rooms', ['user', 'membership', owner]],
      ['GET /_synapse/admin/v1/whois/{user}', ['user', 'whois', owner]],
    ]
    for (const [route, args] of unserved) {
      const r = await synadm(...args)
      t.match(r.json, { errcode: 'M_UNRECOGNIZED' }, `synadm ${args.join(' ')}: ${route} is not served (M_UNRECOGNIZED)`)
      t.match(r.stderr, /status code 404/, 'synadm warns of the 404')
      t.equal(r.code, 0, 'and exits 0 all the same (its way with every refusal)')
    }
    const log = await tm.log()
    const paths = log.responses.map((l) => `${l.status} ${l.method} ${l.path.split('?')[0]}`)
    t.ok(paths.includes('200 GET /_matrix/key/v2/server'), 'user details with a bare localpart asked the key endpoint for the server name')
    t.ok(
      paths.includes(`404 GET /_synapse/admin/v2/users/${encodeURIComponent(owner)}`),
      'and then asked for the full user id it built from it',
    )
  })
}
