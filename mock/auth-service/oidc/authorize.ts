// The authorization endpoint and the consent page (the service's GET /authorize and
// GET|POST /consent/{grant_id}), answering as v1.22 does:
// - unknown client, or a redirect_uri that is not registered (exact match; a loopback URI registered
//   without a port matches any port; none given is fine when exactly one is registered): 400 page,
//   never a redirect. Unparsable parameters (missing client_id/response_type/scope, unknown
//   response_type or response_mode): 400 text, as the query extractor answers.
// - other refusals go back to the client (response_mode query, fragment or form_post) with error and
//   error_description: request / request_uri / registration parameters, a `token` response type,
//   `id_token` without the implicit grant, prompt=none (login_required), a client without the
//   authorization_code grant (unauthorized_client), PKCE parameters without a code.
// - otherwise a pending grant is stored: without a browser session 303 to /login (prompt=create: to
//   /register) with the grant to continue, with one 303 to /consent/{id}. The consent page shows the
//   client and scopes with a form (POST with the page's CSRF value); POST fulfils the grant and
//   redirects to the client with code and state. The policy (oidc/policy.ts) is evaluated on both:
//   a violation is shown on a 200 page and nothing is granted.
// - --auto-approve USER (options.autoApprove): no pages at all: the named user is signed in (a new
//   browser session) and consents at once; the answer is the redirect with the code.
import type { Ctx, Reply } from '../../core/context.ts'
import { MasStore, normalizeScope, nowMicros, parseScope, type User } from '../../store/mas/index.ts'
import { errorPage, esc, html, redirect } from '../browser/html.ts'
import { opaqueId, paramsOf, requesterOf } from '../browser/request.ts'
import type { BrowserState } from '../browser/session.ts'
import { DESCRIPTIONS } from './errors.ts'
import { grantViolations } from './policy.ts'
import { oidcState, randomCode, type AuthorizationGrant, type ResponseMode } from '../../mas-http/oidc-state.ts'

const RESPONSE_TYPES = new Set([
  'code',
  'id_token',
  'token',
  'none',
  'code id_token',
  'code token',
  'id_token token',
  'code id_token token',
])
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

const badQuery = (why: string): Reply => ({
  status: 400,
  body: `Failed to deserialize query string: ${why}`,
  contentType: 'text/plain; charset=utf-8',
})

/** The registered URI `given` resolves to (exact match; loopback without port matches any port), or null. */
export function resolveRedirectUri(registered: readonly string[], given: string | null): string | null {
  if (given === null) return registered.length === 1 ? registered[0]! : null
  let url: URL
  try {
    url = new URL(given)
  } catch {
    return null
  }
  const norm = (u: string) => {
    try {
      return new URL(u).href
    } catch {
      return null
    }
  }
  const all = registered.map(norm)
  if (all.includes(url.href)) return given
  if (LOCAL_HOSTS.has(url.hostname)) {
    url.port = ''
    if (all.includes(url.href)) return given
  }
  return null
}

/** The answer that sends `params` back to the client as the grant's response mode asks. */
export function callback(mode: ResponseMode, redirectUri: string, state: string | null, params: Record<string, string>): Reply {
  const url = new URL(redirectUri)
  const merged = new URLSearchParams(mode === 'query' ? url.search : '')
  if (state !== null) merged.append('state', state)
  for (const [k, v] of Object.entries(params)) merged.append(k, v)
  if (mode === 'form_post') {
    url.search = ''
    const fields = [...merged].map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('')
    return html(
      200,
      'Redirecting',
      `<form method="post" action="${esc(url.href)}">${fields}<noscript><button type="submit">Continue</button></noscript></form><script>document.forms[0].submit()</script>`,
    )
  }
  if (mode === 'query') {
    url.search = merged.toString()
    // an empty fragment, so that the browser does not carry one over the redirect
    if (url.hash === '') return redirect(`${url.href}#`)
    return redirect(url.href)
  }
  url.hash = merged.toString()
  return redirect(url.href)
}

const clientError = (mode: ResponseMode, uri: string, state: string | null, error: string): Reply =>
  callback(mode, uri, state, { error, error_description: DESCRIPTIONS[error] ?? '' })

