// The auth service's link to its homeserver (the real service's `matrix` section: `homeserver`,
// `endpoint`, `secret`): what the real service tells Synapse through `/_synapse/mas/` as users and
// sessions change, driven here by the store's writes, so that every way a change happens (admin
// API, sign-in, compat login, revocation) provisions alike:
// - a user created, or signing in (any new session of theirs): provision_user, with their e-mails;
// - a session with a device (compat login, a device scope on an OAuth 2.0 or personal session):
//   upsert_device, after the user;
// - a session finished or revoked: sync_devices with the devices of the user's sessions still active
//   (the real SyncDevicesJob), which makes Synapse delete the finished one's device;
// - e-mails added or removed: provision_user with the new list; locked or unlocked: provision_user
//   with `locked`; deactivated: delete_user (erase: true, the real default; the admin API's
//   `skip_erase` is not kept by the store); reactivated: reactivate_user.
// Calls run one at a time in the order of the writes; an answer of the mock waits for the calls its
// writes caused (the real service upserts the device before it answers the code exchange, and a
// token must work at the homeserver as soon as the client has it). A failed call is logged (op,
// status, errcode; never the secret). The calls the real service makes from its job queue
// (provision_user, sync_devices, delete_user, reactivate_user) are retried as its queue retries a
// job: up to 10 attempts, 5 s × 2ⁿ apart, decided again from the current state at each attempt, off
// the queue (a homeserver that is down does not hold the mock's answers). The calls it makes while a
// request waits (upsert_device, set_displayname, unset_displayname) are not. Why this shape: decision 0010.
// - a display name: asked at creation by the admin API (provision_user with set_displayname), or
//   changed by the account page's setDisplayName (set_displayname, unset_displayname).
import type { Write } from '../../store/recorder.ts'
import type { World } from '../../store/world.ts'
import { deviceOfScope } from '../../store/mas/index.ts'
import { callHomeserver, type Provisioning } from './client.ts'

export interface LinkSettings {
  /** the homeserver's base URL (`matrix.endpoint`); read at each call, so it may be set after start */
  endpoint(): string | undefined
  /** the shared secret (`matrix.secret`) */
  secret(): string | undefined
  /** a log line of the mock's request log */
  log(level: 'INFO' | 'WARN', message: string): void
  /** the real queue's retries by default: 10 attempts, the first retry after 5 s (tests shorten it) */
  retry?: { attempts: number; firstDelayMs: number }
}

export interface LinkStats {
  sent: number
  failed: number
  /** retries scheduled after a failed job call */
  retried: number
  /** job calls given up after their last attempt */
  abandoned: number
  /** calls by op and status, e.g. `upsert_device 201` */
  answers: Record<string, number>
}

/** the ops the real service sends from its job queue, so retries */
const JOB_OPS = new Set<Provisioning['op']>(['provision_user', 'sync_devices', 'delete_user', 'reactivate_user'])
const REAL_RETRY = { attempts: 10, firstDelayMs: 5_000 }

/** One call to make, decided when its turn comes; undefined when there is nothing to say any more. */
type Decide = () => Provisioning | undefined

export class HomeserverLink {
  private tail: Promise<void> = Promise.resolve()
  private pending = 0
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false
  readonly stats: LinkStats = { sent: 0, failed: 0, retried: 0, abandoned: 0, answers: {} }

  constructor(private readonly settings: LinkSettings) {}

  /** Drops the retries still waiting (the mock is closing). */
  close(): void {
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }

  /** Listen to a world's writes (again after every reset: a reset builds a new world). */
  attach(world: World): void {
    world.recorder.observers.push((w) => this.observe(world, w))
  }

  /** Resolves when every call queued so far is done; undefined when none is pending. */
  barrier(): Promise<void> | undefined {
    return this.pending === 0 ? undefined : this.tail
  }

  /** Called before the write is applied: what it changes is read now, what results is read when the call runs. */
  private observe(world: World, w: Write): void {
    const mas = world.mas
    switch (w.t) {
      case 'mas.user':
        return this.provision(world, w.user.id, w.profile)
      case 'mas.user.state': {
        const old = mas.users.get(w.id)
        if (!old) return
        const localpart = old.username
        if (old.deactivatedAt === null && w.state.deactivatedAt !== null)
          this.enqueue(() => ({ op: 'delete_user', body: { localpart, erase: true } }))
        if (old.deactivatedAt !== null && w.state.deactivatedAt === null)
          this.enqueue(() => ({ op: 'reactivate_user', body: { localpart } }))
        if ((old.lockedAt === null) !== (w.state.lockedAt === null))
          this.enqueue(() => ({ op: 'provision_user', body: { localpart, locked: w.state.lockedAt !== null } }))
        return
      }
      case 'mas.email':
        return this.provision(world, w.email.userId)
      case 'mas.email.delete': {
        const e = mas.extra.emails.get(w.id)
        return e ? this.provision(world, e.userId) : undefined
      }
      case 'mas.compat':
        return this.device(world, w.session.userId, w.session.deviceId, w.session.humanName)
      case 'mas.oauth2':
        return w.session.userId === null ? undefined : this.device(world, w.session.userId, deviceOfScope(w.session.scope), null)
      case 'mas.personal':
        return this.device(world, w.session.actorUserId, deviceOfScope(w.session.scope), null)
      case 'mas.compat.finish':
        return this.sync(world, mas.compat.get(w.id)?.userId)
      case 'mas.oauth2.finish':
        return this.sync(world, mas.oauth2.get(w.id)?.userId ?? undefined)
      case 'mas.personal.revoke':
        return this.sync(world, mas.personal.get(w.id)?.actorUserId)
      case 'hs.displayname': {
        const localpart = world.hs.users.get(w.userId)?.localpart
        if (localpart === undefined || !mas.findUserByUsername(localpart)) return
        const name = w.displayName
        return this.enqueue(() =>
          name === null
            ? { op: 'unset_displayname', body: { localpart } }
            : { op: 'set_displayname', body: { localpart, displayname: name } },
        )
      }
      default:
        return
    }
  }

