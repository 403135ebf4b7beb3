// matrix-nio, Debian's python3-matrix-nio, against the mock: a script of ours
// (test/fixtures/clients/debian/nio_report.py) signs in with a password through nio's AsyncClient,
// asks whoami, creates a room, sends a message and reports it (nio has no report call: the script
// goes through nio's own request path); then the project's own client finds that report in the
// homeserver admin listing. It runs inside the Debian root filesystem that .ci/synapse.sh makes.
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { visible } from '../../lib/escape.ts'
import { SEEDED_PASSWORD } from '../../mock/seed/mas/users.ts'
import { startTestMock } from '../mock/admin/helpers.ts'
import { debianClients, inRoot, required, scratch } from '../fixtures/clients/debian/chroot.ts'

const PKG = 'python3-matrix-nio'
const SCRIPT = new URL('../fixtures/clients/debian/nio_report.py', import.meta.url)
const avail = await debianClients([PKG])

if (!avail.ok) {
  if (required) t.fail(`matrix-nio must run here (AC_REQUIRE_SYNAPSE=1) but cannot: ${avail.reason}`)
  else t.pass(`skipped: ${avail.reason}; set AC_REQUIRE_SYNAPSE=1 to make this a failure`, { skip: true })
} else {
  t.test(`${PKG}: password login, a report, and the admin listing shows it`, async (t) => {
    t.comment(`${PKG} ${avail.versions[PKG]} (Debian, in ${avail.root})`)
    const tm = await startTestMock(t, { seed: 26 })
    const adminToken = tm.mock.options.hsAdminToken
    // The owner of the seeded user token is an ordinary seeded user with the seeded password.
    const who = await tm.get('/_matrix/client/v3/account/whoami', tm.mock.options.hsUserToken)
    t.equal(who.status, 200, 'the seeded user token names its owner')
    const userId: string = who.body.user_id
    const localpart = userId.slice(1, userId.indexOf(':'))
    const before = await tm.get('/_synapse/admin/v1/event_reports?dir=b&limit=1', adminToken)
    t.equal(before.status, 200, 'the admin listing answers before the report')

    const dir = scratch(t, avail.root)
    copyFileSync(SCRIPT, join(dir.outside, 'nio_report.py'))
    const ran = await inRoot(avail.root, ['/usr/bin/python3', `${dir.inside}/nio_report.py`, tm.url, localpart], `${SEEDED_PASSWORD}\n`)
    const steps = ran.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { step: string; ok: boolean; [k: string]: unknown })
    for (const s of steps) t.comment(visible(JSON.stringify(s)))
    if (ran.stderr.trim()) t.comment(`stderr: ${visible(ran.stderr.trim())}`)
    t.equal(ran.code, 0, 'the nio script exits 0')
    t.same(
      steps.map((s) => [s.step, s.ok]),
      [
        ['login', true],
        ['whoami', true],
        ['room_create', true],
        ['room_send', true],
        ['report', true],
      ],
      'every step nio took succeeded, in order',
    )
    const step = (name: string): Record<string, unknown> => steps.find((s) => s.step === name) ?? {}
    t.equal(step('login').user_id, userId, 'nio signed in as the seeded user')
    t.equal(step('whoami').user_id, userId, 'whoami with the token nio got names that user')
    const roomId = step('report').room_id as string
    const eventId = step('report').event_id as string
    t.match(roomId, /^!.+:/, 'nio created a room')
    t.match(eventId, /^\$/, 'nio sent an event')

    // The project's own client reads the admin listing, newest first.
    const after = await tm.get('/_synapse/admin/v1/event_reports?dir=b&limit=1', adminToken)
    t.equal(after.status, 200, 'the admin listing answers')
    t.equal(after.body.total, before.body.total + 1, 'the listing holds one report more')
    const newest = after.body.event_reports[0]
    t.match(
      newest,
      {
        room_id: roomId,
        event_id: eventId,
        user_id: userId,
        sender: userId,
        reason: 'reported by matrix-nio',
        score: -100,
        name: 'nio report room',
      },
      'the newest report is the one nio filed, with its room, event, reporter, reason and score',
    )
    const one = await tm.get(`/_synapse/admin/v1/event_reports/${newest.id}`, adminToken)
    t.equal(one.status, 200, 'and it reads by its id')
    t.equal(one.body.event_id, eventId, 'as the same event')
  })
}
