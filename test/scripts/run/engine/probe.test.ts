// The request probe preloaded into the suite processes counts the statuses each origin answered, and the
// runner warns, as Schemathesis does, when a pass means little: every response 401/403, 404, 5xx.
import t from 'tap'
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { meaninglessPass, readProbe, PROBE_ENV } from '../../../../scripts/run/engine/probe-data.ts'

t.test('the probe counts what a suite process received', async (t) => {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/ok' ? 200 : 401)
    res.end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-probe-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const probe = new URL('../../../../scripts/run/engine/probe.ts', import.meta.url).href
  const script = `import { request } from 'undici'; for (const p of ['/a','/b','/ok','/_mock/faults']) { const r = await request('${url}' + p); await r.body.text() }`
  // Asynchronous: the server above answers from this process.
  const p = await new Promise<number | null>((resolve) => {
    const c = spawn(process.execPath, ['--import=tsx', `--import=${probe}`, '--input-type=module', '-e', script], {
      env: { ...process.env, [PROBE_ENV]: dir },
      stdio: 'inherit',
    })
    c.on('close', (code) => resolve(code))
  })
  t.equal(p, 0, 'the process ran')
  t.same(readProbe(dir), { [url]: { '401': 2, '200': 1 } }, 'statuses per origin; the mock control API is not counted')
})

t.test('warnings for a pass that means little', async (t) => {
  t.match(meaninglessPass({ 'http://a': { '401': 30, '403': 2 } }), [
    /every one of the 32 responses from http:\/\/a was 401 or 403: the tokens are not accepted/,
  ])
  t.match(meaninglessPass({ 'http://a': { '404': 9 } }), [/was 404: check the URL and --hs-prefix/])
  t.match(meaninglessPass({ 'http://a': { '502': 9, '500': 1 } }), [/a server error \(5xx\)/])
  t.same(meaninglessPass({ 'http://a': { '200': 30, '401': 30 } }), [], 'a mix is fine')
  t.same(meaninglessPass({ 'http://a': { '401': 3 } }), [], 'a handful of requests is not enough to judge')
})
