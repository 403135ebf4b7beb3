// The requests a check sends: to the auth service's admin API, the homeserver's admin and client APIs,
// and the bundled mock's control API. Every answer is remembered with how it was asked for, so that a
// failure can show the request and a curl line that replays it (failure.ts).
import type { HttpResponse, Query } from '../../lib/http.ts'
import { MOCK_CONTROL_HEADER } from '../../lib/target.ts'
import { client, target } from './context.ts'
import { Skip, TOKEN_IN_URL_REASON } from './needs.ts'
import { checkState, remember, type TokenRef } from './failure.ts'

export const MAS_API = '/api/admin/v1'

/** Who sends a request: the admin token, the non-admin token, nobody, or an explicit token. */
export type As = 'admin' | 'user' | 'none' | { token: string }

export interface CallOptions {
  query?: Query
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
  as?: As
  /** homeserver only: send the token as ?access_token= instead of the Authorization header */
  tokenInQuery?: boolean
}

const ENV: Record<'mas' | 'hs', Record<'admin' | 'user', string>> = {
  mas: { admin: 'MAS_ADMIN_TOKEN', user: 'MAS_USER_TOKEN' },
  hs: { admin: 'HS_ADMIN_TOKEN', user: 'HS_USER_TOKEN' },
}

function tokenFor(as: As, admin: string | undefined, user: string | undefined): string | undefined {
  if (as === 'none') return undefined
  if (as === 'admin') return admin
  if (as === 'user') return user
  return as.token
}

/** How a failure's curl line names the token: its environment variable, a harmless literal, or TOKEN. */
function tokenRef(side: 'mas' | 'hs', as: As, token: string | undefined, inQuery: boolean): TokenRef {
  if (!token) return null
  if (as === 'admin' || as === 'user') return { env: ENV[side][as], inQuery }
  // An explicit token: a made-up one is shown as it is; a real one (a secret of the run) is not.
  return client.redact(token) === token ? { literal: token, inQuery } : { env: 'TOKEN', inQuery }
}

/** The target's tokens (and the run's introspection secret): never in a URL unless the user opted in. */
function secretsOf(): string[] {
  return [
    target.mas?.adminToken,
    target.mas?.userToken,
    target.mas?.introspection?.clientSecret,
    target.hs?.adminToken,
    target.hs?.userToken,
  ].filter((s): s is string => !!s)
}

/**
 * Refuses, as a skip naming the flag, a request that would carry one of the target's tokens in its URL
 * (as ?access_token= or as any other query value): the one place every suite request passes.
 */
function refuseTokenInUrl(query: CallOptions['query'], path: string, inQuery: boolean, token: string | undefined): void {
  if (target.allowTokenInUrl) return
  if (inQuery && token) throw new Skip(TOKEN_IN_URL_REASON)
  const secrets = secretsOf()
  const values = [path, ...queryPairs(query).flat()]
  if (values.some((v) => secrets.some((s) => v.includes(s)))) throw new Skip(TOKEN_IN_URL_REASON)
}

async function send(
  side: 'mas' | 'hs',
  base: string,
  path: string,
  method: string,
  opts: CallOptions,
  token: string | undefined,
  inQuery: boolean,
  as: As,
): Promise<HttpResponse> {
  refuseTokenInUrl(opts.query, path, inQuery, token)
  const asker = checkState.getStore()
  let query = opts.query
  const shownUrl = client.url(base, path, query)
  if (inQuery && token) query = [...queryPairs(query), ['access_token', token]]
  const res = await client.request(base, path, {
    method,
    query,
    body: opts.body,
    rawBody: opts.rawBody,
    headers: opts.headers,
    token: inQuery ? undefined : token,
  })
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json'
  const body = opts.body !== undefined ? JSON.stringify(opts.body) : opts.rawBody
  remember(res, { method: method.toUpperCase(), url: shownUrl, headers, body, token: tokenRef(side, as, token, inQuery) }, asker)
  return res
}

function queryPairs(query: Query | undefined): [string, string][] {
  if (Array.isArray(query)) return [...(query as [string, string][])]
  return Object.entries((query ?? {}) as Record<string, unknown>).flatMap(([k, v]) =>
    v === undefined || v === null
      ? []
      : Array.isArray(v)
        ? v.map((x) => [k, String(x)] as [string, string])
        : [[k, String(v)] as [string, string]],
  )
}

/** A request to the auth service admin API; `path` is relative to /api/admin/v1 unless it starts with it. */
export function mas(method: string, path: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.mas) throw new Skip('no auth service target')
  const full = path.startsWith(MAS_API) ? path : MAS_API + path
  const as = opts.as ?? 'admin'
  const token = tokenFor(as, target.mas.adminToken, target.mas.userToken)
  return send('mas', target.mas.url, full, method, opts, token, false, as)
}

/** A request to the auth service outside the admin API (OAuth 2.0 endpoints...): `path` as given. */
export function masRaw(method: string, path: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.mas) throw new Skip('no auth service target')
  const as = opts.as ?? 'none'
  const token = tokenFor(as, target.mas.adminToken, target.mas.userToken)
  return send('mas', target.mas.url, path, method, opts, token, false, as)
}

/**
 * A request to the bundled mock's control API (/_mock/...). Checks that use it observe effects the real
 * services only show inside (scheduled jobs); on any other target they are skipped with the reason.
 */
export function mockControl(method: string, path: string, body?: unknown): Promise<HttpResponse> {
  if (!target.isMock || !target.mockControlUrl)
    throw new Skip('observable only on the bundled mock (its control API shows the scheduled jobs)')
  return client.request(target.mockControlUrl, `/_mock${path}`, { method, body, headers: { [MOCK_CONTROL_HEADER]: '1' } })
}

/** A request to the homeserver admin API; `path` is relative to <prefix>/admin/v1. */
export function hs(method: string, path: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.hs) throw new Skip('no homeserver target')
  return hsRaw(method, `${target.hs.prefix}/admin/v1${path}`, opts)
}

/** A request to the homeserver's client API; `path` is relative to <clientPrefix>/client/v3. */
export function hsClient(method: string, path: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.hs) throw new Skip('no homeserver target')
  return hsRaw(method, `${target.hs.clientPrefix}/client/v3${path}`, opts)
}

/** A request to the homeserver at a full path (unrouted paths, other prefixes). */
export function hsRaw(method: string, full: string, opts: CallOptions = {}): Promise<HttpResponse> {
  if (!target.hs) throw new Skip('no homeserver target')
  const h = target.hs
  const as = opts.as ?? 'admin'
  const token = tokenFor(as, h.adminToken, h.userToken)
  return send('hs', h.url, full, method, opts, token, opts.tokenInQuery === true, as)
}
