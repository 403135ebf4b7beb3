// audit-log on hostile input: a line of millions of words, a line past the line limit, a file of
// NULs without a newline. The audit goes on after the bad line, says which line it was, how long
// and the limit, both engines agree, and worker threads read such a file once (not once per chunk).
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import t from 'tap'
import { auditFile } from '../../../scripts/audit-log/index.ts'
import { auditChunk } from '../../../scripts/audit-log/read-lines.ts'
import { MAX_LINE_BYTES, type Auditor } from '../../../scripts/audit-log/streaming.ts'
import { main, type AuditIo } from '../../../scripts/audit-log/main.ts'

const GOOD =
  '2026-06-18T09:00:01.234000Z  INFO http.server.response GET-1 - "GET /api/admin/v1/compat-sessions HTTP/1.1" 200 OK "python-requests/2.32.3" [polls: 3, cpu: 0.4ms, db: 1.2ms, elapsed: 2.5ms, queries: 2, fetched: 1] client.address=10.0.0.7\n'

const dir = mkdtempSync(path.join(tmpdir(), 'audit-hostile-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: AuditIo = {
    stdin: Readable.from([]),
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
  }
  const code = await main(argv, io)
  return { code, stdout, stderr }
}

t.test('a request line of 7 MB of words is audited by both engines', async (t) => {
  const file = path.join(dir, 'words.log')
  writeFileSync(file, GOOD + GOOD.replace(' 200 OK "', ` 200 ${'a '.repeat(3_500_000)}"`) + GOOD)
  const js = await cli(['--json', '--engine', 'js', file])
  const wasm = await cli(['--json', '--engine', 'wasm', file])
  t.equal(js.code, 0, js.stderr)
  t.equal(wasm.code, 0, wasm.stderr)
  t.equal(JSON.parse(js.stdout).requests, 3, 'all three requests')
  t.same(JSON.parse(wasm.stdout), JSON.parse(js.stdout), 'the engines agree')
})

t.test('a line over the limit: reported with its number, length and the limit; the rest audited', async (t) => {
  const file = path.join(dir, 'long.log')
  const long = MAX_LINE_BYTES + 3 * 1024 * 1024 + 5
  writeFileSync(file, GOOD + 'x'.repeat(long) + '\n' + GOOD + GOOD)
  const results = []
  for (const engine of ['js', 'wasm'] as const) {
    for (const jobs of [1, 3]) {
      const r = await auditFile(file, { engine, jobs, chunkBytes: 4 * 1024 * 1024 })
      t.equal(r.requests, 3, `${engine}, ${jobs} thread(s): the three requests`)
      t.equal(r.malformedCount, 1)
      t.equal(r.malformed[0]!.line, 2, 'line 2')
      t.match(
        r.malformed[0]!.error,
        new RegExp(`line of ${long} bytes, over the limit of ${MAX_LINE_BYTES} bytes per line; skipped`),
        'its length and the limit',
      )
      results.push(r)
    }
  }
  for (const r of results.slice(1)) t.same(r, results[0], 'every engine and thread count agree')
  const out = await cli([file])
  t.equal(out.code, 1, 'exit 1: a malformed line')
  t.match(out.stdout, /3 requests/)
})

t.test('a file of NULs without a newline: one malformed line, in any number of threads', async (t) => {
  const file = path.join(dir, 'nul.log')
  const size = 40 * 1024 * 1024
  writeFileSync(file, Buffer.alloc(size))
  for (const jobs of [1, 4]) {
    const r = await auditFile(file, { jobs, chunkBytes: 1024 * 1024 })
    t.equal(r.lines, 1, `${jobs} thread(s): one line`)
    t.equal(r.malformedCount, 1)
    t.match(r.malformed[0]!.error, new RegExp(`line of ${size} bytes, over the limit`))
  }
  const out = await cli(['--jobs', '4', file])
  t.not(out.stderr, /cannot read/, 'not a read error')
})

t.test('a chunk that starts inside a line reads no further than its end', async (t) => {
  const file = path.join(dir, 'nul-chunks.log')
  writeFileSync(file, Buffer.alloc(10 * 1024 * 1024))
  const fd = openSync(file, 'r')
  t.teardown(() => closeSync(fd))
  let pushed = 0
  const counting = {
    beginChunk: () => {},
    readBuffer: (own: Buffer) => own,
    push: (b: Buffer) => void (pushed += b.length),
  } as unknown as Auditor
  auditChunk(fd, Buffer.alloc(1 << 20), counting, { type: 'chunk', chunk: 4, start: 4 * 1024 * 1024, end: 5 * 1024 * 1024 })
  t.equal(pushed, 0, 'no line starts in it: nothing is read past it (it read to the end of the file)')
  // With a newline inside, its lines start after it.
  writeFileSync(file, Buffer.concat([Buffer.alloc(100), Buffer.from('\n' + GOOD + GOOD)]))
  const fd2 = openSync(file, 'r')
  t.teardown(() => closeSync(fd2))
  pushed = 0
  auditChunk(fd2, Buffer.alloc(1 << 20), counting, { type: 'chunk', chunk: 1, start: 50, end: 150 })
  t.equal(pushed, GOOD.length, 'the one line starting in it, read to its end')
})
