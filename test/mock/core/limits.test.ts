// The bounds of the real servers (mock/core/limits.ts): body size, JSON depth and head size per area,
// answered in each area's form; the 413 arrives also with Connection: close; a request that breaks
// mid-body is logged with the status the client got; a stored value too deep for JSON.stringify is
// still served.
import t from 'tap'
import { connect } from 'node:net'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseLine } from '../../../lib/requestlog.ts'
import { ADMIN_TOKEN, USER_TOKEN, createRoom, hsErr, report, send, startHs, type Hs } from '../homeserver/helpers.ts'
import { LIMITS } from '../../../mock/core/limits.ts'

/** Sends raw bytes on one connection (the head, then the body in pieces) and returns all it received. */
function raw(hs: Hs, head: string, body: Buffer | string = '', piece = 64 * 1024): Promise<string> {
  const { port } = new URL(hs.url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    let got = ''
    socket.on('data', (d) => (got += d.toString('latin1')))
    socket.on('error', (e) => (got ? resolve(got) : reject(e)))
    socket.on('close', () => resolve(got))
    socket.on('connect', async () => {
      socket.write(head)
      const bytes = typeof body === 'string' ? Buffer.from(body) : body
      for (let i = 0; i < bytes.length && !socket.destroyed; i += piece) {
        if (!socket.write(bytes.subarray(i, i + piece))) await new Promise((r) => socket.once('drain', r))
      }
    })
  })
}

function logged(file: string): { method: string; path: string; status: number }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => parseLine(l))
    .flatMap((p) => (p.kind === 'response' ? [{ method: p.line.method, path: p.line.path, status: p.line.status }] : []))
}

t.test('a 10 MB body with Connection: close gets its 413, and the log says 413', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'limits-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const logFile = join(dir, 'mock.log')
  const hs = await startHs({ logFile })
  const size = 10 * 1024 * 1024
  for (let i = 0; i < 5; i++) {
    const got = await raw(
      hs,
      `POST /api/admin/v1/policy-data HTTP/1.1\r\nhost: ${new URL(hs.url).host}\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\nconnection: close\r\n\r\n`,
      Buffer.alloc(size, 0x20),
    )
    t.match(got, /^HTTP\/1\.1 413 /, `attempt ${i + 1}: the 413 arrives`)
    t.match(got, /Failed to buffer the request body: length limit exceeded$/, 'in the auth service form')
  }
  const chunked = await raw(
    hs,
    `POST /api/admin/v1/policy-data HTTP/1.1\r\nhost: ${new URL(hs.url).host}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n`,
    `${(3 * 1024 * 1024).toString(16)}\r\n${' '.repeat(3 * 1024 * 1024)}\r\n0\r\n\r\n`,
  )
  t.match(chunked, /^HTTP\/1\.1 413 /, 'a chunked body past the limit too')
  await hs.close()
  const lines = logged(logFile)
  t.equal(lines.length, 6)
  t.ok(
    lines.every((l) => l.status === 413),
    'each logged as 413',
  )
})

t.test('a request that breaks mid-body is logged with the status the client received', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'limits-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const logFile = join(dir, 'mock.log')
  const hs = await startHs({ logFile })
  // A routed path without POST (its handler would answer 405), then a chunk size that is not hex.
  const got = await raw(
    hs,
    `POST ${hs.admin}/server_version HTTP/1.1\r\nhost: ${new URL(hs.url).host}\r\ntransfer-encoding: chunked\r\n\r\n`,
    '5\r\nhello\r\nzz\r\n',
  )
  t.match(got, /^HTTP\/1\.1 400 /, "node's parser answers 400")
  await new Promise((r) => setTimeout(r, 50))
  await hs.close()
  t.same(logged(logFile), [{ method: 'POST', path: `${hs.admin}/server_version`, status: 400 }], 'logged as 400, not 405')
})

t.test('body limits are per area: the auth service 2 MiB, the homeserver 50 MiB', async (t) => {
  const hs = await startHs()
  t.teardown(() => hs.close())
  t.equal(LIMITS.mas.body, 2 * 1024 * 1024)
  const justOver = 'x'.repeat(LIMITS.mas.body + 1)
  const admin = await hs.req('POST', '/api/admin/v1/policy-data', { raw: justOver, headers: { 'content-type': 'application/json' } })
  t.equal(admin.status, 413)
  t.equal(admin.headers['content-type'], 'text/plain; charset=utf-8')
  const room = await createRoom(hs, USER_TOKEN)
  const big = await hs.req('PUT', `/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/big1`, {
    token: USER_TOKEN,
    body: { msgtype: 'm.text', body: 'y'.repeat(3 * 1024 * 1024) },
  })
  t.not(big.status, 413, `3 MiB to the homeserver is read (answered ${big.status})`)
  const over = await hs.req('PUT', `/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/big2`, {
    token: USER_TOKEN,
    raw: Buffer.alloc(LIMITS.hs.body + 1, 0x20),
  })
  hsErr(t, over, 413, 'M_TOO_LARGE')
})

