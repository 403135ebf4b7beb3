// The one argument parser of every command: node:util parseArgs underneath, with messages a user can act
// on. parseArgs' strict mode has two faults we avoid by checking its tokens ourselves:
// - `--sessions -5` is reported as "ambiguous" (a value that looks like an option); a negative number is a
//   value, and the option's own check then says what it must be ("must be a positive number");
// - an unknown option gets no suggestion; here it gets "did you mean '--area'?".
// Messages name options, never echo option values other than numbers and enumerated choices (a value may
// be a token).
import { parseArgs } from 'node:util'
import { UsageError } from './messages.ts'
import { closest, didYouMean } from './suggest.ts'

export interface OptionSpec {
  type: 'string' | 'boolean'
  short?: string
  multiple?: boolean
  /** the accepted values of an enumerated option (checked, with "did you mean") */
  choices?: readonly string[]
  /** with choices: the value is a comma-separated list of them */
  list?: boolean
}

export type OptionSpecs = Record<string, OptionSpec>

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? S['multiple'] extends true
    ? boolean[]
    : boolean
  : S['multiple'] extends true
    ? string[]
    : string

export type ParsedValues<T extends OptionSpecs> = { [K in keyof T]?: ValueOf<T[K]> }

export interface ParseSettings {
  /** positional arguments accepted (default none) */
  positionals?: boolean
}

const NUMBER_LIKE = /^-(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i

/** Parse `argv` against `options`; throws UsageError with a clear message for anything wrong. */
export function parseCommandLine<T extends OptionSpecs>(
  argv: readonly string[],
  options: T,
  settings: ParseSettings = {},
): { values: ParsedValues<T>; positionals: string[] } {
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {}
  for (const [name, s] of Object.entries(options))
    config[name] = { type: s.type, ...(s.short ? { short: s.short } : {}), ...(s.multiple ? { multiple: true } : {}) }
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options: config,
    strict: false,
    allowPositionals: true,
    tokens: true,
  })
  const longNames = Object.keys(options).map((n) => `--${n}`)
  for (const t of tokens) {
    if (t.kind === 'positional') {
      if (!settings.positionals) throw new UsageError(`unexpected argument '${shortText(t.value)}'${positionalHint(t.value, longNames)}`)
      continue
    }
    if (t.kind !== 'option') continue
    const spec = options[t.name]
    if (!spec) {
      const shown = t.rawName.length > 40 ? t.rawName.slice(0, 40) + '…' : t.rawName
      throw new UsageError(`unknown option '${shown}'${t.rawName.startsWith('--') ? didYouMean(t.rawName, longNames) : ''}`)
    }
    const shown = t.rawName.startsWith('--') ? t.rawName : `${t.rawName} (--${t.name})`
    if (spec.type === 'boolean') {
      if (t.value !== undefined) throw new UsageError(`${shown} takes no value`)
      continue
    }
    if (t.value === undefined) throw new UsageError(`${shown} needs a value`)
    if (!t.inlineValue && t.value.startsWith('-') && !NUMBER_LIKE.test(t.value) && t.value !== '-') {
      throw new UsageError(
        `${shown} needs a value, got the option '${shortText(t.value)}' (write ${shown}=<value> for a value that starts with '-')`,
      )
    }
    if (spec.choices) {
      const items = spec.list
        ? t.value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : [t.value]
      if (items.length === 0) throw new UsageError(`${shown} needs at least one of: ${spec.choices.join(', ')}`)
      for (const v of items) checkChoice(`--${t.name}`, v, spec.choices)
    }
  }
  return { values: values as ParsedValues<T>, positionals }
}

function shortText(s: string): string {
  return s.length > 40 ? s.slice(0, 40) + '…' : s
}

/** `run --area admin extra`: a bare word close to an option name was probably meant as one. */
function positionalHint(value: string, longNames: readonly string[]): string {
  const guess = closest(`--${value}`, longNames)
  return guess ? `; did you mean '${guess}'?` : ''
}

/** Throw a UsageError unless `value` is one of `choices`: `--area: unknown value 'admn'; did you mean 'admin'? (one of: ...)`. */
export function checkChoice(option: string, value: string, choices: readonly string[]): void {
  if (choices.includes(value)) return
  throw new UsageError(`${option}: unknown value '${shortText(value)}'${didYouMean(value, choices)} (one of: ${choices.join(', ')})`)
}

export interface NumberRule {
  /** whole numbers only */
  integer?: boolean
  /** smallest accepted value (default: above 0 for positive numbers) */
  min?: number
  max?: number
  /** allow 0 (min defaults to 0 instead of "above 0") */
  allowZero?: boolean
  /** the unit named in the message, e.g. 'seconds' */
  unit?: string
}

/**
 * A positive number option. `--sessions -5` → `--sessions must be a positive whole number, got '-5'`.
 * Returns undefined when the option was not given.
 */
export function positiveNumber(option: string, value: string | undefined, rule: NumberRule = {}): number | undefined {
  if (value === undefined) return undefined
  const kind = `a positive ${rule.integer ? 'whole number' : 'number'}${rule.unit ? ` of ${rule.unit}` : ''}`
  const low = rule.min ?? (rule.allowZero ? 0 : undefined)
  const range =
    low !== undefined && rule.max !== undefined
      ? ` (${low} to ${rule.max})`
      : low !== undefined
        ? ` (${low} or more)`
        : rule.max !== undefined
          ? ` (up to ${rule.max})`
          : ''
  const pattern = rule.integer ? /^\d+$/ : /^(?:\d+\.?\d*|\.\d+)$/
  const n = Number(value)
  const bad = (): never => {
    throw new UsageError(`${option} must be ${kind}${range}, got '${shortText(value)}'`)
  }
  if (!pattern.test(value.trim()) || !Number.isFinite(n)) return bad()
  if (!rule.allowZero && n === 0) return bad()
  if (rule.min !== undefined && n < rule.min) return bad()
  if (rule.max !== undefined && n > rule.max) return bad()
  return n
}

/** A duration option, always in seconds (decimals allowed); returned in seconds. */
export function durationSeconds(option: string, value: string | undefined, rule: { max?: number; min?: number } = {}): number | undefined {
  return positiveNumber(option, value, { ...rule, unit: 'seconds' })
}

/** Names one per line (fault names, areas ...), for help and "unknown value" listings. */
export function listLines(names: Iterable<string>, indent = '  '): string {
  return [...names].map((n) => indent + n).join('\n')
}
