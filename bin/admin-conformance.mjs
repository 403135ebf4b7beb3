#!/usr/bin/env node
// A packed package (npm install, the container image) runs dist/cli/, built when it was packed
// (scripts/dev/build-package.ts): no loader, nothing built or written in the package's folder.
// A checkout runs its TypeScript sources through tsx: no build step between a checkout and a run. The
// `run` command (npm start) is the exception, for speed: built once and kept in the user's cache until a
// source changes (built-cli.mjs); if that build fails, or AC_CLI_LOADER=tsx, it runs through tsx like the rest.
const argv = process.argv.slice(2)
// `admin-conformance … | head`: once the reader of stdout (or stderr) is gone, a write fails with EPIPE,
// an 'error' event that would end the process with a stack trace. Every command stops quietly instead,
// with the exit code it had so far; a command that handles the closed pipe itself (audit-log finishes
// its count and exits with its own code) has a listener of its own, and this one leaves it to it.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err?.code !== 'EPIPE' && err?.code !== 'ERR_STREAM_DESTROYED') throw err
    if (stream.listenerCount('error') > 1) return
    process.exit(process.exitCode ?? 0)
  })
}
// Memory (decision 0004): a small young generation makes V8 collect instead of growing the runner's heap
// (about 30 MiB less at the peak of a run); set before the bulk of the code is loaded.
// (V8 reads the maximum only when it starts, so for the running process it is a hint that does nothing;
// what does act is its growth factor: `run` keeps the 1 MiB it starts with until it knows its target,
// scripts/run/main.ts, because against a real target its process holds no mock.)
const { setFlagsFromString } = await import('node:v8')
setFlagsFromString('--max-semi-space-size=1')
if (argv[0] === 'run') {
  setFlagsFromString('--semi-space-growth-factor=1')
  // A run lasts seconds, on as few cores as it has processes (decision 0017): V8 optimizes a function
  // only after four times its default budget of work, so that the optimizing compiler's background
  // jobs go to code that is really hot (a large world's seeding) and not to the rest of the runner.
  setFlagsFromString('--interrupt-budget=270336')
}
const { prebuiltDir } = await import('../lib/package-paths.mjs')
const packed = prebuiltDir()
let main
if (packed) {
  const { pathToFileURL } = await import('node:url')
  main = (await import(pathToFileURL(`${packed}/cli/cli.mjs`).href)).main
} else {
  if (argv[0] === 'run' && process.env.AC_CLI_LOADER !== 'tsx') {
    try {
      const { builtRunFile } = await import('../scripts/built-cli.mjs')
      const { pathToFileURL } = await import('node:url')
      const runMain = (await import(pathToFileURL(await builtRunFile()).href)).main
      main = (args) => runMain(args.slice(1))
    } catch (e) {
      process.stderr.write(
        `note: the run command could not be built once (${String(e?.message ?? e).split('\n')[0]}); running it through tsx\n`,
      )
    }
  }
  if (!main) {
    let register
    try {
      ;({ register } = await import('tsx/esm/api'))
    } catch {
      process.stderr.write(
        'admin-conformance: this copy has neither a build (dist/) nor the TypeScript loader tsx: install the package from its packed tarball (npm pack), or run npm install in the checkout\n',
      )
      process.exit(2)
    }
    register()
    main = (await import('../scripts/cli.ts')).main
  }
}
process.exitCode = await main(argv)
