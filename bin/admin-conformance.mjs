#!/usr/bin/env node
// The package runs its TypeScript sources through tsx: no build step between a checkout and a run. The
// `run` command (npm start) is the exception, for speed: built once and kept until a source changes
// (built-cli.mjs); if that build fails, or AC_CLI_LOADER=tsx, it runs through tsx like the rest.
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
// Memory (issue 16): a small young generation makes V8 collect instead of growing the runner's heap
// (about 30 MiB less at the peak of a run); set before the bulk of the code is loaded.
const { setFlagsFromString } = await import('node:v8')
setFlagsFromString('--max-semi-space-size=1')
let runMain
if (argv[0] === 'run' && process.env.AC_CLI_LOADER !== 'tsx') {
  try {
    const { builtRunFile } = await import('./built-cli.mjs')
    const { pathToFileURL } = await import('node:url')
    runMain = (await import(pathToFileURL(await builtRunFile()).href)).main
  } catch (e) {
    process.stderr.write(`note: the run command could not be built once (${String(e?.message ?? e).split('\n')[0]}); running it through tsx\n`)
  }
}
if (runMain) {
  process.exitCode = await runMain(argv.slice(1))
} else {
  const { register } = await import('tsx/esm/api')
  register()
  const { main } = await import('../scripts/cli.ts')
  process.exitCode = await main(argv)
}
