// One suite process for many suite files (decision 0004: a process per file cost more than the checks).
// Plain JavaScript run by node itself, no loader: it imports the suite bundles that the run built with
// esbuild, each as one top-level tap subtest named after the file, one after another. A bundle's own
// `tap` is this subtest (../engine/suite-build.ts builds each bundle with a `tap` that reads globalThis.__acSuiteTap),
// so a file's checks, teardown and comments land under its subtest exactly as they did at the top of
// its own process; each bundle has its own copy of the suites' framework (module state is per file).
//
//   node --import <probe> suite-worker.mjs      (cwd: the run's tap project)
//   stdin: one line {"env": {...}, "files": ["suites/<area>/<name>.suite.mjs", ...], "order": [2, 0, 1]}
//
// The runner starts the workers before it knows the target (decision 0004: their start then overlaps the
// mock's start and the preflight); the line brings the target's environment and the files. While it
// waits, a worker loads what every bundle needs from the shared build of lib/ (AC_WARM: its schemas
// module; the other modules beside it) and readies the validators: loads the precompiled module
// (lib/schema-standalone.ts), or compiles them where there is none, which the bundles would otherwise
// do on their first checks. lib/ holds no state but the validators' cache. Without a line (the runner stopped first) it exits.
//
// Several workers share one list: a worker runs a file only after claiming it (an atomic mkdir in
// AC_CLAIMS), so the files spread over the workers as they free up, and a worker started after a crash
// goes on with the files nobody claimed. AC_FILE_TIMEOUT_MS is each file's time limit.
import { closeSync, mkdirSync, openSync, readdirSync, writeFileSync, writeSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// TAP goes to the runner in batches (decision 0004): tap writes every line on its own, and each write to
// the runner's pipe is a system call that also wakes the runner. A batch goes out when it reaches
// FLUSH_BYTES or FLUSH_MS after its first line (one write per turn of the event loop, as before, was
// about one write per request: 0.2-0.3 s of a worker's profile). What is still held when the process
// exits is written then; a worker killed outright loses at most FLUSH_MS of lines of the file it was
// running, which the runner reports as cut short anyway, naming the check under way from the claim.
const FLUSH_MS = 25
const FLUSH_BYTES = 64 * 1024
const held = []
let heldBytes = 0
let timer
const writeOut = process.stdout.write.bind(process.stdout)
const flush = () => {
  clearTimeout(timer)
  timer = undefined
  heldBytes = 0
  if (held.length) writeOut(held.splice(0).join(''))
}
process.stdout.write = (chunk, encoding, cb) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
  held.push(text)
  heldBytes += text.length
  // a file's first line goes out at once: the runner's watchdog starts the file's clock on it, and a
  // file that never lets the event loop turn must still meet its time limit (a check's first line
  // need not: the check under way is in the claim's `check` file)
  if (text.startsWith('# Subtest: ') || heldBytes >= FLUSH_BYTES) flush()
  else if (timer === undefined) timer = setTimeout(flush, FLUSH_MS).unref()
  const done = typeof encoding === 'function' ? encoding : cb
  if (done) process.nextTick(done)
  return true
}
process.on('exit', () => {
  if (held.length) writeSync(1, held.splice(0).join(''))
})

// tap: the run's one-module build of it (AC_TAP, the one the bundles import), else from node_modules
const { default: tap } = await import(process.env.AC_TAP || 'tap')
// Every parser of this process reads the output of tests of this process, each already parsed by its own
// test's parser: the run's tap passes a subtest's lines up as they are (decision 0015; ../engine/suite-build.ts,
// tapChildrenPassedThrough). The root's closing counts then count the files alone; the runner drops them.
if (tap.parser) Object.getPrototypeOf(tap.parser).inProcessChildren = true

const claims = process.env.AC_CLAIMS
const timeout = Number(process.env.AC_FILE_TIMEOUT_MS) || 0

/** The runner's line, or undefined when stdin ends without one. */
function readLine() {
  return new Promise((resolve) => {
    let buf = ''
    const done = (v) => {
      process.stdin.removeAllListeners('data').removeAllListeners('end')
      // stdin must not keep the worker alive after its files
      process.stdin.destroy()
      resolve(v)
    }
    process.stdin.setEncoding('utf8')
    process.stdin.on('data', (chunk) => {
      buf += chunk
      const nl = buf.indexOf('\n')
      if (nl !== -1) done(buf.slice(0, nl))
    })
    process.stdin.on('end', () => done(buf.trim() ? buf : undefined))
    process.stdin.on('error', () => done(undefined))
  })
}

