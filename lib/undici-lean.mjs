// undici's Agent and request() without the rest of undici (decision 0004, decision XXXX): its main module
// loads every part of the package (fetch, WebSocket, the cache stores, the mock agents, node's own
// undici for cookies), about 60 ms of CPU in each of the run's three processes, all before the first
// request; the project uses these two. request() is undici's own (its index.js makes it the same way:
// the URL and options checked, the path joined, the dispatcher given or the global one). Plain
// JavaScript: the modules it loads are undici's CommonJS files, which carry no types.
import Agent from 'undici/lib/dispatcher/agent.js'
import apiRequest from 'undici/lib/api/api-request.js'
import errors from 'undici/lib/core/errors.js'
import util from 'undici/lib/core/util.js'
import undiciGlobal from 'undici/lib/global.js'

export { Agent }

/** undici's `request(url, opts)`, as its index.js exports it. */
export function request(url, opts, handler) {
  if (typeof opts === 'function') {
    handler = opts
    opts = null
  }
  if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
    throw new errors.InvalidArgumentError('invalid url')
  }
  if (opts != null && typeof opts !== 'object') {
    throw new errors.InvalidArgumentError('invalid opts')
  }
  if (opts && opts.path != null) {
    if (typeof opts.path !== 'string') {
      throw new errors.InvalidArgumentError('invalid opts.path')
    }
    let path = opts.path
    if (!opts.path.startsWith('/')) {
      path = `/${path}`
    }
    url = new URL(util.parseOrigin(url).origin + path)
  } else {
    if (!opts) {
      opts = typeof url === 'object' ? url : {}
    }
    url = util.parseURL(url)
  }
  const { agent, dispatcher = undiciGlobal.getGlobalDispatcher() } = opts
  if (agent) {
    throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?')
  }
  return apiRequest.call(
    dispatcher,
    {
      ...opts,
      origin: url.origin,
      path: url.search ? `${url.pathname}${url.search}` : url.pathname,
      method: opts.method || (opts.body ? 'PUT' : 'GET'),
    },
    handler,
  )
}
