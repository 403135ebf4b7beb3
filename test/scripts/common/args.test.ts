// scripts/common: the argument parser's messages, "did you mean", numbers and durations, the message
// prefix and failWith's exit codes.
import t from 'tap'
import {
  EXIT,
  UsageError,
  UnreachableError,
  CommandError,
  checkChoice,
  closest,
  didYouMean,
  durationSeconds,
  editDistance,
  failWith,
  listLines,
  parseCommandLine,
  positiveNumber,
  prefixed,
} from '../../../scripts/common/index.ts'

const OPTIONS = {
  sessions: { type: 'string' },
  timeout: { type: 'string' },
  area: { type: 'string', choices: ['admin', 'reports', 'requestlog'], list: true },
  reporter: { type: 'string', choices: ['tap', 'junit', 'json'] },
  'mas-token': { type: 'string' },
  fault: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

function usageMessage(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    return e.message
  }
  throw new Error('no UsageError thrown')
}

t.test('exit code table', async (t) => {
  t.same(EXIT, { pass: 0, failed: 1, usage: 2, unreachable: 3, interrupted: 130 })
  t.equal(new UsageError('x').exitCode, 2)
  t.equal(new UnreachableError('x').exitCode, 3)
})

t.test('negative numbers are values, and the option says what it must be', async (t) => {
  for (const [flag, rule] of [
    ['--sessions', { integer: true }],
    ['--timeout', { unit: 'seconds' }],
  ] as const) {
    const { values } = parseCommandLine([flag, '-5'], OPTIONS)
    const v = values[flag.slice(2) as 'sessions' | 'timeout']
    t.equal(v, '-5')
    const msg = usageMessage(() => positiveNumber(flag, v, rule))
    t.match(msg, new RegExp(`^${flag} must be a positive`))
    t.notMatch(msg, /ambiguous/)
  }
  t.equal(
    usageMessage(() => durationSeconds('--timeout', '-1')),
    "--timeout must be a positive number of seconds, got '-1'",
  )
  t.equal(
    usageMessage(() => positiveNumber('--sessions', '2.5', { integer: true })),
    "--sessions must be a positive whole number, got '2.5'",
  )
  t.equal(
    usageMessage(() => positiveNumber('--sessions', '0', { integer: true })),
    "--sessions must be a positive whole number, got '0'",
  )
  t.equal(positiveNumber('--sessions', '0', { integer: true, allowZero: true }), 0)
  t.equal(
    usageMessage(() => positiveNumber('--jobs', '65', { integer: true, max: 64 })),
    "--jobs must be a positive whole number (up to 64), got '65'",
  )
  t.equal(
    usageMessage(() => positiveNumber('--sessions', '-5', { integer: true, max: 9, allowZero: true })),
    "--sessions must be a positive whole number (0 to 9), got '-5'",
  )
  t.equal(durationSeconds('--timeout', '1.5'), 1.5)
  t.equal(durationSeconds('--timeout', undefined), undefined)
})

t.test('unknown options: did you mean, and no value echoed', async (t) => {
  t.equal(
    usageMessage(() => parseCommandLine(['--aera', 'admin'], OPTIONS)),
    "unknown option '--aera'; did you mean '--area'?",
  )
  t.equal(
    usageMessage(() => parseCommandLine(['--sesions=5'], OPTIONS)),
    "unknown option '--sesions'; did you mean '--sessions'?",
  )
  const secret = usageMessage(() => parseCommandLine(['--mas-tokn=mat_supersecretvalue123'], OPTIONS))
  t.equal(secret, "unknown option '--mas-tokn'; did you mean '--mas-token'?")
  t.equal(
    usageMessage(() => parseCommandLine(['--zzzzzzzz'], OPTIONS)),
    "unknown option '--zzzzzzzz'",
  )
  t.equal(
    usageMessage(() => parseCommandLine(['-x'], OPTIONS)),
    "unknown option '-x'",
  )
  t.equal(
    usageMessage(() => parseCommandLine(['json'], OPTIONS)),
    "unexpected argument 'json'; did you mean '--json'?",
  )
  t.same(parseCommandLine(['a', 'b'], OPTIONS, { positionals: true }).positionals, ['a', 'b'])
})

t.test('values: missing, option-like, booleans with values', async (t) => {
  t.equal(
    usageMessage(() => parseCommandLine(['--sessions'], OPTIONS)),
    '--sessions needs a value',
  )
  t.match(
    usageMessage(() => parseCommandLine(['--mas-token', '--json'], OPTIONS)),
    /^--mas-token needs a value, got the option '--json'/,
  )
  t.equal(
    usageMessage(() => parseCommandLine(['--json=yes'], OPTIONS)),
    '--json takes no value',
  )
  t.same(parseCommandLine(['--mas-token=-abc'], OPTIONS).values['mas-token'], '-abc')
  t.same(parseCommandLine(['--fault', 'a', '--fault', 'b', '-h'], OPTIONS).values, { fault: ['a', 'b'], help: true })
})

t.test('enumerated values: did you mean', async (t) => {
  t.equal(
    usageMessage(() => parseCommandLine(['--area', 'admn'], OPTIONS)),
    "--area: unknown value 'admn'; did you mean 'admin'? (one of: admin, reports, requestlog)",
  )
  t.match(
    usageMessage(() => parseCommandLine(['--area', 'admin,reprots'], OPTIONS)),
    /unknown value 'reprots'; did you mean 'reports'\?/,
  )
  t.match(
    usageMessage(() => parseCommandLine(['--reporter=xml'], OPTIONS)),
    /^--reporter: unknown value 'xml' \(one of: tap, junit, json\)$/,
  )
  t.same(parseCommandLine(['--area', 'admin,reports'], OPTIONS).values.area, 'admin,reports')
  t.doesNotThrow(() => checkChoice('--fault', 'a', ['a']))
})

t.test('edit distance and closest', async (t) => {
  t.equal(editDistance('kitten', 'sitting'), 3)
  t.equal(editDistance('', 'abc'), 3)
  t.equal(closest('admn', ['admin', 'reports']), 'admin')
  t.equal(closest('xyz', ['admin', 'reports']), undefined)
  t.equal(closest('req', ['admin', 'reports', 'requestlog']), 'requestlog', 'a unique prefix')
  t.equal(didYouMean('ADMN', ['admin']), "; did you mean 'admin'?")
  t.equal(listLines(['a', 'b']), '  a\n  b')
})

t.test('prefix and failWith', async (t) => {
  t.equal(prefixed('mock', 'bad'), 'admin-conformance mock: bad')
  const io = {
    outText: '',
    errText: '',
    out(s: string) {
      this.outText += s
    },
    err(s: string) {
      this.errText += s
    },
  }
  t.equal(failWith(io, 'mock', new UsageError('--port must be a positive whole number')), 2)
  t.equal(io.errText, "admin-conformance mock: --port must be a positive whole number\nrun 'admin-conformance mock --help' for usage\n")
  io.errText = ''
  t.equal(failWith(io, 'plan-upgrade', new UnreachableError('connection refused')), 3)
  t.equal(io.errText, 'admin-conformance plan-upgrade: connection refused\n')
  io.errText = ''
  t.equal(failWith(io, 'deploy', new CommandError('stopped', EXIT.interrupted)), 130)
  t.equal(failWith(io, 'deploy', new Error('boom')), 1)
})
