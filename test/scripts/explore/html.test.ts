// explore's HTML report on a finding made by hand with hostile bytes from the target: markup, control
// characters, a bidi override and invalid UTF-8 (decoded as U+FFFD) all shown escaped, never as markup;
// then a real run's report opened in Chromium.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { exploreHtml } from '../../../scripts/explore/html.ts'
import { run } from '../../../scripts/explore/main.ts'
import { startMock } from '../../../mock/site/server.ts'
import { mockOptions } from '../../../mock/core/options.ts'
import type { ExploreResult, Finding } from '../../../scripts/explore/engine.ts'
import { CHROMIUM, CHROMIUM_ARGS, requireChromium, skipChromium } from '../../fixtures/chromium.ts'

const hostile = '<script>alert(1)</script>\u0007\u001b[31m\u202e' + Buffer.from([0xff, 0xfe, 0x41]).toString('utf8')
const finding: Finding = {
  id: 'B-001',
  cls: 'target-defect',
  api: 'hs',
  operation: 'GET /_synapse/admin/v1/event_reports',
  kind: 'valid',
  note: `a note ${hostile}`,
  case: {
    api: 'hs',
    operation: 'GET /_synapse/admin/v1/event_reports',
    method: 'GET',
    template: '/_synapse/admin/v1/event_reports',
    params: {},
    query: [],
    auth: 'admin',
    kind: 'valid',
    note: '',
  },
  request: 'GET http://127.0.0.1:1/_synapse/admin/v1/event_reports [admin token]',
  curl: "curl -sS 'http://127.0.0.1:1/_synapse/admin/v1/event_reports'",
  answer: { status: 500, contentType: 'text/html', body: hostile },
  model: { status: 200, body: '{}' },
  violations: [{ rule: 'no-5xx', expected: 'no 5xx', source: 'spec/interface.md' }],
  occurrences: 2,
  shrinkRequests: 0,
}
const result: ExploreResult = {
  cases: 1,
  sent: 1,
  requests: { target: 3, model: 3 },
  findings: [finding],
  perOperation: { 'GET /_synapse/admin/v1/event_reports': { cases: 1, requests: 3, ms: 12 } },
  skipped: 0,
  skippedCases: [],
  durationMs: 20,
}

t.test('hostile bytes from the target are escaped', async (t) => {
  const html = exploreHtml(result, { seed: 1, target: 'http://127.0.0.1:1' }, `1. delete event_reports #0  ← ${hostile}`)
  t.notMatch(html, /<script>/, 'no script element')
  t.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, 'the markup as text')
  // eslint-disable-next-line no-control-regex
  t.notMatch(html, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202e]/, 'no raw control or bidi character')
  t.match(html, /\\x07/, 'BEL shown as an escape')
  t.match(html, /\\u202e/, 'the bidi override shown as an escape')
  t.match(html, /\uFFFD/, 'invalid UTF-8 as the replacement character')
  t.match(html, /<h3><code>GET \/_synapse\/admin\/v1\/event_reports<\/code><\/h3>/, 'grouped by operation')
  t.match(html, /<h4>no-5xx <span class="muted">\(1\)<\/span><\/h4>/, 'then by rule')
  t.match(html, /<td>3<\/td>/, 'the requests spent on the operation')
  t.match(html, /class="sequence"/, 'the sequence shown')
})

// In a browser: `explore --html` against a hostile target (the bundled mock with faults, behind a proxy
// that answers a report id with a 500 of markup, an image beacon, control characters and a huge body),
// opened offline in Debian's chromium through playwright-core. Skips with the reason when chromium is
// absent; AC_REQUIRE_CHROMIUM=1 (CI) makes its absence a failure.
requireChromium(t)

