// Colour on a terminal only: NO_COLOR (any value) turns it off, FORCE_COLOR (not '0') turns it on, and
// otherwise the stream must be a TTY (and TERM not 'dumb'). https://no-color.org
export interface Style {
  enabled: boolean
  red(s: string): string
  green(s: string): string
  yellow(s: string): string
  cyan(s: string): string
  dim(s: string): string
  bold(s: string): string
}

export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false'
  return stream.isTTY === true && env.TERM !== 'dumb'
}

export function style(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (s: string) => (enabled && s ? `\u001b[${open}m${s}\u001b[${close}m` : s)
  return { enabled, red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39), dim: wrap(2, 22), bold: wrap(1, 22) }
}
