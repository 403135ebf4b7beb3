// Admin tokens by the client_credentials grant. The auth service issues them for 5 minutes, so the source
// hands out the cached token until shortly before expiry and fetches a new one then.
import { describe, get, http } from './http.ts'
import { DeployError } from './errors.ts'

export interface ClientCredentialsOptions {
  tokenUrl: string
  clientId: string
  clientSecret: string
  scope: string
  /** how the client authenticates: HTTP Basic or in the form body */
  auth?: 'client_secret_basic' | 'client_secret_post'
  /** refresh this long before expiry (default 60 s) */
  marginMs?: number
  now?: () => number
  onToken?: (token: string) => void
}

export interface TokenSet {
  accessToken: string
  expiresAt: number | undefined
  scope: string | undefined
}

export async function clientCredentialsGrant(o: ClientCredentialsOptions, signal?: AbortSignal): Promise<TokenSet> {
  const now = o.now ?? Date.now
  const form: Record<string, string> = { grant_type: 'client_credentials', scope: o.scope }
  const post = o.auth === 'client_secret_post'
  if (post) Object.assign(form, { client_id: o.clientId, client_secret: o.clientSecret })
  const res = await http('POST', o.tokenUrl, { form, basic: post ? undefined : { id: o.clientId, secret: o.clientSecret }, signal })
  const token = get(res.json, 'access_token')
  if (res.status !== 200 || typeof token !== 'string') {
    throw new DeployError('bootstrap', describe(`token grant (scope ${o.scope}) refused`, 'POST', o.tokenUrl, res))
  }
  o.onToken?.(token)
  const expiresIn = get(res.json, 'expires_in')
  const scope = get(res.json, 'scope')
  return {
    accessToken: token,
    expiresAt: typeof expiresIn === 'number' ? now() + expiresIn * 1000 : undefined,
    scope: typeof scope === 'string' ? scope : undefined,
  }
}

export class TokenSource {
  private current: TokenSet | undefined
  private inflight: Promise<TokenSet> | undefined
  private readonly o: ClientCredentialsOptions
  /** how many grants were made, for reports and tests */
  grants = 0

  constructor(o: ClientCredentialsOptions) {
    this.o = o
  }

  get expiresAt(): number | undefined {
    return this.current?.expiresAt
  }

  /** A token valid for at least the margin (or minValidMs). Concurrent callers share one grant. */
  async token(signal?: AbortSignal, minValidMs?: number): Promise<string> {
    const now = (this.o.now ?? Date.now)()
    const margin = minValidMs ?? this.o.marginMs ?? 60_000
    if (this.current && (this.current.expiresAt === undefined || this.current.expiresAt - margin > now)) return this.current.accessToken
    this.inflight ??= clientCredentialsGrant(this.o, signal).finally(() => (this.inflight = undefined))
    const set = await this.inflight
    if (set !== this.current) {
      this.current = set
      this.grants++
    }
    return set.accessToken
  }
}