/** A loopback proxy to the mock that answers a report id of more than five characters with hostile bytes. */
async function hostileProxy(upstream: string): Promise<{ url: string; beacons: string[]; close(): Promise<void> }> {
  const beacons: string[] = []
  const server = createServer((req, res) => {
    const url = req.url ?? '/'
    if (url.startsWith('/beacon')) {
      beacons.push(url)
      res.end()
      return
    }
    if (/^\/_synapse\/admin\/v1\/event_reports\/[^/?]{6,}/.test(url)) {
      res.writeHead(500, { 'content-type': 'text/html' })
      res.end(HOSTILE_BODY(`http://${req.headers.host}/beacon`))
      return
    }
    const out = httpRequest(
      `${upstream}${url}`,
      { method: req.method, headers: { ...req.headers, host: new URL(upstream).host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      },
    )
    out.on('error', () => res.destroy())
    req.pipe(out)
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, beacons, close: () => new Promise((ok) => server.close(() => ok())) }
}

const HOSTILE_BODY = (beacon: string) =>
  `<script>window.__explored = 1; alert('script ran')</script><img src="${beacon}/img" onerror="alert('onerror ran')">` +
  `<iframe src="${beacon}/frame"></iframe>\u0007\u001b[2J\u202e\u0000` +
  'A'.repeat(300_000)

t.test(
  'explore --html in Chromium: grouped by operation and kind, hostile bytes escaped, nothing run or fetched',
  { skip: skipChromium },
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-explore-html-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const m = await startMock(
      mockOptions({ host: '127.0.0.1', port: 0, logFile: null, faults: ['reports-dir-ignored', 'room-members-total-off'] }, {}),
    )
    t.teardown(() => m.close())
    const proxy = await hostileProxy(m.url)
    t.teardown(() => proxy.close())
    const file = path.join(dir, 'explore.html')
    const json = path.join(dir, 'explore.json')
    let out = ''
    const code = await run(
      ['--hs-url', proxy.url, '--random', '0', '--html', file, '--json', json],
      { out: (s) => void (out += s), err: (s) => void (out += s) },
      { HS_ADMIN_TOKEN: m.options.hsAdminToken, HS_USER_TOKEN: m.options.hsUserToken },
    )
    t.equal(code, 1, 'exit 1: defects of the target', { out: out.slice(-2000) })
    const report = JSON.parse(readFileSync(json, 'utf8')) as { findings: Finding[] }
    const ops = new Set(report.findings.map((f) => f.operation))
    t.ok(ops.size >= 3, `findings on ${ops.size} operations`)
    t.ok(
      report.findings.some((f) => f.answer.body.includes('<script>')),
      'the hostile answer is among the findings',
    )
    const html = readFileSync(file, 'utf8')
    t.notMatch(
      html,
      /<(?:script|img|iframe|link|object|embed|style[^>]*src)\b/i,
      'no element of the target’s bytes, no load: self-contained',
    )
    t.match(html, /&lt;script&gt;window\.__explored/, 'the markup as text')
    t.ok(html.length < 200_000, `the huge body is bounded: ${html.length} characters for a 300 kB answer`)
    for (const tok of [m.options.hsAdminToken, m.options.hsUserToken]) t.notOk(html.includes(tok), 'no token in the page')

    const { chromium } = await import('playwright-core')
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    t.teardown(() => browser.close())
    const context = await browser.newContext({ offline: true, javaScriptEnabled: true })
    const page = await context.newPage()
    const fetched: string[] = []
    const dialogs: string[] = []
    page.on('request', (req) => {
      if (!req.url().startsWith('file:')) fetched.push(req.url())
    })
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await page.goto(pathToFileURL(file).href)
    t.match(await page.locator('h1').innerText(), /explore/, 'the page renders offline')
    t.same(fetched, [], 'the page requested nothing')
    t.same(dialogs, [], 'no dialog opened')
    t.equal(await page.evaluate(() => (globalThis as { __explored?: number }).__explored), undefined, 'no script of the target ran')
    t.equal(await page.locator('script, img, iframe').count(), 0, 'no script, image or frame element')
    t.same(proxy.beacons, [], 'the target heard nothing from the page')

    // every finding once, in the section of its operation, under its kind (its rules)
    const shown = await page
      .locator('section.operation')
      .evaluateAll((sections) =>
        sections.flatMap((s) =>
          [...s.querySelectorAll('section.kind')].flatMap((k) =>
            [...k.querySelectorAll('.finding')].map((f) => [
              s.getAttribute('data-operation'),
              k.getAttribute('data-kind'),
              f.getAttribute('data-finding'),
              s.querySelector('h3')?.textContent,
            ]),
          ),
        ),
      )
    t.same(
      shown.map(([op, kind, id]) => `${id} ${op} ${kind}`).sort(),
      report.findings.map((f) => `${f.id} ${f.operation} ${f.violations.map((v) => v.rule).join('+')}`).sort(),
      `${report.findings.length} findings grouped by operation and kind`,
    )
    t.ok(
      shown.every(([op, , , h3]) => op === h3),
      'each section headed by its operation',
    )
    t.equal(await page.locator('section.operation').count(), ops.size, 'one section per operation')
    const hostile = report.findings.find((f) => f.answer.body.includes('<script>'))!
    const answer = await page.locator(`.finding[data-finding="${hostile.id}"] dd pre`).nth(1).innerText()
    t.match(answer, /^500 \(text\/html\) <script>window\.__explored = 1;/, 'the markup shown as text')
    t.match(answer, /\\x07\\x1b\[2J\\u202e\\x00/, 'control and bidi characters shown as escapes')
    t.ok(answer.length < 5000, `the huge body shown as an excerpt (${answer.length} characters)`)
  },
)

t.test('an advisory text: labelled in every report, skipped in JUnit', async (t) => {
  const text: Finding = {
    ...finding,
    id: 'B-002',
    answer: { status: 404, contentType: 'application/json', body: '{"errcode":"M_NOT_FOUND","error":"Event report not found"}' },
    violations: [{ rule: 'model-text', expected: 'the text "User report not found"', source: 'model' }],
  }
  const r: ExploreResult = { ...result, findings: [text] }
  t.match(exploreHtml(r, { seed: 1, target: 'x' }), /B-002 defect of the target \(text, advisory\)/)
  t.match(exploreHtml(r, { seed: 1, target: 'x' }), /class="verdict ok"/, 'no defect to act on')
  const { junitReport, terminalReport } = await import('../../../scripts/explore/report.ts')
  t.match(
    junitReport(r, false, (s) => s),
    /<skipped message="B-002 text \(advisory\)"\/>/,
  )
  t.match(
    junitReport(r, true, (s) => s),
    /<failure message="B-002/,
    'a failure with --strict',
  )
  t.match(terminalReport(r, { seed: 1, strict: false }), /1 of other texts \(advisory\); 0 fail the command/)
})
