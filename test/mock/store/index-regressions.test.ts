// Named regressions of the store's indexes, replayed through the mock's HTTP API.
import t from 'tap'
import { API, startTestMock } from '../admin/helpers.ts'

t.test('revoking a personal session leaves the expiry range index in order', async (t) => {
  // Default mock, seed 1. The range index used to look the entry up by the item's current expiry,
  // which the revoke had already set to null: the stale entry stayed and later lookups went wrong.
  const tm = await startTestMock(t, { seed: 1 })
  const listing = `${API}/personal-sessions?filter[expires_after]=2026-01-01T00:00:00Z&page[first]=1000`
  const before = await tm.get(listing)
  t.equal(before.status, 200)
  t.equal(before.body.data.length, 4, 'seed 1 lists 4 sessions expiring after 2026-01-01')
  t.equal(before.body.meta.count, 4)
  const victim = before.body.data[1].id
  const revoked = await tm.post(`${API}/personal-sessions/${victim}/revoke`)
  t.equal(revoked.status, 200)
  t.equal(revoked.body.data.attributes.expires_at, null, 'a revoked session shows no expiry')
  const after = await tm.get(listing)
  t.equal(after.status, 200)
  t.equal(after.body.data.length, 3, 'three remain')
  t.equal(after.body.meta.count, 3, 'and the count says so')
  t.notOk(
    after.body.data.some((s: { id: string }) => s.id === victim),
    'the revoked one is gone',
  )
  const wanted = before.body.data.map((s: { id: string }) => s.id).filter((id: string) => id !== victim)
  t.same(
    after.body.data.map((s: { id: string }) => s.id),
    wanted,
    'the others keep their order',
  )
  // Every other session of the listing, revoked one by one, leaves the listing and the count in step.
  for (const id of wanted) {
    t.equal((await tm.post(`${API}/personal-sessions/${id}/revoke`)).status, 200)
  }
  const empty = await tm.get(listing)
  t.same([empty.body.data.length, empty.body.meta.count], [0, 0], 'all revoked: none listed, none counted')
})
