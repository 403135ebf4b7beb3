// Shared by the homeserver-side mock tests: start the mock in-process, talk to it over HTTP, and build
// the real peer suite's fixture (two public rooms, 20 reports filed through the client API).
import t from 'tap'
import { pathToFileURL } from 'node:url'
import { request } from 'undici'
import { startMock, type RunningMock } from '../../../mock/site/server.ts'
import { mockOptions, type MockOptions } from '../../../mock/core/options.ts'
import { validate } from '../../../lib/schemas.ts'
import { MOCK_CONTROL_HEADER } from '../../../lib/target.ts'

export const ADMIN_TOKEN = 'syt_YWRtaW4_testadmintoken0000000_abcdef'
export const USER_TOKEN = 'syt_dXNlcg_testusertoken00000000_abcdef'

export interface Res {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: any
  text: string
}

export interface ReqOpts {
  token?: string | null
  body?: unknown
  /** raw body, sent as-is */
  raw?: string | Buffer
  headers?: Record<string, string>
}

/** The assertions the helpers use (any tap Test has them). */
export type Asserts = Pick<typeof t, 'ok' | 'equal'>

export interface Hs {
  mock: RunningMock
  url: string
  admin: string
  reports: string
  req(method: string, path: string, opts?: ReqOpts): Promise<Res>
  close(): Promise<void>
}

export async function startHs(over: Partial<MockOptions> = {}): Promise<Hs> {
  const options = mockOptions({ port: 0, logFile: null, reports: 0, hsAdminToken: ADMIN_TOKEN, hsUserToken: USER_TOKEN, ...over })
  const mock = await startMock(options)
  const admin = `${options.hsPrefix}/admin/v1`
  return {
    mock,
    url: mock.url,
    admin,
    reports: `${admin}/event_reports`,
    req: async (method, path, opts = {}) => {
      const headers: Record<string, string> = path.startsWith('/_mock/')
        ? { [MOCK_CONTROL_HEADER]: '1', ...opts.headers }
        : { ...opts.headers }
      if (opts.token) headers.authorization = `Bearer ${opts.token}`
      let body: string | Buffer | undefined = opts.raw
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body)
        headers['content-type'] = 'application/json'
      }
      const res = await request(mock.url + path, { method: method as 'GET', headers, body, headersTimeout: 10_000, bodyTimeout: 10_000 })
      const text = await res.body.text()
      let parsed: unknown
      try {
        parsed = text ? JSON.parse(text) : undefined
      } catch {
        parsed = undefined
      }
      return { status: res.statusCode, headers: res.headers, body: parsed, text }
    },
    close: () => mock.close(),
  }
}

/** Asserts a value against a schema ref, naming the failure. */
export function valid(tt: Asserts, ref: string, value: unknown, what = ref): void {
  const r = validate(ref, value)
  if (r.valid) tt.ok(true, `${what} matches ${ref}`)
  else tt.ok(false, `${what} matches ${ref}`, { schemaErrors: r.text })
}

/** Asserts a homeserver error response: status, errcode, exact message if given, and the error schema. */
export function hsErr(tt: Asserts, res: Res, status: number, errcode: string, error?: string): void {
  tt.equal(res.status, status, `status ${status}`)
  tt.equal(res.body?.errcode, errcode, `errcode ${errcode}`)
  if (error !== undefined) tt.equal(res.body?.error, error, 'exact message')
  valid(tt, 'homeserver/error', res.body, 'error body')
}

export interface Fixture {
  adminId: string
  userId: string
  room1: string
  room2: string
  /** event ids in the order they were reported */
  events: { eventId: string; roomId: string; sender: string; body: Record<string, unknown> }[]
}

let txn = 0

export async function createRoom(hs: Hs, token: string, body: Record<string, unknown> = { visibility: 'public' }): Promise<string> {
  const res = await hs.req('POST', '/_matrix/client/v3/createRoom', { token, body })
  if (res.status !== 200) throw new Error(`createRoom: ${res.status} ${res.text}`)
  return res.body.room_id as string
}

export async function send(
  hs: Hs,
  token: string,
  roomId: string,
  content: Record<string, unknown> = { msgtype: 'm.text', body: 'body_text_here' },
): Promise<string> {
  const res = await hs.req('PUT', `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/t${++txn}`, {
    token,
    body: content,
  })
  if (res.status !== 200) throw new Error(`send: ${res.status} ${res.text}`)
  return res.body.event_id as string
}

export async function report(hs: Hs, token: string, roomId: string, eventId: string, body: unknown, version = 'v3'): Promise<Res> {
  return hs.req('POST', `/_matrix/client/${version}/rooms/${encodeURIComponent(roomId)}/report/${encodeURIComponent(eventId)}`, {
    token,
    body,
  })
}

export async function whoami(hs: Hs, token: string): Promise<string> {
  const res = await hs.req('GET', '/_matrix/client/v3/account/whoami', { token })
  return res.body.user_id as string
}

/**
 * The peer suite's list fixture: the non-admin user creates two public rooms and the admin joins both;
 * each of them sends and reports 5 events in each room; the admin's reports in room 2 have an empty body.
 */
export async function peerFixture(hs: Hs): Promise<Fixture> {
  const adminId = await whoami(hs, ADMIN_TOKEN)
  const userId = await whoami(hs, USER_TOKEN)
  const room1 = await createRoom(hs, USER_TOKEN)
  const room2 = await createRoom(hs, USER_TOKEN)
  for (const r of [room1, room2]) {
    const j = await hs.req('POST', `/_matrix/client/v3/rooms/${encodeURIComponent(r)}/join`, { token: ADMIN_TOKEN, body: {} })
    if (j.status !== 200) throw new Error(`join: ${j.status} ${j.text}`)
  }
  const events: Fixture['events'] = []
  const plan: [string, string, string, Record<string, unknown>][] = [
    [USER_TOKEN, userId, room1, { score: -100, reason: 'this makes me sad' }],
    [USER_TOKEN, userId, room2, { score: -100, reason: 'this makes me sad' }],
    [ADMIN_TOKEN, adminId, room1, { score: -100, reason: 'this makes me sad' }],
    [ADMIN_TOKEN, adminId, room2, {}],
  ]
  for (const [token, sender, roomId, body] of plan) {
    for (let i = 0; i < 5; i++) {
      const eventId = await send(hs, token, roomId)
      const res = await report(hs, token, roomId, eventId, body)
      if (res.status !== 200) throw new Error(`report: ${res.status} ${res.text}`)
      events.push({ eventId, roomId, sender, body })
    }
  }
  return { adminId, userId, room1, room2, events }
}

// Run directly by tap (every file under test/ is a test file): prove the helpers work.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  t.test('the helpers start a mock and build the peer fixture', async (tt) => {
    const hs = await startHs()
    tt.teardown(() => hs.close())
    const fx = await peerFixture(hs)
    tt.equal(fx.events.length, 20)
    const res = await hs.req('GET', hs.reports, { token: ADMIN_TOKEN })
    tt.equal(res.body.total, 20)
  })
}
