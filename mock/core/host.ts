// Which Host names the mock answers to. A page the developer's browser loads can point its own
// domain at 127.0.0.1 (DNS rebinding) and then read the mock as a same-origin site: its requests
// then carry `Host: that-domain`. So every path checks the Host header against the names the mock
// is served as, and answers anything else 421 Misdirected Request.
//
// The names: the loopback names with the mock's port, the address it listens on when that is one
// address (not 0.0.0.0 or ::), and the names given with --allowed-host (a NAME matches at any
// port, NAME:PORT at that port only). `allowedHosts` is the one place that builds the list: a new
// way of serving the mock (a public URL) adds its names there.
import type { MockOptions } from './options.ts'
import { publicHostOf } from './public-url.ts'

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]']
const WILDCARD = new Set(['0.0.0.0', '::', '[::]', ''])

export interface HostAllowlist {
  /** host[:port] forms accepted exactly (lower case) */
  exact: Set<string>
  /** names accepted at any port (lower case) */
  anyPort: Set<string>
}

/** A host as it appears in a Host header: IPv6 addresses in brackets, lower case. */
function hostForm(name: string): string {
  const n = name.trim().toLowerCase()
  return n.includes(':') && !n.startsWith('[') ? `[${n}]` : n
}

/** Splits an --allowed-host value or a Host header into its name and port (undefined: none given). */
export function splitHost(value: string): { name: string; port: string | undefined } | undefined {
  const v = value.trim().toLowerCase()
  if (v.startsWith('[')) {
    const close = v.indexOf(']')
    if (close === -1) return undefined
    const rest = v.slice(close + 1)
    if (rest !== '' && !/^:[0-9]{1,5}$/.test(rest)) return undefined
    return { name: v.slice(0, close + 1), port: rest === '' ? undefined : rest.slice(1) }
  }
  const colon = v.lastIndexOf(':')
  if (colon === -1) return v === '' ? undefined : { name: v, port: undefined }
  const port = v.slice(colon + 1)
  if (!/^[0-9]{1,5}$/.test(port) || v.indexOf(':') !== colon) return undefined
  return { name: v.slice(0, colon), port }
}

/** Checks an --allowed-host value: a host name or address, optionally with a port. */
export function allowedHostName(value: string): string {
  const parts = splitHost(value)
  if (!parts || !/^([a-z0-9.-]+|\[[0-9a-f:.]+\])$/.test(parts.name)) {
    throw new Error(`--allowed-host: '${value}' is not a host name or address (NAME or NAME:PORT, IPv6 in brackets)`)
  }
  return parts.port === undefined ? parts.name : `${parts.name}:${Number(parts.port)}`
}

/** The names the mock listening on `port` answers to (see the top of this file). */
export function allowedHosts(options: Pick<MockOptions, 'host' | 'allowedHosts' | 'publicUrl'>, port: number): HostAllowlist {
  const exact = new Set<string>()
  const anyPort = new Set<string>()
  const served = (name: string) => {
    exact.add(`${name}:${port}`)
    // A client may leave out the default port.
    if (port === 80) exact.add(name)
  }
  for (const name of LOOPBACK) served(name)
  const listen = hostForm(options.host)
  if (!WILDCARD.has(listen)) served(listen)
  if (options.publicUrl) {
    // A proxy that keeps the Host of the public URL: its name at its port (or none, the default one).
    const pub = publicHostOf(options.publicUrl)
    const name = hostForm(pub.name)
    exact.add(`${name}:${pub.port}`)
    if (pub.port === 80 || pub.port === 443) exact.add(name)
  }
  for (const given of options.allowedHosts ?? []) {
    const parts = splitHost(given)
    if (!parts) continue
    if (parts.port === undefined) anyPort.add(parts.name)
    else exact.add(`${parts.name}:${Number(parts.port)}`)
  }
  return { exact, anyPort }
}

/** Does the Host header name the mock? A missing one does not. */
export function hostAllowed(list: HostAllowlist, header: string | undefined): boolean {
  if (header === undefined) return false
  const h = header.trim().toLowerCase()
  if (list.exact.has(h)) return true
  const parts = splitHost(h)
  if (!parts) return false
  if (parts.port !== undefined && list.exact.has(`${parts.name}:${Number(parts.port)}`)) return true
  return list.anyPort.has(parts.name)
}
