// Reading the running homeserver version (GET <hs-url><prefix>/admin/v1/server_version, no authentication)
// through the project's one HTTP client, with a small size cap: the answer is one short JSON object.
import { HttpClient, HttpError } from '../../lib/http.ts'
import { normalisePrefix, TargetError } from '../../lib/target.ts'
import { parseServerVersionString, type Version } from '../../lib/versions.ts'
import { UnreachableError, UsageError } from '../common/index.ts'

export const DEFAULT_TIMEOUT_S = 5
const MAX_BODY_BYTES = 64 * 1024

/** The homeserver could not be reached, or did not answer with a usable version: exit 3. */
export class ServerReadError extends UnreachableError {
  override name = 'ServerReadError'
}

/** The URL of server_version under `hsUrl` (its base path kept) and the prefix; UsageError for bad input. */
export function serverVersionUrl(hsUrl: string, hsPrefix: string): URL {
  let base: URL
  try {
    base = new URL(hsUrl)
  } catch {
    throw new UsageError(`--hs-url ${JSON.stringify(hsUrl)} is not a URL (expected e.g. http://127.0.0.1:8008)`)
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new UsageError(`--hs-url must be an http or https URL, got ${JSON.stringify(base.protocol)}`)
  }
  let prefix: string
  try {
    prefix = normalisePrefix(hsPrefix, '--hs-prefix')
  } catch (e) {
    throw new UsageError((e as TargetError).message)
  }
  const url = new URL(base.href)
  url.search = ''
  url.hash = ''
  url.pathname = `${base.pathname.replace(/\/+$/, '')}${prefix}/admin/v1/server_version`
  return url
}

/** The URL without user:password, for messages. */
function shownUrl(u: URL): string {
  const c = new URL(u.href)
  c.username = ''
  c.password = ''
  return c.href
}

/** Reads `server_version` from a homeserver. Throws ServerReadError (exit 3) or UsageError for a bad URL (exit 2). */
export async function fetchServerVersion(
  hsUrl: string,
  opts: { hsPrefix?: string; timeoutS?: number } = {},
): Promise<{ url: string; serverVersion: string; version: Version }> {
  const url = serverVersionUrl(hsUrl, opts.hsPrefix ?? '/_synapse')
  const where = shownUrl(url)
  const fail = (why: string): never => {
    throw new ServerReadError(`could not read the homeserver version from ${where}: ${why}`)
  }
  const timeoutMs = Math.round((opts.timeoutS ?? DEFAULT_TIMEOUT_S) * 1000)
  const secrets = [url.password, url.username].filter((s) => s.length > 0).map(decodeURIComponent)
  const client = new HttpClient({
    allowWrites: false,
    connectTimeoutMs: timeoutMs,
    requestTimeoutMs: timeoutMs,
    userAgent: 'admin-conformance-plan-upgrade',
    maxResponseBytes: MAX_BODY_BYTES,
    secrets,
  })
  try {
    let res
    try {
      res = await client.request(url.origin, url.pathname)
    } catch (err) {
      if (err instanceof HttpError) return fail(err.message.replace(/^\S+ \S+: /, ''))
      throw err
    }
    if (res.status !== 200) fail(`HTTP status ${res.status} (expected 200)`)
    if (res.json === undefined) fail('the response is not JSON')
    const sv = (res.json as { server_version?: unknown } | null)?.server_version
    if (typeof sv !== 'string') return fail('the response has no string "server_version"')
    const parsed = parseServerVersionString(sv)
    if (!parsed.ok) return fail(`${parsed.reason}; pass --from explicitly`)
    return { url: where, serverVersion: sv, version: parsed.version }
  } finally {
    await client.destroy()
  }
}
