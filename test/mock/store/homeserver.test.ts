// The report store against a naive reference (filter everything, sort, slice), the seed's
// determinism and shape, and the Python-semantics parsers.
import t from 'tap'
import { Faker, base, en } from '@faker-js/faker'
import { seedHomeserver } from '../../../mock/seed/homeserver/index.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import { isJsonInteger, pythonInt, rawMember } from '../../../mock/homeserver/framework/parse.ts'
import type { EventReport, HomeserverStore, ReportQuery } from '../../../mock/store/homeserver/index.ts'

const options = (over = {}) => mockOptions({ reports: 3000, hsAdminToken: 'a', hsUserToken: 'u', ...over })

/** Everything the real SQL does, the slow way. */
function naive(all: EventReport[], q: ReportQuery): { ids: number[]; total: number } {
  let rows = all.filter(
    (r) =>
      (!q.userId || r.userId.includes(q.userId)) &&
      (!q.roomId || r.roomId.includes(q.roomId)) &&
      (!q.eventSenderUserId || r.sender === q.eventSenderUserId),
  )
  rows = rows.sort((a, b) => a.receivedTs - b.receivedTs || a.id - b.id)
  if (q.dir === 'b') rows.reverse()
  return { ids: rows.slice(q.from, q.from + q.limit).map((r) => r.id), total: rows.length }
}

function allReports(store: HomeserverStore): EventReport[] {
  return store.listReports({ from: 0, limit: Number.MAX_SAFE_INTEGER, dir: 'f' }).reports
}

t.test('listing equals the naive reference on random queries', async (t) => {
  const store = seedHomeserver(options())
  const all = allReports(store)
  t.equal(all.length, 3000)
  const faker = new Faker({ locale: [en, base] })
  faker.seed(7)
  const rooms = [...new Set(all.map((r) => r.roomId))]
  const reporters = [...new Set(all.map((r) => r.userId))]
  const senders = [...new Set(all.map((r) => r.sender!))]
  const sub = (s: string) => {
    const i = faker.number.int({ min: 0, max: s.length - 2 })
    return s.slice(i, i + faker.number.int({ min: 1, max: 6 }))
  }
  let mismatches = 0
  for (let i = 0; i < 600; i++) {
    const q: ReportQuery = {
      from: faker.helpers.arrayElement([0, 0, 1, 5, 17, faker.number.int({ max: 3100 })]),
      limit: faker.helpers.arrayElement([0, 1, 10, 100, 5000]),
      dir: faker.helpers.arrayElement(['b', 'f'] as const),
    }
    if (faker.datatype.boolean(0.4))
      q.roomId = faker.datatype.boolean(0.6) ? faker.helpers.arrayElement(rooms) : sub(faker.helpers.arrayElement(rooms))
    if (faker.datatype.boolean(0.4))
      q.userId = faker.datatype.boolean(0.5) ? faker.helpers.arrayElement(reporters) : sub(faker.helpers.arrayElement(reporters))
    if (faker.datatype.boolean(0.3))
      q.eventSenderUserId = faker.datatype.boolean(0.8) ? faker.helpers.arrayElement(senders) : sub(faker.helpers.arrayElement(senders))
    const got = store.listReports(q)
    const want = naive(all, q)
    const same = got.total === want.total && JSON.stringify(got.reports.map((r) => r.id)) === JSON.stringify(want.ids)
    if (!same) {
      mismatches++
      if (mismatches < 5) t.fail(`query ${JSON.stringify(q)}`, { got: { total: got.total, ids: got.reports.map((r) => r.id) }, want })
    }
  }
  t.equal(mismatches, 0, '600 random queries agree')
})

t.test('total without a substring scan: no filter, sender, one room, one reporter', async (t) => {
  const store = seedHomeserver(options())
  const r = allReports(store)[1234]!
  const queries: ReportQuery[] = [
    { from: 0, limit: 10, dir: 'b' },
    { from: 2990, limit: 10, dir: 'f' },
    { from: 0, limit: 10, dir: 'b', eventSenderUserId: r.sender! },
    { from: 0, limit: 10, dir: 'b', roomId: r.roomId },
    { from: 0, limit: 10, dir: 'f', userId: r.userId },
  ]
  for (const q of queries) t.equal(store.listReports(q).scanned, 0, JSON.stringify(q))
  // Combined filters walk only the smaller candidate set.
  const both = store.listReports({ from: 0, limit: 10, dir: 'b', roomId: r.roomId, userId: r.userId })
  const roomSize = store.listReports({ from: 0, limit: 0, dir: 'b', roomId: r.roomId }).total
  t.ok(both.scanned <= roomSize, `scanned ${both.scanned} ≤ room's ${roomSize}`)
})

t.test('inserts and deletes keep every index in order', async (t) => {
  const store = seedHomeserver(options({ reports: 300 }))
  const all = allReports(store)
  const victim = all[100]!
  t.ok(store.deleteReport(victim.id))
  t.notOk(store.deleteReport(victim.id))
  // A report back in time lands in the middle of every index.
  const added = store.addReport({
    roomId: victim.roomId,
    eventId: victim.eventId,
    userId: victim.userId,
    content: { score: -1 },
    receivedTs: victim.receivedTs,
  })
  t.equal(added.id, 302, 'next id after MAX(id)')
  const now = allReports(store)
  for (const q of [{ roomId: victim.roomId }, { userId: victim.userId }, { eventSenderUserId: victim.sender! }, {}]) {
    const got = store.listReports({ from: 0, limit: 1000, dir: 'f', ...q })
    const want = naive(now, { from: 0, limit: 1000, dir: 'f', ...q })
    t.same(
      got.reports.map((r) => r.id),
      want.ids,
      JSON.stringify(q),
    )
  }
})

