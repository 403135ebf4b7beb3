// The target context of a suite process: the target(s), one HTTP client per target, per-target memos
// and clean-ups, and which target the running check belongs to (an AsyncLocalStorage context).
//
// Fault matrix: when the runner passes several targets (AC_TARGETS, `run --fault-matrix`), every check
// of the file runs once per target, with its own client, memo and clean-ups; `target` and `client`
// always mean the current one. Nothing is read from the environment until the first use (no
// import-time side effects): the first check registered loads the targets.
import { AsyncLocalStorage } from 'node:async_hooks'
import { loadTarget, loadTargets, knownTokens, TARGETS_ENV, type Target } from '../../lib/target.ts'
import { HttpClient, redact } from '../../lib/http.ts'
import { clientLimits, mainFilePath } from './limits.ts'
import { suiteDirOfPath } from '../../lib/areas.ts'

export interface Context {
  label: string
  target: Target
  client: HttpClient
  memos: Map<string, Promise<unknown>>
  cleanups: (() => Promise<void> | void)[]
}

function makeContext(label: string, t: Target): Context {
  const c = new HttpClient({
    allowWrites: t.allowWrites,
    connectTimeoutMs: t.timeouts.connectMs,
    requestTimeoutMs: t.timeouts.requestMs,
    userAgent: t.userAgent,
    secrets: knownTokens(t),
    ...clientLimits(t),
  })
  return { label, target: t, client: c, memos: new Map(), cleanups: [] }
}

/** The suite folder of this process's main file ('suites/admin'), for picking the matrix targets that apply. */
function mainFileDir(): string {
  // (the last suites/<folder> of the path: a build of the suites may sit under a folder of that name)
  return suiteDirOfPath(mainFilePath())
}

function loadContexts(): Context[] {
  // AC_TARGETS is decoded by lib/target.ts, the codec the runner encodes it with; each entry's tokens
  // (shared by the matrix) come from the environment.
  const list = process.env[TARGETS_ENV] ? loadTargets(mainFileDir()) : undefined
  if (!list) return [makeContext('default', loadTarget())]
  return list.map((m) => makeContext(m.label, m.target))
}

let loaded: Context[] | undefined
const als = new AsyncLocalStorage<Context>()

/** Every target context of this process (loaded on first use). */
export function contexts(): Context[] {
  loaded ??= loadContexts()
  return loaded
}

/** True when the runner passed a list of targets (the fault matrix). */
export function isMatrix(): boolean {
  return process.env[TARGETS_ENV] !== undefined
}

/** The context of the running check (outside any check: the first target). */
export function current(): Context {
  return als.getStore() ?? contexts()[0] ?? makeContext('none', loadTarget())
}

/**
 * Runs `fn` as a check of `ctx`. With one target there is nothing to tell apart, and the store is left
 * off: an enabled AsyncLocalStorage switches on V8's promise hooks for the whole process (decision 0016).
 */
export function runIn<T>(ctx: Context, fn: () => Promise<T>): Promise<T> {
  if (!isMatrix()) return fn()
  return als.run(ctx, fn)
}

/** The file's checks are over: its context store stops following new promises (see endCheckStores in check.ts). */
export function endContextStore(): void {
  als.disable()
}

/** The target of the running check (a view: reads always go to the current context's target). */
export const target: Target = new Proxy({} as Target, {
  get: (_o, p) => Reflect.get(current().target, p),
  has: (_o, p) => Reflect.has(current().target, p),
  ownKeys: () => Reflect.ownKeys(current().target),
  getOwnPropertyDescriptor: (_o, p) => {
    const d = Reflect.getOwnPropertyDescriptor(current().target, p)
    return d ? { ...d, configurable: true } : undefined
  },
})

/** The HTTP client of the running check's target. */
export const client: HttpClient = new Proxy({} as HttpClient, {
  get: (_o, p) => {
    const c = current().client
    const v = Reflect.get(c, p, c)
    return typeof v === 'function' ? v.bind(c) : v
  },
})

/** Undo what a check created (revoke a session...) when the target's checks end, before its client closes. */
export function cleanup(fn: () => Promise<void> | void): void {
  current().cleanups.push(fn)
}

/** Run and forget the clean-ups of a context, newest first; a failed clean-up must not hide results. */
export async function runCleanups(ctx: Context): Promise<void> {
  const list = ctx.cleanups.splice(0).reverse()
  await runIn(ctx, async () => {
    for (const fn of list) {
      try {
        await fn()
      } catch {
        // best effort: what could not be undone is reported by the clean-up itself (leftover lines)
      }
    }
  })
}

/** Per-file (per-target) memo: checks of a file run one after another, so an expensive walk is done once and shared. */
export function memo<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const memos = current().memos
  let p = memos.get(key) as Promise<T> | undefined
  if (!p) {
    p = fn()
    memos.set(key, p)
    // a failed computation is not cached: the next check tries again and reports its own failure
    p.catch(() => memos.delete(key))
  }
  return p
}

/** Text made safe to print: the target's tokens and token-shaped strings removed. */
export function redactText(s: string): string {
  return redact(s, knownTokens(current().target))
}
