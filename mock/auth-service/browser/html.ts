// The HTML of the browser pages: minimal pages and forms, every value escaped.
import type { Reply } from '../../core/context.ts'

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

export function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><main>${body}</main></body></html>`
}

export function html(status: number, title: string, body: string, headers?: Record<string, string | string[]>): Reply {
  return { status, body: page(title, body), contentType: 'text/html; charset=utf-8', ...(headers ? { headers } : {}) }
}

export function redirect(location: string, headers: Record<string, string | string[]> = {}): Reply {
  return { status: 303, headers: { location, ...headers } }
}

export function errorPage(status: number, message: string): Reply {
  return html(status, 'Error', `<h1>Something went wrong</h1><p>${esc(message)}</p>`)
}

export function loginForm(opts: { username?: string; next?: string; error?: string }): string {
  return (
    '<h1>Sign in</h1>' +
    (opts.error ? `<p role="alert" class="error">${esc(opts.error)}</p>` : '') +
    '<form method="post" action="/login">' +
    `<input name="username" autocomplete="username" value="${esc(opts.username ?? '')}">` +
    '<input name="password" type="password" autocomplete="current-password">' +
    (opts.next ? `<input type="hidden" name="next" value="${esc(opts.next)}">` : '') +
    '<button type="submit">Continue</button></form>'
  )
}

export function registerForm(opts: { username?: string; next?: string; error?: string }): string {
  return (
    '<h1>Create an account</h1>' +
    (opts.error ? `<p role="alert" class="error">${esc(opts.error)}</p>` : '') +
    '<form method="post" action="/register/password">' +
    `<input name="username" value="${esc(opts.username ?? '')}">` +
    '<input name="password" type="password" autocomplete="new-password">' +
    (opts.next ? `<input type="hidden" name="next" value="${esc(opts.next)}">` : '') +
    '<button type="submit">Continue</button></form>'
  )
}

export function linkForm(id: string, opts: { username?: string; error?: string }): string {
  return (
    '<h1>Choose your username</h1>' +
    (opts.error ? `<p role="alert" class="error">${esc(opts.error)}</p>` : '') +
    `<form method="post" action="/upstream/link/${esc(encodeURIComponent(id))}">` +
    `<input name="username" value="${esc(opts.username ?? '')}">` +
    '<button type="submit">Continue</button></form>'
  )
}
