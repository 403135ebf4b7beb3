// The HTTP calls of the bootstrap: JSON in and out, bounded in time, errors that say what was asked.

export interface HttpOptions {
  bearer?: string
  basic?: { id: string; secret: string }
  json?: unknown
  form?: Record<string, string>
  timeoutMs?: number
  signal?: AbortSignal
}

export interface HttpResponse {
  status: number
  text: string
  json: unknown
}

export class HttpError extends Error {}

export async function http(method: string, url: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json' }
  let body: string | undefined
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`
  if (opts.basic) {
    // RFC 6749 §2.3.1: id and secret are form-encoded before the Basic encoding.
    const creds = `${encodeURIComponent(opts.basic.id)}:${encodeURIComponent(opts.basic.secret)}`
    headers.authorization = `Basic ${Buffer.from(creds).toString('base64')}`
  }
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(opts.json)
  } else if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(opts.form).toString()
  }
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000)
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout
  let res: Response
  try {
    res = await fetch(url, { method, headers, body, signal, redirect: 'manual' })
  } catch (e) {
    const err = e as Error & { cause?: Error }
    const why = timeout.aborted ? `no answer within ${(opts.timeoutMs ?? 30_000) / 1000} s` : (err.cause?.message ?? err.message)
    throw new HttpError(`${method} ${new URL(url).pathname}: ${why}`)
  }
  const text = await res.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: res.status, text, json }
}

/** `what failed: METHOD /path answered 4xx: <start of body>` */
export function describe(what: string, method: string, url: string, res: HttpResponse): string {
  const body = res.text.replace(/\s+/g, ' ').trim().slice(0, 300)
  return `${what}: ${method} ${new URL(url).pathname} answered ${res.status}${body ? `: ${body}` : ''}`
}

/** Read a nested member of an unknown JSON value: get(x, 'data', 'id'). */
export function get(value: unknown, ...path: (string | number)[]): unknown {
  let v = value
  for (const k of path) {
    if (typeof v !== 'object' || v === null) return undefined
    v = (v as Record<string | number, unknown>)[k]
  }
  return v
}
