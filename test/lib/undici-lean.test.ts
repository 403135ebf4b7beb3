// undici's Agent and request() without its main module (lib/undici-lean.mjs): the same answers as
// undici's own request(), and lib/http.ts (the suites' and the runner's client) and
// the mock's clients no longer load undici's main module.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import * as undici from 'undici'
import { Agent, request } from '../../lib/undici-lean.mjs'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

t.test('request(): the same as undici`s, with a dispatcher or the global one', async (t) => {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => res.end(JSON.stringify({ method: req.method, url: req.url, body })))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const agent = new Agent({ keepAliveTimeout: 1000 })
  t.teardown(async () => {
    await agent.close()
    server.close()
  })
  for (const [url, opts] of [
    [`${origin}/a/b?c=1&d`, { dispatcher: agent }],
    [new URL(`${origin}/url-object`), { dispatcher: agent }],
    [`${origin}/put`, { method: 'PUT', body: 'payload', dispatcher: agent }],
    [`${origin}/global`, {}],
  ] as [string | URL, { method?: string; dispatcher?: Agent; body?: string }][]) {
    const lean = await request(url, opts as never)
    const own = await undici.request(url, opts as never)
    const [a, b] = [await lean.body.text(), await own.body.text()]
    t.equal(lean.statusCode, own.statusCode)
    t.equal(a, b, `${String(url)}: ${a}`)
  }
  t.throws(() => request('not a url', {}), TypeError, 'a URL it cannot parse is refused before any request')
})

t.test("the project's clients do not load undici's main module", async (t) => {
  const code = `import './lib/http.ts'
import './mock/homeserver/framework/auth.ts'
import './mock/auth-service/homeserver-link/client.ts'
import { createRequire } from 'node:module'
const cache = Object.keys(createRequire(import.meta.url).cache)
process.stdout.write(JSON.stringify({ main: cache.some((f) => /undici[\\\\/]index\\.js$/.test(f)), agent: cache.some((f) => /undici[\\\\/]lib[\\\\/]dispatcher[\\\\/]agent\\.js$/.test(f)) }))`
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' })
  t.equal(r.status, 0, r.stderr)
  t.same(JSON.parse(r.stdout), { main: false, agent: true })
})
