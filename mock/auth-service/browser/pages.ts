// The browser pages: password login and logout, registration, login through an upstream provider,
// the authorization endpoint, the account page and the index (see browser.ts for what each answers).
import type { Ctx, Reply } from '../../core/context.ts'
import { MasStore, nowMicros } from '../../store/mas/index.ts'
import { errorPage, esc, html, linkForm, loginForm, redirect, registerForm } from './html.ts'
import { boundedSet, formOf, isValidUsername, requesterOf, safeNext } from './request.ts'
import { CLEAR_COOKIE, type BrowserState } from './session.ts'

/** The service's post-authentication action (`kind=continue_authorization_grant&id=…`): the grant's consent page; else `next`. */
function nextOf(ctx: Ctx): string | undefined {
  const grant = ctx.query.get('kind') === 'continue_authorization_grant' ? ctx.query.get('id') : null
  return (grant !== null && /^[0-9A-Z]{26}$/.test(grant) ? `/consent/${grant}` : ctx.query.get('next')) ?? undefined
}

export function loginPage(_b: BrowserState, ctx: Ctx): Reply {
  // login_hint (passed on by /authorize) fills the username in
  return html(200, 'Sign in', loginForm({ next: nextOf(ctx), username: ctx.query.get('login_hint') ?? undefined }))
}

export function login(b: BrowserState, ctx: Ctx): Reply {
  const form = formOf(ctx)
  if (!(form instanceof URLSearchParams)) return form
  const username = (form.get('username') ?? '').trim()
  const password = form.get('password') ?? ''
  const next = form.get('next')
  ctx.log.queries += 2
  const user = username !== '' ? ctx.world.mas.checkPassword(username, password) : undefined
  // A wrong password, an unknown user and a locked account all re-render the form with 200.
  if (!user || !MasStore.isUserActive(user)) {
    ctx.log.fetched += user ? 1 : 0
    return html(
      200,
      'Sign in',
      loginForm({ username, next: next ?? undefined, error: user ? 'This account is locked.' : 'Invalid credentials.' }),
    )
  }
  ctx.log.fetched += 1
  return b.logIn(ctx, user, safeNext(next))
}

export function logout(b: BrowserState, ctx: Ctx): Reply {
  const s = b.session(ctx)
  if (!s) return redirect('/login', { 'set-cookie': CLEAR_COOKIE })
  ctx.world.mas.finishBrowserSession(s.session, nowMicros(ctx.now()))
  ctx.world.mas.extra.unbindCookie(s.cookie)
  ctx.log.queries += 1
  ctx.log.requester = requesterOf(s.user)
  return redirect('/login', { 'set-cookie': CLEAR_COOKIE })
}

export function registerPage(_b: BrowserState, ctx: Ctx): Reply {
  return html(200, 'Create an account', registerForm({ next: nextOf(ctx) }))
}

export function registerPassword(b: BrowserState, ctx: Ctx): Reply {
  const form = formOf(ctx)
  if (!(form instanceof URLSearchParams)) return form
  const username = (form.get('username') ?? '').trim()
  const password = form.get('password') ?? ''
  ctx.log.queries += 1
  const next = form.get('next')
  const again = (error: string) => html(200, 'Create an account', registerForm({ username, next: next ?? undefined, error }))
  if (!isValidUsername(username)) return again('This username is not valid.')
  if (ctx.world.mas.findUserByUsername(username)) return again('This username is already taken.')
  if (password.length < 8) return again('This password is too weak.')
  const id = ctx.world.mas.newId(nowMicros(ctx.now()))
  boundedSet(b.registrations, id, next !== null ? { username, password, next: safeNext(next) } : { username, password })
  ctx.log.queries += 1
  return redirect(`/register/steps/${id}/finish`)
}

export function registerFinish(b: BrowserState, ctx: Ctx): Reply {
  const id = ctx.params.id ?? ''
  const pending = b.registrations.get(id)
  ctx.log.queries += 1
  if (!pending) return errorPage(404, 'This registration does not exist or has already been completed.')
  const store = ctx.world.mas
  // Taken meanwhile (two b.registrations of one name): the real service refuses at this step too.
  if (store.findUserByUsername(pending.username)) {
    b.registrations.delete(id)
    return errorPage(409, 'This username is already taken.')
  }
  b.registrations.delete(id)
  const user = store.createUser(pending.username, nowMicros(ctx.now()), { password: pending.password })
  ctx.world.hs.addUser(user.username, { displayName: user.username, createdTs: ctx.now().getTime() })
  ctx.log.queries += 3
  return b.logIn(ctx, user, pending.next ?? '/')
}

export function upstreamCallback(b: BrowserState, ctx: Ctx): Reply {
  const provider = ctx.params.provider ?? ''
  const subject = ctx.query.get('sub') ?? ''
  if (subject === '') return errorPage(400, 'The upstream provider did not say who the user is.')
  const id = ctx.world.mas.newId(nowMicros(ctx.now()))
  boundedSet(b.links, id, { provider, subject })
  ctx.log.queries += 2
  return redirect(`/upstream/link/${id}`)
}

export function upstreamLink(b: BrowserState, ctx: Ctx): Reply {
  const id = ctx.params.id ?? ''
  const link = b.links.get(id)
  ctx.log.queries += 1
  if (!link) return errorPage(404, 'This link does not exist or has expired.')
  const form = formOf(ctx)
  if (!(form instanceof URLSearchParams)) return form
  const store = ctx.world.mas
  const linked = store.extra.upstreamLoginUser(link.provider, link.subject)
  let user = linked !== undefined ? store.getUser(linked) : undefined
  if (!user) {
    const username = (form.get('username') ?? '').trim()
    if (!isValidUsername(username))
      return html(200, 'Choose your username', linkForm(id, { username, error: 'This username is not valid.' }))
    if (store.findUserByUsername(username))
      return html(200, 'Choose your username', linkForm(id, { username, error: 'This username is already taken.' }))
    user = store.createUser(username, nowMicros(ctx.now()))
    ctx.world.hs.addUser(username, { displayName: username, createdTs: ctx.now().getTime() })
    store.extra.recordUpstreamLogin(link.provider, link.subject, user.id)
    ctx.log.queries += 3
  } else if (!MasStore.isUserActive(user)) {
    return errorPage(403, 'This account is locked.')
  }
  b.links.delete(id)
  return b.logIn(ctx, user, '/')
}

export function accountPage(b: BrowserState, ctx: Ctx): Reply {
  const s = b.session(ctx)
  if (!s) return redirect(`/login?next=${encodeURIComponent('/account/')}`)
  ctx.log.requester = requesterOf(s.user)
  return html(200, 'Your account', `<h1>${esc(s.user.username)}</h1><div id="view"></div>`)
}

export function index(b: BrowserState, ctx: Ctx): Reply {
  const s = b.session(ctx)
  if (s) ctx.log.requester = requesterOf(s.user)
  return html(200, 'Welcome', s ? `<p>Signed in as ${esc(s.user.username)}</p>` : '<p><a href="/login">Sign in</a></p>')
}
