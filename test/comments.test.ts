// Current words: a comment that names a file of this project names one that exists. Paths are
// recognised by their first folder (the project's own top-level folders), so that upstream paths quoted
// as sources (crates/…, synapse/rest/…) are not taken for ours; a path may be written from the project's
// root or from the commenting file's folder, with or without its extension, and may end in `/`.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../', import.meta.url))
const TOP = ['lib', 'mock', 'suites', 'scripts', 'schemas', 'test', 'bench', 'docs', 'docker', 'bin', '.ci']
const SOURCE = /\.(ts|mts|mjs|js|sh|py)$/
/** A path of ours: a top-level folder, then segments of file-name characters; `<key>`-style parts end it. */
const PATH = new RegExp(`(?<![\\w./-])((?:${TOP.map((d) => d.replace('.', '\\.')).join('|')})/[\\w.@-]+(?:/[\\w.@-]+)*/?)`, 'g')

/** The comment text of a source file: `//` and `/* … *\/` for JS/TS, `#` for shell and Python. */
export function comments(file: string, text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = []
  const hash = /\.(sh|py)$/.test(file)
  let inBlock = false
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (hash) {
      if (line.startsWith('#')) out.push({ line: i + 1, text: line })
      return
    }
    if (inBlock) {
      out.push({ line: i + 1, text: line })
      if (line.includes('*/')) inBlock = false
      return
    }
    if (line.startsWith('//')) out.push({ line: i + 1, text: line })
    else if (line.startsWith('/*')) {
      out.push({ line: i + 1, text: line })
      inBlock = !line.includes('*/')
    } else {
      const at = raw.indexOf(' // ')
      if (at >= 0) out.push({ line: i + 1, text: raw.slice(at) })
    }
  })
  return out
}

function exists(fromFile: string, p: string): boolean {
  const clean = p.replace(/[.,:;)]+$/, '').replace(/\/$/, '')
  // A glob, a placeholder or a generated folder is not a claim about one file.
  if (/[*<>{}]/.test(clean) || clean.startsWith('dist/') || /\/(dist|node_modules|tmp)\//.test(clean)) return true
  for (const base of [root, join(root, dirname(fromFile))]) {
    for (const ext of ['', '.ts', '.mjs', '.json', '.md', '.sh']) if (existsSync(join(base, clean + ext))) return true
  }
  return false
}

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => SOURCE.test(f) && !f.startsWith('test/fixtures/') && existsSync(join(root, f)))

t.test('every project path named in a comment exists', async (t) => {
  const missing: string[] = []
  let named = 0
  for (const f of files) {
    for (const c of comments(f, readFileSync(join(root, f), 'utf8'))) {
      for (const m of c.text.matchAll(PATH)) {
        // `probes-<release>.json`: a placeholder follows, the path names a family of files.
        if (/[<{]/.test(c.text[m.index! + m[0].length] ?? '')) continue
        named++
        if (!exists(f, m[1]!)) missing.push(`${f}:${c.line}: ${m[1]}`)
      }
    }
  }
  t.ok(named > 50, `${named} paths named in comments of ${files.length} files`)
  t.same(missing, [], 'no comment names a file that does not exist')
})

t.test('the recogniser: paths of ours in comments, upstream paths and code left alone', async (t) => {
  const found = (text: string) => [...comments('x.ts', text).flatMap((c) => [...c.text.matchAll(PATH)].map((m) => m[1]))]
  t.same(found('// see lib/redact.ts and crates/handlers/src/admin/v1/mod.rs'), ['lib/redact.ts'])
  t.same(found("const x = 'lib/redact.ts' // mock/site/server.ts"), ['mock/site/server.ts'], 'a string in code is not a comment')
  t.same(found('/* a\n * docs/decisions/\n */'), ['docs/decisions/'])
  t.same(found('// synapse/rest/admin/user_reports.py, ../shared/reference/x.md'), [])
  t.same(
    comments('x.sh', '# bench/run.ts\necho lib/x.ts').map((c) => c.text),
    ['# bench/run.ts'],
  )
  t.ok(exists('test/x.test.ts', 'lib/redact.ts'), 'from the root')
  t.ok(exists('test/comments.test.ts', 'lib/redact'), 'without its extension')
  t.notOk(exists('lib/x.ts', 'lib/no-such-file.ts'))
})

t.test('code cites decisions, not issue numbers; every decision cited exists', async (t) => {
  const decisions = readdirSync(join(root, 'docs/decisions'))
    .map((f) => /^(\d{4})-/.exec(f)?.[1])
    .filter((x): x is string => !!x)
  t.same([...new Set(decisions)].length, decisions.length, 'each decision number is used once', { decisions })
  const issues: string[] = []
  const unknown: string[] = []
  for (const f of files) {
    const text = readFileSync(join(root, f), 'utf8')
    text.split('\n').forEach((line, i) => {
      if (/\bissue \d+/i.test(line)) issues.push(`${f}:${i + 1}`)
      for (const m of line.matchAll(/\bdecision (\d{4})\b/g))
        if (!decisions.includes(m[1]!)) unknown.push(`${f}:${i + 1}: decision ${m[1]}`)
    })
  }
  t.same(issues, [], 'no source cites an issue number (the reasons live in docs/decisions/)')
  t.same(unknown, [], 'every decision a source cites is in docs/decisions/')
})
