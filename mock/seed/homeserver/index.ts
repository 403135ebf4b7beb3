// Builds the homeserver side of the world from the seed: the admin and the non-admin token holders,
// more users (reporters and senders, with tokens that stay internal), rooms with and without names and
// canonical aliases, the reported events and `options.reports` reports, then user reports (about a
// third as many, at least 12 unless no reports are asked for), all before `options.epoch`.
// Same seed and sizes, same world: every random choice comes from one seeded faker.
import { createHmac } from 'node:crypto'
import { Faker, base, en } from '@faker-js/faker'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../time.ts'
import type { SeedSettings } from '../settings.ts'
import { HomeserverStore, type HsRoom, type HsUser } from '../../store/homeserver/index.ts'

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v))

function localpartOf(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9._=-]/g, '')
}

interface HsSeed {
  options: SeedSettings
  faker: Faker
  epoch: number
  rnd: () => number
  int: (min: number, max: number) => number
  pick: <T>(list: readonly T[]) => T
  deviceId: () => string
  store: HomeserverStore
}

export function seedHomeserver(options: SeedSettings): HomeserverStore {
  const faker = new Faker({ locale: [en, base] })
  faker.seed(options.seed)
  const int = (min: number, max: number) => faker.number.int({ min, max })
  const store = new HomeserverStore(options.serverName, `ed25519:a_${faker.string.alpha({ length: 4 })}`, options.seed)
  const s: HsSeed = {
    options,
    faker,
    epoch: options.epoch.getTime(),
    rnd: () => faker.number.float({ min: 0, max: 1 }),
    int,
    pick: (list) => list[int(0, list.length - 1)]!,
    deviceId: () => faker.string.alpha({ length: 10, casing: 'upper' }),
    store,
  }
  const { admin, user } = seedTokenHolders(s)
  const people = seedPeople(s, user)
  // Reports spread over a window that grows with their number, ending an hour before the epoch.
  const n = options.reports
  const span = clamp(n * 2 * MINUTE_MS, 7 * DAY_MS, 365 * DAY_MS)
  const end = s.epoch - HOUR_MS
  const start = end - span
  const rooms = seedRooms(s, people, admin, user, start)
  seedReports(s, rooms, start, span)
  // Drawn last, so that the worlds of earlier releases of the mock stay the same up to here.
  seedUserReports(s, people, start, span)
  return store
}

