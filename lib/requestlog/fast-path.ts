// The bulk fast path of the request-log grammar.
//
// For `audit-log` over millions of lines, per-call overhead dominates: every indexOf, slice or
// regex call costs about as much as scanning a hundred characters natively. So canonical request
// lines (the form the service writes: fields in its order, IPv4 or IPv6 address, no escapes in the
// User-Agent, no colours) are matched by ONE anchored regex that also captures the parts the audit
// needs; anything else falls back to the hand-written scanner (scanner.ts), which stays the reference and
// gives the precise errors. The regex is linear: every repeated class excludes the delimiter that
// follows it, so the engine never re-tries a position more than a character back. It accepts a
// strict subset of what scan() accepts, with the same values (test/lib/requestlog/fastpath.test.ts
// checks that on every corpus line, generated lines and mutations of them). Repeated groups are
// bounded ({1,8}): a group repeated without bound costs the engine a backtracking entry per round.

import {
  CANONICAL_TIMESTAMP_LENGTH,
  FIELD,
  GRAPHQL_OPERATION_TYPES,
  HTTP_VERSION_NAMES,
  RE_COUNT,
  RE_DATE_TIME,
  RE_IPV4,
  RE_MS,
  RE_TRACE_ID,
  REQUESTER_CLIENT,
  REQUESTER_HOMESERVER,
  REQUESTER_USER,
  RESPONSE_EVENT_NAME,
  STATS_LABELS,
} from './grammar.ts'
import type { LineView } from './types.ts'

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

// IPv6 text forms (RFC 3986 IPv6address: RFC 4291 with '::' compression and an IPv4 tail), so that
// the fast path needs no isIP call; zone ids (%eth0) are left to the scanner.
const H16 = '[0-9a-fA-F]{1,4}'
const LS32 = `(?:${H16}:${H16}|${RE_IPV4})`
// An optional run of up to max + 1 groups before '::'.
const h16s = (max: number) => `(?:(?:${H16}:){0,${max}}${H16})?`
const IP6 =
  '(?:' +
  [
    `(?:${H16}:){6}${LS32}`,
    `::(?:${H16}:){5}${LS32}`,
    `${h16s(0)}::(?:${H16}:){4}${LS32}`,
    `${h16s(1)}::(?:${H16}:){3}${LS32}`,
    `${h16s(2)}::(?:${H16}:){2}${LS32}`,
    `${h16s(3)}::${H16}:${LS32}`,
    `${h16s(4)}::${LS32}`,
    `${h16s(5)}::${H16}`,
    `${h16s(6)}::`,
  ].join('|') +
  ')'
// Characters a token may hold here: no control characters (ESC starts a colour, CR/LF end lines),
// no space, no quote.
const TOK = String.raw`[^\x00-\x20"\x7f]`
const NAME = String.raw`[^\x00-\x20"\x7f()]`
const field = (name: string) => ` ${esc(name)}=`
// The v1.20 stats, after the cpu: an empty capture marks them (see V120).
const STATS =
  `${esc(STATS_LABELS.polls)}${RE_COUNT}${esc(STATS_LABELS.cpu)}${RE_MS}` +
  `(?:()${esc(STATS_LABELS.db)}${RE_MS}${esc(STATS_LABELS.elapsed)}${RE_MS}${esc(STATS_LABELS.queries)}${RE_COUNT}${esc(STATS_LABELS.fetched)}${RE_COUNT}` +
  `|${esc(STATS_LABELS.elapsed)}${RE_MS})`
