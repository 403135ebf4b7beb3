// A hostile target (hostile-output.ts) cannot write to the operator's terminal or into a report: every
// control, format and separator character it sends is shown escaped in the terminal output and in every
// reporter; U+2028/U+2029 do not cut the failure details short; a token it echoes back is redacted even
// where the TAP report's YAML folds the line inside it; its Markdown stays inside code blocks; and a
// default run never sends the admin token in a URL.
import t, { type Test } from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { renderRun, writeReport } from '../../../scripts/run/report/write.ts'
import type { RunReport } from '../../../scripts/run/results/results.ts'
import { knownTokens, mockWith, runCaptured, tokenEnv } from './helpers.ts'
import { hostileOutputServer } from './hostile-output.ts'

const dir = mkdtempSync(path.join(tmpdir(), 'ac-hostile-out-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

// Everything a terminal or a viewer obeys, but the newline.
const UNSAFE = /(?!\n)[\p{Cc}\p{Cf}\u2028\u2029]/u

function assertVisible(t: Test, name: string, text: string): void {
  const m = UNSAFE.exec(text)
  t.notOk(
    m,
    `${name}: no control, format or separator character`,
    m
      ? {
          found: `U+${m[0].codePointAt(0)!.toString(16).padStart(4, '0')}`,
          near: JSON.stringify(text.slice(Math.max(0, m.index - 60), m.index + 20)),
        }
      : {},
  )
}

/** No piece of 10 characters of any token anywhere in `text` (a token split by a line fold leaves pieces). */
function assertNoTokenPiece(t: Test, name: string, text: string, tokens: string[]): void {
  const flat = text.replace(/\\?\n\s*/g, '')
  const pieces = tokens.flatMap((tok) => Array.from({ length: tok.length - 9 }, (_, i) => tok.slice(i, i + 10)))
  const hit = pieces.find((p) => text.includes(p) || flat.includes(p))
  const where = hit === undefined ? -1 : text.includes(hit) ? text.indexOf(hit) : flat.indexOf(hit)
  const near =
    hit === undefined ? '' : (text.includes(hit) ? text : flat).slice(Math.max(0, where - 80), where + 40).replace(hit, '<piece>')
  t.notOk(hit, `${name}: no piece of a token, also across a folded line`, { found: hit?.slice(0, 4), near })
}

/** Lines of a Markdown text that are outside every fenced or indented code block. */
function outsideCode(md: string): string[] {
  const out: string[] = []
  let fence: string | undefined
  for (const line of md.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = undefined
      continue
    }
    if (m) {
      fence = m[1]!
      continue
    }
    if (/^( {4}|\t)/.test(line)) continue
    out.push(line)
  }
  return out
}

async function hostileRun(t: Test, separators: boolean) {
  const server = await hostileOutputServer({ separators })
  t.teardown(() => server.close())
  const tok = knownTokens()
  const env = {
    MAS_ADMIN_TOKEN: tok.adminToken,
    MAS_USER_TOKEN: tok.userToken,
    HS_ADMIN_TOKEN: tok.hsAdminToken,
    HS_USER_TOKEN: tok.hsUserToken,
  }
  const tapFile = path.join(dir, `run-${separators}.tap`)
  const r = await runCaptured(
    [
      '--mas-url',
      server.url,
      '--hs-url',
      server.url,
      '--area',
      'admin,reports',
      '--reporter',
      'tap',
      '--output',
      tapFile,
      '--timeout',
      '60',
    ],
    env,
  )
  t.equal(r.exitCode, 1, 'the run fails (the target answers nonsense)')
  const report = r.result.report as RunReport
  const raw = readFileSync(tapFile, 'utf8')
  t.ok(report.counts.fail > 50, `checks failed with the target's text in their details (${report.counts.fail})`)
  const failures = report.suites.flatMap((s) => s.checks.flatMap((c) => c.failures))
  return { server, r, report, raw, tokens: Object.values(env), failures }
}

t.test('a hostile target: terminal, every reporter, folded tokens, Markdown, tokens in URLs', async (t) => {
  const { server, r, report, raw, tokens, failures } = await hostileRun(t, false)

  // 1. the terminal
  assertVisible(t, 'terminal (stdout)', r.stdout)
  assertVisible(t, 'terminal (stderr)', r.stderr)
  t.notMatch(r.stdout, /^all checks passed/m, "no line of the terminal is the target's")
  t.match(r.stdout, /\\x1b\[2J/, 'the ESC sequence is shown as a visible escape')
  t.match(r.stdout, /\\u202e/, 'a bidi override is shown as a visible escape')
  const responses = failures.map((f) => f.diag?.response).filter((x): x is string => typeof x === 'string')
  t.ok(
    responses.some((x) => x.includes('passed\\x08\\x08\\n```\\n# Injected heading')),
    "a newline of the target's is shown as \\n in a response excerpt",
  )
  t.notOk(
    responses.some((x) => x.includes('\n')),
    'no response excerpt holds a raw newline (it could fake a line)',
  )

  // every reporter
  const reports: Record<string, string> = { tap: raw }
  // each report as the run writes it (rendered, then redacted and guarded by writeReport)
  for (const kind of ['json', 'jsonstream', 'junit', 'markdown', 'html'] as const) {
    let text = ''
    await writeReport(await renderRun(kind, report, raw), tokens, undefined, { write: (s: string) => (text += s) })
    reports[kind] = text
  }
  for (const [kind, text] of Object.entries(reports)) {
    assertVisible(t, `${kind} report`, text)
    // 3. a token the target echoed, folded by the TAP report's YAML
    assertNoTokenPiece(t, `${kind} report`, text, tokens)
  }
  assertNoTokenPiece(t, 'terminal', r.stdout + r.stderr, tokens)
  t.doesNotThrow(() => JSON.parse(reports.json!), 'the JSON report parses')
  t.doesNotThrow(
    () =>
      reports
        .jsonstream!.split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    'the JSON stream parses',
  )

  // 4. Markdown: the target's text stays in code blocks
  t.match(reports.markdown!, /# Injected heading/, "the target's text is in the Markdown report")
  const outside = outsideCode(reports.markdown!)
  t.notOk(
    outside.some((l) => /^#+ Injected/.test(l)),
    'no heading of the target outside a code block',
  )
  t.notOk(
    outside.some((l) => l.includes('![img](') || l.includes('[click](')),
    'no image or link of the target outside a code block',
  )
  t.notOk(
    outside.some((l) => l.includes('127.0.0.1:9/')),
    "no URL of the target's outside a code block",
  )

  // 5. tokens in URLs
  const inUrl = server.urls.filter((u) => tokens.some((tk) => u.includes(tk) || u.includes(encodeURIComponent(tk))))
  t.same(
    inUrl.map((u) => u.replace(/access_token=[^&]*/, 'access_token=…')),
    [],
    'no token was sent in a URL',
  )
  t.ok(
    report.skipReasons.some((s) => /--allow-token-in-url/.test(s.reason)),
    'the checks that need a token in the URL skip, saying how to run them',
  )
})

t.test('U+2028 and U+2029 in answers do not cut the failure details short', async (t) => {
  const { r, report, raw, failures } = await hostileRun(t, true)
  const crashed = report.suites.filter((s) => s.error)
  t.same(
    crashed.map((s) => `${s.file}: ${s.error}`),
    [],
    'no suite file is reported as a crash',
  )
  const withResponse = failures.filter((f) => f.diag && 'response' in f.diag && 'curl' in f.diag)
  t.ok(withResponse.length > failures.length / 2, `the failures carry response and curl (${withResponse.length} of ${failures.length})`)
  t.ok(
    failures.some((f) => typeof f.diag?.response === 'string' && f.diag.response.includes('one\\u2028two\\u2029three')),
    'U+2028 and U+2029 are shown as \\u2028 and \\u2029',
  )
  assertVisible(t, 'terminal (stdout)', r.stdout)
  assertVisible(t, 'tap report', raw)
})

t.test('the preflight: escaped titles, and a page that is not JSON named as such', async (t) => {
  const { createServer } = await import('node:http')
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/admin/v1/version')) {
      res.writeHead(401, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ errors: [{ title: '\u001b[2J\u001b]0;owned\u0007\rall checks passed\u202e' }] }))
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end('<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head>\u001b[2J</html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const r = await runCaptured(['--mas-url', url, '--hs-url', url, '--area', 'admin,reports'], {
    MAS_ADMIN_TOKEN: 'mat_' + 'x'.repeat(30),
    HS_ADMIN_TOKEN: 'syt_' + 'y'.repeat(30),
  })
  t.equal(r.exitCode, 3, 'exit code 3')
  assertVisible(t, 'stderr', r.stderr)
  assertVisible(t, 'stdout', r.stdout)
  t.match(
    r.stderr,
    /the admin token was rejected \(401: \\x1b\[2J\\x1b\]0;owned\\x07\\rall checks passed\\u202e\)/,
    "the auth service's title is shown escaped",
  )
  t.match(
    r.stderr,
    /server_version answered 200 but not with JSON \(text\/html; charset=utf-8, begins "<!DOCTYPE html> <html><head><title>Welcome to nginx!/,
    'the homeserver page: not JSON, its content type and an excerpt',
  )
  t.match(
    r.stderr,
    /wrong URL or prefix \(--hs-url, --hs-prefix\), or a reverse proxy's or web server's own page/,
    'and what that usually means',
  )
})

t.test('the query-token checks: skipped with the reason against a real target, run with --allow-token-in-url', async (t) => {
  const mock = await mockWith()
  t.teardown(() => mock.close())
  const env = tokenEnv(mock)
  const grep = ['--grep', 'access_token=|header and the query']
  const off = await runCaptured(['--hs-url', mock.url, '--area', 'reports', ...grep], env)
  const offChecks = (off.result.report as RunReport).suites.flatMap((s) => s.checks)
  t.equal(offChecks.length, 2, 'both checks are selected')
  t.ok(
    offChecks.every((c) => c.outcome === 'skip' && /--allow-token-in-url/.test(c.skip ?? '')),
    'both skip, naming --allow-token-in-url',
  )
  t.match(
    off.stdout,
    /skipped:\n\s+2 × sends the admin token in the URL \(query parameter access_token\), which proxies and load balancers log; --allow-token-in-url runs it/,
    'the summary says why',
  )
  const on = await runCaptured(['--hs-url', mock.url, '--area', 'reports', '--allow-token-in-url', ...grep], env)
  t.equal(on.exitCode, 0, 'with the flag they run and pass')
  t.same(
    (on.result.report as RunReport).suites.flatMap((s) => s.checks).map((c) => c.outcome),
    ['pass', 'pass'],
    'both pass',
  )
})
