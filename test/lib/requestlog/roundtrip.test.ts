// format -> parse -> the same record, for many generated records in both formats, with and without
// colours. This is what keeps the mock's writer and every reader on one grammar.
import t from 'tap'
import { formatEventLine, formatResponseLine, formatTimestamp, parseLine, type Level, type LogFormat } from '../../../lib/requestlog.ts'
import { validate } from '../../../lib/schemas.ts'
import { generator, rng } from '../../fixtures/requestlog/records.ts'

t.test('format -> parse gives back the same record (both formats, with and without ANSI)', async (t) => {
  const gen = generator(20260617)
  let checked = 0
  let failures = 0
  for (let i = 0; i < 3000; i++) {
    const format: LogFormat = i % 3 === 0 ? 'pre-v1.20' : 'v1.20'
    const rec = gen(format)
    const { format: _f, ...input } = rec
    for (const ansi of [false, true]) {
      const line = formatResponseLine(input, { format, ansi })
      const parsed = parseLine(line)
      if (parsed.kind !== 'response') {
        failures++
        if (failures < 5) t.fail(`not parsed back: ${JSON.stringify(line)} -> ${JSON.stringify(parsed)}`)
        continue
      }
      if (JSON.stringify(sortKeys(parsed.line)) !== JSON.stringify(sortKeys(rec))) {
        failures++
        if (failures < 5) t.same(parsed.line, rec, `round trip of ${JSON.stringify(line)}`)
        continue
      }
      if (i % 10 === 0 && !ansi) {
        const v = validate('requestlog/response-line', parsed.line)
        if (!v.valid) {
          failures++
          t.fail(v.text)
        }
      }
      checked++
    }
  }
  t.equal(failures, 0, 'no failures')
  t.equal(checked, 6000, 'all lines checked')
})

t.test('format -> parse for events', async (t) => {
  const r = rng(7)
  const levels: Level[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']
  for (let i = 0; i < 500; i++) {
    const level = levels[Math.floor(r() * 5)]!
    const target = [
      'mas_handlers::admin::call_context:85',
      'mas_tasks::matrix:57',
      'mas_cli:3',
      'http.server.request',
      'mas_storage_pg::repository',
    ][i % 5]!
    const requestId = i % 4 === 0 ? undefined : `${['GET', 'POST', '_OTHER', 'job-sync-devices'][i % 4]}-${Math.floor(r() * 1e6)}`
    const message = ['Missing authorization header', 'Database error message.sources=[a, b]', 'x - y - z', ''][i % 4]!
    const timestamp = formatTimestamp(new Date(1_700_000_000_000 + Math.floor(r() * 1e11)), Math.floor(r() * 1000))
    for (const ansi of [false, true]) {
      const line = formatEventLine({ timestamp, level, target, ...(requestId !== undefined ? { requestId } : {}), message, ansi })
      const p = parseLine(line)
      if (p.kind !== 'event') {
        t.fail(`not an event: ${JSON.stringify(line)}`)
        continue
      }
      const e = p.event
      const dash = requestId?.lastIndexOf('-') ?? -1
      const ok =
        e.timestamp === timestamp &&
        e.level === level &&
        e.name === target &&
        e.message === message &&
        JSON.stringify(e.requestId) ===
          JSON.stringify(
            requestId === undefined ? undefined : { method: requestId.slice(0, dash), counter: Number(requestId.slice(dash + 1)) },
          )
      if (!ok) t.fail(`event round trip: ${JSON.stringify(line)} -> ${JSON.stringify(e)}`)
    }
  }
  t.pass('events round-trip')
})

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    )
  }
  return v
}
