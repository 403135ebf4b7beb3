// Model-based property test of the homeserver store's report indexes (main order, by room, by
// reporter, by sender, and the unlisted set): fast-check draws sequences of report filings,
// deletions and lost room stats, and after each step every listing shape (no filter, each filter
// alone in substring and exact mode, all three together; both directions, drawn offsets and limits)
// is compared with a brute-force filter of the store's own report records.
import t from 'tap'
import fc from 'fast-check'
import { HomeserverStore, type EventReport, type ReportQuery } from '../../../mock/store/homeserver/index.ts'

const RUNS = Number(process.env.STORE_PROPERTY_RUNS ?? 200)

function world(): { store: HomeserverStore; events: { eventId: string; roomId: string }[] } {
  const store = new HomeserverStore('model.test', 'ed25519:a_test', 7)
  const events: { eventId: string; roomId: string }[] = []
  for (const name of ['alice', 'bob', 'carol', 'alicia']) store.addUser(name, { createdTs: 0 })
  for (const r of ['!aaa:model.test', '!aab:model.test', '!zzz:model.test']) {
    const room = store.createRoom(r, '@alice:model.test', { joinRule: 'public', ts: 1 })
    for (const u of ['@bob:model.test', '@carol:model.test', '@alicia:model.test']) store.join(room, u, 2)
    for (const sender of ['@alice:model.test', '@bob:model.test', '@carol:model.test']) {
      events.push({ eventId: store.appendEvent(room, sender, 'm.room.message', { body: 'x' }, 3).eventId, roomId: r })
    }
  }
  return { store, events }
}

type Op = { k: 'add'; event: number; reporter: number; ts: number } | { k: 'delete'; n: number } | { k: 'drop-stats'; room: number }
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ k: fc.constant('add' as const), event: fc.nat(), reporter: fc.nat(3), ts: fc.integer({ min: 0, max: 20 }) }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('delete' as const), n: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('drop-stats' as const), room: fc.nat(2) }) },
)
const REPORTERS = ['@alice:model.test', '@bob:model.test', '@carol:model.test', '@alicia:model.test']
const ROOMS = ['!aaa:model.test', '!aab:model.test', '!zzz:model.test']

const queryArb: fc.Arbitrary<ReportQuery> = fc.record(
  {
    from: fc.nat(12),
    limit: fc.integer({ min: 0, max: 8 }),
    dir: fc.constantFrom('b' as const, 'f' as const),
    userId: fc.constantFrom('ali', 'alice', '@bob:model.test', 'nobody', 'a'),
    userMode: fc.constantFrom('substring' as const, 'exact' as const),
    roomId: fc.constantFrom('!aa', '!aaa:model.test', 'zz', 'model', 'none'),
    roomMode: fc.constantFrom('substring' as const, 'exact' as const),
    eventSenderUserId: fc.constantFrom(...REPORTERS, '@nobody:model.test'),
  },
  { requiredKeys: ['from', 'limit', 'dir'] },
)

function brute(records: Map<number, EventReport>, listable: (r: EventReport) => boolean, q: ReportQuery): { ids: number[]; total: number } {
  const match = (v: string | null, want: string | undefined, mode: string | undefined) =>
    want === undefined || want === '' || (v !== null && (mode === 'exact' ? v === want : v.includes(want)))
  const all = [...records.values()]
    .filter(listable)
    .filter(
      (r) =>
        match(r.userId, q.userId, q.userMode) && match(r.roomId, q.roomId, q.roomMode) && match(r.sender, q.eventSenderUserId, 'exact'),
    )
    .sort((a, b) => a.receivedTs - b.receivedTs || a.id - b.id)
  if (q.dir === 'b') all.reverse()
  return { ids: all.slice(q.from, q.from + Math.max(0, q.limit)).map((r) => r.id), total: all.length }
}

t.test('report listings and totals agree with a brute-force filter after every write', async (t) => {
  let runs = 0
  let steps = 0
  let queries = 0
  fc.assert(
    fc.property(
      fc.array(fc.record({ op: opArb, queries: fc.array(queryArb, { minLength: 4, maxLength: 4 }) }), {
        minLength: 5,
        maxLength: 40,
        size: 'max',
      }),
      (seq) => {
        runs++
        const { store, events } = world()
        // the model: every report ever filed and not deleted, and which rooms lost their stats
        const records = new Map<number, EventReport>()
        const noStats = new Set<string>()
        const listable = (r: EventReport) => !noStats.has(r.roomId)
        for (const { op, queries: qs } of seq) {
          steps++
          if (op.k === 'add') {
            const ev = events[op.event % events.length]!
            const r = store.addReport({
              roomId: ev.roomId,
              eventId: ev.eventId,
              userId: REPORTERS[op.reporter]!,
              content: { reason: 'model' },
              receivedTs: op.ts,
            })
            records.set(r.id, r)
          } else if (op.k === 'delete') {
            const ids = [...records.keys()]
            const id = ids.length ? ids[op.n % ids.length]! : 999
            if (store.deleteReport(id) !== records.delete(id)) throw new Error(`delete ${id} disagrees with the model`)
          } else {
            store.dropRoomStats(ROOMS[op.room]!)
            noStats.add(ROOMS[op.room]!)
          }
          if (store.reportCount() !== [...records.values()].filter(listable).length) throw new Error('reportCount disagrees')
          for (const q of [{ from: 0, limit: 100, dir: 'f' as const }, ...qs]) {
            queries++
            const got = store.listReports(q)
            const want = brute(records, listable, q)
            const ids = got.reports.map((r) => r.id)
            if (got.total !== want.total || ids.join() !== want.ids.join()) {
              throw new Error(
                `${JSON.stringify(q)}: store ${JSON.stringify({ ids, total: got.total })}, brute force ${JSON.stringify(want)}`,
              )
            }
          }
          for (const r of records.values()) {
            const seen = store.getReport(r.id) !== undefined
            if (seen !== listable(r)) throw new Error(`getReport(${r.id}) ${seen}, listable ${listable(r)}`)
          }
        }
      },
    ),
    { numRuns: RUNS, seed: 15 },
  )
  t.comment(`${runs} runs, ${steps} writes (sequences of 5–40), ${queries} listings compared`)
  t.ok(queries > 0)
})
