// The code's layout is the formatter's: this test runs `npm run lint` (Prettier's check over every code
// file; its settings in .prettierrc.json, its exceptions in .prettierignore), so that line lengths and
// layout are never argued by hand. `npm run format` rewrites what it names.
import t from 'tap'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

t.test('every code file is as the formatter lays it out', async (t) => {
  try {
    await promisify(execFile)('npm', ['run', '--silent', 'lint'], { cwd: ROOT, maxBuffer: 16 << 20 })
    t.pass('npm run lint: nothing to reformat')
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: number }
    t.fail(`files not formatted (run \`npm run format\`):\n${err.stderr ?? ''}${err.stdout ?? ''}`.slice(0, 4000), { exitCode: err.code })
  }
})
