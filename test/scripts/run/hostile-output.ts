// A target on loopback that attacks the operator's terminal and the reports rather than the runner's
// memory: it passes the preflight and then answers every request with text meant to be shown raw (ESC
// sequences that clear the screen and set the window title, carriage returns and a fake "all checks
// passed", BEL, C1 controls, bidi overrides, U+2028/U+2029), Markdown that closes a code block and
// renders a heading, a remote image and a link, and the request's own token echoed back (long, after a
// control character, so that a YAML serialiser folds the line in the middle of the token). It records
// every URL it was asked for, so that a test can tell whether a token travelled in one.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface HostileOutput {
  url: string
  /** every request line's URL, in order */
  urls: string[]
  close(): Promise<void>
}

/** What the target says besides the echoed token: one of everything a terminal or a renderer obeys. */
export const ATTACK =
  '\u001b[2J\u001b[H\u001b]0;owned\u0007\rall checks passed\u0008\u0008' +
  '\n```\n# Injected heading\n![img](http://127.0.0.1:9/pixel.png)\n[click](http://127.0.0.1:9/)\n' +
  '\u202eevil\u202c\u2066iso\u2069\u009b31m\u0085\u007f\u200b'
/** Line and paragraph separators: JavaScript's line readers (and tap-parser's) take them for line ends. */
export const SEPARATORS = 'one\u2028two\u2029three'

function tokenOf(req: { headers: Record<string, unknown>; url?: string }): string {
  const auth = String(req.headers.authorization ?? '')
  const m = /^Bearer\s+(.*)$/i.exec(auth)
  if (m) return m[1]!
  return new URL(req.url ?? '/', 'http://x').searchParams.get('access_token') ?? ''
}

export async function hostileOutputServer(opts: { separators?: boolean } = {}): Promise<HostileOutput> {
  const attack = opts.separators ? `${ATTACK}${SEPARATORS}` : ATTACK
  const out: HostileOutput = { url: '', urls: [], close: async () => undefined }
  let n = 0
  const server: Server = createServer((req, res) => {
    out.urls.push(req.url ?? '')
    const url = new URL(req.url ?? '/', 'http://x')
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(v))
    }
    if (url.pathname === '/api/admin/v1/version') return json(200, { version: '1.22.0' })
    if (url.pathname.endsWith('/admin/v1/server_version')) return json(200, { server_version: '1.130.0' })
    if (url.pathname.endsWith('/admin/v1/event_reports') && url.search === '?limit=1' && req.headers.authorization)
      return json(200, { event_reports: [], total: 0 })
    const token = tokenOf(req)
    // a long line with a control character: YAML writes it double-quoted and folds it with `\` anywhere,
    // also inside the token
    const echoed = `\u001b[1m${'x'.repeat(57)}${token}${'y'.repeat(40)} ${attack}`
    switch (n++ % 3) {
      case 0:
        // not JSON: every byte raw, newlines included
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(`${attack}\n${echoed}`)
      case 1:
        return json(401, { errors: [{ title: echoed }], errcode: echoed, error: echoed })
      default:
        return json(200, {
          version: echoed,
          server_version: echoed,
          data: [{ id: echoed, type: echoed }],
          event_reports: [{ id: echoed }],
          total: echoed,
          [attack]: echoed,
        })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  out.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  out.close = () => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(() => resolve()))
  }
  return out
}
