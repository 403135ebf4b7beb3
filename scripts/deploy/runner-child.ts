// The child-process entry of the suite runner for deploy: `node --import tsx runner-child.ts <run options>`.
// suites.ts says why deploy runs the suites in a child process at all.
import { main } from '../run/index.ts'

process.exitCode = await main(process.argv.slice(2))
