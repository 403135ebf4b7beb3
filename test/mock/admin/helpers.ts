// Shared by the area A mock tests: an in-process mock on a free port with a log file, small HTTP
// helpers, and the parsed request log. (Not a test file itself: tap lists it as "no tests found".)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startMock, type RunningMock } from '../../../mock/site/server.ts'
import { mockOptions, type MockOptions } from '../../../mock/core/options.ts'
import { parseLine, type EventLine, type ResponseLine } from '../../../lib/requestlog.ts'
import { validate } from '../../../lib/schemas.ts'
import { MOCK_CONTROL_HEADER } from '../../../lib/target.ts'
import { generateToken } from '../../../mock/store/mas/index.ts'

export const API = '/api/admin/v1'

/** A fetch answer read whole: status, headers, text, and the JSON body when it parses. */
export async function answerOf(r: Response): Promise<Res> {
  const text = await r.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  return { status: r.status, headers: r.headers, text, body }
}

export interface Res {
  status: number
  headers: Headers
  text: string
  /** parsed JSON body, or undefined */
  body: any
}

export interface TestMock {
  mock: RunningMock
  url: string
  admin: string
  user: string
  logFile: string
  get(path: string, token?: string | null, headers?: Record<string, string>): Promise<Res>
  post(
    path: string,
    body?: unknown,
    opts?: { token?: string | null; headers?: Record<string, string>; raw?: string | Buffer },
  ): Promise<Res>
  req(method: string, path: string, init?: { headers?: Record<string, string>; body?: string | Buffer }): Promise<Res>
  /** every item of a listing, walked forward with pages of `size` */
  all(path: string, size?: number): Promise<any[]>
  /** the parsed lines of the request log so far */
  log(): Promise<{ responses: ResponseLine[]; events: EventLine[] }>
  world(): ReturnType<RunningMock['world']>
  close(): Promise<void>
}

interface Tap {
  teardown(fn: () => unknown): void
}

/** Starts a mock for one test file; closed at teardown. Tokens are fixed so failures are readable. */
export async function startTestMock(t: Tap, over: Partial<MockOptions> = {}): Promise<TestMock> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mock-admin-'))
  const logFile = path.join(dir, 'requests.log')
  const admin = over.adminToken ?? generateToken('mat')
  const user = over.userToken ?? generateToken('mat')
  const mock = await startMock(mockOptions({ port: 0, logFile, adminToken: admin, userToken: user, ...over }, {}))
  const url = mock.url
  let sent = 0
  const req = async (method: string, p: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Res> => {
    sent++
    // The control API wants its header (mock/site/dispatch.ts); tests of that requirement send their own requests.
    const headers = p.startsWith('/_mock/') ? { [MOCK_CONTROL_HEADER]: '1', ...init.headers } : init.headers
    return answerOf(await fetch(url + p, { method, headers, body: init.body }))
  }
  const auth = (token: string | null | undefined): Record<string, string> =>
    token === null ? {} : { authorization: `Bearer ${token ?? admin}` }
  const tm: TestMock = {
    mock,
    url,
    admin,
    user,
    logFile,
    get: (p, token, headers) => req('GET', p, { headers: { ...auth(token), ...headers } }),
    post: (p, body, opts = {}) => {
      const headers: Record<string, string> = { ...auth(opts.token) }
      let payload: string | Buffer | undefined = opts.raw
      if (payload === undefined && body !== undefined) {
        payload = JSON.stringify(body)
        headers['content-type'] = 'application/json'
      }
      return req('POST', p, { headers: { ...headers, ...opts.headers }, body: payload })
    },
    req,
    async all(p, size = 100) {
      const out: any[] = []
      let next: string | undefined = `${p}${p.includes('?') ? '&' : '?'}page[first]=${size}`
      while (next) {
        const r = await req('GET', next, { headers: auth(undefined) })
        if (r.status !== 200) throw new Error(`${next}: ${r.status} ${r.text}`)
        out.push(...r.body.data)
        next = r.body.links.next
      }
      return out
    },
    async log() {
      // The writer is a stream: wait until every request sent so far has its line.
      for (let waited = 0; ; waited += 20) {
        const responses: ResponseLine[] = []
        const events: EventLine[] = []
        let text = ''
        try {
          text = readFileSync(logFile, 'utf8')
        } catch {
          text = ''
        }
        for (const l of text.split('\n')) {
          if (!l) continue
          const p = parseLine(l)
          if (p.kind === 'response') responses.push(p.line)
          else if (p.kind === 'event') events.push(p.event)
          else if (p.kind === 'malformed') throw new Error(`malformed log line: ${l}: ${JSON.stringify(p.error)}`)
        }
        if (responses.length >= sent || waited > 10_000) return { responses, events }
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    world: () => mock.world(),
    close: async () => {
      await mock.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  t.teardown(() => tm.close())
  return tm
}

/** Validation against a schema ref, as a message (empty when valid). */
export function schemaErrors(ref: string, value: unknown): string {
  const r = validate(ref, value)
  return r.valid ? '' : r.text
}

export const titles = (body: any): string[] => (body?.errors ?? []).map((e: { title: string }) => e.title)
