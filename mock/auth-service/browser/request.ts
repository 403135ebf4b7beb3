// Reading browser requests: forms, cookies, the `next` target, usernames; and bounded in-memory maps.
import { randomBytes } from 'node:crypto'
import type { Ctx, Reply } from '../../core/context.ts'
import type { User } from '../../store/mas/index.ts'

/** Bound on each in-memory map (cookies, pending registrations, upstream links): oldest entries go first. */
const MAX_ENTRIES = 100_000

const USERNAME_RE = /^[a-z0-9=_\-./+]+$/

export function isValidUsername(name: string): boolean {
  return name.length > 0 && Buffer.byteLength(name) <= 255 && !name.startsWith('_') && USERNAME_RE.test(name)
}

export function opaqueId(): string {
  return randomBytes(24).toString('base64url')
}

export function boundedSet<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.set(key, value)
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K)
}

/** The urlencoded form of a POST, or a 415 reply (axum's Form rejects other content types). */
export function formOf(ctx: Ctx): URLSearchParams | Reply {
  const ct = (ctx.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
  if (ct !== 'application/x-www-form-urlencoded') {
    return {
      status: 415,
      body: 'Expected request with `Content-Type: application/x-www-form-urlencoded`',
      contentType: 'text/plain; charset=utf-8',
    }
  }
  return new URLSearchParams(ctx.body.toString('utf8'))
}

/** GET: the query; POST: the form. */
export function paramsOf(ctx: Ctx): URLSearchParams | Reply {
  return ctx.method === 'POST' ? formOf(ctx) : ctx.query
}

export function cookieValue(ctx: Ctx, name: string): string | undefined {
  const header = ctx.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/** Only local paths are followed after a login, never another origin. */
export function safeNext(next: string | null): string {
  return next !== null && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/'
}

export const requesterOf = (u: User) => ({ kind: 'user' as const, id: u.id, username: u.username })
