// The requests the log suite sends itself, so that it knows exactly which lines the target must log:
// each carries the run's User-Agent plus a unique suffix, and after they are answered the suite waits
// for their lines to reach the log. GET only (and one request with a non-standard method) unless
// writes are allowed; then also a token request with an unknown client.
import { randomBytes } from 'node:crypto'
import { HttpError, WritesNotAllowed, type HttpResponse } from '../../lib/http.ts'
import { client, target, UNKNOWN_ULID, MAS_API } from '../lib/suite.ts'
import { LogTail, type MarkedLine } from './logscan.ts'

/** What the log line of a request must say about who sent it. */
export type Attribution = 'none' | 'authenticated'

export interface Planned {
  label: string
  method: string
  /** path and query as sent, relative to the auth service's base URL */
  path: string
  token?: 'admin' | 'user'
  headers?: Record<string, string>
  rawBody?: string
  requester: Attribution
}

export interface Sent extends Planned {
  userAgent: string
  /**
   * What the line must show, from the answer: a token that was accepted (2xx, 404 of a missing
   * resource, 401 for the missing admin scope, which comes after the requester is recorded) makes an
   * authenticated request; a token the service rejected while looking it up makes none; anything else
   * is not checked.
   */
  expect?: Attribution
  /** the path the service sees (base URL path + request path, without the query) */
  expectedPath: string
  /** what the suite received; undefined when the request got no answer */
  status?: number
  error?: string
}

export interface Traffic {
  marker: string
  sent: Sent[]
  /** requests not sent, and why (read-only run, no token) */
  notSent: string[]
  /** the log lines carrying the marker, as found after waiting */
  lines: MarkedLine[]
  /** every request's line was found before the deadline */
  complete: boolean
  waitedMs: number
}

/** How long the suite waits for its lines to reach the log. */
export const FLUSH_DEADLINE_MS = 10_000
/** ...unless the log has not grown at all for this long. */
export const IDLE_GIVE_UP_MS = 3_000
const POLL_MS = 100
// After the last line arrived, one more look for duplicates.
const SETTLE_MS = 300

export function plan(): { planned: Planned[]; notSent: string[] } {
  const notSent: string[] = []
  const planned: Planned[] = []
  const hasAdmin = !!target.mas?.adminToken
  const hasUser = !!target.mas?.userToken
  if (hasAdmin) {
    planned.push(
      { label: 'admin API with the admin token', method: 'GET', path: `${MAS_API}/version`, token: 'admin', requester: 'authenticated' },
      {
        label: 'a listing with a query string',
        method: 'GET',
        path: `${MAS_API}/compat-sessions?page[first]=1&count=false`,
        token: 'admin',
        requester: 'authenticated',
      },
      {
        label: 'an unknown session id (404)',
        method: 'GET',
        path: `${MAS_API}/compat-sessions/${UNKNOWN_ULID}`,
        token: 'admin',
        requester: 'authenticated',
      },
    )
  } else notSent.push('the admin-token requests (no auth service admin token)')
  if (hasUser)
    planned.push({
      label: 'admin API with a token without the admin scope (401 after the requester is known)',
      method: 'GET',
      path: `${MAS_API}/version`,
      token: 'user',
      requester: 'authenticated',
    })
  else notSent.push('the request with a non-admin token (no such token given)')
  planned.push(
    { label: 'no Authorization header (400)', method: 'GET', path: `${MAS_API}/compat-sessions`, requester: 'none' },
    {
      label: 'an Authorization header that is no token (401)',
      method: 'GET',
      path: `${MAS_API}/version`,
      headers: { authorization: 'Bearer not-a-token' },
      requester: 'none',
    },
    // The request id of a method outside the standard ones is tagged _OTHER.
    { label: 'a non-standard method', method: 'PROPFIND', path: `${MAS_API}/version`, requester: 'none' },
  )
  if (target.allowWrites) {
    planned.push({
      label: 'a token request of an unknown client (401)',
      method: 'POST',
      path: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: `grant_type=client_credentials&client_id=${UNKNOWN_ULID}&client_secret=not-a-secret`,
      requester: 'none',
    })
  } else notSent.push('the token request of an unknown client (needs --allow-writes)')
  return { planned, notSent }
}

function firstTitle(res: HttpResponse): string {
  const t = (res.json as { errors?: { title?: unknown }[] } | undefined)?.errors?.[0]?.title
  return typeof t === 'string' ? t : ''
}

function attribution(p: Planned, res: HttpResponse): Attribution | undefined {
  if (p.requester === 'none') return 'none'
  if (res.status < 400 || res.status === 404) return 'authenticated'
  const title = firstTitle(res)
  if (res.status === 401 && title.includes('urn:mas:admin')) return 'authenticated'
  // Rejected while the token was looked up (revoked, expired, unknown, locked user): no requester yet.
  if (res.status === 401 || res.status === 400) return 'none'
  return undefined
}

function servedPath(base: string, path: string): string {
  const u = new URL(base.replace(/\/+$/, '') + path)
  return u.pathname
}

/** Sends the planned requests, then waits for their lines to appear in the log file. */
export async function sendAndCollect(logFile: string): Promise<Traffic> {
  const mas = target.mas!
  const marker = `requestlog/${randomBytes(6).toString('hex')}`
  const tail = new LogTail(logFile, marker)
  await tail.start()
  const { planned, notSent } = plan()
  const sent: Sent[] = []
  let i = 0
  for (const p of planned) {
    const userAgent = `${target.userAgent} ${marker}/${++i}`
    const s: Sent = { ...p, userAgent, expectedPath: servedPath(mas.url, p.path) }
    let res: HttpResponse | undefined
    try {
      res = await client.request(mas.url, p.path, {
        method: p.method,
        token: p.token === 'admin' ? mas.adminToken : p.token === 'user' ? mas.userToken : undefined,
        headers: { ...p.headers, 'user-agent': userAgent },
        rawBody: p.rawBody,
      })
      s.status = res.status
      s.expect = attribution(p, res)
    } catch (e) {
      if (e instanceof WritesNotAllowed) {
        notSent.push(`${p.label} (needs --allow-writes)`)
        continue
      }
      s.error = e instanceof HttpError ? e.message : client.redact(String(e))
    }
    sent.push(s)
  }

  const answered = sent.filter((s) => s.status !== undefined)
  const started = Date.now()
  const found = () => answered.every((s) => tail.marked.some((m) => m.text.includes(`"${s.userAgent}"`)))
  await tail.poll()
  const startByte = tail.bytesRead
  while (!found() && Date.now() - started < FLUSH_DEADLINE_MS) {
    // A log that has not grown at all since the requests were answered is not this service's log.
    if (tail.bytesRead === startByte && Date.now() - started >= IDLE_GIVE_UP_MS) break
    await new Promise((r) => setTimeout(r, POLL_MS))
    await tail.poll()
  }
  const complete = found()
  if (complete) {
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    await tail.poll()
  }
  return { marker, sent, notSent, lines: tail.marked, complete, waitedMs: Date.now() - started }
}
