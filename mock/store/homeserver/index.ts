// The homeserver side of the mock world: users and their tokens, rooms, events, event reports
// (their ordered indexes live in ./reports.ts) and user reports (./user-reports.ts). Every write after seeding goes through
// `write()` as one entry (./writes.ts): recorded first (the state journal), then applied.
import { createHash } from 'node:crypto'
import type { Recorder } from '../recorder.ts'
import { ReportIndex } from './reports.ts'
import { UserReportIndex } from './user-reports.ts'
import type { HsWrite, RoomOpts } from './writes.ts'
import type {
  EventReport,
  EventReportItem,
  HsEvent,
  HsRoom,
  HsSession,
  HsUser,
  ReportPage,
  ReportQuery,
  UserReport,
  UserReportPage,
  UserReportQuery,
} from './records.ts'

/** How a release stores a locally created event (see eventJson). */
export interface EventJsonShape {
  /** the room version new rooms get (the release's default_room_version) */
  roomVersion: string
  /** "prev_state": [] (before v1.68.0) */
  prevState: boolean
  /** "origin": the server name (before v1.134.0) */
  origin: boolean
  /** the Rust event class's key order (v1.155.0 on) */
  rustKeyOrder: boolean
}

/** The shape of 1.67.0, as its recorded probes show it. */
export const SHAPE_1_67: EventJsonShape = Object.freeze({ roomVersion: '9', prevState: true, origin: true, rustKeyOrder: false })