export function authorize(b: BrowserState, ctx: Ctx): Reply {
  const params = paramsOf(ctx)
  if (!(params instanceof URLSearchParams)) return params
  const one = (k: string) => params.get(k)
  const clientId = one('client_id')
  const responseType = one('response_type')
  const rawScope = one('scope')
  if (responseType === null) return badQuery('missing field `response_type`')
  if (clientId === null) return badQuery('missing field `client_id`')
  if (rawScope === null) return badQuery('missing field `scope`')
  const rt = responseType
    .split(' ')
    .filter(Boolean)
    .sort((a, b) => (a === 'code' ? -1 : b === 'code' ? 1 : a.localeCompare(b)))
    .join(' ')
  if (!RESPONSE_TYPES.has(rt)) return badQuery('response_type: invalid response type')
  const scope = rawScope === '' ? [] : parseScope(rawScope)
  if (!scope) return badQuery('scope: invalid scope')
  const modeParam = one('response_mode')
  if (modeParam !== null && modeParam !== 'query' && modeParam !== 'fragment' && modeParam !== 'form_post')
    return badQuery('response_mode: unknown variant')
  const method = one('code_challenge_method') ?? (one('code_challenge') !== null ? 'plain' : null)
  if (method !== null && method !== 'plain' && method !== 'S256') return badQuery('code_challenge_method: unknown variant')
  ctx.log.queries += 1
  const client = ctx.world.mas.getClient(clientId)
  if (!client) return errorPage(400, 'could not find client')
  const redirectUri = resolveRedirectUri(client.redirectUris, one('redirect_uri'))
  if (redirectUri === null) return errorPage(400, 'invalid redirect uri')
  const hasToken = rt.split(' ').includes('token')
  const hasIdToken = rt.split(' ').includes('id_token')
  const hasCode = rt.split(' ').includes('code')
  const mode: ResponseMode = (modeParam as ResponseMode | null) ?? (hasToken || hasIdToken ? 'fragment' : 'query')
  if ((hasToken || hasIdToken) && modeParam === 'query') return errorPage(400, 'invalid response mode')
  if (new URL(redirectUri).hash !== '') return errorPage(400, 'invalid parameters')
  const state = one('state')
  const fail = (error: string) => clientError(mode, redirectUri, state, error)
  if (one('request') !== null) return fail('request_not_supported')
  if (one('request_uri') !== null) return fail('request_uri_not_supported')
  if (hasToken) return fail('unsupported_response_type')
  if (hasIdToken && !client.grantTypes.includes('implicit')) return fail('unauthorized_client')
  if (one('registration') !== null) return fail('registration_not_supported')
  const prompt = (one('prompt') ?? '').split(' ')
  if (prompt.includes('none')) return fail('login_required')
  const challenge = one('code_challenge')
  if (!hasCode) return challenge !== null ? fail('invalid_request') : fail('unsupported_response_type')
  if (!client.grantTypes.includes('authorization_code')) return fail('unauthorized_client')
  const at = nowMicros(ctx.now())
  const grant: AuthorizationGrant = {
    id: ctx.world.mas.newId(at),
    clientId: client.id,
    redirectUri,
    scope: normalizeScope(scope),
    state,
    nonce: one('nonce'),
    responseMode: mode,
    code: randomCode(),
    pkce: challenge !== null ? { challenge, method: method as 'plain' | 'S256' } : null,
    createdAt: at,
    csrf: opaqueId(),
    stage: 'pending',
    browserSessionId: null,
    fulfilledAt: null,
    exchangedAt: null,
    sessionId: null,
  }
  oidcState(ctx).add(grant)
  ctx.log.queries += 2
  if (ctx.options.autoApprove !== undefined) return autoApprove(ctx, grant)
  const s = b.session(ctx)
  if (!s) {
    const continueGrant = `kind=continue_authorization_grant&id=${grant.id}`
    if (prompt.includes('create')) return redirect(`/register?${continueGrant}`)
    const hint = one('login_hint')
    return redirect(`/login?${continueGrant}${hint !== null ? `&login_hint=${encodeURIComponent(hint)}` : ''}`)
  }
  ctx.log.requester = requesterOf(s.user)
  return redirect(`/consent/${grant.id}`)
}

