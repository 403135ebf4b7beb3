// The WebAssembly fast path of the auditor (source: scripts/audit-log/wasm/assembly/audit-scan.ts, AssemblyScript; the
// compiled module is committed beside it and rebuilt by `npm run build:wasm`). It counts the
// canonical request lines of a block of bytes and hands every other line back to the JavaScript
// scanner; see Auditor in scripts/audit-log/index.ts for how the two are put together.

import { readFileSync } from 'node:fs'

// The compiler options carry no DOM library, where WebAssembly's types live: the few used here.
/** A compiled module (opaque; it can be posted to a worker thread). */
export type WasmModule = object
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule
  Instance: new (m: WasmModule, imports: object) => { exports: unknown }
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly

interface ScanExports {
  memory: { buffer: ArrayBuffer }
  REQUESTER_STRIDE: { value: number }
  TOTALS: { value: number }
  reserveInput(n: number): number
  reservePrefix(n: number): number
  setPrefix(n: number): void
  totalsAddress(): number
  declinedAddress(): number
  /** t: 0 requesters, 1 GraphQL operations */
  keyCount(t: number): number
  keyAddress(t: number, k: number): number
  keyLength(t: number, k: number): number
  statsAddress(t: number): number
  setSeed(s: number): void
  tableProbes(): number
  reset(): void
  scan(from: number, n: number, base: number): number
  scannedLines(): number
}

let cached: WasmModule | null | undefined

/**
 * The compiled module, or null where it cannot run (the file is missing, or this runtime lacks
 * WebAssembly SIMD): the auditor then stays on its JavaScript path, with the same results.
 */
export function scanModule(): WasmModule | null {
  if (cached !== undefined) return cached
  let m: WasmModule | null
  try {
    // import.meta.url is undefined inside the bundled worker; workers get the module from their
    // parent (provideScanModule) and never come here.
    const WASM_FILE = new URL('./audit-scan.wasm', import.meta.url)
    m = new WA.Module(readFileSync(WASM_FILE))
  } catch {
    m = null
  }
  cached = m
  return m
}

/** Hands a worker thread the module its parent compiled (modules pass between threads). */
export function provideScanModule(m: WasmModule | null): void {
  cached = m
}

/**
 * Counters drained from the module, flat (no object per requester: thousands of small objects and
 * typed arrays cost more than the counting). Requesters as printed, like the JavaScript tables.
 */
export interface WasmCounts {
  /** requests, v1.20 lines, pre-v1.20 lines, by classification code, then other events */
  totals: Float64Array
  requesterKeys: string[]
  /** `stride` per requester: requests, latest line, then one counter per activity */
  requesterStats: Float64Array
  stride: number
  operationKeys: string[]
  operationCounts: Float64Array
}

/** One instance of the module: its own tables and input area. */
export class WasmScanner {
  private readonly x: ScanExports
  private readonly stride: number
  private readonly totalsLength: number
  /** Lines declined by the last scan: [start, end, index] triples relative to its block. */
  declined: Uint32Array = new Uint32Array(0)
  /** Lines read by the last scan. */
  lines = 0

  constructor(module: WasmModule, clientPrefix: string) {
    this.x = new WA.Instance(module, { env: { abort: wasmAbort } }).exports as unknown as ScanExports
    this.stride = this.x.REQUESTER_STRIDE.value as number
    this.totalsLength = this.x.TOTALS.value as number
    this.x.setSeed((Math.random() * 0x100000000) >>> 0)
    const prefix = Buffer.from(clientPrefix, 'utf8')
    const at = this.x.reservePrefix(prefix.length)
    new Uint8Array(this.x.memory.buffer, at, prefix.length).set(prefix)
    this.x.setPrefix(prefix.length)
  }

  /**
   * A buffer over the module's input area of `n` bytes, to read input straight into (saving a copy
   * per block): scan() then takes its lines in place. The module's memory may grow during a scan,
   * which detaches every view of it; the view scan() returns, and the next inputView(), are fresh.
   */
  inputView(n: number): Buffer {
    const at = this.x.reserveInput(n)
    const mem = this.x.memory.buffer
    if (this.view === null || this.view.buffer !== mem || this.view.byteOffset !== at || this.view.length !== n)
      this.view = Buffer.from(mem, at, n)
    this.inputAt = at
    this.inputLength = n
    return this.view
  }
  private view: Buffer | null = null
  /** Where the input area is and how long the last input view was (-1: no view of the current area). */
  private inputAt = -1
  private inputLength = 0

  /**
   * Audits the lines of bytes [start, end) of `buf` (separated by '\n', none at `end`). `base` is
   * the number (for latest-line ordering) of the line before the first. Fills `declined`/`lines`.
   * Returns `buf`, or a fresh view of the same bytes when it is the input view and the memory grew.
   */
  scan(buf: Uint8Array, start: number, end: number, base: number): Buffer | Uint8Array {
    const n = end - start
    const x = this.x
    const before = x.memory.buffer
    // Read now: a view of a memory that grows is detached, and reads as empty.
    const offset = buf.byteOffset
    const length = buf.length
    let count: number
    if (buf.buffer === before && offset === this.inputAt && end <= this.inputLength) {
      count = x.scan(start, n, base)
    } else {
      // Bytes already in the module's memory elsewhere are taken out first: reserving may grow it.
      const src = buf.buffer === before ? buf.slice(start, end) : buf.subarray(start, end)
      const at = x.reserveInput(n)
      // A bigger input area is a new one: the last view no longer covers it.
      if (at !== this.inputAt) this.inputAt = -1
      // The memory may have grown (and its buffer been replaced) in reserveInput.
      new Uint8Array(x.memory.buffer, at, n).set(src)
      count = x.scan(0, n, base)
    }
    const mem = x.memory.buffer
    this.lines = x.scannedLines()
    this.declined = count === 0 ? EMPTY : new Uint32Array(mem, x.declinedAddress(), count * 3)
    if (buf.buffer === before && mem !== before) return Buffer.from(mem, offset, length)
    return buf
  }

  /** Slots the module's tables looked at so far (a count of collisions for tests, not a time). */
  probes(): number {
    return this.x.tableProbes()
  }

  /** Takes the counters gathered so far and resets them. */
  drain(): WasmCounts {
    const x = this.x
    const mem = x.memory.buffer
    const totals = new Float64Array(mem, x.totalsAddress(), this.totalsLength).slice()
    // The keys of table t, and its counters: one row of `stride` per key.
    const bytes = Buffer.from(mem)
    const table = (t: number, stride: number) => {
      const n = x.keyCount(t)
      const keys = new Array<string>(n)
      for (let k = 0; k < n; k++) {
        const at = x.keyAddress(t, k)
        keys[k] = bytes.toString('latin1', at, at + x.keyLength(t, k))
      }
      // A copy: reset() below zeroes the module's.
      return { keys, stats: new Float64Array(mem, x.statsAddress(t), n * stride).slice() }
    }
    const r = table(REQUESTERS, this.stride)
    const op = table(OPERATIONS, 1)
    const counts: WasmCounts = {
      totals,
      requesterKeys: r.keys,
      requesterStats: r.stats,
      stride: this.stride,
      operationKeys: op.keys,
      operationCounts: op.stats,
    }
    x.reset()
    return counts
  }
}

const EMPTY = new Uint32Array(0)
const REQUESTERS = 0
const OPERATIONS = 1

function wasmAbort(): never {
  throw new Error('audit-scan.wasm aborted')
}