t.test('the seed is deterministic and realistic', async (t) => {
  const a = seedHomeserver(options({ reports: 500 }))
  const b = seedHomeserver(options({ reports: 500 }))
  const c = seedHomeserver(options({ reports: 500, seed: 2 }))
  const dump = (s: HomeserverStore) => JSON.stringify(allReports(s).map((r) => s.item(r)))
  t.equal(dump(a), dump(b), 'same seed, same reports')
  t.not(dump(a), dump(c), 'another seed, other reports')
  const items = allReports(a).map((r) => a.item(r))
  t.same(
    items.map((i) => i.id),
    Array.from({ length: 500 }, (_, i) => i + 2),
    'ids 2.. in received_ts order',
  )
  t.ok(items.some((i) => i.score === null) && items.some((i) => i.score !== null), 'some without score')
  t.ok(items.some((i) => i.reason === null) && items.some((i) => i.reason === ''), 'some without reason, some blank')
  t.ok(items.some((i) => i.name === null) && items.some((i) => i.name !== null), 'rooms with and without names')
  t.ok(items.some((i) => i.canonical_alias === null) && items.some((i) => i.canonical_alias !== null), 'with and without aliases')
  t.ok(
    items.some((x, i) => i > 0 && items[i - 1]!.received_ts === x.received_ts),
    'some received_ts ties',
  )
  t.ok(
    items.every((i) => i.received_ts < mockOptions().epoch.getTime()),
    'all before the epoch',
  )
  t.ok(
    items.every((i) => i.sender !== null),
    'every seeded event exists',
  )
  const events = new Set(items.map((i) => i.event_id))
  t.ok(events.size < items.length, 'some events reported more than once')
  // Reporters were members of the room they reported in.
  for (const i of items) if (!a.rooms.get(i.room_id)!.members.has(i.user_id)) t.fail(`${i.user_id} not in ${i.room_id}`)
  // Token holders.
  t.equal(a.session('a')?.userId, '@admin:example.test')
  t.ok(a.users.get('@admin:example.test')!.admin)
  const u = a.session('u')!
  t.notOk(a.users.get(u.userId)!.admin)
  t.ok(a.users.size >= 10)
})

t.test('a seed of zero reports still has users and rooms; the first report gets id 2', async (t) => {
  const s = seedHomeserver(options({ reports: 0 }))
  t.equal(s.reportCount(), 0)
  t.ok(s.rooms.size >= 6)
  const room = [...s.rooms.values()][0]!
  const ev = s.appendEvent(room, room.creator, 'm.room.message', { msgtype: 'm.text', body: 'x' }, 1)
  t.equal(s.addReport({ roomId: room.roomId, eventId: ev.eventId, userId: room.creator, content: {}, receivedTs: 2 }).id, 2)
})

t.test('pythonInt follows int()', async (t) => {
  const ok: [string, 'bytes' | 'str', number][] = [
    ['5', 'bytes', 5],
    ['+5', 'bytes', 5],
    ['-5', 'bytes', -5],
    [' 5 ', 'bytes', 5],
    ['\t5\n', 'bytes', 5],
    ['1_000', 'bytes', 1000],
    ['007', 'bytes', 7],
    ['-0', 'bytes', 0],
    ['\u0665', 'str', 5],
    ['\uff11\uff12', 'str', 12],
    ['\u00a05\u3000', 'str', 5],
    ['1\u0662', 'str', 12],
    ['\ud835\udfd7', 'str', 9], // MATHEMATICAL BOLD DIGIT NINE, in a run of 50 digits
  ]
  for (const [s, mode, n] of ok) t.equal(pythonInt(s, mode), n, JSON.stringify(s))
  for (const s of ['', ' ', '+', '-', '1.0', '1e3', '0x1', '1__0', '_1', '1_', '--1', '+-1', '1 2', '\u0665', '\u00a05']) {
    t.equal(pythonInt(s, 'bytes'), null, `bytes ${JSON.stringify(s)}`)
  }
  for (const s of ['abc', '٣.٥', '\u2155']) t.equal(pythonInt(s, 'str'), null, `str ${JSON.stringify(s)}`)
})

t.test('rawMember reads top-level members as written', async (t) => {
  t.equal(rawMember('{"a":1,"score":1.0}', 'score'), '1.0')
  t.equal(rawMember('{ "x" : {"score": 2}, "score" : -3 }', 'score'), '-3')
  t.equal(rawMember('{"s\\u0063ore": 4}', 'score'), '4', 'escaped key')
  t.equal(rawMember('{"a":"}\\"score\\":9","score":5}', 'score'), '5', 'braces and quotes inside strings')
  t.equal(rawMember('{"a":[1,{"score":1}],"b":true}', 'score'), undefined)
  t.equal(rawMember('{"score":1,"score":2.5}', 'score'), '2.5', 'last one wins')
  t.ok(isJsonInteger('{"score":-100}', 'score'))
  t.notOk(isJsonInteger('{"score":1E2}', 'score'))
  t.notOk(isJsonInteger('{"score":"1"}', 'score'))
})
