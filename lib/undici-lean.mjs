// undici's Agent and request() without the rest of undici (decision 0004, decision 0014): its main module
// loads every part of the package (fetch, WebSocket, the cache stores, the mock agents, node's own
// undici for cookies), about 60 ms of CPU in each of the run's three processes, all before the first
// request; the project uses these two. The package is pinned by the lockfile and built into the packed
// package, so these file paths are the installed version's; test/lib/undici-lean.test.ts fails if they move.
// Plain JavaScript: the modules it loads are undici's CommonJS files, which carry no types.
import Agent from 'undici/lib/dispatcher/agent.js'
import apiRequest from 'undici/lib/api/api-request.js'
import undiciGlobal from 'undici/lib/global.js'

export { Agent }

/**
 * undici's request for the project's calls: an absolute URL (string or URL) and the options of undici's
 * dispatcher.request(), sent through `opts.dispatcher` or undici's global one.
 */
export function request(url, opts = {}) {
  const target = url instanceof URL ? url : new URL(url)
  const { dispatcher = undiciGlobal.getGlobalDispatcher(), ...rest } = opts
  return apiRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: rest.method ?? 'GET',
  })
}
