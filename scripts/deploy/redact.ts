// Secrets never reach the terminal or a report: every line printed goes through one Redactor that knows
// the deployment's secrets and tokens, plus the shapes of the tokens the services issue.

const TOKEN_SHAPE = /\b(mat|mar|mpt|mct|mcr|syt|syr)_[A-Za-z0-9]{8,}(?:_[A-Za-z0-9]{6})?\b/g

export class Redactor {
  private secrets = new Set<string>()

  add(...values: (string | undefined)[]): void {
    // Very short values would blank out ordinary words.
    for (const v of values) if (v && v.length >= 8) this.secrets.add(v)
  }

  apply(text: string): string {
    let out = text
    // Longest first, so that a secret containing another is replaced whole.
    for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('[redacted]')
    return out.replace(TOKEN_SHAPE, '$1_[redacted]')
  }
}
