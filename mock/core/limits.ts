// What the real servers accept, per area, and how they refuse the rest. Facts and their sources:
//
// Auth service (Rust: hyper under axum):
// - body: axum's DefaultBodyLimit, 2 MB (2,097,152 bytes; we know of no override in MAS), refused with
//   413 "Failed to buffer the request body: length limit exceeded" (text/plain).
// - JSON depth: serde_json's recursion limit, 128 (mock/mas-http/body.ts answers it with axum's
//   400 "Failed to parse the request body as JSON: recursion limit exceeded at line L column C").
// - headers: hyper's read buffer, DEFAULT_MAX_BUFFER_SIZE = 8192 + 4096 * 100 = 417,792 bytes for the
//   whole head, and at most 100 header fields (hyper's MAX_HEADERS); past either hyper answers
//   431 Request Header Fields Too Large with an empty body (hyper src/proto/h1/io.rs, role.rs).
//
// Homeserver (Python: Synapse on Twisted):
// - body: synapse/app/_base.py max_request_body_size = max(200 × MAX_PDU_SIZE (65,536), max_upload_size
//   (50M by default)) = 52,428,800 bytes. Past it Synapse aborts the connection (synapse/http/site.py
//   handleContentChunk) without an answer; the mock answers 413 M_TOO_LARGE instead, so that a client
//   learns why (EventSizeError is Synapse's own 413 M_TOO_LARGE).
// - JSON depth: synapse/http/servlet.py parses with Python's json, which raises RecursionError at
//   about 1,000 levels minus the frames below the call (Python 3.11: 996 from a bare interpreter, 945
//   with 50 frames on the stack, measured); Synapse answers it, like any parse failure, with
//   400 M_NOT_JSON "Content not JSON.". The mock takes 940.
// - headers: Twisted's HTTPChannel: totalHeadersSize = 16,384 bytes (request line plus headers) and
//   maxHeaders = 500; past either it writes "400 Bad Request" with no body and disconnects
//   (twisted/web/http.py _respondToBadRequestAndDisconnect).
import type { Area } from './context.ts'

export interface AreaLimits {
  /** largest body, bytes */
  body: number
  /** deepest JSON nesting accepted at parse time (undefined: the handlers bound it) */
  jsonDepth?: number
  /** largest head (request line and header fields), bytes */
  headBytes: number
  /** most header fields */
  headers: number
  /** the status of a refused head */
  headStatus: 400 | 431
}

const AUTH_SERVICE: AreaLimits = { body: 2 * 1024 * 1024, headBytes: 417_792, headers: 100, headStatus: 431 }
const HOMESERVER: AreaLimits = { body: 52_428_800, jsonDepth: 940, headBytes: 16_384, headers: 500, headStatus: 400 }

export const LIMITS: Readonly<Record<Area, AreaLimits>> = {
  mas: AUTH_SERVICE,
  other: AUTH_SERVICE,
  // The control API is the mock's own: the auth service's limits, and a JSON depth like serde_json's.
  control: { ...AUTH_SERVICE, jsonDepth: 128 },
  hs: HOMESERVER,
}

/** The largest head any area accepts: node's parser refuses (clientError) past it. */
export const MAX_HEAD_BYTES = Math.max(...Object.values(LIMITS).map((l) => l.headBytes))

/** The body limit of an area: the one set with --max-body, else the real server's. */
export function bodyLimit(area: Area, maxBody: number | undefined): number {
  return maxBody ?? LIMITS[area].body
}
