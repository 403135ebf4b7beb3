// The one place that picks a line scanner: WebAssembly where the module loads, JavaScript
// otherwise, and JavaScript for a --requester timeline (which needs each line's details).

import type { Tally } from '../tally.ts'
import { scanModule } from '../wasm/module.ts'
import { JsLineScanner } from './js-line-scanner.ts'
import type { AuditEngine, LineScanner } from './line-scanner.ts'
import { WasmLineScanner } from '../wasm/line-scanner.ts'

export type { AuditEngine, Deferred, LineScanner } from './line-scanner.ts'

/** The engine an audit uses unless told otherwise. */
export function defaultEngine(): AuditEngine {
  return scanModule() !== null ? 'wasm' : 'js'
}

/** A scanner reporting into `tally`; asking for 'wasm' where the module cannot run is an error. */
export function createLineScanner(
  tally: Tally,
  opts: { engine?: AuditEngine | undefined; wasmBlockBytes?: number | undefined; deferTextChars?: number | undefined },
): LineScanner {
  if (tally.match !== undefined || opts.engine === 'js') return new JsLineScanner(tally)
  const m = scanModule()
  if (m === null) {
    if (opts.engine === 'wasm') {
      throw new Error(
        'the WebAssembly audit engine is not available here (scripts/audit-log/wasm/audit-scan.wasm missing or WebAssembly SIMD unsupported)',
      )
    }
    return new JsLineScanner(tally)
  }
  return new WasmLineScanner(tally, m, opts.wasmBlockBytes, opts.deferTextChars)
}
