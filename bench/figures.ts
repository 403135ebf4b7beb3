// The one way a benchmark reports a figure to `npm run bench` (bench/index.ts): one marked JSON line on
// stdout per figure, beside the benchmark's own human-readable lines. The index collects them into one
// table and compares each with the last recorded figure in docs/benchmarks.md.

/** The prefix of a figure line; nothing else a benchmark prints starts with it. */
export const FIGURE_MARK = '##bench-figure '

export interface Figure {
  /** stable name, e.g. `mock-admin.throughput`: the key of the last recorded figure */
  id: string
  /** what it measures, in words */
  label: string
  /** the figure compared across runs: a ratio against a baseline of the same run where there is one */
  value: number
  /** how value reads: `×` for a ratio, else its unit */
  unit: string
  /** the subject and the baseline behind a ratio, in words (e.g. "13,050 vs 38,695 req/s") */
  detail?: string
  /** which way is better */
  better: 'higher' | 'lower'
  /** the goal, in value's unit, where the project has one */
  goal?: number
}

/** `npm run bench -- --quick`: every benchmark at a small size, to prove it runs (figures not comparable). */
export const QUICK = process.env.AC_BENCH_QUICK === '1'

export function reportFigure(f: Figure): void {
  process.stdout.write(`${FIGURE_MARK}${JSON.stringify(f)}\n`)
}

/** The figure lines of a benchmark's output, in order; malformed ones are left out. */
export function parseFigures(output: string): Figure[] {
  const out: Figure[] = []
  for (const line of output.split('\n')) {
    if (!line.startsWith(FIGURE_MARK)) continue
    try {
      const f = JSON.parse(line.slice(FIGURE_MARK.length)) as Figure
      if (
        typeof f.id === 'string' &&
        typeof f.value === 'number' &&
        Number.isFinite(f.value) &&
        (f.better === 'higher' || f.better === 'lower')
      )
        out.push(f)
    } catch {
      // not a figure
    }
  }
  return out
}

/** How much worse `now` is than `last` (0.2 = 20% worse; negative: better), by the figure's direction. */
export function worseBy(f: Pick<Figure, 'better'>, now: number, last: number): number {
  if (last === 0) return 0
  return f.better === 'higher' ? (last - now) / last : (now - last) / last
}

/** A figure counts as worse when it moved more than this against its last recorded value. */
export const WORSE_THRESHOLD = 0.15
