// Lines a worker leaves unread for the merging thread (AuditOptions.deferTextChars): read there at
// their own places, they give the audit of one pass, whether the budget holds all of them or runs
// out partway (then the worker reads the rest itself).
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { Auditor, auditFile, finishAudit, type AuditState } from '../../../scripts/audit-log/index.ts'
import { auditChunk, READ_SIZE } from '../../../scripts/audit-log/read-lines.ts'
import { scanModule } from '../../../scripts/audit-log/wasm/module.ts'

const FIXTURE = fileURLToPath(new URL('../../fixtures/requestlog/audit-sample.txt', import.meta.url))

t.test('deferred lines give the same audit as one pass, within the budget and past it', async (t) => {
  t.ok(scanModule(), 'the WebAssembly module loads (only its engine defers)')
  const dir = mkdtempSync(path.join(tmpdir(), 'audit-defer-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'log')
  // The fixture's malformed lines, unusual events and admin actions, many times over.
  const text = readFileSync(FIXTURE, 'utf8')
  writeFileSync(file, Array.from({ length: 30 }, () => text).join('\n'))
  const size = readFileSync(file).length
  const single = await auditFile(file, { jobs: 1, maxMalformed: 40, maxAdminActions: 40 })
  t.ok(single.malformedCount > 40, `${single.malformedCount} malformed lines, past the limit of 40`)

  const chunkBytes = 3000
  const chunks = Math.ceil(size / chunkBytes)
  // Two "threads" in turn: odd chunks deferring with `budget` characters, even ones not.
  const split = (budget: number): { states: AuditState[]; deferred: number } => {
    const opts = { maxMalformed: 40, maxAdminActions: 40 }
    const reader = new Auditor(opts)
    const deferring = new Auditor({ ...opts, deferTextChars: budget })
    const fd = openSync(file, 'r')
    try {
      for (let chunk = 0; chunk < chunks; chunk++) {
        const job = {
          type: 'chunk' as const,
          chunk,
          start: chunk * chunkBytes,
          end: chunk === chunks - 1 ? Infinity : (chunk + 1) * chunkBytes,
        }
        auditChunk(fd, Buffer.allocUnsafe(READ_SIZE), chunk % 2 === 1 ? deferring : reader, job)
      }
    } finally {
      closeSync(fd)
    }
    const theirs = deferring.state()
    return { states: [reader.state(), theirs], deferred: theirs.deferred?.length ?? 0 }
  }
  for (const budget of [1 << 20, 500]) {
    const { states, deferred } = split(budget)
    t.ok(deferred > 0, `budget ${budget}: ${deferred} lines deferred`)
    const merged = Auditor.replayDeferred(states, { maxMalformed: 40, maxAdminActions: 40 })
    t.equal(merged.length, 3, 'one state more, for the deferred lines')
    t.notOk(
      merged.some((st) => st.deferred !== undefined),
      'no state keeps deferred lines',
    )
    t.same(finishAudit(merged, 40, 40), single, `budget ${budget}: the audit of one pass`)
  }
  // A small budget runs out: the rest of the declined lines are read where they are.
  const all = split(1 << 20).deferred
  const some = split(500).deferred
  t.ok(some > 0 && some < all, `a budget of 500 characters defers ${some} of the ${all} lines`)
})

t.test('a read that ends inside a line: the line is read again with the next read, the audit unchanged', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'audit-reread-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'log')
  // Over three reads of READ_SIZE, so that reads end inside lines of every kind the fixture has.
  const text = readFileSync(FIXTURE, 'utf8')
  const copies = Math.ceil((3.5 * READ_SIZE) / Buffer.byteLength(text))
  writeFileSync(file, Array.from({ length: copies }, () => text).join('\n'))
  const wasm = await auditFile(file, { jobs: 1, engine: 'wasm' })
  const js = await auditFile(file, { jobs: 1, engine: 'js' })
  t.ok(wasm.lines > 10_000 && wasm.requests > 0, `${wasm.lines} lines`)
  t.same(wasm, js, 'the same audit from both engines')
  // Line numbers of the malformed lines, read anywhere in the file, in one pass and in pieces.
  t.same(await auditFile(file, { jobs: 2, engine: 'wasm', chunkBytes: READ_SIZE + 4099 }), js, 'chunks larger than a read')
})
