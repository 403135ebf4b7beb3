// Expectations on a response: status, JSON content type, schema (with exact schema paths), and the two
// error envelopes. Each failure carries the request, the response and a curl line (failure.ts).
import type { HttpResponse } from '../../lib/http.ts'
import { validate, type ValidationResult } from '../../lib/schemas.ts'
import { client } from './context.ts'
import { responseFields } from './failure.ts'
import type { Test } from './check.ts'

function clip(s: string, n = 600): string {
  return s.length > n ? s.slice(0, n) + `… (${s.length - n} more characters)` : s
}

/** What to print about a response in a failure: request, status, response (redacted), curl, rule. */
export function diag(res: HttpResponse, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...responseFields(res), ...more }
}

/** A value made safe to print (tokens redacted, size bounded). */
export function shown(value: unknown, n = 600): string {
  let s: string
  try {
    s = JSON.stringify(value)
  } catch {
    s = String(value)
  }
  return clip(client.redact(s ?? 'undefined'), n)
}

export function expectStatus(t: Test, res: HttpResponse, want: number, what: string): boolean {
  return t.equal(res.status, want, `${what}: status ${want}`, diag(res, { expected: `status ${want}` }))
}

export function expectJsonContentType(t: Test, res: HttpResponse, what: string): boolean {
  const ct = res.headers['content-type'] ?? ''
  return t.ok(
    /^application\/json\s*(;|$)/i.test(ct),
    `${what}: content-type application/json`,
    diag(res, { found: ct || '(none)', expected: 'Content-Type: application/json' }),
  )
}

/** Validate against a schema ref; a failure lists each failing instance path with its exact schema path. */
export function expectSchema(t: Test, ref: string, value: unknown, what: string, res?: HttpResponse): boolean {
  const r = validate(ref, value)
  if (r.valid) return t.pass(`${what}: matches ${ref}`)
  return t.fail(`${what}: matches ${ref}`, {
    ...(res ? diag(res) : {}),
    expected: `a body matching the schema ${ref}`,
    schema: ref,
    failures: r.errors.slice(0, 10).map((e) => `${e.instancePath || '(root)'}: ${e.message} [schema ${e.schemaPath}]`),
    value: shown(value),
  })
}

/**
 * A failed schema assertion from a validation done earlier (a walk keeps each page's result, not its
 * JSON): the failing instance paths with their exact schema paths, and how many failures there were.
 */
export function schemaFailed(t: Test, ref: string, r: ValidationResult, what: string): boolean {
  return t.fail(`${what}: matches ${ref}`, {
    expected: `a body matching the schema ${ref}`,
    schema: ref,
    failures: r.errors.slice(0, 10).map((e) => `${e.instancePath || '(root)'}: ${e.message} [schema ${e.schemaPath}]`),
    ...(r.errorCount > 10 ? { more: `${r.errorCount - 10} more failure(s)` } : {}),
  })
}

/**
 * Status, JSON content type, a JSON body, and (when given) the schema. Returns the body when the status
 * and body are right (schema failures are reported but the body is still returned for further checks).
 */
export function expectOk<T = any>(
  t: Test,
  res: HttpResponse,
  what: string,
  opts: { status?: number; schema?: string } = {},
): T | undefined {
  const status = opts.status ?? 200
  if (!expectStatus(t, res, status, what)) return undefined
  expectJsonContentType(t, res, what)
  if (!t.ok(res.json !== undefined, `${what}: body is JSON`, diag(res, { expected: 'a JSON body' }))) return undefined
  if (opts.schema) expectSchema(t, opts.schema, res.json, what, res)
  return res.json as T
}

/**
 * An auth service error: status, JSON, the `{errors:[{title}]}` envelope (admin/error). `title` patterns
 * must each match the first (main) title. Returns the titles.
 */
export function expectMasError(t: Test, res: HttpResponse, status: number, what: string, title: (string | RegExp)[] = []): string[] {
  expectStatus(t, res, status, what)
  expectJsonContentType(t, res, what)
  expectSchema(t, 'admin/error', res.json, `${what}: error body`, res)
  // Read defensively: under a deviation (a TODO) a failed schema assertion still returns true.
  const errors = (res.json as { errors?: unknown } | null | undefined)?.errors
  const titles = Array.isArray(errors) ? errors.map((e) => String((e as { title?: unknown } | null)?.title ?? '')) : []
  for (const p of title) {
    const main = titles[0] ?? ''
    const hit = typeof p === 'string' ? main.toLowerCase().includes(p.toLowerCase()) : p.test(main)
    const named = typeof p === 'string' ? JSON.stringify(p) : String(p)
    t.ok(hit, `${what}: title names ${named}`, diag(res, { title: main, titles, expected: `errors[0].title containing ${named}` }))
  }
  return titles
}

/** A homeserver error: status, JSON, `{errcode, error}` (homeserver/error), the errcode and optionally the message. */
export function expectHsError(t: Test, res: HttpResponse, status: number, errcode: string, what: string, error?: string | RegExp): void {
  expectStatus(t, res, status, what)
  expectJsonContentType(t, res, what)
  expectSchema(t, 'homeserver/error', res.json, `${what}: error body`, res)
  const body = (res.json ?? {}) as { errcode?: unknown; error?: unknown }
  t.equal(body.errcode, errcode, `${what}: errcode ${errcode}`, diag(res, { expected: `errcode ${errcode}` }))
  if (error !== undefined) {
    if (typeof error === 'string')
      t.equal(body.error, error, `${what}: error message`, diag(res, { expected: `error ${JSON.stringify(error)}` }))
    else t.match(String(body.error), error, `${what}: error message`, diag(res, { expected: `error matching ${String(error)}` }))
  }
}
