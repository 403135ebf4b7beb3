// One identity world (mock/seed/identity.ts): every homeserver user of the seeded world is an
// auth-service user of the same username and every auth-service user has a homeserver profile, the same
// for the same seed; the users added to the auth service get e-mail addresses as the seeded ones do.
import t from 'tap'
import { buildWorld } from '../../../mock/seed/index.ts'
import { mockOptions } from '../../../mock/core/options.ts'

const options = mockOptions({ port: 0, logFile: null, reports: 200, tokenSecret: 'fixed' })
const world = buildWorld(options)
const { mas, hs } = world

t.test('the two sides name the same users', async (t) => {
  const masNames = new Set(mas.users.all().map((u) => u.username))
  const hsNames = new Set([...hs.users.values()].map((u) => u.localpart))
  t.same(
    [...hsNames].filter((n) => !masNames.has(n)),
    [],
    'every homeserver user is an auth-service user',
  )
  t.same(
    [...masNames].filter((n) => !hsNames.has(n)),
    [],
    'every auth-service user is a homeserver user',
  )
  t.ok(hsNames.size >= 20, `${hsNames.size} users in all`)
  t.equal(mas.findUserByUsername('admin')?.admin, true, 'the homeserver admin is an auth-service admin')
  for (const u of mas.users.all()) t.ok(hs.users.get(`@${u.username}:${options.serverName}`)?.displayName, `${u.username} has a profile`)
})

t.test('users added to the auth service have e-mail addresses like the seeded ones, and the world is the same again', async (t) => {
  const added = [...hs.users.values()].map((u) => mas.findUserByUsername(u.localpart)!)
  const withEmail = added.filter((u) => mas.extra.emails.all().some((e) => e.userId === u.id))
  t.ok(withEmail.length >= added.length / 2, `${withEmail.length} of ${added.length} have an address`)
  const again = buildWorld(options)
  t.same(
    again.mas.users.all().map((u) => [u.id, u.username]),
    mas.users.all().map((u) => [u.id, u.username]),
    'same ids and names',
  )
  t.same([...again.hs.users.keys()], [...hs.users.keys()])
})