/** The two token holders the CLI prints; their tokens come from the options. */
function seedTokenHolders(s: HsSeed): { admin: HsUser; user: HsUser } {
  const { store, options, faker, epoch } = s
  const admin = store.addUser('admin', { admin: true, displayName: 'Admin', createdTs: epoch - 400 * DAY_MS })
  store.addToken(options.hsAdminToken, admin.userId, s.deviceId())
  const first = faker.person.firstName()
  const user = store.addUser(localpartOf(first) === 'admin' ? 'user' : localpartOf(first) || 'user', {
    displayName: first,
    createdTs: epoch - 300 * DAY_MS,
  })
  store.addToken(options.hsUserToken, user.userId, s.deviceId())
  return { admin, user }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** `part` unchanged without a secret (--fixed-tokens), else as many characters of HMAC(secret, part). */
function keyed(secret: string | undefined, part: string): string {
  if (secret === undefined) return part
  const mac = createHmac('sha256', secret).update(part).digest()
  let out = ''
  for (let i = 0; i < part.length; i++) out += ALPHANUMERIC[mac[i % mac.length]! % ALPHANUMERIC.length]
  return out
}

/** More users, each with a token of the real format (kept internal: nothing prints them). */
function seedPeople(s: HsSeed, user: HsUser): string[] {
  const { store, options, faker, epoch, int } = s
  const userCount = clamp(Math.ceil(options.reports / 20), 8, 2000)
  const people = [user.userId]
  for (let i = 0; i < userCount; i++) {
    const firstName = faker.person.firstName()
    const lastName = faker.person.lastName()
    let localpart = localpartOf(`${firstName}.${lastName}`) || `user${i}`
    if (store.users.has(`@${localpart}:${options.serverName}`)) localpart += String(i)
    const u = store.addUser(localpart, { displayName: `${firstName} ${lastName}`, createdTs: epoch - int(30, 290) * DAY_MS })
    // Drawn from the seed either way (the rest of the world must not move), then keyed with this start's secret.
    const token = `syt_${Buffer.from(localpart).toString('base64url')}_${keyed(options.tokenSecret, faker.string.alphanumeric(20))}_${keyed(options.tokenSecret, faker.string.alphanumeric(6))}`
    store.addToken(token, u.userId, s.deviceId())
    people.push(u.userId)
  }
  return people
}

interface SeededRooms {
  rooms: HsRoom[]
  members: Map<string, string[]>
  lastTs: Map<string, number>
}

function seedRooms(s: HsSeed, people: string[], admin: HsUser, user: HsUser, start: number): SeededRooms {
  const { store, options, faker, rnd, int, pick } = s
  const roomCount = clamp(Math.ceil(options.reports / 50), 6, 2000)
  const out: SeededRooms = { rooms: [], members: new Map(), lastTs: new Map() }
  const usedAliases = new Set<string>()
  for (let i = 0; i < roomCount; i++) {
    const creator = pick(people)
    const created = start - int(1, 60) * DAY_MS - int(0, DAY_MS)
    const named = rnd() < 0.7
    const name = named ? `${faker.word.adjective()} ${faker.word.noun()}`.replace(/^./, (c) => c.toUpperCase()) : null
    let alias: string | null = null
    if (rnd() < (named ? 0.55 : 0.15)) {
      let slug =
        (name ?? faker.word.noun())
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '') || 'room'
      if (usedAliases.has(slug)) slug += `-${i}`
      usedAliases.add(slug)
      alias = `#${slug}:${options.serverName}`
    }
    const roomId = `!${faker.string.alpha({ length: 18 })}:${options.serverName}`
    const room = store.createRoom(roomId, creator, { name, alias, joinRule: rnd() < 0.6 ? 'public' : 'invite', ts: created })
    let ts = created + 10
    const count = Math.min(people.length - 1, int(2, 10))
    for (let k = 0; k < count; k++) store.join(room, pick(people), (ts += int(1, 600) * 1000))
    // The token holders are in a few rooms, not in hundreds: they are people, not bots.
    if (rnd() < Math.min(0.3, 20 / roomCount)) store.join(room, admin.userId, (ts += int(1, 600) * 1000))
    if (rnd() < Math.min(0.4, 30 / roomCount)) store.join(room, user.userId, (ts += int(1, 600) * 1000))
    out.rooms.push(room)
    out.members.set(roomId, [...room.members.keys()])
    out.lastTs.set(roomId, ts)
  }
  return out
}

/** Report times in order, so ids grow with received_ts like real ones; a few share a millisecond. */
function reportTimes(s: HsSeed, start: number, span: number): number[] {
  const n = s.options.reports
  const times: number[] = []
  for (let i = 0; i < n; i++) times.push(start + Math.floor(s.rnd() * span))
  times.sort((a, b) => a - b)
  // A few reports share a millisecond with the previous one: the order rule has to break the tie.
  for (let i = 1; i < n; i++) if (s.rnd() < 0.03) times[i] = times[i - 1]!
  return times
}

interface Texts {
  phrases: string[]
  spam: string[]
  reasons: string[]
}

function drawTexts(faker: Faker): Texts {
  const phrases = Array.from({ length: 200 }, () => faker.hacker.phrase())
  const spam = Array.from(
    { length: 40 },
    () => `${faker.commerce.productName()} for ${faker.commerce.price({ symbol: '$' })} at ${faker.internet.url()}`,
  )
  const reasons = [
    'spam',
    'Spam',
    'scam link',
    'harassment',
    'This is offensive',
    'hate speech',
    'impersonation',
    'inappropriate content',
    'phishing',
    ...Array.from({ length: 15 }, () => `keeps posting ${faker.commerce.product().toLowerCase()} ads`),
    ...Array.from({ length: 15 }, () => `pretends to be ${faker.person.fullName()}`),
    ...Array.from({ length: 10 }, () => `links to ${faker.internet.domainName()}, looks like malware`),
  ]
  return { phrases, spam, reasons }
}

/** A message worth reporting: text (spam or not, sometimes HTML) or an image. */
function messageContent(s: HsSeed, texts: Texts): Record<string, unknown> {
  const { rnd, int, pick, faker, options } = s
  const r = rnd()
  const isSpam = r < 0.3
  if (r < 0.88) {
    const content: Record<string, unknown> = { msgtype: 'm.text', body: isSpam ? pick(texts.spam) : pick(texts.phrases) }
    if (rnd() < 0.1) {
      content.format = 'org.matrix.custom.html'
      content.formatted_body = `<p>${String(content.body)}</p>`
    }
    return content
  }
  const w = int(320, 4000)
  const h = int(240, 3000)
  return {
    msgtype: 'm.image',
    body: `IMG_${int(1000, 9999)}.jpg`,
    url: `mxc://${options.serverName}/${faker.string.alpha({ length: 24 })}`,
    info: { mimetype: 'image/jpeg', size: int(20_000, 4_000_000), w, h },
  }
}

