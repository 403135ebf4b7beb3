// The mock's HTTP server: builds the router from the route tables at the versions the mock claims,
// answers malformed requests, and hands each request to dispatch.ts.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { reasonPhrase } from '../../lib/requestlog.ts'
import { Router } from '../core/router.ts'
import { Faults } from '../faults/registry.ts'
import { RequestLog } from '../core/log.ts'
import { buildWorld } from '../seed/index.ts'
import { controlTable } from './control.ts'
import { adminTable } from '../admin/routes.ts'
import { publicTable } from '../auth-service/routes.ts'
import { homeserverTable } from '../homeserver/routes.ts'
import { buildOpenApi } from './openapi/index.ts'
import { answeredByParser, handle, type Site } from './dispatch.ts'
import { MAX_HEAD_BYTES } from '../core/limits.ts'
import { routesAt, type AreaHooks, type RouteTable } from '../core/table.ts'
import { synapseHooks } from '../core/cors.ts'
import { allowedHosts } from '../core/host.ts'
import { publicBase } from '../core/public-url.ts'
import type { Area } from '../core/context.ts'
import type { MockOptions } from '../core/options.ts'
import type { MockState, ReseedOptions } from './state.ts'
import type { World } from '../store/world.ts'
import { StateJournal } from '../store/journal/state.ts'
import { HomeserverLink, type LinkStats } from '../auth-service/homeserver-link/link.ts'

export type { MockState } from './state.ts'

export interface RunningMock {
  url: string
  port: number
  options: MockOptions
  faults: Faults
  world(): World
  /** --homeserver-secret: the provisioning calls made so far, by op and status */
  homeserverLink?: LinkStats
  /** rebuild the world from the (possibly changed) options */
  reseed(over?: ReseedOptions): void
  close(): Promise<void>
}

/** The mock's own two routes besides the control API: a health probe and the served OpenAPI document. */
function coreTable(state: MockState, tables: () => RouteTable[], baseUrl: () => string): RouteTable {
  // one document per advertised base (one, unless forwarded headers are trusted)
  const specs = new Map<string, Record<string, unknown>>()
  const o = state.options
  return {
    api: 'core',
    area: 'other',
    routes: [
      {
        method: 'GET',
        pattern: '/health',
        doc: { undocumented: "the mock's health probe" },
        handler: () => ({ status: 200, body: 'ok', contentType: 'text/plain; charset=utf-8' }),
      },
      {
        method: 'GET',
        pattern: '/api/spec.json',
        area: 'mas',
        doc: { undocumented: 'the document itself' },
        // Built once per base from the same tables as the router; the server URL is this mock's base (its
        // public URL when given or forwarded), as the real service advertises its public base.
        handler: (ctx) => {
          const base = o.publicUrl || o.trustForwarded ? publicBase(ctx).replace(/\/$/, '') : baseUrl()
          let spec = specs.get(base)
          if (!spec) {
            spec = buildOpenApi({
              serverUrl: base,
              hsPrefix: o.hsPrefix,
              clientPrefix: o.clientPrefix,
              masVersion: o.masVersion,
              hsVersion: o.hsVersion,
              tables: tables(),
            })
            if (specs.size < 16) specs.set(base, spec)
          }
          return { status: 200, body: spec }
        },
      },
    ],
  }
}

/** Every table of the mock; the router takes the routes present at the claimed versions, in this order. */
function allTables(state: MockState, baseUrl: () => string): RouteTable[] {
  const tables: RouteTable[] = []
  tables.push(
    coreTable(state, () => tables, baseUrl),
    controlTable(state),
    adminTable(),
    homeserverTable(state.options),
    publicTable(state.options),
  )
  return tables
}

