// The URL the mock is reached at, for every URL it advertises (OpenID discovery, the homeserver's
// well-known base_url and issuer, the OpenAPI document's servers, token issuers). Like the auth
// service's http.public_base and Synapse's public_baseurl: --public-url fixes it; else, with
// --trust-forwarded, a proxy's X-Forwarded-Proto and X-Forwarded-Host give it (their first values);
// else it is http:// and the request's Host (the mock speaks no TLS itself). Forwarded headers are
// ignored unless trusted: anyone can send them.
import type { Ctx } from './context.ts'
import type { MockOptions } from './options.ts'

const HOST = /^[A-Za-z0-9.\-:[\]]+$/

/** Checks --public-url: an absolute http(s) URL without query, fragment or credentials; ends in `/`. */
export function publicUrlOption(value: string): string {
  let u: URL
  try {
    u = new URL(value)
  } catch {
    throw new Error(`--public-url: '${value}' is not an absolute URL`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`--public-url: '${value}' is not an http or https URL`)
  if (u.search || u.hash || u.username || u.password)
    throw new Error(`--public-url: '${value}' must have no query, fragment or credentials`)
  return u.href.endsWith('/') ? u.href : `${u.href}/`
}

/** The Host form of a public URL (name and explicit port), for the Host check (core/host.ts). */
export function publicHostOf(publicUrl: string): { name: string; port: number } {
  const u = new URL(publicUrl)
  return { name: u.hostname.toLowerCase(), port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80 }
}

function firstValue(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v
  return s?.split(',')[0]?.trim() || undefined
}

/** The base URL clients reached the mock at, ending in `/`. */
export function publicBase(
  ctx: Pick<Ctx, 'headers'> & { options: Pick<MockOptions, 'publicUrl' | 'trustForwarded' | 'host' | 'port'> },
): string {
  const o = ctx.options
  if (o.publicUrl) return o.publicUrl
  const header = typeof ctx.headers.host === 'string' && HOST.test(ctx.headers.host) ? ctx.headers.host : `${o.host}:${o.port}`
  if (o.trustForwarded) {
    const proto = firstValue(ctx.headers['x-forwarded-proto'])?.toLowerCase()
    const host = firstValue(ctx.headers['x-forwarded-host'])
    const scheme = proto === 'https' || proto === 'http' ? proto : 'http'
    return `${scheme}://${host && HOST.test(host) ? host : header}/`
  }
  return `http://${header}/`
}
