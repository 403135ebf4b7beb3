// The HTML report, opened in headless Chromium (Debian's chromium, driven by playwright-core; no browser
// download): a run against the bundled mock with a fault injected must show its failed checks, each with
// its request and diagnostics, in one self-contained file that loads nothing else. Skips with the reason
// when chromium is absent; AC_REQUIRE_CHROMIUM=1 (CI) makes its absence a failure.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { runCaptured } from '../helpers.ts'
import { CHROMIUM, CHROMIUM_ARGS, requireChromium, skipChromium } from '../../../fixtures/chromium.ts'

requireChromium(t)

const TOKEN_SHAPE = /\b(?:mat|mpt|syt)_[A-Za-z0-9_]{8,}/

t.test('the HTML report of a failing run, in a browser', { skip: skipChromium }, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-html-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'report.html')
  const r = await runCaptured([
    '--mock-fault',
    'reports-dir-ignored',
    '--mock-fault',
    'reports-not-found-500',
    '--area',
    'reports',
    '--reporter',
    'html',
    '--output',
    file,
  ])
  t.equal(r.exitCode, 1, 'the run fails (the fault is caught)')
  const failed = r.result.report!.suites.flatMap((s) => s.checks.filter((c) => c.outcome === 'fail'))
  const failedNames = failed.map((c) => c.name)
  t.ok(failedNames.length > 0, `${failedNames.length} failed checks in the run`)
  const html = readFileSync(file, 'utf8')
  t.notMatch(html, /<script|<link|\ssrc=|@import|url\(/i, 'no script, stylesheet link, image or import: self-contained')
  t.notOk(TOKEN_SHAPE.test(html), 'no token in the report')

  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const fetched: string[] = []
  page.on('request', (req) => {
    if (!req.url().startsWith('file:')) fetched.push(req.url())
  })
  await page.goto(pathToFileURL(file).href)
  t.same(fetched, [], 'the page fetched nothing')
  t.match(await page.title(), /failed/, 'the title says failed')
  t.match(
    await page.locator('.verdict').innerText(),
    new RegExp(`FAILED: \\d+ passed, ${failedNames.length} failed`),
    'the verdict with the counts',
  )
  t.equal(await page.locator('section.area#area-reports').count(), 1, 'the reports area has its section')
  t.ok((await page.locator('section.family').count()) >= 2, 'checks grouped by endpoint family')
  const rows = page.locator('tr.check.fail')
  t.equal(await rows.count(), failedNames.length, 'one failed row per failed check')
  const shown = await rows.locator('td.name').evaluateAll((tds) => tds.map((td) => td.firstChild?.textContent ?? ''))
  t.same([...shown].sort(), [...failedNames].sort(), 'the failed checks by name')
  // Each failure shows every diagnostic the suite attached (request, status, response, expected, rule,
  // curl... whatever the check gave), and none of tap's own (stack, source, position).
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i)
    const check = failed.find((c) => c.name === shown[i])!
    const terms = await row.locator('dl.diag dt').allInnerTexts()
    const want = [...new Set(check.failures.flatMap((f) => Object.keys(f.diag ?? {})))].filter((k) => !['compare', 'todo'].includes(k))
    t.ok(want.length > 0 && want.every((k) => terms.includes(k)), `${shown[i]}: its diagnostics are shown (${want.join(', ')})`, {
      terms,
      want,
    })
    t.notOk(
      terms.some((k) => ['stack', 'source', 'at'].includes(k)),
      `${shown[i]}: no harness stack or source`,
    )
  }
  const requests = await page.locator('tr.check.fail pre.request').allInnerTexts()
  t.ok(
    requests.some((q) => /^GET http:\/\/127\.0\.0\.1:\d+\/_synapse\/admin\/v1\/event_reports/.test(q)),
    'a failing request is shown with its URL',
  )
  t.ok((await page.locator('tr.check.pass').count()) > 10, 'the passing checks are listed too')
})
