// The rooms checks against a live target: a room that someone joins between the listing and the read
// of its members or state (another suite of the same run, a user of a real server) is read again
// instead of failing the target, and a room that changes on every read is skipped with that reason.
import t from 'tap'
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mockWith, runCaptured, tokenEnv } from '../../scripts/run/helpers.ts'

/** A proxy that, before it forwards a read of a room's members or state, joins a new user to that room (`times` times per path). */
async function joiningProxy(upstream: string, join: (roomId: string) => void, times: number) {
  const up = new URL(upstream)
  const seen = new Map<string, number>()
  const server = createServer((req, res) => {
    const m = /\/admin\/v1\/rooms\/([^/?]+)\/(members|state)/.exec(req.url ?? '')
    if (m) {
      const n = seen.get(req.url!) ?? 0
      if (n < times) join(decodeURIComponent(m[1]!))
      seen.set(req.url!, n + 1)
    }
    const fwd = httpRequest(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers)
        r.pipe(res)
      },
    )
    req.pipe(fwd)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}

for (const [times, outcome] of [
  [1, 'pass'],
  [99, 'skip'],
] as const) {
  t.test(`a room joined ${times === 1 ? 'once during the read' : 'during every read'} → the checks ${outcome}`, async (t) => {
    const mock = await mockWith({ reports: 20 })
    t.teardown(() => mock.close())
    let n = 0
    const proxy = await joiningProxy(
      mock.url,
      (roomId) => {
        const hs = mock.world().hs
        const room = hs.rooms.get(roomId)
        if (!room) return
        n += 1
        const user = hs.addUser(`joiner${n}`, { displayName: `joiner${n}`, createdTs: Date.now() })
        hs.join(room, user.userId, Date.now())
      },
      times,
    )
    t.teardown(() => proxy.close())
    const r = await runCaptured(
      ['--hs-url', proxy.url, '--area', 'reports', '--grep', 'rooms: its (members|state)', '--reporter', 'json'],
      tokenEnv(mock),
    )
    const rep = r.result.report!
    t.ok(n >= 2, `the proxy joined users while the checks read (${n})`)
    if (outcome === 'pass') {
      t.equal(r.exitCode, 0, 'the run passes', { out: r.stderr.slice(-2000) })
      t.equal(rep.counts.pass, 2, 'both checks passed')
    } else {
      t.equal(rep.counts.fail, 0, 'no check blames the target', { out: r.stderr.slice(-2000) })
      t.equal(rep.counts.skip, 2, 'both skipped', { counts: rep.counts })
      t.match(r.stdout + r.stderr + JSON.stringify(rep), /changed during each of three reads/, 'with the reason')
    }
  })
}
