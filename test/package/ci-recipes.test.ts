// The CI recipes users copy (docs/ci/): each file parses as YAML, and every admin-conformance command
// line in it goes through the CLI's own option parser (scripts/run/options/options.ts), so a renamed or removed
// option fails here, not in a user's pipeline. They stay read-only, read the tokens from the
// environment, fail on a meaningless run, and keep the JUnit and HTML reports.
import t from 'tap'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { parseOptions, type Options } from '../../scripts/run/options/options.ts'

const DIR = fileURLToPath(new URL('../../docs/ci/', import.meta.url))

/** Values the recipes' variables stand for here (the secrets a user sets). */
const VARS: Record<string, string> = {
  MAS_URL: 'https://auth.example.org',
  HS_URL: 'https://matrix.example.org',
  ADMIN_CONFORMANCE_VERSION: '0.1.0',
  status: '0',
}

/** A shell line's words: quotes removed, $VAR and ${VAR} replaced; anything else is refused. */
export function shellWords(line: string): string[] {
  const words: string[] = []
  let word: string | undefined
  let i = 0
  const expand = (): string => {
    const m = /^\$(?:\{(\w+)\}|(\w+))/.exec(line.slice(i))
    if (!m) throw new Error(`cannot read ${line.slice(i)}`)
    i += m[0].length
    const name = (m[1] ?? m[2])!
    if (!Object.hasOwn(VARS, name)) throw new Error(`unknown variable ${name} in: ${line}`)
    return VARS[name]!
  }
  while (i < line.length) {
    const c = line[i]!
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word)
      word = undefined
      i++
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1)
      word = (word ?? '') + line.slice(i + 1, end)
      i = end + 1
    } else if (c === '"') {
      word ??= ''
      i++
      while (line[i] !== '"') {
        if (i >= line.length) throw new Error(`unclosed quote: ${line}`)
        if (line[i] === '$') word += expand()
        else word += line[i++]
      }
      i++
    } else if (c === '$') {
      word = (word ?? '') + expand()
    } else {
      word = (word ?? '') + c
      i++
    }
  }
  if (word !== undefined) words.push(word)
  return words
}

/** Every admin-conformance command of a script: continuation lines joined, `|| ...` after it dropped. */
export function commandsOf(script: string): string[][] {
  return script
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('admin-conformance '))
    .map((l) => shellWords(l.replace(/\s*\|\|.*$/, '')))
}

function scriptsOf(file: string, doc: unknown): string[] {
  const out: string[] = []
  if (file === 'github-actions.yml') {
    for (const job of Object.values((doc as { jobs: Record<string, { steps: { run?: string }[] }> }).jobs))
      for (const s of job.steps) if (s.run) out.push(s.run)
  } else {
    for (const [name, job] of Object.entries(doc as Record<string, unknown>)) {
      if (name.startsWith('.') || typeof job !== 'object' || job === null) continue
      for (const k of ['before_script', 'script', 'after_script'] as const) {
        const lines = (job as Record<string, unknown>)[k]
        if (Array.isArray(lines)) out.push(lines.join('\n'))
      }
    }
  }
  return out
}

// The recipes make reports/ before the run (the parser checks the output's folder): so does this test.
process.chdir(t.testdir({ reports: {} }))

for (const file of ['github-actions.yml', 'gitlab-ci.yml']) {
  t.test(file, async (t) => {
    const text = readFileSync(path.join(DIR, file), 'utf8')
    const doc = parse(text) as unknown
    const commands = scriptsOf(file, doc).flatMap(commandsOf)
    const runs = commands.filter((c) => c[1] === 'run')
    t.ok(runs.length >= 1, 'at least one run command')
    const reporters = new Set<string>()
    for (const c of commands) {
      t.equal(c[1], 'run', `a command the recipe may use: ${c.join(' ')}`)
      let o: Options | 'help' | undefined
      t.doesNotThrow(() => (o = parseOptions(c.slice(2), {})), `the options parse: ${c.join(' ')}`)
      if (typeof o !== 'object') continue
      t.notOk(o.allowWrites, 'read-only')
      t.notOk(o.allowPartial, 'a partial run fails the job')
      t.ok(o.masUrl && o.hsUrl, 'both targets')
      t.match(
        path.relative(process.cwd(), o.output ?? ''),
        /^reports\/admin-conformance\.(xml|html)$/,
        'the report is written under reports/',
      )
      if (o.reporter) reporters.add(o.reporter)
    }
    t.same([...reporters].sort(), ['html', 'junit'], 'JUnit and HTML reports')
    t.notMatch(commands.flat().join(' '), /--(mas|hs)(-user)?-token\b/, 'tokens from the environment, never flags')
    // The job's verdict is the JUnit run's exit code; the HTML run's never changes it.
    if (file === 'github-actions.yml') {
      const job = Object.values(
        (doc as { jobs: Record<string, { steps: { run?: string; if?: string; uses?: string; with?: { path?: string } }[] }> }).jobs,
      )[0]!
      const junit = job.steps.find((s) => s.run?.includes('--reporter junit'))!
      t.notMatch(junit.run!, /\|\|/, 'a failed run fails its step')
      const upload = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!
      t.equal(upload.if, 'always()', 'the reports are uploaded when the run fails too')
      t.equal(upload.with?.path, 'reports/')
      for (const secret of ['MAS_URL', 'MAS_ADMIN_TOKEN', 'HS_URL', 'HS_ADMIN_TOKEN'])
        t.match(text, new RegExp(`${secret}: \\$\\{\\{ secrets\\.${secret} \\}\\}`), `${secret} from the secrets`)
    } else {
      const job = (doc as Record<string, { script: string[]; artifacts: { when: string; paths: string[]; reports: { junit: string } } }>)[
        'admin-conformance'
      ]!
      t.match(
        job.script.join('\n'),
        /--reporter junit[^\n]*\|\| status=\$\?[\s\S]*exit "\$status"/,
        "the job exits with the JUnit run's status",
      )
      t.equal(job.artifacts.when, 'always', 'the reports are kept when the run fails too')
      t.same(job.artifacts.paths, ['reports/'])
      t.equal(job.artifacts.reports.junit, 'reports/admin-conformance.xml')
    }
  })
}

t.test('the command reader refuses what it cannot read, and an option the CLI lacks fails the parse', async (t) => {
  t.same(shellWords(`admin-conformance run --mas-url "$MAS_URL" --output 'a b'`), [
    'admin-conformance',
    'run',
    '--mas-url',
    'https://auth.example.org',
    '--output',
    'a b',
  ])
  t.throws(() => shellWords('admin-conformance run --mas-url "$NOT_SET"'), /unknown variable/)
  t.same(commandsOf('mkdir -p x\nadmin-conformance run \\\n  --area admin || true\n'), [['admin-conformance', 'run', '--area', 'admin']])
  t.throws(() => parseOptions(['--no-such-option'], {}), 'the parser refuses an unknown option')
})
