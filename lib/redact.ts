// The one redactor of the project: the suites' failure messages, the runner's output, plan-upgrade and
// deploy all pass text through `redact` (or a Redactor holding the secrets of a run) before printing it.
//
// The rule, and why (there were two, `[REDACTED]` from 4 characters and `[redacted]`
// from 8):
// - Every known secret of 4 characters or more is replaced, longest first (a secret containing another
//   is replaced whole), also in its URL-encoded form. 4, not 8: secrets never reach the output, and a
//   short test token or password (a mock started with `--admin-token abcdef`) is still a secret; below 4
//   characters a value cannot be told from ordinary text and would blank out words, and no credential
//   the services issue or accept is that short.
// - Values of `access_token=`, of Authorization headers (Bearer/Basic) and any token-shaped string of the
//   auth service (mat_, mpt_, mar_, mct_, mcr_) or the homeserver (syt_, syr_) are replaced even when not
//   known (a personal token created by a check, a token in a server's error body).
// - The marker is `[REDACTED]`: one spelling, upper-case so it stands out in a log and is easy to grep.

export const REDACTED = '[REDACTED]'
/** Shorter known secrets are not replaced (see above). */
export const MIN_SECRET_LENGTH = 4

const TOKEN_SHAPE = /\b(?:mat|mpt|mar|mct|mcr|syt|syr)_[A-Za-z0-9_]{8,}/g
// A value stops before a backslash, so that redacting JSON-encoded text (\" inside a report) keeps it valid.
const ACCESS_TOKEN_PARAM = /(access_token=)[^&\s"'#\\]+/gi
// A value written as a shell variable ($MAS_ADMIN_TOKEN, in a failure's curl line) is a name, not a secret.
const AUTH_HEADER = /((?:authorization)["']?\s*[:=]\s*["']?(?:bearer|basic)\s+)(?!\$[A-Z_][A-Z0-9_]*\b)[^\s"',}\\]+/gi
const BEARER = /(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}/gi

// What every pattern above needs somewhere in the text (case aside): a text without any of it skips the
// four scans. Runs redact each request's URL and each check's messages, most of them free of all four
// (decision 0004: redaction was 1-2% of a suite worker's CPU).
const ANY_PATTERN = /access_token=|authorization|bearer|(?:mat|mpt|mar|mct|mcr|syt|syr)_/i

/** Remove every given secret, `access_token=` values, Authorization values and token-shaped strings. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text
  const known = [...secrets].filter((s) => s && s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)
  for (const s of known) {
    if (out.includes(s)) out = out.split(s).join(REDACTED)
    const enc = encodeURIComponent(s)
    if (enc !== s && out.includes(enc)) out = out.split(enc).join(REDACTED)
  }
  if (!ANY_PATTERN.test(out)) return out
  return out
    .replace(ACCESS_TOKEN_PARAM, `$1${REDACTED}`)
    .replace(AUTH_HEADER, `$1${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(TOKEN_SHAPE, REDACTED)
}

/** The secrets of one run (tokens learnt on the way are added), applied with the one rule above. */
export class Redactor {
  private readonly secrets = new Set<string>()

  constructor(secrets: Iterable<string | undefined | null> = []) {
    this.add(...secrets)
  }

  add(...values: (string | undefined | null)[]): void {
    for (const v of values) if (v && v.length >= MIN_SECRET_LENGTH) this.secrets.add(v)
  }

  apply(text: string): string {
    return redact(text, this.secrets)
  }

  /** the secrets held, for a child process or a client that redacts on its own */
  list(): string[] {
    return [...this.secrets]
  }
}
