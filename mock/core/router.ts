// Method + path-pattern router. Static paths hit a Map; patterned ones are matched segment by segment.
// A path that matches a pattern under another method yields the allowed methods, so the server can answer 405.
import type { Handler, Route, Area } from './context.ts'

interface Compiled {
  route: Route
  segments: string[]
  wildcard: boolean
}

export type Match =
  | { kind: 'found'; handler: Handler; params: Record<string, string>; area: Area }
  | { kind: 'method'; allowed: string[]; area: Area }
  | { kind: 'none' }

export class Router {
  private exact = new Map<string, Map<string, Route>>()
  private patterned: Compiled[] = []

  add(routes: Route[]): this {
    for (const route of routes) {
      if (!route.pattern.includes(':') && !route.pattern.includes('*')) {
        let byMethod = this.exact.get(route.pattern)
        if (!byMethod) this.exact.set(route.pattern, (byMethod = new Map()))
        byMethod.set(route.method, route)
      } else {
        const segments = route.pattern.split('/')
        const wildcard = segments[segments.length - 1] === '*'
        if (wildcard) segments.pop()
        this.patterned.push({ route, segments, wildcard })
      }
    }
    return this
  }

  match(method: string, path: string): Match {
    const allowed: string[] = []
    let area: Area | undefined
    const byMethod = this.exact.get(path)
    if (byMethod) {
      const route = byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined)
      if (route) return { kind: 'found', handler: route.handler, params: {}, area: route.area }
      for (const r of byMethod.values()) {
        allowed.push(r.method)
        area = r.area
      }
    }
    const parts = path.split('/')
    for (const c of this.patterned) {
      const params = matchSegments(c, parts)
      if (!params) continue
      if (c.route.method === method || (method === 'HEAD' && c.route.method === 'GET')) {
        return { kind: 'found', handler: c.route.handler, params, area: c.route.area }
      }
      allowed.push(c.route.method)
      area = c.route.area
    }
    if (allowed.length > 0) return { kind: 'method', allowed: [...new Set(allowed)], area: area! }
    return { kind: 'none' }
  }
}

function matchSegments(c: Compiled, parts: string[]): Record<string, string> | null {
  const { segments, wildcard } = c
  if (wildcard ? parts.length <= segments.length : parts.length !== segments.length) return null
  let params: Record<string, string> | null = null
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!
    const part = parts[i]!
    if (seg.charCodeAt(0) === 58 /* ':' */) {
      // `:name` needs a non-empty segment; `:name?` also matches an empty one (Synapse's `[^/]*`).
      const optional = seg.charCodeAt(seg.length - 1) === 63 /* '?' */
      if (part === '' && !optional) return null
      let value: string
      try {
        value = decodeURIComponent(part)
      } catch {
        return null
      }
      ;(params ??= {})[seg.slice(1, optional ? -1 : undefined)] = value
    } else if (seg !== part) {
      return null
    }
  }
  if (wildcard) (params ??= {})['*'] = parts.slice(segments.length).join('/')
  return params ?? {}
}