t.test('JSON depth: the homeserver refuses past Python json recursion, as Synapse does', async (t) => {
  const hs = await startHs()
  t.teardown(() => hs.close())
  // As text: the test's own JSON.stringify would overflow at 5,000 levels.
  const nest = (n: number): string => '{"n":'.repeat(n) + '"leaf"' + '}'.repeat(n)
  const message = (n: number) => ({
    raw: `{"msgtype":"m.text","body":"x","nested":${nest(n)}}`,
    headers: { 'content-type': 'application/json' },
  })
  const room = await createRoom(hs, USER_TOKEN)
  const path = (txn: string) => `/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/${txn}`
  const deep = await hs.req('PUT', path('deep'), { token: USER_TOKEN, ...message(5000) })
  hsErr(t, deep, 400, 'M_NOT_JSON', 'Content not JSON.')
  const edge = await hs.req('PUT', path('edge'), { token: USER_TOKEN, ...message(LIMITS.hs.jsonDepth! - 1) })
  t.equal(edge.status, 200, 'just within the bound is stored')
  const filed = await report(hs, USER_TOKEN, room, edge.body.event_id, { reason: 'deep' })
  t.equal(filed.status, 200)
  const list = await hs.req('GET', hs.reports, { token: ADMIN_TOKEN })
  const id = list.body.event_reports[0].id
  const got = await hs.req('GET', `${hs.reports}/${id}`, { token: ADMIN_TOKEN })
  t.equal(got.status, 200, 'the report of a deep event is served')
  t.ok(got.text.length > 5000, `${got.text.length} bytes`)
  // The control API bounds like serde_json.
  const control = await hs.req('PUT', '/_mock/faults', { raw: nest(200), headers: { 'content-type': 'application/json' } })
  t.equal(control.status, 400)
  t.match(control.body.error, /nests deeper than 128/)
})

t.test('a stored value deeper than JSON.stringify can write is still served (no 500)', async (t) => {
  const hs = await startHs()
  t.teardown(() => hs.close())
  const room = await createRoom(hs, USER_TOKEN)
  const eventId = await send(hs, USER_TOKEN, room)
  t.equal((await report(hs, USER_TOKEN, room, eventId, { reason: 'r' })).status, 200)
  // Written behind the API's back (the API bounds the depth at parse time), then shown by a fault that
  // lists the report's content: only the core's serialiser stands between it and a 500.
  const id = (await hs.req('GET', hs.reports, { token: ADMIN_TOKEN })).body.event_reports[0].id as number
  const stored = hs.mock.world().hs.getReport(id)!.report as unknown as { content: Record<string, unknown> }
  let v: unknown = 1
  for (let i = 0; i < 20_000; i++) v = [v]
  stored.content.deep = v
  hs.mock.faults.enable('reports-extra-key')
  const list = await hs.req('GET', hs.reports, { token: ADMIN_TOKEN })
  t.equal(list.status, 200)
  t.equal(list.text.split('[').length - 1 >= 20_000, true, 'all 20,000 levels written')
})

t.test('head limits: Twisted 16 KiB and 500 fields → 400; hyper 408 KiB and 100 fields → 431', async (t) => {
  const hs = await startHs()
  t.teardown(() => hs.close())
  const long = { 'x-long': 'a'.repeat(20_000) }
  const hsLong = await hs.req('GET', `${hs.admin}/server_version`, { headers: long })
  t.equal(hsLong.status, 400, 'the homeserver refuses a 20 KB head')
  t.equal(hsLong.text, '', 'with no body')
  const masLong = await hs.req('GET', '/api/admin/v1/version', { headers: long })
  t.equal(masLong.status, 400, 'the auth service reads it (and asks for the missing token)')
  t.ok(Array.isArray(masLong.body?.errors), 'in its own envelope')
  const many = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`x-h${i}`, 'v']))
  t.equal((await hs.req('GET', '/api/admin/v1/version', { headers: many })).status, 431, 'more than 100 fields: 431')
  t.equal((await hs.req('GET', `${hs.admin}/server_version`, { headers: many })).status, 200, 'the homeserver takes up to 500')
  const huge = await raw(
    hs,
    `GET /api/admin/v1/version HTTP/1.1\r\nhost: ${new URL(hs.url).host}\r\nx-huge: ${'b'.repeat(LIMITS.mas.headBytes + 10)}\r\n\r\n`,
  )
  t.match(huge, /^HTTP\/1\.1 431 /, "past hyper's buffer: node's parser answers 431")
})
