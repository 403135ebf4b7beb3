// The homeserver side of the mock world: users and their tokens, rooms, events and event reports.
//
// Event reports are kept in (received_ts, id) order: one array of every listable report plus three
// secondary indexes (by room, by reporter, by sender of the reported event), each holding the same
// report objects in the same order. A listing therefore never scans reports to find its candidates:
//   - no filter: the main array; `total` is its length, the page is an index range;
//   - event_sender_user_id (exact match): the sender's array;
//   - room_id / user_id (the real server's SQL LIKE '%v%': `%` and `_` in the value are wildcards, as
//     on PostgreSQL: case-sensitive, `\` escapes the next character): the filter value is
//     resolved against the *distinct* room ids / reporter ids (a few thousand at most, memoised until
//     a new key appears), and the union of the matching keys' arrays is the candidate set, so `total`
//     is a sum of array lengths. One matching key (the usual case: a full room id) is a plain array again;
//   - several filters: the smallest candidate set is walked and tested against the others, so the
//     work is bounded by the most selective filter, not by the number of reports.
// Order among reports with the same received_ts: by id (the real server leaves it unspecified).
// Reports whose room the server has no stats for (the real listing inner-joins room_stats_state) are
// kept apart: not listed, not counted, not readable, but deletable, as on the real server.
import { createHash } from 'node:crypto'
import type { EventReportListItem } from '../../lib/types.gen.ts'

export interface HsUser {
  userId: string
  localpart: string
  admin: boolean
  displayName: string | null
  createdTs: number
}

export interface HsSession {
  userId: string
  deviceId: string
}

export type JoinRule = 'public' | 'invite'

export interface HsRoom {
  roomId: string
  roomVersion: string
  creator: string
  name: string | null
  canonicalAlias: string | null
  joinRule: JoinRule
  /** current membership per user: the member event id of their join */
  members: Map<string, string>
  createEventId: string
  powerLevelsEventId: string
  joinRulesEventId: string
  /** forward extremity and depth of the room's (linear) event graph */
  lastEventId: string | null
  depth: number
  /** whether the server has a room_stats_state row for it (reports of rooms without one are not listed) */
  stats: boolean
}

export interface HsEvent {
  eventId: string
  roomId: string
  sender: string
  type: string
  stateKey?: string
  content: Record<string, unknown>
  originServerTs: number
  depth: number
  prevEvents: string[]
  authEvents: string[]
}

export interface EventReport {
  id: number
  receivedTs: number
  roomId: string
  eventId: string
  /** the reporter */
  userId: string
  /** the `reason` column: the body's reason, null when left out */
  reason: string | null
  /** the whole JSON body the reporter sent */
  content: Record<string, unknown>
  /** sender of the reported event when the report was filed (events are immutable); null if unknown */
  sender: string | null
}

/** A list item: exactly the ten keys of the real listing (the type generated from its schema). */
export type EventReportItem = EventReportListItem

export type SubstringMode = 'substring' | 'exact'

/**
 * `text LIKE '%' || value || '%'` as PostgreSQL evaluates it: `%` any run of characters, `_` any one,
 * `\` takes the next character literally; case-sensitive. The real server does not escape the value.
 */
export function likeContains(value: string): (text: string) => boolean {
  if (!/[%_\\]/.test(value)) return (text) => text.includes(value)
  let re = ''
  let end = '' // a value ending in one `\` escapes the closing `%`: the text must end with a literal `%`
  const chars = [...value]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (c === '\\') {
      if (i + 1 < chars.length) re += escapeRe(chars[++i]!)
      else end = '%$'
    } else if (c === '%') re += '[\\s\\S]*'
    else if (c === '_') re += '[\\s\\S]'
    else re += escapeRe(c)
  }
  const compiled = new RegExp(re + end, 'u')
  return (text) => compiled.test(text)
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')

export interface ReportQuery {
  from: number
  limit: number
  /** b: newest first; f: oldest first */
  dir: 'b' | 'f'
  /** reporter filter; substring match unless userMode is 'exact' */
  userId?: string
  userMode?: SubstringMode
  /** room filter; substring match unless roomMode is 'exact' */
  roomId?: string
  roomMode?: SubstringMode
  /** sender of the reported event, exact match */
  eventSenderUserId?: string
}

export interface ReportPage {
  reports: EventReport[]
  total: number
  /** report records the query touched (not counting the page itself); 0 when total came from array lengths */
  scanned: number
}