function buildSite(state: MockState, baseUrl: () => string): Site {
  const tables = allTables(state, baseUrl)
  const router = new Router()
  // The core's defaults (Synapse's CORS and caching on the homeserver's paths), each hook replaceable
  // by the table of the API that owns the area.
  const hooks: Site['hooks'] = { hs: { ...synapseHooks } }
  const given = new Set<string>()
  for (const table of tables) {
    router.add(routesAt(table, state.options))
    for (const [area, h] of Object.entries(table.hooks ?? {}) as [Area, AreaHooks][]) {
      for (const name of Object.keys(h)) {
        if (given.has(`${area}.${name}`)) throw new Error(`two tables give the ${name} hook of the ${area} area`)
        given.add(`${area}.${name}`)
      }
      hooks[area] = { ...hooks[area], ...h }
    }
  }
  return { state, router, hooks }
}

export async function startMock(options: MockOptions): Promise<RunningMock> {
  const faults = new Faults(options.faults)
  const log = new RequestLog(options.logFile, options.logFormat)
  const world = buildWorld(options)
  // --state: replay the journal over the seeded world, then record every write (mock/store/journal/)
  const journal =
    options.stateDir === undefined ? undefined : StateJournal.open(options, world, (m) => log.event('WARN', 'mock::state', 'STATE-0', m))
  const state: MockState = {
    options,
    world,
    faults,
    log,
    journal,
    reseed(over = {}) {
      Object.assign(state.options, over)
      state.world = buildWorld(state.options)
      state.journal?.restart(state.options, state.world, Object.keys(over).length ? 'seed' : 'reset')
      link?.attach(state.world)
    },
  }
  // --homeserver-secret: provision the homeserver as the real service does (the URL may come later)
  const link =
    options.homeserverSecret === undefined
      ? undefined
      : new HomeserverLink({
          endpoint: () => state.options.homeserverUrl,
          secret: () => state.options.homeserverSecret,
          log: (level, message) => log.event(level, 'mas_matrix_synapse', 'LINK-0', message),
        })
  if (link) {
    link.attach(world)
    state.link = link
  }
  let baseUrl = ''
  const site = buildSite(state, () => baseUrl)

  // node's parser takes the largest head any area does; dispatch refuses what a smaller area would not take.
  const server = createServer({ maxHeaderSize: MAX_HEAD_BYTES }, (req, res) => {
    let pending: void | Promise<void>
    try {
      pending = handle(site, req, res)
    } catch (err) {
      pending = Promise.reject(err)
    }
    pending?.catch((err: unknown) => {
      // handle() never throws by design; this is the last line of defence against a crash.
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ errors: [{ title: 'Internal error in the mock' }] }))
      }
      log.event('ERROR', 'mock::server', 'ERR-0', String(err instanceof Error ? err.stack : err))
    })
  })
  server.keepAliveTimeout = 65_000
  server.on('clientError', (err, socket) => {
    // Malformed request lines, bodies or oversized heads: answer instead of dropping the socket, and
    // tell dispatch what was answered (a request that failed mid-body is logged with this status).
    const code = (err as NodeJS.ErrnoException).code
    const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
    answeredByParser.set(socket, socket.writable ? status : 400)
    if (socket.writable) socket.end(`HTTP/1.1 ${status} ${reasonPhrase(status)}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
    else socket.destroy()
  })
  await listen(server, options)
  const port = (server.address() as AddressInfo).port
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  baseUrl = `http://${host}:${port}`
  site.hosts = allowedHosts(options, port)
  return {
    url: baseUrl,
    port,
    options,
    faults,
    world: () => state.world,
    ...(link ? { homeserverLink: link.stats } : {}),
    reseed: (over) => state.reseed(over),
    close: async () => {
      await link?.barrier()
      link?.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await state.journal?.close()
      await log.close()
    },
  }
}

function listen(server: Server, options: MockOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`port ${options.port} on ${options.host} is already in use; pick another with --port (0 = any free port)`)
          : err,
      )
    }
    server.once('error', onError)
    server.listen(options.port, options.host, () => {
      server.off('error', onError)
      resolve()
    })
  })
}