export * from './records.ts'

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
  /** transaction ids of the send API: (user, device, room, type, txn) → event id; `set` is a recorded write */
  readonly txns: Map<string, string> = new TxnMap(this)
  private readonly tokens = new Map<string, HsSession>()
  /** each room's events in order (index = depth - 1): the context of an event without a walk of the graph */
  private readonly timelines = new Map<string, string[]>()
  /** each room's state events in order: the state at a point is the last of each (type, state_key) up to it */
  private readonly stateLogs = new Map<string, HsEvent[]>()
  /** global account data: (user, type) → content */
  private readonly accountData = new Map<string, Record<string, unknown>>()
  private readonly reports = new ReportIndex()
  /** where writes are recorded before they are applied (the state journal); none while seeding */
  recorder: Recorder | null = null
  /** the id generator: starts at MAX(id) or 1 and increments before returning, so a fresh store's first id is 2 */
  private lastReportId = 1
  private readonly userReports = new UserReportIndex()
  /** the user reports' own id generator, the same rule as lastReportId's */
  private lastUserReportId = 1
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
    this.write({ t: 'hs.user', localpart, admin: opts.admin ?? false, displayName: opts.displayName ?? null, createdTs: opts.createdTs })
    return this.users.get(userId)!
  }

  /** A profile's display name set or removed (null), as the auth service's setDisplayName asks. */
  setDisplayName(user: HsUser, displayName: string | null): void {
    this.write({ t: 'hs.displayname', userId: user.userId, displayName })
  }

  addToken(token: string, userId: string, deviceId: string): void {
    this.write({ t: 'hs.token', token, userId, deviceId })
  }

  session(token: string): HsSession | undefined {
    return this.tokens.get(token)
  }

  /** Every token and whose it is (tests: seeded tokens are keyed with the start's secret). */
  allTokens(): [token: string, session: HsSession][] {
    return [...this.tokens]
  }

  // ---- rooms and events -------------------------------------------------------------------------

  /**
   * A new event id in the shape of room versions 4+ (`$` + 43 url-safe base64 characters of a 32-byte
   * hash). Not a real reference hash: a counter run through a 32-bit bijective mixer, which keeps ids
   * unique and deterministic and seeds 100,000 events in milliseconds instead of a second of sha256.
   */
  private newEventId(): string {
    return this.eventIdAt(++this.eventCounter)
  }

  /** the id the next event will get */
  private peekEventId(): string {
    return this.eventIdAt(this.eventCounter + 1)
  }

  private eventIdAt(counter: number): string {
    const buf = Buffer.allocUnsafe(32)
    let x = (Math.imul(counter, 0x9e3779b1) ^ this.idSeed) >>> 0
    for (let i = 0; i < 8; i++) {
      x = mix32(x + i)
      buf.writeUInt32LE(x, i * 4)
    }
    return '$' + b64url(buf)
  }

  /** Appends an event to the room's graph; auth events are chosen as the real server would for its type. */
  appendEvent(room: HsRoom, sender: string, type: string, content: Record<string, unknown>, ts: number, stateKey?: string): HsEvent {
    // A room's first events take one millisecond each (createRoom), so a message sent within those
    // milliseconds would be older than the event before it; a real server's clock never runs back
    // along a room's timeline, and the event-context checks rely on it.
    const last = room.lastEventId ? this.events.get(room.lastEventId)?.originServerTs : undefined
    if (last !== undefined && ts < last) ts = last
    const counter = this.eventCounter
    const w: HsWrite = { t: 'hs.event', roomId: room.roomId, sender, type, content, ts, counter, eventId: this.peekEventId() }
    if (stateKey !== undefined) w.stateKey = stateKey
    this.write(w)
    return this.events.get(w.eventId)!
  }

  private appendEventRaw(
    room: HsRoom,
    sender: string,
    type: string,
    content: Record<string, unknown>,
    ts: number,
    stateKey?: string,
  ): HsEvent {
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
    let timeline = this.timelines.get(room.roomId)
    if (!timeline) this.timelines.set(room.roomId, (timeline = []))
    timeline.push(ev.eventId)
    if (stateKey !== undefined) {
      let log = this.stateLogs.get(room.roomId)
      if (!log) this.stateLogs.set(room.roomId, (log = []))
      log.push(ev)
    }
    if (type === 'm.room.member' && stateKey !== undefined && content.membership === 'join') room.members.set(stateKey, ev.eventId)
    return ev
  }

  /** Creates a room with the state events the real server writes for a new room (room version 10). */
  createRoom(roomId: string, creator: string, opts: RoomOpts): HsRoom {
    // Applied first, then recorded: the entry carries the id of the room's last event, which a replay
    // (generating the same events from the same counter) checks. Nothing in it can fail to serialise.
    const counter = this.eventCounter
    const room = this.createRoomRaw(roomId, creator, opts)
    this.recorder?.record({ t: 'hs.room', roomId, creator, opts, counter, lastEventId: room.lastEventId! })
    return room
  }

  private createRoomRaw(roomId: string, creator: string, opts: RoomOpts): HsRoom {
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
    room.createEventId = this.appendEventRaw(room, creator, 'm.room.create', { creator, room_version: room.roomVersion }, ts, '').eventId
    this.appendEventRaw(room, creator, 'm.room.member', this.joinContent(creator), ++ts, creator)
    room.powerLevelsEventId = this.appendEventRaw(
      room,
      creator,
      'm.room.power_levels',
      {
        users: { [creator]: 100 },
        users_default: 0,
        events: {
          'm.room.name': 50,
          'm.room.power_levels': 100,
          'm.room.history_visibility': 100,
          'm.room.canonical_alias': 50,
          'm.room.avatar': 50,
          'm.room.tombstone': 100,
          'm.room.server_acl': 100,
          'm.room.encryption': 100,
        },
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
      this.appendEventRaw(room, creator, 'm.room.canonical_alias', { alias: opts.alias }, ++ts, '')
    }
    room.joinRulesEventId = this.appendEventRaw(room, creator, 'm.room.join_rules', { join_rule: opts.joinRule }, ++ts, '').eventId
    this.appendEventRaw(room, creator, 'm.room.history_visibility', { history_visibility: 'shared' }, ++ts, '')
    if (opts.name) {
      room.name = opts.name
      this.appendEventRaw(room, creator, 'm.room.name', { name: opts.name }, ++ts, '')
    }
    return room
  }

  join(room: HsRoom, userId: string, ts: number): string {
    const current = room.members.get(userId)
    if (current) return current
    const eventId = this.peekEventId()
    this.write({ t: 'hs.join', roomId: room.roomId, userId, ts, counter: this.eventCounter, eventId })
    return eventId
  }

  private joinContent(userId: string): Record<string, unknown> {
    const displayName = this.users.get(userId)?.displayName
    return displayName ? { membership: 'join', displayname: displayName } : { membership: 'join' }
  }

  /**
   * The event's context as the admin API gives it (synapse/handlers/room.py, get_event_context): up to
   * `before` events before it, newest first, and `after` after it, oldest first, each list filtered by
   * `keep`; the room's state at the last event returned. Undefined when the room or the event in it is
   * unknown. Cost: the window and the room's state events, never the whole room.
   */
  eventContext(
    roomId: string,
    eventId: string,
    before: number,
    after: number,
    keep: (ev: HsEvent) => boolean,
  ): { before: HsEvent[]; event: HsEvent; after: HsEvent[]; state: HsEvent[]; startDepth: number; endDepth: number } | undefined {
    const event = this.events.get(eventId)
    const timeline = this.timelines.get(roomId)
    if (!event || !timeline || event.roomId !== roomId) return undefined
    const at = event.depth - 1
    const take = (from: number, step: number, n: number): HsEvent[] => {
      const out: HsEvent[] = []
      // A filter that matches nothing stops at the room's edge or after a bounded look, as a database page would.
      for (let i = from, looked = 0; out.length < n && i >= 0 && i < timeline.length && looked < 10 * n + 100; i += step, looked++) {
        const ev = this.events.get(timeline[i]!)!
        if (keep(ev)) out.push(ev)
      }
      return out
    }
    const b = before > 0 ? take(at - 1, -1, before) : []
    const a = after > 0 ? take(at + 1, 1, after) : []
    const last = a.at(-1) ?? event
    const current = new Map<string, HsEvent>()
    for (const ev of this.stateLogs.get(roomId) ?? []) {
      if (ev.depth > last.depth) break
      current.set(`${ev.type}\u0000${ev.stateKey}`, ev)
    }
    return { before: b, event, after: a, state: [...current.values()], startDepth: (b.at(-1) ?? event).depth, endDepth: last.depth }
  }

  /** The room's current state: the last event of each (type, state_key), in the order first set. */
  currentState(roomId: string): HsEvent[] {
    const current = new Map<string, HsEvent>()
    for (const ev of this.stateLogs.get(roomId) ?? []) current.set(`${ev.type}\u0000${ev.stateKey}`, ev)
    return [...current.values()]
  }

  /** A user's global account data of one type; undefined when never set. */
  getAccountData(userId: string, type: string): Record<string, unknown> | undefined {
    return this.accountData.get(`${userId}\u0000${type}`)
  }

  setAccountData(userId: string, type: string, content: Record<string, unknown>): void {
    this.write({ t: 'hs.account-data', userId, type, content })
  }

  /** The event's content as the claimed release stores it: rooms are created in its default room version, and version 11 drops creator (MSC2175). */
  contentAs(ev: HsEvent, shape: EventJsonShape): Record<string, unknown> {
    if (ev.type !== 'm.room.create') return ev.content
    return shape.roomVersion === '11' ? { room_version: shape.roomVersion } : { ...ev.content, room_version: shape.roomVersion }
  }

  /**
   * The stored event JSON, as the single-report response shows it, in the shape of the claimed release
   * (the caller reads it from lib/data/synapse-features.json; the default is the 1.67.0 shape).
   */
  eventJson(ev: HsEvent, shape: EventJsonShape = SHAPE_1_67): Record<string, unknown> {
    const hash = createHash('sha256').update(ev.eventId).update(JSON.stringify(ev.content)).digest()
    const sig = createHash('sha512').update(this.serverName).update(ev.eventId).digest()
    const signatures = { [this.serverName]: { [this.signingKeyId]: b64(sig) } }
    const unsigned = { age_ts: ev.originServerTs }
    const content = this.contentAs(ev, shape)
    if (shape.rustKeyOrder) {
      // The Rust event class: signatures, unsigned, the format's fields, then the common fields by name.
      const out: Record<string, unknown> = {
        signatures,
        unsigned,
        room_id: ev.roomId,
        auth_events: ev.authEvents,
        prev_events: ev.prevEvents,
      }
      const rest: Record<string, unknown> = {
        content,
        depth: ev.depth,
        hashes: { sha256: b64(hash) },
        origin_server_ts: ev.originServerTs,
        sender: ev.sender,
        type: ev.type,
      }
      if (shape.origin) rest.origin = this.serverName
      if (shape.prevState) rest.prev_state = []
      if (ev.stateKey !== undefined) rest.state_key = ev.stateKey
      for (const k of Object.keys(rest).sort()) out[k] = rest[k]
      return out
    }
    const out: Record<string, unknown> = {
      auth_events: ev.authEvents,
      prev_events: ev.prevEvents,
      type: ev.type,
      room_id: ev.roomId,
      sender: ev.sender,
      content,
      depth: ev.depth,
    }
    if (shape.prevState) out.prev_state = []
    if (shape.origin) out.origin = this.serverName
    Object.assign(out, { origin_server_ts: ev.originServerTs, hashes: { sha256: b64(hash) }, signatures, unsigned })
    if (ev.stateKey !== undefined) out.state_key = ev.stateKey
    return out
  }

  // ---- event reports ----------------------------------------------------------------------------

  /** Files a report (the client report endpoint, the seed, or a test inserting rows directly). */
  addReport(input: {
    roomId: string
    eventId: string
    userId: string
    content: Record<string, unknown>
    receivedTs: number
    id?: number
  }): EventReport {
    const { roomId, eventId, userId, content, receivedTs } = input
    const id = input.id ?? this.lastReportId + 1
    this.write({ t: 'hs.report', id, roomId, eventId, userId, content, receivedTs })
    return this.lastReport!
  }

  /**
   * Loses the room's stats row, as after a room deletion or the peer suite's direct DELETE: its reports
   * drop out of the listing, its count and the single GET, but can still be deleted.
   */
  dropRoomStats(roomId: string): void {
    const room = this.rooms.get(roomId)
    if (!room || !room.stats) return
    this.write({ t: 'hs.stats.drop', roomId })
  }

  /** The report as the single-report endpoint finds it: undefined when the row, its room or its event JSON is missing. */
  getReport(id: number): { report: EventReport; event: HsEvent } | undefined {
    const report = this.reports.get(id)
    if (!report) return undefined
    const event = this.events.get(report.eventId)
    if (!event) return undefined
    return { report, event }
  }

  /** Deletes by id, listable or not; false when no such row. */
  deleteReport(id: number): boolean {
    if (!this.reports.has(id)) return false
    this.write({ t: 'hs.report.delete', id })
    return true
  }

  /** Number of listable reports. */
  reportCount(): number {
    return this.reports.size
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
    return this.reports.list(q)
  }

  // ---- user reports -----------------------------------------------------------------------------

  /** Files a user report (the client endpoint, or the seed). The caller checks that the target exists. */
  addUserReport(input: { targetUserId: string; userId: string; reason: string; receivedTs: number }): UserReport {
    const id = this.lastUserReportId + 1
    this.write({ t: 'hs.user-report', id, ...input })
    return this.userReports.get(id)!
  }

  getUserReport(id: number): UserReport | undefined {
    return this.userReports.get(id)
  }

  /** false when no such report */
  deleteUserReport(id: number): boolean {
    if (!this.userReports.get(id)) return false
    this.write({ t: 'hs.user-report.delete', id })
    return true
  }

  userReportCount(): number {
    return this.userReports.size
  }

  listUserReports(q: UserReportQuery): UserReportPage {
    return this.userReports.list(q)
  }

  // ---- writes -----------------------------------------------------------------------------------

  /** Records a write, then applies it: the one way records change after seeding. */
  private write(w: HsWrite): void {
    this.recorder?.record(w)
    this.apply(w)
  }

  /** Applies one write (live or replayed); throws when it does not fit the store (a journal of another world). */
  apply(w: HsWrite): void {
    switch (w.t) {
      case 'hs.user': {
        const userId = `@${w.localpart}:${this.serverName}`
        this.users.set(userId, { userId, localpart: w.localpart, admin: w.admin, displayName: w.displayName, createdTs: w.createdTs })
        return
      }
      case 'hs.displayname': {
        const user = this.users.get(w.userId)
        if (!user) throw new Error(`user ${w.userId} does not exist`)
        user.displayName = w.displayName
        return
      }
      case 'hs.token':
        this.tokens.set(w.token, { userId: w.userId, deviceId: w.deviceId })
        return
      case 'hs.room':
        if (this.rooms.has(w.roomId)) return // live: applied before it was recorded
        this.eventCounter = w.counter
        return sameEvent(this.createRoomRaw(w.roomId, w.creator, w.opts).lastEventId!, w.lastEventId)
      case 'hs.event':
        this.eventCounter = w.counter
        return sameEvent(this.appendEventRaw(this.room(w.roomId), w.sender, w.type, w.content, w.ts, w.stateKey).eventId, w.eventId)
      case 'hs.join':
        this.eventCounter = w.counter
        return sameEvent(
          this.appendEventRaw(this.room(w.roomId), w.userId, 'm.room.member', this.joinContent(w.userId), w.ts, w.userId).eventId,
          w.eventId,
        )
      case 'hs.txn':
        Map.prototype.set.call(this.txns, w.key, w.eventId)
        return
      case 'hs.report':
        return this.applyReport(w)
      case 'hs.report.delete':
        this.reports.delete(w.id)
        return
      case 'hs.stats.drop':
        this.room(w.roomId).stats = false
        this.reports.unlistRoom(w.roomId)
        return
      case 'hs.user-report':
        if (w.id > this.lastUserReportId) this.lastUserReportId = w.id
        this.userReports.add({ id: w.id, receivedTs: w.receivedTs, targetUserId: w.targetUserId, userId: w.userId, reason: w.reason })
        return
      case 'hs.user-report.delete':
        this.userReports.delete(w.id)
        return
      case 'hs.account-data':
        this.accountData.set(`${w.userId}\u0000${w.type}`, w.content)
        return
    }
  }

  /** the report the last hs.report write filed (addReport's answer) */
  private lastReport: EventReport | undefined

  private applyReport(w: Extract<HsWrite, { t: 'hs.report' }>): void {
    if (w.id > this.lastReportId) this.lastReportId = w.id
    const reason = w.content.reason
    const r: EventReport = {
      id: w.id,
      receivedTs: w.receivedTs,
      roomId: w.roomId,
      eventId: w.eventId,
      userId: w.userId,
      reason: typeof reason === 'string' ? reason : null,
      content: w.content,
      sender: this.events.get(w.eventId)?.sender ?? null,
    }
    this.reports.add(r, this.rooms.get(r.roomId)?.stats === true)
    this.lastReport = r
  }

  private room(id: string): HsRoom {
    const r = this.rooms.get(id)
    if (!r) throw new Error(`room ${id} does not exist`)
    return r
  }
}

function sameEvent(made: string, recorded: string): void {
  if (made !== recorded) throw new Error(`the replay made event ${made} where the journal recorded ${recorded}`)
}

/** The transaction map of the send API: a `set` (a new transaction) is a recorded write. */
class TxnMap extends Map<string, string> {
  constructor(private readonly store: { recorder: Recorder | null }) {
    super()
  }

  override set(key: string, eventId: string): this {
    this.store.recorder?.record({ t: 'hs.txn', key, eventId })
    return super.set(key, eventId)
  }
}
