// How a file is cut into chunks for threads (chunkStarts): whole chunks first, then smaller ones
// towards the end so that the threads finish together; every byte in exactly one chunk.
import t from 'tap'
import { CHUNK_BYTES, chunkJob, chunkStarts, MIN_CHUNK_BYTES } from '../../../scripts/audit-log/read-lines.ts'

const sizes = (starts: number[], size: number) => starts.map((s, i) => (i + 1 < starts.length ? starts[i + 1]! : size) - s)

t.test('a 305 MiB file for two threads: 8 MiB chunks, then ever smaller ones down to 1 MiB', async (t) => {
  const size = 305 * 1024 * 1024
  const starts = chunkStarts(size, 2)
  const s = sizes(starts, size)
  t.equal(starts[0], 0, 'the first chunk starts at the start of the file')
  t.ok(
    starts.every((x, i) => i === 0 || x > starts[i - 1]!),
    'chunks in file order',
  )
  t.equal(
    s.reduce((a, b) => a + b, 0),
    size,
    'every byte in one chunk',
  )
  t.ok(
    s.every((x) => x <= CHUNK_BYTES),
    'none larger than CHUNK_BYTES',
  )
  t.ok(
    s.slice(0, -1).every((x, i) => i === 0 || x <= s[i - 1]!),
    'never larger than the chunk before',
  )
  t.equal(s.filter((x) => x === CHUNK_BYTES).length, 31, 'whole chunks while 64 MiB or more are left')
  t.equal(s.at(-2), MIN_CHUNK_BYTES, 'the last chunks are of MIN_CHUNK_BYTES')
  t.ok(s.at(-1)! <= MIN_CHUNK_BYTES, 'the last one reads what is left')
  t.same(
    chunkJob(starts, starts.length - 1),
    { type: 'chunk', chunk: starts.length - 1, start: starts.at(-1), end: Infinity },
    'the last job reads to the end',
  )
  t.same(chunkJob(starts, 0), { type: 'chunk', chunk: 0, start: 0, end: CHUNK_BYTES })
})

t.test('small chunks asked for (tests put cuts everywhere): no chunk smaller than asked but the last', async (t) => {
  for (const [size, chunkBytes] of [
    [40_000, 997],
    [10, 3],
    [5000, 1000],
  ] as const) {
    const s = sizes(chunkStarts(size, 3, chunkBytes), size)
    t.ok(
      s.slice(0, -1).every((x) => x === chunkBytes),
      `${size} bytes in chunks of ${chunkBytes}`,
    )
    t.equal(
      s.reduce((a, b) => a + b, 0),
      size,
    )
  }
  t.same(chunkStarts(0, 2), [0], 'an empty file: one chunk')
})
