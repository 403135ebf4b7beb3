// The preflight of every command that reads a deployment (run, snapshot, diff): does each target answer,
// and do its tokens work? A problem here ends the command with exit code 3; warnings go in the header.
import { visible } from '../../lib/escape.ts'
import { HttpClient, HttpError, type HttpResponse } from '../../lib/http.ts'
import { knownTokens, type Target } from '../../lib/target.ts'

export interface Preflight {
  ok: boolean
  problems: string[]
  warnings: string[]
  masVersion?: string
  hsVersion?: string
}

function firstTitle(json: unknown): string {
  const t = (json as { errors?: { title?: unknown }[] } | undefined)?.errors?.[0]?.title
  return typeof t === 'string' ? t : ''
}

function hsErr(json: unknown): string {
  const b = json as { errcode?: unknown; error?: unknown } | undefined
  return [b?.errcode, b?.error].filter((x) => typeof x === 'string').join(': ')
}

/**
 * A 200 whose body is not JSON: an HTML page or the like, with its content type and an excerpt (the
 * target's bytes escaped), and what it usually means.
 */
function notJson(what: string, res: HttpResponse, flag: string): string {
  const ct = res.headers['content-type'] || 'no content type'
  const text = res.text.replace(/\s+/g, ' ').trim()
  const excerpt = text ? `, begins "${text.slice(0, 80)}${text.length > 80 ? '…' : ''}"` : ', empty'
  return `${what} answered ${res.status} but not with JSON (${ct}${excerpt}); usually a wrong URL or ${flag}, or a reverse proxy's or web server's own page answering for that path`
}

type Fail = (who: string, url: string, text: string) => void

async function masCheck(client: HttpClient, target: Target, out: Preflight, fail: Fail): Promise<void> {
  const m = target.mas
  if (!m) return
  const who = 'auth service'
  try {
    const res = await client.request(m.url, '/api/admin/v1/version', { token: m.adminToken })
    const v = (res.json as { version?: unknown } | undefined)?.version
    if (!m.adminToken) {
      if (res.status !== 400 && res.status !== 401 && res.status !== 200)
        fail(who, m.url, `GET /api/admin/v1/version answered ${res.status}; is the admin API (adminapi resource) served here?`)
      return
    }
    if (res.status === 200 && typeof v === 'string') out.masVersion = v
    else if (res.status === 200 && res.json === undefined)
      fail(who, m.url, notJson('GET /api/admin/v1/version', res, 'base URL (--mas-url)'))
    else if (res.status === 200) fail(who, m.url, 'GET /api/admin/v1/version answered 200 without a version string')
    else if (res.status === 401)
      fail(who, m.url, `the admin token was rejected (401${firstTitle(res.json) ? ': ' + firstTitle(res.json) : ''})`)
    else if (res.status === 400)
      fail(who, m.url, `the admin token was not accepted (400${firstTitle(res.json) ? ': ' + firstTitle(res.json) : ''})`)
    else if (res.status === 404) fail(who, m.url, 'no admin API at /api/admin/v1 (404); is the adminapi resource enabled on this listener?')
    else fail(who, m.url, `GET /api/admin/v1/version answered ${res.status}`)
    if (m.userToken && out.ok) {
      const u = await client.request(m.url, '/api/admin/v1/version', { token: m.userToken })
      if (u.status === 200) out.warnings.push('the auth service user token has the admin scope; the non-admin auth checks will fail')
    }
  } catch (e) {
    fail(who, m.url, e instanceof HttpError ? e.message.replace(/^GET \S+: /, '') : String(e))
  }
}

async function hsCheck(client: HttpClient, target: Target, out: Preflight, fail: Fail): Promise<void> {
  const h = target.hs
  if (!h) return
  const who = 'homeserver'
  try {
    const sv = await client.request(h.url, `${h.prefix}/admin/v1/server_version`)
    const v = (sv.json as { server_version?: unknown } | undefined)?.server_version
    if (sv.status === 200 && typeof v === 'string') out.hsVersion = v
    else if (sv.status === 200 && sv.json === undefined)
      return fail(who, h.url, notJson(`GET ${h.prefix}/admin/v1/server_version`, sv, 'prefix (--hs-url, --hs-prefix)'))
    else if (sv.status === 404)
      return fail(who, h.url, `no admin API under ${h.prefix}/admin/v1 (server_version answered 404); check --hs-prefix`)
    else
      return fail(
        who,
        h.url,
        `GET ${h.prefix}/admin/v1/server_version answered ${sv.status}${hsErr(sv.json) ? ' (' + hsErr(sv.json) + ')' : ''}`,
      )
    if (!h.adminToken) return
    const r = await client.request(h.url, `${h.prefix}/admin/v1/event_reports`, { token: h.adminToken, query: { limit: 1 } })
    if (r.status === 200 && r.json === undefined)
      return fail(who, h.url, notJson(`GET ${h.prefix}/admin/v1/event_reports`, r, 'prefix (--hs-url, --hs-prefix)'))
    if (r.status === 200) return
    if (r.status === 401) fail(who, h.url, `the admin token was rejected (401${hsErr(r.json) ? ' ' + hsErr(r.json) : ''})`)
    else if (r.status === 403) fail(who, h.url, `the token is not a server admin's (403${hsErr(r.json) ? ' ' + hsErr(r.json) : ''})`)
    else fail(who, h.url, `GET ${h.prefix}/admin/v1/event_reports answered ${r.status}${hsErr(r.json) ? ' (' + hsErr(r.json) + ')' : ''}`)
  } catch (e) {
    fail(who, h.url, e instanceof HttpError ? e.message.replace(/^GET \S+: /, '') : String(e))
  }
}

/** Does each target answer, and do its tokens work? Bounded by 30 s in all. */
export async function preflight(target: Target): Promise<Preflight> {
  const client = new HttpClient({
    allowWrites: false,
    connectTimeoutMs: Math.min(target.timeouts.connectMs, 10_000),
    requestTimeoutMs: Math.min(target.timeouts.requestMs, 12_000),
    userAgent: target.userAgent,
    secrets: knownTokens(target),
  })
  const out: Preflight = { ok: true, problems: [], warnings: [] }
  const fail: Fail = (who, url, text) => {
    out.ok = false
    // the target's words (titles, errors, excerpts) shown escaped: they reach the operator's terminal
    out.problems.push(visible(client.redact(`${who} at ${url}: ${text}`)))
  }
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), 30_000)
    timer.unref()
  })
  const done = await Promise.race([
    Promise.all([masCheck(client, target, out, fail), hsCheck(client, target, out, fail)]).then(() => 'done' as const),
    deadline,
  ])
  clearTimeout(timer)
  if (done === 'late') {
    out.ok = false
    const who = [target.mas && `auth service at ${target.mas.url}`, target.hs && `homeserver at ${target.hs.url}`]
      .filter(Boolean)
      .join(' and ')
    out.problems.push(`${who}: no complete answer within 30 s`)
    await client.destroy()
  } else await client.close()
  return out
}
