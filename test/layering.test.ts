// The architecture as a test: arrows point down only, the two sides never meet, no circles.
//   bin → scripts → suites | mock → lib → schemas (data)
// Inside mock/, floors (MOCK_FLOORS): site/ on top knows every API; the API emulations (admin/,
// auth-service/, homeserver/) side by side never import each other; mas-http/ is how the auth service
// reads requests and shapes its errors; core/ the primitives; store/, seed/ and faults/ on the ground.
// test/ and bench/ may import anything; schemas/ holds no code. A new import that runs the wrong
// way, or closes a circle, fails here with the offending file and specifier.
import t from 'tap'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const CODE_ROOTS = ['lib', 'mock', 'suites', 'scripts', 'bin'] as const
type Layer = (typeof CODE_ROOTS)[number] | 'schemas' | 'package'

/** Which layers each layer may import (itself always allowed). */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  // The entry: the commands, and lib/package-paths.mjs (plain JavaScript, read before any loader).
  bin: ['scripts', 'lib'],
  scripts: ['suites', 'mock', 'lib', 'schemas', 'package'],
  suites: ['lib', 'schemas'],
  mock: ['lib', 'schemas', 'package'],
  lib: ['schemas', 'package'],
  schemas: [],
  package: [],
}

/** mock/'s floors: which of its folders each folder may import (itself always allowed). */
const MOCK_FLOORS = {
  site: ['admin', 'auth-service', 'homeserver', 'mas-http', 'core', 'seed', 'store', 'faults'],
  admin: ['mas-http', 'core', 'store', 'faults'],
  'auth-service': ['mas-http', 'core', 'store', 'faults'],
  // the homeserver delegating to the auth service reads its issuer and marks its tokens used
  homeserver: ['mas-http', 'core', 'store', 'faults'],
  'mas-http': ['core', 'store', 'faults'],
  core: ['store', 'faults'],
  seed: ['store'],
  store: [],
  faults: [],
} as const satisfies Record<string, readonly string[]>
type Floor = keyof typeof MOCK_FLOORS

export interface Edge {
  from: string
  to: string
  specifier: string
}

function layerOf(rel: string): Layer | undefined {
  if (rel === 'package.json') return 'package'
  const top = rel.split('/')[0]
  return top === 'schemas' || (CODE_ROOTS as readonly string[]).includes(top!) ? (top as Layer) : undefined
}

function floorOf(rel: string): Floor | undefined {
  const floor = rel.split('/')[1]!
  return rel.split('/').length > 2 && floor in MOCK_FLOORS ? (floor as Floor) : undefined
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) walk(full, out)
    else if (/\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts')) out.push(full)
  }
  return out
}

// Static imports, re-exports, dynamic import('…') and new URL('…', import.meta.url) of code files.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm

export function importsOf(file: string, text: string): Edge[] {
  const edges: Edge[] = []
  const from = path.relative(ROOT, file).split(path.sep).join('/')
  for (const m of text.matchAll(SPECIFIER)) {
    const specifier = m[1]!
    const to = path
      .relative(ROOT, path.resolve(path.dirname(file), specifier))
      .split(path.sep)
      .join('/')
    edges.push({ from, to, specifier })
  }
  return edges
}

/** Every edge that runs the wrong way (by the ALLOWED table, and the two sides never meeting). */
export function violations(edges: readonly Edge[]): string[] {
  const bad: string[] = []
  for (const e of edges) {
    const a = layerOf(e.from)
    const b = layerOf(e.to)
    if (a === undefined || b === undefined || a === b) continue
    if (!ALLOWED[a].includes(b)) bad.push(`${e.from} → ${e.to} ('${e.specifier}'): ${a}/ may not import ${b}/`)
  }
  for (const e of edges) {
    if (!e.from.startsWith('mock/') || !e.to.startsWith('mock/')) continue
    const a = floorOf(e.from)
    const b = floorOf(e.to)
    if (a === undefined || b === undefined) {
      bad.push(`${e.from} → ${e.to}: every file of mock/ lives in one of its floors (${Object.keys(MOCK_FLOORS).join(', ')})`)
      continue
    }
    if (a !== b && !(MOCK_FLOORS[a] as readonly string[]).includes(b))
      bad.push(`${e.from} → ${e.to} ('${e.specifier}'): mock/${a}/ may not import mock/${b}/`)
  }
  // The suites' framework stays generic: no area knowledge flows into it.
  for (const e of edges) {
    if (e.from.startsWith('suites/lib/') && e.to.startsWith('suites/') && !e.to.startsWith('suites/lib/')) {
      bad.push(`${e.from} → ${e.to}: the suites' framework may not import an area's suite code`)
    }
  }
  return bad
}

/** Strongly connected components with more than one file (Tarjan), each a circle of imports. */
export function circles(edges: readonly Edge[]): string[][] {
  const graph = new Map<string, string[]>()
  for (const e of edges) {
    if (!graph.has(e.from)) graph.set(e.from, [])
    graph.get(e.from)!.push(e.to)
    if (!graph.has(e.to)) graph.set(e.to, [])
  }
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  // Iterative, so that a deep import chain cannot overflow the stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue
    const work: [string, number][] = [[start, 0]]
    index.set(start, next)
    low.set(start, next++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const [v, i] = frame
      const targets = graph.get(v)!
      if (i < targets.length) {
        frame[1] = i + 1
        const w = targets[i]!
        if (!index.has(w)) {
          index.set(w, next)
          low.set(w, next++)
          stack.push(w)
          onStack.add(w)
          work.push([w, 0])
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent) low.set(parent[0], Math.min(low.get(parent[0])!, low.get(v)!))
      if (low.get(v) === index.get(v)) {
        const scc: string[] = []
        let w: string
        do {
          w = stack.pop()!
          onStack.delete(w)
          scc.push(w)
        } while (w !== v)
        if (scc.length > 1) found.push(scc.sort())
      }
    }
  }
  return found
}