/** The most words a reason phrase has on the fast path; the longest standard one has five ("Request Header Fields Too Large"). */
const REASON_WORDS = 8
const FAST_RE = new RegExp(
  // Only the canonical timestamp with 6 fractional digits: it puts the level at a fixed offset.
  String.raw`${RE_DATE_TIME}\.\d{6}Z (?: INFO| WARN|ERROR) ${esc(RESPONSE_EVENT_NAME)} [A-Z_]+-${RE_COUNT} - "` +
    // 1: set (empty) for GET, 2: for POST, 3: any other method; 4: path; 5-7: status digits.
    // Empty and one-character captures allocate nothing, which matters at millions of lines.
    String.raw`(?:GET()|POST()|([A-Z_]+)) (${TOK}+) HTTP\/(?:${HTTP_VERSION_NAMES.map(esc).join('|')})" ([1-5])(\d)(\d) ` +
    // Reason words (at most REASON_WORDS: the engine keeps a backtracking entry per repetition of a
    // group, so millions of one-letter words overflowed its stack; longer reasons go to the scanner),
    // then a User-Agent without escapes.
    String.raw`(?:[!#-~]+ ){1,${REASON_WORDS}}"[ !#-\[\]-~]*" \[` +
    // 8: set (empty) when the stats are the v1.20 form
    `${STATS}\\]` +
    // 9: the requester
    `(?:${field(FIELD.requester)}(${esc(REQUESTER_USER)}${NAME}+(?:\\(${NAME}+\\))?|${esc(REQUESTER_CLIENT)}${TOK}+|${esc(REQUESTER_HOMESERVER)}))?` +
    `(?:${field(FIELD.clientAddress)}(?:${RE_IPV4}|${IP6}))?` +
    `(?:${field(FIELD.graphqlOperationType)}(?:${GRAPHQL_OPERATION_TYPES.join('|')}))?` +
    // 10: operation name
    `(?:${field(FIELD.graphqlOperationName)}(${TOK}+))?` +
    `(?:${field(FIELD.traceId)}${RE_TRACE_ID})?$`,
  'ym',
)

// Capture groups of a canonical match: private, read through the accessors below.
const GET = 1
const POST = 2
const METHOD = 3
const PATH = 4
const STATUS = 5
const V120 = 8
const REQUESTER = 9
const OPERATION = 10
// 'YYYY-MM-DDTHH:MM:SS.ffffffZ' then a space, and the level padded to 5: its second letter, I(NFO),
// W(ARN) or R (of ERROR), is at 29.
const LEVEL_LETTER = CANONICAL_TIMESTAMP_LENGTH + 2

/**
 * The fast path for bulk reading: matches the canonical request line at a position of a block of
 * lines. The caller reads the parts from the match through fastMethod, fastPath, fastStatus, … (group numbers stay here), without a view object in
 * between (each stored string costs a write barrier, at millions of lines).
 */
export class CanonicalMatcher {
  /** Where the line of the last successful match ends (its '\n' or the end of the text). */
  end = 0

  /** The match of the line starting at `pos`, or null when the line needs the scanner. */
  match(text: string, pos: number): RegExpExecArray | null {
    FAST_RE.lastIndex = pos
    const m = FAST_RE.exec(text)
    if (m === null) return null
    // '$' in multiline mode also matches before CR, U+2028 and U+2029: only a real line end counts.
    const end = FAST_RE.lastIndex
    if (end !== text.length && text.charCodeAt(end) !== 10) return null
    // The level the status calls for.
    const lvl = text.charCodeAt(pos + LEVEL_LETTER)
    const d = m[STATUS]!.charCodeAt(0)
    if (d >= 52 /* 4 */ ? (d === 52 ? lvl !== 87 : lvl !== 82) : lvl !== 73) return null
    this.end = end
    return m
  }
}

/** The status of a canonical match. */
export function fastStatus(m: RegExpExecArray): number {
  return (m[STATUS]!.charCodeAt(0) - 48) * 100 + (m[STATUS + 1]!.charCodeAt(0) - 48) * 10 + (m[STATUS + 2]!.charCodeAt(0) - 48)
}

/** The method of a canonical match. */
export function fastMethod(m: RegExpExecArray): string {
  return m[GET] !== undefined ? 'GET' : m[POST] !== undefined ? 'POST' : m[METHOD]!
}

export function fastPath(m: RegExpExecArray): string {
  return m[PATH]!
}

/** Are the stats of a canonical match the v1.20 form? */
export function fastIsV120(m: RegExpExecArray): boolean {
  return m[V120] !== undefined
}

/** The requester as printed, if the line has one. */
export function fastRequester(m: RegExpExecArray): string | undefined {
  return m[REQUESTER]
}

export function fastOperationName(m: RegExpExecArray): string | undefined {
  return m[OPERATION]
}

/** What scanLine would fill in for a canonical match at `pos` of `text` (for tests and diagnostics). */
export function viewOfMatch(m: RegExpExecArray, text = m.input, pos = m.index): LineView {
  return {
    method: fastMethod(m),
    path: fastPath(m),
    status: fastStatus(m),
    format: fastIsV120(m) ? 'v1.20' : 'pre-v1.20',
    requester: fastRequester(m),
    graphqlOperationName: fastOperationName(m),
    timestamp: text.slice(pos, pos + CANONICAL_TIMESTAMP_LENGTH),
    error: undefined,
  }
}
