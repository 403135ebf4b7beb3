// matrix-bot-sdk, the SDK the moderation bots (Mjolnir, Draupnir) are built on, runs their report
// polling against the mock: `GET /_synapse/admin/v1/event_reports?dir=f&from=N` page by page, for each
// report the reported event through `rooms/{roomId}/context/{eventId}?limit=1` (ids in the path as
// the bots send them, unencoded), and the position kept in the account data
// `org.matrix.mjolnir.report_poll` (`{ from }`, read at start; M_NOT_FOUND means "from 0"). Every call
// goes through the SDK's own MatrixClient (doRequest, getAccountData, setAccountData, createRoom,
// sendText). The bots store only `next_token`, which the server leaves out on the last page
// (Synapse: `next_token = from + page length` while `from + limit < total`), so a strict copy would
// read the last page again after every restart; this poller stores `from + page length` there, the
// value the server's own rule gives.
import t from 'tap'
import { startTestMock } from '../mock/admin/helpers.ts'
import { absence, installedVersion, required, requireClient, withoutNativeCrypto } from './npm-helpers.ts'

const PKG = 'matrix-bot-sdk'
const POLL_TYPE = 'org.matrix.mjolnir.report_poll'
const ADMIN = '/_synapse/admin/v1'
const absent = absence(PKG)
if (required && absent) t.fail(`AC_REQUIRE_CLIENTS=1 but ${absent}`)

interface BotClient {
  doRequest(method: string, endpoint: string, qs?: Record<string, string> | null, body?: unknown): Promise<any>
  getAccountData<T>(type: string): Promise<T>
  setAccountData(type: string, content: unknown): Promise<unknown>
  getUserId(): Promise<string>
  createRoom(options?: Record<string, unknown>): Promise<string>
  sendText(roomId: string, text: string): Promise<string>
}
interface BotSdk {
  MatrixClient: new (homeserverUrl: string, accessToken: string) => BotClient
  LogService: { setLevel(level: unknown): void; muteModule(name: string): void }
  LogLevel: { ERROR: unknown }
}

interface Processed {
  id: number
  eventId: string
  /** the event the context call returned */
  event: { event_id?: string; room_id?: string; type?: string }
}

/** One poll, as the bots run it at start: read the stored position, walk to the end, store it. */
async function poll(client: BotClient): Promise<{ from: number; processed: Processed[]; pages: number }> {
  let setting: { from: number } = { from: 0 }
  try {
    setting = await client.getAccountData<{ from: number }>(POLL_TYPE)
  } catch (e) {
    if ((e as { body?: { errcode?: string } }).body?.errcode !== 'M_NOT_FOUND') throw e
  }
  const start = setting.from
  let from = start
  const processed: Processed[] = []
  let pages = 0
  for (;;) {
    const page = await client.doRequest('GET', `${ADMIN}/event_reports`, { dir: 'f', from: String(from) })
    pages++
    for (const r of page.event_reports as { id: number; room_id: string; event_id: string }[]) {
      const context = await client.doRequest('GET', `${ADMIN}/rooms/${r.room_id}/context/${r.event_id}?limit=1`)
      processed.push({ id: r.id, eventId: r.event_id, event: context.event })
    }
    const next: number = page.next_token ?? from + page.event_reports.length
    if (next !== from) await client.setAccountData(POLL_TYPE, { from: next })
    if (page.next_token === undefined) return { from: start, processed, pages }
    from = next
  }
}

t.test(`${PKG}: the moderation bots' report polling`, { skip: absent }, async (t) => {
  t.comment(`${PKG} ${installedVersion(PKG)} (test/fixtures/clients), Node ${process.version}`)
  withoutNativeCrypto()
  const sdk = requireClient<BotSdk>(PKG)
  sdk.LogService.setLevel(sdk.LogLevel.ERROR)
  // It logs every failed request, the expected M_NOT_FOUND of the first start too; failures reach the test as rejections.
  sdk.LogService.muteModule('MatrixHttpClient')
  // 130 reports: two pages of the server's default limit (100), so the walk follows next_token once.
  const tm = await startTestMock(t, { seed: 26, reports: 130 })
  const hs = tm.world().hs
  const seeded = hs.listReports({ from: 0, limit: 1000, dir: 'f' }).reports.map((r) => r.id)
  t.equal(seeded.length, 130, 'the mock holds the 130 seeded reports')
  const adminToken = tm.mock.options.hsAdminToken

  const first = new sdk.MatrixClient(tm.url, adminToken)
  // Before moderating, the bots ask whether they are a server admin (the user id unencoded in the path).
  const me = await first.getUserId()
  t.same(await first.doRequest('GET', `${ADMIN}/users/${me}/admin`), { admin: true }, `${me} is a server admin`)
  const run1 = await poll(first)
  t.equal(run1.from, 0, 'first start: no stored position (M_NOT_FOUND), polling starts at 0')
  t.equal(run1.pages, 2, 'two pages, the second reached through next_token')
  t.same(
    run1.processed.map((p) => p.id),
    seeded,
    'every seeded report processed once, oldest first',
  )
  const mismatched = run1.processed.filter((p) => p.event?.event_id !== p.eventId)
  t.same(mismatched, [], 'the context call returned the reported event for every report')
  t.same(await first.getAccountData(POLL_TYPE), { from: 130 }, 'the position is stored in account data')

  // A restart: a new client instance, nothing kept in memory.
  const second = new sdk.MatrixClient(tm.url, adminToken)
  const run2 = await poll(second)
  t.equal(run2.from, 130, 'the restarted poller reads its position back')
  t.equal(run2.processed.length, 0, 'and processes 0 reports')

  // A user reports an event through the client API, with the SDK too.
  const reporter = new sdk.MatrixClient(tm.url, tm.mock.options.hsUserToken)
  const roomId = await reporter.createRoom({ preset: 'public_chat', name: 'bot-sdk report room' })
  const eventId = await reporter.sendText(roomId, 'a message to report')
  const refused = await reporter.doRequest('GET', `${ADMIN}/users/${await reporter.getUserId()}/admin`).then(
    () => undefined,
    (e: { statusCode?: number; body?: { errcode?: string } }) => [e.statusCode, e.body?.errcode],
  )
  t.same(refused, [403, 'M_FORBIDDEN'], 'a user who is no server admin is refused the admin API (the bots read that as "not admin")')
  t.same(
    await reporter.doRequest('POST', `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/report/${encodeURIComponent(eventId)}`, null, {
      reason: 'spam',
    }),
    {},
    'the report is filed through the client API ({} back)',
  )
  const run3 = await poll(second)
  t.same(
    run3.processed.map((p) => [p.eventId, p.event?.room_id]),
    [[eventId, roomId]],
    'the new report is processed, with its event from the context call',
  )
  const run4 = await poll(new sdk.MatrixClient(tm.url, adminToken))
  t.equal(run4.processed.length, 0, 'and only once: the next poll, from another restart, processes 0')
  t.same(await second.getAccountData(POLL_TYPE), { from: 131 }, 'the stored position moved by one')
})