function projectEdges(): Edge[] {
  const edges: Edge[] = []
  for (const root of CODE_ROOTS) {
    for (const file of walk(path.join(ROOT, root))) {
      if (file.includes(`${path.sep}wasm${path.sep}`) && file.endsWith('audit-scan.ts')) continue // AssemblyScript, not Node code
      edges.push(...importsOf(file, readFileSync(file, 'utf8')))
    }
  }
  return edges
}

t.test('the checker itself catches what it is for', async (t) => {
  const fake = (from: string, to: string): Edge => ({ from, to, specifier: to })
  t.same(
    violations([fake('mock/site/server.ts', 'lib/http.ts'), fake('scripts/run/main.ts', 'suites/lib/suite.ts')]),
    [],
    'allowed arrows pass',
  )
  t.equal(violations([fake('lib/http.ts', 'mock/site/server.ts')]).length, 1, 'lib → mock is caught')
  t.equal(violations([fake('suites/lib/walk.ts', 'mock/store/ordered.ts')]).length, 1, 'suites → mock is caught')
  t.equal(violations([fake('mock/admin/listing.ts', 'suites/lib/walk.ts')]).length, 1, 'mock → suites is caught')
  t.equal(violations([fake('lib/target.ts', 'scripts/run/main.ts')]).length, 1, 'lib → scripts is caught')
  t.equal(violations([fake('suites/lib/check.ts', 'suites/admin/session-checks.ts')]).length, 1, 'framework → area is caught')
  t.equal(violations([fake('scripts/run/suite-build.ts', 'bin/admin-conformance.mjs')]).length, 1, 'scripts → bin is caught')
  t.equal(violations([fake('mock/site/server.ts', 'bin/admin-conformance.mjs')]).length, 1, 'mock → bin is caught')
  t.equal(
    violations([fake('bin/admin-conformance.mjs', 'mock/site/server.ts')]).length,
    1,
    'bin → mock is caught (bin reaches only the commands)',
  )
  t.same(
    violations([
      fake('bin/admin-conformance.mjs', 'scripts/cli.ts'),
      fake('mock/site/server.ts', 'mock/admin/routes.ts'),
      fake('mock/admin/users.ts', 'mock/mas-http/body.ts'),
    ]),
    [],
    'allowed arrows of bin and the floors pass',
  )
  t.equal(violations([fake('mock/core/context.ts', 'mock/site/state.ts')]).length, 1, 'a primitive importing the assembly is caught')
  t.equal(
    violations([fake('mock/auth-service/compat-login.ts', 'mock/admin/framework/auth.ts')]).length,
    1,
    'an API borrowing from its sibling is caught',
  )
  t.equal(
    violations([fake('mock/homeserver/client/auth.ts', 'mock/auth-service/oidc/state.ts')]).length,
    1,
    'the homeserver borrowing from the auth service is caught',
  )
  t.equal(
    violations([fake('mock/store/journal/state.ts', 'mock/core/options.ts')]).length,
    1,
    'the store importing the server options is caught',
  )
  t.equal(violations([fake('mock/seed/mas/index.ts', 'mock/core/options.ts')]).length, 1, 'the seed importing the server options is caught')
  t.equal(
    violations([fake('mock/mas-http/body.ts', 'mock/admin/framework/query.ts')]).length,
    1,
    'mas-http reaching up into an API is caught',
  )
  t.equal(violations([fake('mock/stray.ts', 'mock/core/context.ts')]).length, 1, 'a file outside every floor is caught')
  t.same(circles([fake('a', 'b'), fake('b', 'c'), fake('c', 'a'), fake('c', 'd')]), [['a', 'b', 'c']], 'a circle of three is found')
  t.same(circles([fake('a', 'b'), fake('b', 'c')]), [], 'a chain is no circle')
  const edges = importsOf(
    path.join(ROOT, 'mock/x.ts'),
    `import a from '../lib/a.ts'\nexport { b } from './b.ts'\nconst c = await import('../lib/c.ts')\nimport './side.ts'\n`,
  )
  t.same(
    edges.map((e) => e.to),
    ['lib/a.ts', 'mock/b.ts', 'lib/c.ts', 'mock/side.ts'],
    'static, re-export, dynamic and side-effect imports are read',
  )
})

t.test('the project keeps its layers', async (t) => {
  const edges = projectEdges()
  t.ok(edges.length > 100, `read the project's imports (${edges.length})`)
  t.same(violations(edges), [], 'no import runs the wrong way')
  t.same(circles(edges), [], 'no circle of imports')
  const missing = edges.filter((e) => /\.(ts|json)$/.test(e.to) && !existsFile(path.join(ROOT, e.to)))
  t.same(
    missing.map((e) => `${e.from} → ${e.specifier}`),
    [],
    'every relative import names a file that exists',
  )
})

t.test('schemas/ holds data, not code', async (t) => {
  const code = walk(path.join(ROOT, 'schemas')).map((f) => path.relative(ROOT, f))
  t.same(code, [], 'no code files under schemas/')
})

function existsFile(p: string): boolean {
  try {
    return statSync(p).isFile()
  } catch {
    return false
  }
}