const byOrder = (a: EventReport, b: EventReport): number => a.receivedTs - b.receivedTs || a.id - b.id

/** Index of the first element not ordered before `r` (lower bound). */
function lowerBound(list: EventReport[], r: EventReport): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (byOrder(list[mid]!, r) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

function insertOrdered(list: EventReport[], r: EventReport): void {
  // New reports are stamped "now", so they nearly always go at the end.
  const last = list[list.length - 1]
  if (last === undefined || byOrder(last, r) < 0) list.push(r)
  else list.splice(lowerBound(list, r), 0, r)
}

function removeOrdered(list: EventReport[], r: EventReport): void {
  const i = lowerBound(list, r)
  if (list[i] === r) list.splice(i, 1)
}

/** A candidate set: the union of disjoint ordered arrays, with a membership test for the same set. */
interface Candidates {
  arrays: EventReport[][]
  size: number
  test: (r: EventReport) => boolean
}

/** Above this many arrays a k-way merge costs more than filtering the main array. */
const MAX_MERGE = 16

class KeyIndex {
  readonly lists = new Map<string, EventReport[]>()
  private memo = new Map<string, string[]>()
  private memoKeys = 0

  add(key: string, r: EventReport): void {
    let list = this.lists.get(key)
    if (!list) this.lists.set(key, (list = []))
    insertOrdered(list, r)
  }

  remove(key: string, r: EventReport): void {
    const list = this.lists.get(key)
    if (list) removeOrdered(list, r)
  }

  /** Keys matching LIKE '%value%' (substring mode) or equal to it (exact). Memoised until a key is added. */
  match(value: string, mode: SubstringMode): string[] {
    if (mode === 'exact') return this.lists.has(value) ? [value] : []
    if (this.memoKeys !== this.lists.size || this.memo.size > 4096) {
      this.memo.clear()
      this.memoKeys = this.lists.size
    }
    let keys = this.memo.get(value)
    if (!keys) {
      keys = []
      const matches = likeContains(value)
      for (const k of this.lists.keys()) if (matches(k)) keys.push(k)
      this.memo.set(value, keys)
    }
    return keys
  }

  candidates(value: string, mode: SubstringMode, keyOf: (r: EventReport) => string | null): Candidates {
    const keys = this.match(value, mode)
    const arrays: EventReport[][] = []
    let size = 0
    for (const k of keys) {
      const list = this.lists.get(k)!
      if (list.length) {
        arrays.push(list)
        size += list.length
      }
    }
    const set = new Set(keys)
    return {
      arrays,
      size,
      test:
        keys.length === 1
          ? (r) => keyOf(r) === keys[0]
          : (r) => {
              const k = keyOf(r)
              return k !== null && set.has(k)
            },
    }
  }
}

/** murmur3's finaliser: a bijection on 32-bit integers with good avalanche. */
function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

function b64(buf: Buffer): string {
  return buf.toString('base64').replace(/=+$/, '')
}

function b64url(buf: Buffer): string {
  return buf.toString('base64url')
}

export class HomeserverStore {
  readonly users = new Map<string, HsUser>()
  readonly rooms = new Map<string, HsRoom>()
  readonly events = new Map<string, HsEvent>()
  readonly aliases = new Map<string, string>()
  /** transaction ids of the send API: (user, device, room, type, txn) → event id */
  readonly txns = new Map<string, string>()
  private readonly tokens = new Map<string, HsSession>()

  /** every listable report, in (received_ts, id) order */
  private readonly all: EventReport[] = []
  private readonly byId = new Map<number, EventReport>()
  private readonly byRoom = new KeyIndex()
  private readonly byReporter = new KeyIndex()
  private readonly bySender = new KeyIndex()
  /** reports whose room the server has no stats for */
  private readonly unlisted = new Map<number, EventReport>()
  /** the id generator: starts at MAX(id) or 1 and increments before returning, so a fresh store's first id is 2 */
  private lastReportId = 1
  private eventCounter = 0

  constructor(
    readonly serverName: string,
    /** `ed25519:a_XXXX`, the server's signing key id */
    readonly signingKeyId: string,
    /** varies the event ids between seeds */
    private readonly idSeed = 0,
  ) {}

  // ---- users and tokens -------------------------------------------------------------------------

  addUser(localpart: string, opts: { admin?: boolean; displayName?: string | null; createdTs: number }): HsUser {
    const userId = `@${localpart}:${this.serverName}`
    const existing = this.users.get(userId)
    if (existing) return existing
    const user: HsUser = { userId, localpart, admin: opts.admin ?? false, displayName: opts.displayName ?? null, createdTs: opts.createdTs }
    this.users.set(userId, user)
    return user
  }

  addToken(token: string, userId: string, deviceId: string): void {
    this.tokens.set(token, { userId, deviceId })
  }

  session(token: string): HsSession | undefined {
    return this.tokens.get(token)
  }

  // ---- rooms and events -------------------------------------------------------------------------

  /**
   * A new event id in the shape of room versions 4+ (`$` + 43 url-safe base64 characters of a 32-byte
   * hash). Not a real reference hash: a counter run through a 32-bit bijective mixer, which keeps ids
   * unique and deterministic and seeds 100,000 events in milliseconds instead of a second of sha256.
   */
  private newEventId(): string {
    const buf = Buffer.allocUnsafe(32)
    let x = (Math.imul(++this.eventCounter, 0x9e3779b1) ^ this.idSeed) >>> 0
    for (let i = 0; i < 8; i++) {
      x = mix32(x + i)
      buf.writeUInt32LE(x, i * 4)
    }
    return '$' + b64url(buf)
  }

  /** Appends an event to the room's graph; auth events are chosen as the real server would for its type. */
  appendEvent(room: HsRoom, sender: string, type: string, content: Record<string, unknown>, ts: number, stateKey?: string): HsEvent {
    const auth: string[] = []
    if (type !== 'm.room.create') {
      auth.push(room.createEventId)
      if (room.powerLevelsEventId) auth.push(room.powerLevelsEventId)
      if (type === 'm.room.member') {
        if (room.joinRulesEventId) auth.push(room.joinRulesEventId)
        const prior = stateKey !== undefined ? room.members.get(stateKey) : undefined
        if (prior) auth.push(prior)
      } else {
        const member = room.members.get(sender)
        if (member) auth.push(member)
      }
    }
    const ev: HsEvent = {
      eventId: this.newEventId(),
      roomId: room.roomId,
      sender,
      type,
      content,
      originServerTs: ts,
      depth: room.depth + 1,
      prevEvents: room.lastEventId ? [room.lastEventId] : [],
      authEvents: auth,
    }
    if (stateKey !== undefined) ev.stateKey = stateKey
    room.depth = ev.depth
    room.lastEventId = ev.eventId
    this.events.set(ev.eventId, ev)
    if (type === 'm.room.member' && stateKey !== undefined && content.membership === 'join') room.members.set(stateKey, ev.eventId)
    return ev
  }

  /** Creates a room with the state events the real server writes for a new room (room version 10). */
  createRoom(
    roomId: string,
    creator: string,
    opts: { name?: string | null; alias?: string | null; joinRule: JoinRule; ts: number },
  ): HsRoom {
    const room: HsRoom = {
      roomId,
      roomVersion: '10',
      creator,
      name: null,
      canonicalAlias: null,
      joinRule: opts.joinRule,
      members: new Map(),
      createEventId: '',
      powerLevelsEventId: '',
      joinRulesEventId: '',
      lastEventId: null,
      depth: 0,
      stats: true,
    }
    this.rooms.set(roomId, room)
    let ts = opts.ts
    room.createEventId = this.appendEvent(room, creator, 'm.room.create', { creator, room_version: room.roomVersion }, ts, '').eventId
    this.appendEvent(room, creator, 'm.room.member', this.joinContent(creator), ++ts, creator)
    room.powerLevelsEventId = this.appendEvent(
      room,
      creator,
      'm.room.power_levels',
      {
        users: { [creator]: 100 },
        users_default: 0,
        events: { 'm.room.name': 50, 'm.room.power_levels': 100, 'm.room.history_visibility': 100, 'm.room.canonical_alias': 50, 'm.room.avatar': 50, 'm.room.tombstone': 100, 'm.room.server_acl': 100, 'm.room.encryption': 100 },
        events_default: 0,
        state_default: 50,
        ban: 50,
        kick: 50,
        redact: 50,
        invite: 0,
        historical: 100,
      },
      ++ts,
      '',
    ).eventId
    if (opts.alias) {
      this.aliases.set(opts.alias, roomId)
      room.canonicalAlias = opts.alias
      this.appendEvent(room, creator, 'm.room.canonical_alias', { alias: opts.alias }, ++ts, '')
    }
    room.joinRulesEventId = this.appendEvent(room, creator, 'm.room.join_rules', { join_rule: opts.joinRule }, ++ts, '').eventId
    this.appendEvent(room, creator, 'm.room.history_visibility', { history_visibility: 'shared' }, ++ts, '')
    if (opts.name) {
      room.name = opts.name
      this.appendEvent(room, creator, 'm.room.name', { name: opts.name }, ++ts, '')
    }
    return room
  }

  join(room: HsRoom, userId: string, ts: number): string {
    const current = room.members.get(userId)
    if (current) return current
    return this.appendEvent(room, userId, 'm.room.member', this.joinContent(userId), ts, userId).eventId
  }

  private joinContent(userId: string): Record<string, unknown> {
    const displayName = this.users.get(userId)?.displayName
    return displayName ? { membership: 'join', displayname: displayName } : { membership: 'join' }
  }

  /** The stored event JSON, as the single-report response shows it. */
  eventJson(ev: HsEvent): Record<string, unknown> {
    const hash = createHash('sha256').update(ev.eventId).update(JSON.stringify(ev.content)).digest()
    const sig = createHash('sha512').update(this.serverName).update(ev.eventId).digest()
    const out: Record<string, unknown> = {
      auth_events: ev.authEvents,
      prev_events: ev.prevEvents,
      type: ev.type,
      room_id: ev.roomId,
      sender: ev.sender,
      content: ev.content,
      depth: ev.depth,
      prev_state: [],
      origin: this.serverName,
      origin_server_ts: ev.originServerTs,
      hashes: { sha256: b64(hash) },
      signatures: { [this.serverName]: { [this.signingKeyId]: b64(sig) } },
      unsigned: { age_ts: ev.originServerTs },
    }
    if (ev.stateKey !== undefined) out.state_key = ev.stateKey
    return out
  }

  // ---- event reports ----------------------------------------------------------------------------

  /** Files a report (the client report endpoint, the seed, or a test inserting rows directly). */
  addReport(input: { roomId: string; eventId: string; userId: string; content: Record<string, unknown>; receivedTs: number; id?: number }): EventReport {
    const id = input.id ?? this.lastReportId + 1
    if (id > this.lastReportId) this.lastReportId = id
    const reason = input.content.reason
    const r: EventReport = {
      id,
      receivedTs: input.receivedTs,
      roomId: input.roomId,
      eventId: input.eventId,
      userId: input.userId,
      reason: typeof reason === 'string' ? reason : null,
      content: input.content,
      sender: this.events.get(input.eventId)?.sender ?? null,
    }
    if (!this.rooms.get(r.roomId)?.stats) {
      this.unlisted.set(id, r)
      return r
    }
    this.byId.set(id, r)
    insertOrdered(this.all, r)
    this.byRoom.add(r.roomId, r)
    this.byReporter.add(r.userId, r)
    if (r.sender !== null) this.bySender.add(r.sender, r)
    return r
  }

  /**
   * Loses the room's stats row, as after a room deletion or the peer suite's direct DELETE: its reports
   * drop out of the listing, its count and the single GET, but can still be deleted.
   */
  dropRoomStats(roomId: string): void {
    const room = this.rooms.get(roomId)
    if (!room || !room.stats) return
    room.stats = false
    for (const r of [...(this.byRoom.lists.get(roomId) ?? [])]) {
      this.unindex(r)
      this.unlisted.set(r.id, r)
    }
  }

  private unindex(r: EventReport): void {
    this.byId.delete(r.id)
    removeOrdered(this.all, r)
    this.byRoom.remove(r.roomId, r)
    this.byReporter.remove(r.userId, r)
    if (r.sender !== null) this.bySender.remove(r.sender, r)
  }

  /** The report as the single-report endpoint finds it: undefined when the row, its room or its event JSON is missing. */
  getReport(id: number): { report: EventReport; event: HsEvent } | undefined {
    const report = this.byId.get(id)
    if (!report) return undefined
    const event = this.events.get(report.eventId)
    if (!event) return undefined
    return { report, event }
  }

  /** Deletes by id, listable or not; false when no such row. */
  deleteReport(id: number): boolean {
    if (this.unlisted.delete(id)) return true
    const r = this.byId.get(id)
    if (!r) return false
    this.unindex(r)
    return true
  }

  /** Number of listable reports. */
  reportCount(): number {
    return this.all.length
  }

  /** The ten keys of a list item (room name and alias read at query time, as the real join does). */
  item(r: EventReport): EventReportItem {
    const room = this.rooms.get(r.roomId)
    const score = r.content.score
    return {
      id: r.id,
      received_ts: r.receivedTs,
      room_id: r.roomId,
      event_id: r.eventId,
      user_id: r.userId,
      score: typeof score === 'number' ? score : null,
      reason: r.reason,
      sender: r.sender,
      canonical_alias: room?.canonicalAlias ?? null,
      name: room?.name ?? null,
    }
  }

  listReports(q: ReportQuery): ReportPage {
    const sets: Candidates[] = []
    if (q.userId) sets.push(this.byReporter.candidates(q.userId, q.userMode ?? 'substring', (r) => r.userId))
    if (q.roomId) sets.push(this.byRoom.candidates(q.roomId, q.roomMode ?? 'substring', (r) => r.roomId))
    if (q.eventSenderUserId) sets.push(this.bySender.candidates(q.eventSenderUserId, 'exact', (r) => r.sender))

    if (sets.length === 0) return { reports: page([this.all], q), total: this.all.length, scanned: 0 }
    let smallest = sets[0]!
    for (const s of sets) if (s.size < smallest.size) smallest = s
    if (sets.length === 1) {
      if (smallest.arrays.length <= MAX_MERGE) return { reports: page(smallest.arrays, q), total: smallest.size, scanned: 0 }
      // Too many keys to merge: filter the main array for the page, but `total` still needs no scan.
      const { reports, scanned } = filtered([this.all], q, smallest.test, true)
      return { reports, total: smallest.size, scanned }
    }
    const others = sets.filter((s) => s !== smallest)
    const test = (r: EventReport) => others.every((s) => s.test(r))
    const source = smallest.arrays.length <= MAX_MERGE ? smallest.arrays : [this.all]
    const pred = source === smallest.arrays ? test : (r: EventReport) => smallest.test(r) && test(r)
    const { reports, total, scanned } = filtered(source, q, pred, false)
    return { reports, total, scanned }
  }
}

/** The page [from, from+limit) of the ordered union of `arrays`, in the query's direction. */
function page(arrays: EventReport[][], q: ReportQuery): EventReport[] {
  const out: EventReport[] = []
  if (q.limit <= 0) return out
  if (arrays.length === 1) {
    const list = arrays[0]!
    const n = list.length
    if (q.from >= n) return out
    const count = Math.min(q.limit, n - q.from)
    if (q.dir === 'f') for (let i = q.from; i < q.from + count; i++) out.push(list[i]!)
    else for (let i = n - 1 - q.from; i > n - 1 - q.from - count; i--) out.push(list[i]!)
    return out
  }
  let index = 0
  walk(arrays, q.dir, (r) => {
    if (index++ >= q.from) out.push(r)
    return out.length < q.limit
  })
  return out
}

/** Walks `arrays` in order testing `pred`; collects the page and counts matches (all of them unless `stopAtPage`). */
function filtered(
  arrays: EventReport[][],
  q: ReportQuery,
  pred: (r: EventReport) => boolean,
  stopAtPage: boolean,
): { reports: EventReport[]; total: number; scanned: number } {
  const out: EventReport[] = []
  let total = 0
  let scanned = 0
  const end = q.from + Math.max(q.limit, 0)
  walk(arrays, q.dir, (r) => {
    scanned++
    if (!pred(r)) return true
    if (total >= q.from && total < end) out.push(r)
    total++
    return !(stopAtPage && total >= end)
  })
  return { reports: out, total, scanned }
}

/** Visits the ordered union of disjoint ordered arrays (k-way merge) until `visit` returns false. */
function walk(arrays: EventReport[][], dir: 'b' | 'f', visit: (r: EventReport) => boolean): void {
  if (arrays.length === 1) {
    const list = arrays[0]!
    if (dir === 'f') {
      for (let i = 0; i < list.length; i++) if (!visit(list[i]!)) return
    } else {
      for (let i = list.length - 1; i >= 0; i--) if (!visit(list[i]!)) return
    }
    return
  }
  const pos = arrays.map((a) => (dir === 'f' ? 0 : a.length - 1))
  for (;;) {
    let best = -1
    let bestR: EventReport | undefined
    for (let k = 0; k < arrays.length; k++) {
      const r = arrays[k]![pos[k]!]
      if (r === undefined) continue
      if (bestR === undefined || (dir === 'f' ? byOrder(r, bestR) < 0 : byOrder(r, bestR) > 0)) {
        best = k
        bestR = r
      }
    }
    if (bestR === undefined) return
    pos[best] = pos[best]! + (dir === 'f' ? 1 : -1)
    if (!visit(bestR)) return
  }
}