  private provision(world: World, userId: string, profile?: { displayName?: string; avatarUrl?: string }): void {
    this.enqueue(() => {
      const user = world.mas.users.get(userId)
      if (!user) return undefined
      const emails = world.mas.extra.emails
        .all()
        .filter((e) => e.userId === userId && !e.deleted)
        .map((e) => e.email)
      return {
        op: 'provision_user',
        body: {
          localpart: user.username,
          set_emails: emails,
          ...(profile?.displayName !== undefined ? { set_displayname: profile.displayName } : {}),
          ...(profile?.avatarUrl !== undefined ? { set_avatar_url: profile.avatarUrl } : {}),
        },
      }
    })
  }

  private device(world: World, userId: string, deviceId: string | null, displayName: string | null): void {
    this.provision(world, userId)
    if (deviceId === null) return
    this.enqueue(() => {
      const user = world.mas.users.get(userId)
      if (!user) return undefined
      const body: { localpart: string; device_id: string; display_name?: string } = { localpart: user.username, device_id: deviceId }
      if (displayName !== null) body.display_name = displayName
      return { op: 'upsert_device', body }
    })
  }

  /** the devices of a user's active sessions, as the real SyncDevicesJob gathers them */
  private sync(world: World, userId: string | undefined): void {
    if (userId === undefined) return
    this.enqueue(() => {
      const mas = world.mas
      const user = mas.users.get(userId)
      if (!user) return undefined
      const devices = new Set<string>()
      for (const s of mas.compat.all()) if (s.userId === userId && s.finishedAt === null && s.deviceId !== null) devices.add(s.deviceId)
      for (const s of mas.oauth2.all()) {
        const d = s.userId === userId && s.finishedAt === null ? deviceOfScope(s.scope) : null
        if (d !== null) devices.add(d)
      }
      for (const s of mas.personal.all()) {
        const d = s.actorUserId === userId && s.revokedAt === null ? deviceOfScope(s.scope) : null
        if (d !== null) devices.add(d)
      }
      return { op: 'sync_devices', body: { localpart: user.username, devices: [...devices].sort() } }
    })
  }

  /** Queue a call decided when its turn comes (after the write that queued it is applied). */
  private enqueue(decide: Decide, attempt = 1): void {
    this.pending += 1
    this.tail = this.tail
      .then(async () => {
        const endpoint = this.settings.endpoint()
        const secret = this.settings.secret()
        if (endpoint === undefined || secret === undefined) return
        const call = decide()
        if (call === undefined) return
        const ok = await this.send(endpoint, secret, call)
        if (!ok && JOB_OPS.has(call.op)) this.retryLater(decide, call, attempt)
      })
      .finally(() => {
        this.pending -= 1
      })
  }

  private retryLater(decide: Decide, call: Provisioning, attempt: number): void {
    const { attempts, firstDelayMs } = this.settings.retry ?? REAL_RETRY
    const who = JSON.stringify(call.body.localpart)
    if (attempt >= attempts || this.closed) {
      this.stats.abandoned += 1
      this.settings.log('WARN', `homeserver ${call.op} for ${who}: given up after ${attempt} attempts`)
      return
    }
    const delay = firstDelayMs * 2 ** (attempt - 1)
    this.stats.retried += 1
    this.settings.log('INFO', `homeserver ${call.op} for ${who}: attempt ${attempt + 1} of ${attempts} in ${delay} ms`)
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      if (!this.closed) this.enqueue(decide, attempt + 1)
    }, delay)
    timer.unref()
    this.timers.add(timer)
  }

  /** true when the homeserver took the call */
  private async send(endpoint: string, secret: string, call: Provisioning): Promise<boolean> {
    this.stats.sent += 1
    try {
      const r = await callHomeserver(endpoint, secret, call)
      const key = `${call.op} ${r.status}`
      this.stats.answers[key] = (this.stats.answers[key] ?? 0) + 1
      if (r.status >= 300) {
        this.stats.failed += 1
        this.settings.log(
          'WARN',
          `homeserver ${call.op} for ${JSON.stringify(call.body.localpart)} answered ${r.status}${r.errcode ? ` ${JSON.stringify(r.errcode)}` : ''}`,
        )
        return false
      }
      this.settings.log('INFO', `homeserver ${call.op} for ${JSON.stringify(call.body.localpart)}: ${r.status}`)
      return true
    } catch (err) {
      this.stats.failed += 1
      const key = `${call.op} error`
      this.stats.answers[key] = (this.stats.answers[key] ?? 0) + 1
      this.settings.log(
        'WARN',
        `homeserver ${call.op} for ${JSON.stringify(call.body.localpart)} failed: ${err instanceof Error ? err.message : String(err)}`,
      )
      return false
    }
  }
}
