// Progress of a deployment: each phase prints when it starts and how long it took.
import type { Redactor } from '../../lib/redact.ts'

export interface PhaseRecord {
  name: string
  ok: boolean
  ms: number
  error?: string
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

export class Progress {
  readonly phases: PhaseRecord[] = []
  private readonly write: (line: string) => void
  private readonly redactor: Redactor

  constructor(write: (line: string) => void, redactor: Redactor) {
    this.write = write
    this.redactor = redactor
  }

  say(line: string): void {
    this.write(this.redactor.apply(`[deploy] ${line}`))
  }

  detail(line: string): void {
    this.write(this.redactor.apply(`[deploy]     ${line}`))
  }

  async phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now()
    this.say(`${name} ...`)
    try {
      const v = await fn()
      const ms = performance.now() - t0
      this.phases.push({ name, ok: true, ms })
      this.say(`${name}: done in ${seconds(ms)}`)
      return v
    } catch (e) {
      const ms = performance.now() - t0
      const error = this.redactor.apply((e as Error).message)
      this.phases.push({ name, ok: false, ms, error })
      this.say(`${name}: FAILED after ${seconds(ms)}`)
      throw e
    }
  }
}
