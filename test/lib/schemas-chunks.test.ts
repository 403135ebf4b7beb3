// Validation of long listings (lib/schemas.ts): a top-level array longer than VALIDATION_CHUNK is
// checked a chunk at a time, so that a page of tens of thousands of invalid items never makes ajv
// collect hundreds of thousands of errors at once; every item of a valid page is still checked.
import t from 'tap'
import { validate, VALIDATION_CHUNK } from '../../lib/schemas.ts'

const report = (i: number) => ({
  id: i,
  received_ts: 1_700_000_000_000 + i,
  room_id: '!r:x',
  event_id: `$e${i}`,
  user_id: '@u:x',
  sender: '@s:x',
  reason: 'r',
  score: -100,
  name: null,
  canonical_alias: null,
})
const page = (n: number) => ({ event_reports: Array.from({ length: n }, (_, i) => report(i)), total: n })

t.test('a long valid page is valid, every chunk checked', async (t) => {
  t.equal(validate('homeserver/event-report#List', page(3 * VALIDATION_CHUNK + 7)).valid, true)
})

t.test('an invalid item in a later chunk is found, at its place in the whole array', async (t) => {
  const p = page(3 * VALIDATION_CHUNK + 7)
  ;(p.event_reports[2 * VALIDATION_CHUNK + 5] as Record<string, unknown>).room_id = 1
  const r = validate('homeserver/event-report#List', p)
  t.equal(r.valid, false)
  t.equal(r.errors[0]?.instancePath, `/event_reports/${2 * VALIDATION_CHUNK + 5}/room_id`, r.text)
  ;(p.event_reports[p.event_reports.length - 1] as Record<string, unknown>).id = 'x'
  ;(p.event_reports[2 * VALIDATION_CHUNK + 5] as Record<string, unknown>).room_id = '!r:x'
  t.equal(
    validate('homeserver/event-report#List', p).errors[0]?.instancePath,
    `/event_reports/${3 * VALIDATION_CHUNK + 6}/id`,
    'the last item',
  )
})

t.test('80,000 invalid items: the errors are those of one chunk', async (t) => {
  const item = { id: 'x', room_id: 1, user_id: false, score: 's' }
  const r = validate('homeserver/event-report#List', { event_reports: new Array(80_000).fill(item), total: 80_000 })
  t.equal(r.valid, false)
  t.ok(r.errorCount > 0 && r.errorCount <= 20 * VALIDATION_CHUNK, `${r.errorCount} errors collected`)
})