/** --auto-approve: the configured user signs in and consents without a page. */
function autoApprove(ctx: Ctx, grant: AuthorizationGrant): Reply {
  const store = ctx.world.mas
  const user = store.findUserByUsername(ctx.options.autoApprove!)
  if (!user || !MasStore.isUserActive(user)) return clientError(grant.responseMode, grant.redirectUri, grant.state, 'access_denied')
  ctx.log.requester = requesterOf(user)
  const violations = grantViolations(store, user, grant.scope)
  if (violations.length) return policyPage(grant, violations)
  const ua = ctx.headers['user-agent']
  const session = store.createBrowserSession(user.id, nowMicros(ctx.now()), {
    userAgent: typeof ua === 'string' ? ua : null,
    ip: ctx.clientAddress ?? null,
  })
  return fulfil(ctx, grant, session.id)
}

function fulfil(ctx: Ctx, grant: AuthorizationGrant, browserSessionId: string): Reply {
  grant.stage = 'fulfilled'
  grant.browserSessionId = browserSessionId
  grant.fulfilledAt = nowMicros(ctx.now())
  ctx.log.queries += 2
  return callback(grant.responseMode, grant.redirectUri, grant.state, { code: grant.code })
}

function policyPage(grant: AuthorizationGrant, violations: string[]): Reply {
  const items = violations.map((v) => `<li>${esc(v)}</li>`).join('')
  return html(
    200,
    'Authorization denied',
    `<h1>This authorization request is not allowed</h1><p>Client ${esc(grant.clientId)}</p><ul class="violations">${items}</ul>`,
  )
}

/** The grant of /consent/:id with the signed-in user, or the answer instead (login, 404, 409, policy page). */
function consentContext(b: BrowserState, ctx: Ctx): { grant: AuthorizationGrant; user: User; browserSessionId: string } | Reply {
  const id = ctx.params.id ?? ''
  const grant = oidcState(ctx).grants.get(id)
  ctx.log.queries += 1
  if (!grant) return errorPage(404, 'Authorization grant not found')
  const s = b.session(ctx)
  if (!s) return redirect(`/login?kind=continue_authorization_grant&id=${grant.id}`)
  ctx.log.requester = requesterOf(s.user)
  if (grant.stage !== 'pending') return errorPage(409, `Authorization grant ${grant.id} already used`)
  const violations = grantViolations(ctx.world.mas, s.user, grant.scope)
  if (violations.length) return policyPage(grant, violations)
  return { grant, user: s.user, browserSessionId: s.session.id }
}

export function consentPage(b: BrowserState, ctx: Ctx): Reply {
  const c = consentContext(b, ctx)
  if (!('grant' in c)) return c
  const { grant, user } = c
  const client = ctx.world.mas.getClient(grant.clientId)
  const name = client?.name ?? (typeof client?.metadata?.client_uri === 'string' ? client.metadata.client_uri : grant.clientId)
  const scopes = grant.scope.map((s) => `<li><code>${esc(s)}</code></li>`).join('')
  return html(
    200,
    'Allow access',
    `<h1>Allow access to your account?</h1><p><strong class="client">${esc(name)}</strong> wants to access your account as <strong class="user">@${esc(user.username)}:${esc(ctx.world.mas.serverName)}</strong>.</p>` +
      `<ul class="scopes">${scopes}</ul>` +
      `<form method="post" action="/consent/${esc(grant.id)}"><input type="hidden" name="csrf" value="${esc(grant.csrf)}"><button type="submit">Continue</button></form>`,
  )
}

export function consentSubmit(b: BrowserState, ctx: Ctx): Reply {
  const form = paramsOf(ctx)
  if (!(form instanceof URLSearchParams)) return form
  const grant = oidcState(ctx).grants.get(ctx.params.id ?? '')
  // The CSRF check comes first, as the service verifies the form before anything else.
  if (!grant || form.get('csrf') !== grant.csrf) return errorPage(400, 'CSRF token mismatch')
  const c = consentContext(b, ctx)
  if (!('grant' in c)) return c
  return fulfil(ctx, c.grant, c.browserSessionId)
}
