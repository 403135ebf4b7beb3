#!/usr/bin/env node
// The package runs its TypeScript sources through tsx: no build step between a checkout and a run.
import { register } from 'tsx/esm/api'
register()
const { main } = await import('../scripts/cli.ts')
process.exitCode = await main(process.argv.slice(2))