/** Compiles validators until the line arrives: a turn of the event loop between two, so it never waits on this. */
async function warm(url, arrived) {
  try {
    // lib/'s modules first (every suite bundle imports them: undici, the version tables, the framework's
    // helpers), one a turn, then the validators
    const dir = path.dirname(fileURLToPath(url))
    for (const name of readdirSync(dir)
      .filter((n) => n.endsWith('.mjs'))
      .sort()) {
      if (arrived()) return
      await import(pathToFileURL(path.join(dir, name)).href)
    }
    const schemas = await import(url)
    for (const ref of schemas.listSchemaRefs()) {
      if (arrived()) return
      schemas.compileSchema(ref)
      await new Promise((resolve) => setImmediate(resolve))
    }
  } catch {
    // a module or schema that does not load fails the checks that use it, with its message; nothing to do here
  }
}

let line
const reading = readLine().then((l) => (line = l ?? null))
if (process.env.AC_WARM) await warm(process.env.AC_WARM, () => line !== undefined)
await reading
if (line === null) process.exit(0)
const go = JSON.parse(line)
Object.assign(process.env, go.env)
const files = go.files
// the order in which this worker claims the files (indexes into the list the workers share)
const order = Array.isArray(go.order) ? go.order : files.map((_, i) => i)

function claim(i) {
  if (!claims) return true
  try {
    mkdirSync(path.join(claims, String(i)))
    // whose claim it is: if this process dies before the file's result is out, the runner still knows
    writeFileSync(path.join(claims, String(i), 'pid'), String(process.pid))
    return true
  } catch {
    return false
  }
}

/** The tests under way, the file's first and the innermost last (followTests). */
const running = []

/**
 * Follows the tests of `t` and below as they run: `running` says which test is under way, and which check
 * runs now is left in the file's claim (`fd`: the names from the file down, ' > ' between, ended by a
 * NUL). tap prints a subtest's first line only once it has output, so a worker that dies inside a check
 * (heap exhaustion, a kill at the time limit) would leave the runner unable to say which check it was in.
 * One write at the start of the file it keeps open, no truncation: a shorter name leaves the tail of a
 * longer one after its NUL, which the runner ignores (a whole-file write per check, two per check, was
 * the biggest cost of a worker's own: about half a second of CPU per run).
 */
function followTests(t, fd, chain) {
  const note = (names) => {
    if (fd === undefined) return
    try {
      writeSync(fd, names.join(' > ') + '\0', 0)
    } catch {
      // the run's folder is gone: nothing to tell
    }
  }
  const test = t.test.bind(t)
  t.test = (name, ...rest) => {
    const at = rest.findIndex((x) => typeof x === 'function')
    if (typeof name !== 'string' || at === -1) return test(name, ...rest)
    const fn = rest[at]
    rest[at] = async (tt) => {
      const names = [...chain, name]
      note(names)
      followTests(tt, fd, names)
      enter(tt)
      try {
        return await fn(tt)
      } finally {
        note(chain)
      }
    }
    return test(name, ...rest)
  }
}

/** `t` is under way from its start to its end (a test's end comes after its subtests, its function's before). */
function enter(t) {
  running.push(t)
  t.on('end', () => leave(t))
}

function leave(t) {
  const i = running.lastIndexOf(t)
  if (i !== -1) running.splice(i, 1)
}

// An error thrown outside every test's promises (a timer's callback, a rejection nobody awaited) fails the
// innermost test under way when it arrives, else tap's root, and the process goes on. tap's own domains
// found the test that made the callback with async hooks, which cost every promise of the process; the
// run's tap goes without them (decision 0016; ../engine/suite-build.ts, tapWithoutAsyncHooks).
function routeError(er, type) {
  const e = er !== null && typeof er === 'object' ? er : { error: er }
  try {
    e.tapCaught = type
  } catch {
    // a frozen error is failed as it is
  }
  ;(running.at(-1) ?? tap).threw(e)
}
process.on('uncaughtException', (er) => routeError(er, 'uncaughtException'))
process.on('unhandledRejection', (er) => routeError(er, 'unhandledRejection'))

/** The claim's `check` file, open for the notes; undefined when there is no claim folder. */
function openCheck(i) {
  try {
    return openSync(path.join(claims, String(i), 'check'), 'w')
  } catch {
    return undefined
  }
}

for (const i of order) {
  if (!claim(i)) continue
  const file = path.resolve(files[i])
  // A file that waits on nothing (a promise never settled) must meet its time limit, not end the
  // process early with the files after it unrun: the worker stays alive while a file runs.
  const alive = setInterval(() => {}, 1 << 30)
  const fd = claims ? openCheck(i) : undefined
  await tap.test(files[i], { timeout }, async (t) => {
    followTests(t, fd, [])
    enter(t)
    globalThis.__acSuiteTap = t
    // The suites' framework picks its area from the main file's folder.
    process.argv[1] = file
    await import(pathToFileURL(file).href)
    // The fault matrix registers its per-target groups on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve))
  })
  running.length = 0
  clearInterval(alive)
  if (fd !== undefined) closeSync(fd)
  // tap's root lists every failed result of the process, diagnostics included, for reporters that this
  // worker never runs (its TAP goes to the runner): emptied after each file so that a long run does not
  // keep them all (decision 0004)
  for (const list of Object.values(tap.lists ?? {})) if (Array.isArray(list)) list.length = 0
}
