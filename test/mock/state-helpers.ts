// What the SIGKILL tests of `--state` share: the mock as a child process of the CLI (so that it can
// be killed with SIGKILL), and small HTTP helpers against it.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { generateToken } from '../../mock/store/mas/domain/token.ts'
import { MOCK_CONTROL_HEADER } from '../../lib/target.ts'

export const BIN = fileURLToPath(new URL('../../bin/admin-conformance.mjs', import.meta.url))
export const API = '/api/admin/v1'
export const ADMIN = generateToken('mat')
export const HS_ADMIN = `syt_${'a'.repeat(20)}_crashtest`
export const HS_USER = `syt_${'u'.repeat(20)}_crashtest`
export const SECRET = 'crash-test-client-secret'
export const CLIENT = '01J00000000000000000ADM1N0'

export interface Mock {
  child: ChildProcess
  url: string
  stderr: () => string
}

export async function start(dir: string): Promise<Mock> {
  const args = [
    BIN,
    'mock',
    '--port',
    '0',
    '--quiet',
    '--state',
    dir,
    '--no-deviations',
    '--sessions',
    '300',
    '--reports',
    '60',
    '--log-file',
    'none',
  ]
  const env = {
    ...process.env,
    MOCK_ADMIN_TOKEN: ADMIN,
    MOCK_HS_ADMIN_TOKEN: HS_ADMIN,
    MOCK_HS_USER_TOKEN: HS_USER,
    MOCK_ADMIN_CLIENT_SECRET: SECRET,
  }
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /^(http:\/\/\S+)\n/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`mock exited with ${code}: ${err}`)))
  })
  return { child, url, stderr: () => err }
}

export function kill9(m: Mock): Promise<void> {
  return new Promise((resolve) => {
    if (m.child.exitCode !== null) return resolve()
    m.child.once('exit', () => resolve())
    m.child.kill('SIGKILL')
  })
}

export async function call(url: string, method: string, p: string, body?: unknown, token = ADMIN): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (p.startsWith('/_mock/')) headers[MOCK_CONTROL_HEADER] = '1'
  const r = await fetch(url + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await r.text()
  return { status: r.status, body: text ? JSON.parse(text) : undefined }
}

export async function introspect(url: string, token: string): Promise<boolean> {
  const r = await fetch(`${url}/oauth2/introspect`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT}:${SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: `token=${token}`,
  })
  return ((await r.json()) as { active: boolean }).active
}

export async function listAll(url: string, p: string): Promise<any[]> {
  const out: any[] = []
  for (let next: string | undefined = `${p}${p.includes('?') ? '&' : '?'}page[first]=100`; next;) {
    const r = await call(url, 'GET', next)
    out.push(...r.body.data)
    next = r.body.links.next
  }
  return out
}

/** A browser sign-in through the login form: the session cookie on success (303), undefined otherwise. */
export async function browserLogin(url: string, username: string, password: string): Promise<string | undefined> {
  const r = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }).toString(),
  })
  await r.text()
  const cookie = /^([^=]+=[^;]*)/.exec(r.headers.get('set-cookie') ?? '')?.[1]
  return r.status === 303 ? cookie : undefined
}

/** Whether a session cookie still signs the browser in (the index page names the user). */
export async function signedIn(url: string, cookie: string, username: string): Promise<boolean> {
  const r = await fetch(`${url}/`, { headers: { cookie } })
  return (await r.text()).includes(`Signed in as ${username}`)
}

export interface Stream<O, A> {
  /** the writes answered 2xx before the kill, with their answers */
  acked: { op: O; answer: A }[]
  /** every write sent (answered or not) */
  started: O[]
  /** sent but not acknowledged when the mock was killed */
  inFlight: Set<O>
  killed: boolean
}

/**
 * Sends `ops` from eight concurrent clients and kills the mock (`kill`) once `killAfter` of them are
 * acknowledged. An answer racing the kill counts as unacknowledged; a non-2xx answer before it fails.
 */
export async function streamUntilKill<O, A extends { status: number; body: unknown }>(
  ops: readonly O[],
  send: (op: O) => Promise<A>,
  killAfter: number,
  kill: () => Promise<void>,
): Promise<Stream<O, A>> {
  const s: Stream<O, A> = { acked: [], started: [], inFlight: new Set(), killed: false }
  let next = 0
  const worker = async () => {
    while (!s.killed && next < ops.length) {
      const op = ops[next++]!
      s.started.push(op)
      s.inFlight.add(op)
      try {
        const answer = await send(op)
        if (s.killed) continue
        if (answer.status < 200 || answer.status >= 300)
          throw new Error(`${JSON.stringify(op)}: ${answer.status} ${JSON.stringify(answer.body)}`)
        s.acked.push({ op, answer })
        s.inFlight.delete(op)
      } catch (e) {
        if (!s.killed) throw e
      }
      if (!s.killed && s.acked.length >= killAfter) {
        s.killed = true
        await kill()
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  return s
}
