// The running check's state (suites/lib/failure.ts): set for the length of a check without an
// AsyncLocalStorage (decision 0016); a check that ends after the next one started leaves the next one's
// state alone, and an answer is the last of the check that asked for it.
import t from 'tap'
import { checkState, lastResponse, remember, type CheckState } from '../../../suites/lib/failure.ts'
import type { HttpResponse } from '../../../lib/http.ts'

const answer = (url: string) => ({ method: 'GET', url, status: 200 }) as unknown as HttpResponse
const info = (url: string) => ({ method: 'GET', url, headers: {}, token: null })

t.test('a check state lasts as long as its check, and an abandoned check does not clear the next one', async (t) => {
  t.equal(checkState.getStore(), undefined, 'none outside a check')
  const first: CheckState = { name: 'first' }
  const second: CheckState = { name: 'second' }
  let finishFirst!: () => void
  const firstDone = checkState.run(first, async () => {
    t.equal(checkState.getStore(), first, 'the first check sees its state')
    // (tap gave up on it: the next check starts while this one still waits)
    await new Promise<void>((r) => (finishFirst = r))
  })
  await checkState.run(second, async () => {
    t.equal(checkState.getStore(), second, 'the next check sees its own')
    finishFirst()
    await firstDone
    t.equal(checkState.getStore(), second, 'still its own once the abandoned check ended')
  })
  t.equal(checkState.getStore(), undefined, 'none after the checks')
})

t.test('an answer is the last one of the check that asked for it', async (t) => {
  const asker: CheckState = { name: 'asker' }
  const other: CheckState = { name: 'other' }
  await checkState.run(other, async () => {
    remember(answer('http://x/late'), info('http://x/late'), asker)
    t.equal(lastResponse(), undefined, "an answer to another check's request is not this check's")
  })
  t.equal((asker.last as unknown as { url: string }).url, 'http://x/late', "it is the asking check's last answer")
})
