// Shared by the real-client tests: where the clients are installed (test/fixtures/clients, its own
// package and lock file, installed by .ci/clients.sh, never by the root install), whether they are,
// and how a test loads one by package name. Skips say how to install; AC_REQUIRE_CLIENTS=1 (CI)
// makes their absence a failure. Why a separate package and these versions: decision 0012. (Not a
// test file itself.)
import { existsSync, readFileSync } from 'node:fs'
import Module, { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const FIXTURE = fileURLToPath(new URL('../fixtures/clients/', import.meta.url))
const requireHere = createRequire(path.join(FIXTURE, 'package.json'))

export const required = process.env.AC_REQUIRE_CLIENTS === '1'

/** The installed version of a client package, or undefined when it is not installed. */
export function installedVersion(pkg: string): string | undefined {
  const file = path.join(FIXTURE, 'node_modules', pkg, 'package.json')
  if (!existsSync(file)) return undefined
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version
}

/** False when the package is installed, else why the test skips. */
export function absence(pkg: string): false | string {
  if (installedVersion(pkg) !== undefined) return false
  return `${pkg} is not installed in test/fixtures/clients (bash .ci/clients.sh, or: cd test/fixtures/clients && npm ci --ignore-scripts)`
}

/** A CommonJS client package, loaded from the fixture folder. */
export function requireClient<T>(pkg: string): T {
  return requireHere(pkg) as T
}

/** An ES module client package, loaded from the fixture folder. */
export async function importClient<T>(pkg: string): Promise<T> {
  return (await import(pathToFileURL(requireHere.resolve(pkg)).href)) as T
}

/**
 * matrix-bot-sdk loads the end-to-end encryption binding (@matrix-org/matrix-sdk-crypto-nodejs) as
 * soon as it is required, and that package's native library comes from its postinstall download
 * (GitHub, unreachable from a loopback-only machine; CI installs with --ignore-scripts). The tests
 * use no encryption: the binding is replaced in the require cache by an object whose every member
 * throws when used, so a code path that did reach for encryption would fail loudly.
 */
export function withoutNativeCrypto(): void {
  const id = requireHere.resolve('@matrix-org/matrix-sdk-crypto-nodejs', { paths: [path.join(FIXTURE, 'node_modules/matrix-bot-sdk')] })
  const unavailable = (name: string | symbol): unknown =>
    new Proxy(function () {}, {
      get: (_, k) => (k === Symbol.toPrimitive ? () => `[no native crypto: ${String(name)}]` : unavailable(`${String(name)}.${String(k)}`)),
      apply: () => {
        throw new Error(`matrix-sdk-crypto-nodejs is not available in these tests (${String(name)} called)`)
      },
      construct: () => {
        throw new Error(`matrix-sdk-crypto-nodejs is not available in these tests (new ${String(name)})`)
      },
    })
  const stub = new Module(id)
  stub.filename = id
  stub.loaded = true
  stub.exports = new Proxy({}, { get: (_, k) => (k === '__esModule' ? false : unavailable(k)) })
  ;(Module as unknown as { _cache: Record<string, unknown> })._cache[id] = stub
}
