// What a check needs from the target, and skipping: a check skips with a reason (an unmet need, the
// target's version, a read-only run), never passes without proving something.
import type { Target } from '../../lib/target.ts'

/** Thrown inside a check to skip it with a reason (before any assertion: the check is reported as skipped). */
export class Skip extends Error {
  override name = 'Skip'
  constructor(readonly reason: string) {
    super(reason)
  }
}

export function skip(reason: string): never {
  throw new Skip(reason)
}

/**
 * What a check needs from the target. `mas`/`hs`: URL and admin token; `mas-url`/`hs-url`: URL only;
 * `mas-user`/`hs-user`: the non-admin token; `writes`: --allow-writes.
 */
export type Need = 'mas' | 'mas-url' | 'mas-user' | 'hs' | 'hs-url' | 'hs-user' | 'writes'

export const WRITES_REASON = 'needs --allow-writes'
/** why a check that would put a token in a URL skips (see Target.allowTokenInUrl) */
export const TOKEN_IN_URL_REASON =
  'sends the admin token in the URL (query parameter access_token), which proxies and load balancers log; --allow-token-in-url runs it (with a throwaway token)'

export function unmetNeed(needs: readonly Need[], t: Target): string | undefined {
  for (const n of needs) {
    switch (n) {
      case 'mas':
      case 'mas-url':
      case 'mas-user':
        if (!t.mas) return 'no auth service target (give --mas-url or MAS_URL)'
        if (n === 'mas' && !t.mas.adminToken) return 'needs an auth service admin token (--mas-token or MAS_ADMIN_TOKEN)'
        if (n === 'mas-user' && !t.mas.userToken)
          return 'needs an auth service token without the admin scope (--mas-user-token or MAS_USER_TOKEN)'
        break
      case 'hs':
      case 'hs-url':
      case 'hs-user':
        if (!t.hs) return 'no homeserver target (give --hs-url or HS_URL)'
        if (n === 'hs' && !t.hs.adminToken) return 'needs a homeserver admin token (--hs-token or HS_ADMIN_TOKEN)'
        if (n === 'hs-user' && !t.hs.userToken) return 'needs a non-admin homeserver token (--hs-user-token or HS_USER_TOKEN)'
        break
      case 'writes':
        if (!t.allowWrites) return WRITES_REASON
        break
    }
  }
  return undefined
}
