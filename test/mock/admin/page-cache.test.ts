// Whole listing pages kept between writes (mock/admin/framework/pagination.ts): a page served again
// is the same bytes with the same log stats, a write to the collection shows at once, and a fault
// bypasses the kept page.
import t from 'tap'
import { API, startTestMock } from './helpers.ts'

const tm = await startTestMock(t, { seed: 7, sessions: 120 })
const first = `${API}/compat-sessions?page[first]=10`
const active = `${API}/compat-sessions?filter[status]=active&page[first]=10`

t.test('a page served again: same bytes, content-length, log stats', async (t) => {
  const a = await tm.get(first)
  const b = await tm.get(first)
  t.equal(a.status, 200)
  t.equal(b.text, a.text, 'the same body')
  t.equal(b.headers.get('content-length'), String(Buffer.byteLength(a.text)), 'content-length is the body length')
  t.equal(a.body.data.length, 10, 'a full page')
  const head = await tm.req('HEAD', first, { headers: { authorization: `Bearer ${tm.admin}` } })
  t.equal(head.status, 200)
  t.equal(head.text, '', 'HEAD: no body')
  t.equal(head.headers.get('content-length'), String(Buffer.byteLength(a.text)), "HEAD: the kept page's length")
  const lines = (await tm.log()).responses.filter((l) => l.path === `${API}/compat-sessions`).slice(-2)
  t.equal(lines.length, 2)
  t.equal(lines[1]!.stats.queries, lines[0]!.stats.queries, 'queries as when built')
  t.equal(lines[1]!.stats.fetched, lines[0]!.stats.fetched, 'fetched as when built')
  t.ok((lines[0]!.stats.fetched ?? 0) >= 10, 'fetched counts the items')
})

t.test('a write to the collection shows in the next page', async (t) => {
  const before = await tm.get(active)
  const id = before.body.data[0].id as string
  t.equal(before.body.data[0].attributes.finished_at, null)
  const finished = await tm.post(`${API}/compat-sessions/${id}/finish`)
  t.equal(finished.status, 200)
  const after = await tm.get(active)
  t.equal(after.body.meta.count, before.body.meta.count - 1, 'one active session fewer')
  t.not(after.body.data[0].id, id, 'the finished session left the active page')
  const all = await tm.get(first)
  const item = all.body.data.find((x: { id: string }) => x.id === id)
  if (item) t.equal(item.attributes.finished_at, finished.body.data.attributes.finished_at, 'the unfiltered page shows it finished')
  else t.pass('the session is beyond the first page')
})

t.test('under a fault the kept page is not used', async (t) => {
  const total = (await tm.get(first)).body.meta.count as number
  const kept = await tm.get(active)
  t.ok(kept.body.meta.count < total, 'the filtered count is smaller')
  tm.mock.faults.enable('pagination-count-ignores-filters')
  t.teardown(() => tm.mock.faults.disable('pagination-count-ignores-filters'))
  const faulty = await tm.get(active)
  t.equal(faulty.body.meta.count, total, 'the fault answers, not the kept page')
})
