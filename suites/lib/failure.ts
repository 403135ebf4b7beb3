// What a failed assertion says, so that it is actionable from its message alone: the request (method,
// URL, body, tokens redacted), the status and the relevant part of the response, what was expected, the
// rule of the interface (or the release) it comes from, and a curl command that replays the request with
// the token taken from an environment variable. The fields are named request, status, response,
// expected, rule and curl (the runner's human and HTML reports print them).
import type { HttpResponse } from '../../lib/http.ts'
import { current } from './context.ts'
import { visible } from '../../lib/escape.ts'

/** Who sent a request, as the environment variable that holds the token (or a literal, harmless token). */
export type TokenRef = { env: string; inQuery?: boolean } | { literal: string; inQuery?: boolean } | null

export interface RequestInfo {
  method: string
  /** full URL without the token when it travelled in the query */
  url: string
  headers: Record<string, string>
  /** the body as sent (already JSON text) */
  body?: string
  token: TokenRef
}

const requests = new WeakMap<HttpResponse, RequestInfo>()

/** The state of the running check: its name, its rule and the last response it received. */
export interface CheckState {
  name: string
  rule?: string
  last?: HttpResponse
}

let running: CheckState | undefined
/**
 * The running check's state, for the length of the check. A suite process runs one check at a time (tap
 * runs a file's subtests in turn, a worker one file after another), so a variable is enough; an
 * AsyncLocalStorage would switch on V8's promise hooks, and every promise of the process would pay for
 * them (decision 0016). A check that tap abandoned (its time limit) and that ends later leaves the next
 * check's state alone.
 */
export const checkState = {
  getStore: (): CheckState | undefined => running,
  async run<T>(state: CheckState, fn: () => Promise<T>): Promise<T> {
    running = state
    try {
      return await fn()
    } finally {
      if (running === state) running = undefined
    }
  },
}

/**
 * Remember how a response was asked for (the requests layer calls this for every answer), as the last
 * answer of `asker`, the check that sent the request (its state when the request went out).
 */
export function remember(res: HttpResponse, info: RequestInfo, asker: CheckState | undefined): void {
  requests.set(res, info)
  if (asker) asker.last = res
}

export function lastResponse(): HttpResponse | undefined {
  return checkState.getStore()?.last
}

function clip(s: string, n = 600): string {
  return s.length > n ? s.slice(0, n) + `… (${s.length - n} more characters)` : s
}

/** A shell word in single quotes. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

/** A shell word in double quotes in which `$NAME` placeholders stay live and nothing else expands. */
function dq(s: string, live: string[]): string {
  let out = s.replace(/[\\"`$]/g, (c) => '\\' + c)
  for (const v of live) out = out.split('\\$' + v).join('$' + v)
  return `"${out}"`
}

/** A curl command that replays the request; tokens come from environment variables, never printed. */
export function curlOf(info: RequestInfo): string {
  const redact = current().client.redact.bind(current().client)
  // -g: the admin API's brackets (page[first]) are literal, not curl's URL globbing
  const parts = ['curl', '-sS', '-i', '-g']
  if (info.method !== 'GET') parts.push('-X', info.method)
  const live: string[] = []
  let url = redact(info.url)
  let auth: string | undefined
  const tok = info.token
  if (tok) {
    const value = 'env' in tok ? `$${tok.env}` : tok.literal
    if ('env' in tok) live.push(tok.env)
    // (a token in the query only when the run allows it, --allow-token-in-url; the curl line names its variable)
    if (tok.inQuery) url += `${url.includes('?') ? '&' : '?'}access_token=${value}`
    else auth = `Authorization: Bearer ${value}`
  }
  parts.push(dq(url, live))
  if (auth) parts.push('-H', dq(auth, live))
  for (const [k, v] of Object.entries(info.headers)) {
    if (k === 'user-agent' || k === 'accept') continue
    if (k === 'authorization') parts.push('-H', sq(`${k}: ${redact(v)}`))
    else parts.push('-H', sq(`${k}: ${v}`))
  }
  if (info.body !== undefined) parts.push('--data-raw', sq(redact(info.body)))
  return parts.join(' ')
}

/** The failure fields of a response: request, status, response, curl (and the check's rule). */
export function responseFields(res: HttpResponse | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const rule = checkState.getStore()?.rule
  if (rule) out.rule = rule
  if (!res) return out
  const redact = current().client.redact.bind(current().client)
  const info = requests.get(res)
  const body = info?.body !== undefined ? ` body ${clip(redact(info.body), 300)}` : ''
  // The target's bytes shown escaped, its newlines too (lib/escape.ts): an excerpt cannot fake a line.
  out.request = visible(`${res.method} ${res.url}${body}`)
  out.status = res.status
  const ct = res.headers['content-type']
  out.response = visible(`${ct ? `(${ct}) ` : ''}${clip(redact(res.text)) || '(empty body)'}`)
  if (info) out.curl = visible(curlOf(info))
  return out
}
