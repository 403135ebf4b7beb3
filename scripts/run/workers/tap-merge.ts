// Several suite workers' TAP streams as one TAP stream, as tap's runner gave it: each suite file one
// top-level subtest (`# Subtest: <file>`, its indented lines, `ok N - <file>` and its YAML block), kept
// whole, in the order the files end, numbered across the workers. A worker's own top-level lines (its
// version line, plan and closing comments) are dropped; the merged stream gets one of each. A file a
// worker was running when it died (crash, timeout, interruption) is closed with a failed test point whose
// diagnostics say why (../results/tap-tree.ts reads them), so it is still reported as that file.

export type Death = ({ signal: string } | { exitCode: number } | { expired: string } | { deadline: string }) & { check?: string }

function yaml(death: Death): string[] {
  return ['  ---', ...Object.entries(death).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`), '  ...']
}

/** One worker's side of the merge: give it the worker's output as it comes, then end it. */
export class WorkerStream {
  private buf = ''
  private block: string[] = []
  /** the file whose subtest is open (its test point not seen yet) */
  open: string | undefined
  /** the subtests open inside it, by indentation (a check; in the matrix its target group, then the check) */
  private inner = new Map<number, string>()
  private after: 'none' | 'maybe-yaml' | 'yaml' = 'none'

  constructor(private readonly merge: TapMerge) {}

  write(chunk: string): void {
    this.buf += chunk
    const nl = this.buf.lastIndexOf('\n')
    if (nl === -1) return
    for (const line of this.buf.slice(0, nl).split('\n')) this.line(line)
    this.buf = this.buf.slice(nl + 1)
  }

  private flush(): void {
    if (this.block.length) this.merge.emit(this.block.join('\n') + '\n')
    this.block = []
    this.after = 'none'
  }

  private line(l: string): void {
    if (this.after === 'yaml') {
      this.block.push(l)
      if (l === '  ...') this.flush()
      return
    }
    if (this.after === 'maybe-yaml') {
      if (l === '  ---') {
        this.block.push(l)
        this.after = 'yaml'
        return
      }
      this.flush()
    }
    const sub = /^# Subtest: (.*)$/.exec(l)
    if (sub) {
      this.flush()
      this.inner.clear()
      this.open = sub[1]!
      this.block.push(l)
      this.merge.started(this, this.open)
      return
    }
    const point = /^(not )?ok \d+ (- )?(.*)$/.exec(l)
    if (point) {
      this.block.push(`${point[1] ?? ''}ok ${this.merge.next()} - ${point[3]}`)
      this.open = undefined
      this.after = 'maybe-yaml'
      this.merge.ended(this, point[3]!.replace(/ # time=[\d.]+ms$/, ''))
      return
    }
    if (this.open !== undefined) this.track(l)
    // the worker's own version line, plan and closing comments: the merged stream has its own
    if (/^(TAP version \d+|1\.\.\d+|#.*|)$/.test(l) && this.open === undefined) return
    // What tap prints at the worker's top level while a file runs (`t.comment()` of the file, such as
    // `# ac-leftover`, lands there) belongs to that file: indented into its subtest, where tap's runner
    // put a file process's own top-level lines.
    this.block.push(this.open !== undefined && l !== '' && !l.startsWith(' ') ? `    ${l}` : l)
  }

  /** Which subtests are open inside the file (so that a death can name the check under way). */
  private track(l: string): void {
    const m = /^( +)(?:# Subtest: (.*)|(?:not )?ok \d+ - )/.exec(l)
    if (!m) return
    const depth = m[1]!.length
    for (const d of [...this.inner.keys()]) if (d > depth || (d === depth && m[2] === undefined)) this.inner.delete(d)
    if (m[2] !== undefined) this.inner.set(depth, m[2])
  }

  /** The check under way in the open file ('target: x > check' in the matrix), if any. */
  underWay(): string | undefined {
    const names = [...this.inner].sort((a, b) => a[0] - b[0]).map(([, n]) => n)
    return names.length ? names.join(' > ') : undefined
  }

  /** A file the worker took but never began to report (it died first): failed with `death`. */
  lost(name: string, death: Death): void {
    this.flush()
    this.block.push(`not ok ${this.merge.next()} - ${name}`, ...yaml(death))
    this.merge.ended(this, name)
    this.flush()
  }

  /** The worker ended; a file it had not finished fails with `death`. */
  end(death: Death): void {
    if (this.buf) this.line(this.buf)
    this.buf = ''
    if (this.open !== undefined) {
      const name = this.open
      const check = death.check ?? this.underWay()
      this.block.push(`not ok ${this.merge.next()} - ${name}`, ...yaml(check ? { ...death, check } : death))
      this.open = undefined
      this.merge.ended(this, name)
    }
    this.flush()
  }
}

export class TapMerge {
  private n = 0
  private headed = false

  constructor(
    private readonly out: (text: string) => void,
    /** a worker began a file (for its watchdog) */
    readonly started: (w: WorkerStream, file: string) => void = () => {},
    /** a worker's file ended (its name as its test point gives it) */
    readonly ended: (w: WorkerStream, file: string) => void = () => {},
  ) {}

  next(): number {
    return ++this.n
  }

  emit(text: string): void {
    if (!this.headed) {
      this.headed = true
      this.out('TAP version 14\n')
    }
    this.out(text)
  }

  worker(): WorkerStream {
    return new WorkerStream(this)
  }

  /** The plan of the merged stream, once every worker has ended. */
  end(): void {
    this.emit(`1..${this.n}\n`)
  }
}