/** Reported events and their reports, in time order; some events are reported twice. */
function seedReports(s: HsSeed, seeded: SeededRooms, start: number, span: number): void {
  const { store, rnd, int, pick } = s
  const times = reportTimes(s, start, span)
  const texts = drawTexts(s.faker)
  const recent: string[] = []
  for (const t of times) {
    let eventId: string
    let roomId: string
    let sender: string
    const prior = recent.length ? pick(recent) : undefined
    if (prior && rnd() < 0.1) {
      // Another report on an event someone already reported.
      const ev = store.events.get(prior)!
      ;({ eventId, roomId, sender } = { eventId: ev.eventId, roomId: ev.roomId, sender: ev.sender })
    } else {
      const room = pick(seeded.rooms)
      roomId = room.roomId
      sender = pick(seeded.members.get(roomId)!)
      const content = messageContent(s, texts)
      const evTs = Math.min(t, Math.max(seeded.lastTs.get(roomId)! + 1, t - int(10, 2 * 24 * 3600) * 1000))
      eventId = store.appendEvent(room, sender, 'm.room.message', content, evTs).eventId
      seeded.lastTs.set(roomId, evTs)
      recent.push(eventId)
      if (recent.length > 200) recent.shift()
    }
    const roomMembers = seeded.members.get(roomId)!
    let reporter = pick(roomMembers)
    if (reporter === sender && roomMembers.length > 1 && rnd() < 0.75) reporter = pick(roomMembers.filter((m) => m !== sender))
    const body: Record<string, unknown> = {}
    // Some reporters leave the reason or the score out (then null in listings); a few send a blank reason.
    if (rnd() < 0.75) body.reason = rnd() < 0.1 ? '' : pick(texts.reasons)
    if (rnd() < 0.6) body.score = pick([-100, -100, -100, -75, -50, -50, -25, -10, 0])
    store.addReport({ roomId, eventId, userId: reporter, content: body, receivedTs: t })
  }
}

/** Reasons of user reports: short and long, blank, non-ASCII, quotes and a line break. */
function userReportReasons(faker: Faker): string[] {
  return [
    'spam',
    'harassment',
    'impersonation',
    'sends unsolicited invites to every room',
    'scam: asks for crypto "investments"',
    'threatening messages in DMs',
    '',
    '',
    'Belästigung über Direktnachrichten',
    'スパムを送り続けている',
    'usurpation d’identité 🙁',
    "it's a bot\nposting links every minute",
    ...Array.from({ length: 8 }, () => `pretends to be ${faker.person.fullName()}`),
    ...Array.from({ length: 6 }, () => `links to ${faker.internet.domainName()} in every message`),
    ...Array.from({ length: 4 }, () => faker.lorem.sentences({ min: 2, max: 5 })),
  ]
}

/**
 * User reports (the MSC4260 client call), in time order: reporters and targets among the seeded users,
 * a few users reported again and again, nobody reporting themselves.
 */
function seedUserReports(s: HsSeed, people: string[], start: number, span: number): void {
  const { store, rnd, pick, options, faker } = s
  const n = options.reports === 0 ? 0 : clamp(Math.ceil(options.reports / 3), 12, 100_000)
  if (n === 0 || people.length < 2) return
  const reasons = userReportReasons(faker)
  // Some users draw many reports: the first few of the shuffled list are the usual suspects.
  const suspects = faker.helpers.shuffle([...people]).slice(0, Math.max(2, Math.ceil(people.length / 5)))
  const times = Array.from({ length: n }, () => start + Math.floor(rnd() * span)).sort((a, b) => a - b)
  for (let i = 1; i < n; i++) if (rnd() < 0.03) times[i] = times[i - 1]!
  for (const t of times) {
    const target = rnd() < 0.6 ? pick(suspects) : pick(people)
    let reporter = pick(people)
    while (reporter === target) reporter = pick(people)
    store.addUserReport({ targetUserId: target, userId: reporter, reason: pick(reasons), receivedTs: t })
  }
}
