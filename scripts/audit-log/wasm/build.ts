// Compiles scripts/audit-log/wasm/assembly/audit-scan.ts (AssemblyScript) to scripts/audit-log/wasm/audit-scan.wasm, which is
// committed: running the auditor needs no compiler. First it writes assembly/constants.gen.ts, the
// literals and numbers the module shares with the JavaScript side (constants.ts).
// test/scripts/audit-log/wasm/module.test.ts checks that the committed module is what this script
// builds from the committed source, and test/scripts/audit-log/wasm/build.test.ts that the
// committed constants are what the JavaScript side says.
//
//   npm run build:wasm            regenerate the constants, rebuild scripts/audit-log/wasm/audit-scan.wasm
//   npm run build:wasm -- --out F write the module elsewhere (the test does)

import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { wasmConstantsSource } from './constants.ts'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
export const WASM_SOURCE = join(ROOT, 'scripts/audit-log/wasm/assembly/audit-scan.ts')
export const WASM_OUT = join(ROOT, 'scripts/audit-log/wasm/audit-scan.wasm')
export const WASM_CONSTANTS = join(ROOT, 'scripts/audit-log/wasm/assembly/constants.gen.ts')
// Fixed flags, so that a build is reproducible: -O3, the stub runtime (a bump heap; the module
// never frees), no assertions (the code checks its own bounds), SIMD (16 bytes per step on long runs).
export const ASC_FLAGS = ['-O3', '--runtime', 'stub', '--noAssert', '--enable', 'simd']

/** Writes assembly/constants.gen.ts from the JavaScript side. */
export function writeWasmConstants(): void {
  writeFileSync(WASM_CONSTANTS, wasmConstantsSource())
}

/** Builds the module to `out` from the committed sources; throws with the compiler's output when it fails. */
export function buildWasm(out = WASM_OUT): void {
  const asc = join(dirname(createRequire(import.meta.url).resolve('assemblyscript/package.json')), 'bin/asc.js')
  const r = spawnSync(process.execPath, [asc, WASM_SOURCE, '-o', out, ...ASC_FLAGS], { cwd: ROOT, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`asc failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--out')
  if (process.argv.includes('--help')) {
    console.log(
      'usage: npm run build:wasm [-- --out FILE]\nWrites scripts/audit-log/wasm/assembly/constants.gen.ts, then compiles scripts/audit-log/wasm/assembly/audit-scan.ts to scripts/audit-log/wasm/audit-scan.wasm (or FILE).',
    )
    process.exit(0)
  }
  try {
    writeWasmConstants()
    buildWasm(i !== -1 ? resolve(process.argv[i + 1] ?? '') : WASM_OUT)
  } catch (err) {
    console.error((err as Error).message)
    process.exit(1)
  }
}
