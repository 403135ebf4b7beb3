// The journal writer's group commit (decision 0013): the records of one turn of the event loop go out
// as one batch, those that arrive during its fdatasync as the next; a write is acknowledged only once
// it and every write before it are durable, and a failed flush fails every write not yet
// acknowledged. The fdatasync is replaced by one the test finishes by hand: order is forced, not timed.
import t, { type Test } from 'tap'
import { fdatasyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJournal, encodeRecord, MAGIC } from '../../../mock/store/journal/codec.ts'
import { JournalWriter } from '../../../mock/store/journal/writer.ts'

type Done = (err: NodeJS.ErrnoException | null) => void

function journalFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'journal-writer-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'journal')
  writeFileSync(file, Buffer.concat([MAGIC, encodeRecord({ header: true })]))
  return file
}

const size = (file: string) => readFileSync(file).length
const turn = () => new Promise((r) => setImmediate(r))
/** the records after the header, as the reader sees them */
const written = (file: string) =>
  decodeJournal(readFileSync(file))
    .records.slice(1)
    .map((r) => r.value)

/** An fdatasync held until the test releases it (the real one runs first, so a release means durable). */
function heldSync() {
  const held: { release: (err?: NodeJS.ErrnoException) => void }[] = []
  const sync = (fd: number, done: Done) => {
    held.push({
      release: (err) => {
        if (!err) fdatasyncSync(fd)
        done(err ?? null)
      },
    })
  }
  return { held, sync }
}

/** settles the promise's state into a list the test can read without waiting on it */
function track(p: Promise<void> | undefined, name: string, log: string[]): void {
  if (!p) return void log.push(`${name} already durable`)
  p.then(
    () => log.push(`${name} ok`),
    (e: Error) => log.push(`${name} failed: ${e.message}`),
  )
}

t.test('the writes of one turn are one batch; the file holds them in order', async (t) => {
  const file = journalFile(t)
  const w = new JournalWriter(openSync(file, 'r+'), size(file))
  const barriers: Promise<void>[] = []
  for (let i = 0; i < 500; i++) {
    w.append({ t: 'test', i })
    barriers.push(w.barrier()!)
  }
  t.equal(barriers.filter(Boolean).length, 500, 'none is durable before its batch is flushed')
  await Promise.all(barriers)
  t.equal(w.batches, 1, '500 writes in one turn: one write and one fdatasync')
  t.equal(w.barrier(), undefined, 'nothing is left waiting')
  await w.close()
  const got = written(file) as { i: number }[]
  t.equal(got.length, 500, 'all 500 records are in the file')
  t.ok(
    got.every((r, i) => r.i === i),
    'in the order they were appended',
  )
})

t.test('writes that arrive during a flush wait, go out as the next batch, and are acknowledged after the first', async (t) => {
  const file = journalFile(t)
  const { held, sync } = heldSync()
  const w = new JournalWriter(openSync(file, 'r+'), size(file), sync)
  const log: string[] = []
  w.append({ batch: 'A' })
  track(w.barrier(), 'A', log)
  await turn()
  for (const name of ['B1', 'B2', 'B3']) {
    w.append({ batch: name })
    track(w.barrier(), name, log)
    await turn()
  }
  t.equal(held.length, 1, "while A's fdatasync runs, nothing else is flushed")
  t.same(written(file), [{ batch: 'A' }], 'A is in the file, the later ones wait in memory')
  t.same(log, [], 'nothing is acknowledged before its flush')

  held[0]!.release()
  await turn()
  t.same(log, ['A ok'], 'A acknowledged once durable')
  t.equal(held.length, 2, "B1–B3 went out as one batch as soon as A's flush ended")
  t.same(written(file).length, 4, 'all four are in the file')
  held[1]!.release()
  await turn()
  t.same(log, ['A ok', 'B1 ok', 'B2 ok', 'B3 ok'], 'then B1–B3, in order')
  t.equal(w.batches, 2, 'four writes in four turns, two batches')
  t.equal(w.barrier(), undefined, 'nothing is left waiting')
  await w.close()
})

t.test('a failed flush fails every write not yet acknowledged, and the journal stops', async (t) => {
  const file = journalFile(t)
  const { held, sync } = heldSync()
  const w = new JournalWriter(openSync(file, 'r+'), size(file), sync)
  const log: string[] = []
  w.append({ batch: 'A' })
  track(w.barrier(), 'A', log)
  await turn()
  w.append({ batch: 'B' })
  track(w.barrier(), 'B', log)
  await turn()
  held[0]!.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }))
  await turn()
  t.same(log, ['A failed: EIO: i/o error, fdatasync', 'B failed: EIO: i/o error, fdatasync'], 'A and the waiting B both fail')
  t.equal(held.length, 1, 'B is never flushed')
  t.throws(() => w.append({ batch: 'C' }), /stopped after a failed write: EIO/, 'a later write is refused')
  await t.rejects(w.barrier()!, /EIO/, 'and a barrier fails')
  await w.close()
  t.pass('close returns after a failure')
})

t.test('close waits until what was appended is durable', async (t) => {
  const file = journalFile(t)
  const { held, sync } = heldSync()
  const w = new JournalWriter(openSync(file, 'r+'), size(file), sync)
  for (let i = 0; i < 3; i++) w.append({ i })
  let closed = false
  const closing = w.close().then(() => (closed = true))
  await turn()
  t.equal(held.length, 1, 'close flushed the pending records as one batch')
  t.notOk(closed, 'close has not returned while the flush runs')
  held[0]!.release()
  await closing
  t.same(written(file), [{ i: 0 }, { i: 1 }, { i: 2 }], 'all three are in the file')
})
