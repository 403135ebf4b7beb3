// `--state DIR`: the mock's writes survive restarts and crashes. DIR/journal holds a header (the
// world it belongs to) and every write acknowledged since (ids, tokens and timestamps included, see
// ../mas/writes.ts, ../homeserver/writes.ts), appended and fdatasync'ed before the answer leaves (./writer.ts). On start the
// seeded world is rebuilt from the options and the journal replayed over it; a torn last record is
// dropped with a warning (and cut off the file), anything worse stops the start with the offset.
// A reset or reseed through the control API starts a new journal for the new world (the old writes
// are gone with the old world). DIR/lock keeps a second mock off the same directory.
//
// The journal holds every token and the admin client's secret: it is created 0600, and a directory
// the mock creates 0700. An existing journal readable by others is tightened to 0600 (the file is
// the mock's own; the warning says so). An existing directory open to others is left as it is with
// a warning: it may be the developer's own (`--state .`), and the journal inside is closed anyway.
import {
  chmodSync,
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import type { World } from '../world.ts'
import { applyWorldWrite } from '../world.ts'
import { applyMasWrite, type MasWrite } from '../mas/writes.ts'
import type { HsWrite } from '../homeserver/writes.ts'
import type { Write, WorldWrite } from '../recorder.ts'
import { decodeJournal, encodeRecord, JournalCorruptError, MAGIC } from './codec.ts'
import { headerFor, isHeader, mismatches, type JournalHeader, type WorldSettings } from './header.ts'
import { JournalWriter } from './writer.ts'

export interface StateInfo {
  dir: string
  /** what started the current journal: `start` (a new directory), `reset`, `seed` */
  journalStartedBy: string
  journalCreatedAt: string
  /** writes replayed from the journal when the mock started (0 after a reset or reseed) */
  replayed: number
  /** writes in the current journal */
  records: number
  /** a torn last record dropped at start, if any */
  tornTail: { offset: number; bytes: number; reason: string } | null
}

export class StateError extends Error {}

/** Reads DIR/journal's header without replaying (the CLI adopts generated tokens and unset sizes from it). */
export function readStateHeader(dir: string): JournalHeader | undefined {
  const file = join(dir, 'journal')
  if (!existsSync(file)) return undefined
  const buf = readFileSync(file)
  const first = decodeJournal(buf.subarray(0, Math.min(buf.length, 1 << 20))).records[0]?.value
  return isHeader(first) ? first : undefined
}

/** Applies one recorded write to a world (the replay). */
export function applyWrite(world: World, w: Write): void {
  if (w.t === 'world.set') applyWorldWrite(world, w as WorldWrite)
  else if (w.t.startsWith('mas.')) applyMasWrite(world.mas, w as MasWrite)
  else if (w.t.startsWith('hs.')) world.hs.apply(w as HsWrite)
  else throw new Error(`unknown write type ${JSON.stringify(w.t)}`)
}

function lockDir(dir: string): void {
  const lock = join(dir, 'lock')
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, 'utf8').trim())
    let alive = false
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid) {
      try {
        process.kill(pid, 0)
        alive = true
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM'
      }
    }
    if (alive) throw new StateError(`state directory ${dir} is in use by process ${pid} (remove ${lock} if that process is not a mock)`)
  }
  writeFileSync(lock, `${process.pid}\n`, { mode: 0o600 })
}

/** Journal files: the owner's alone (they hold tokens and secrets). */
const FILE_MODE = 0o600
const DIR_MODE = 0o700

/** Creates DIR 0700, or warns when an existing one lets others in. */
function prepareDir(dir: string, warn: (message: string) => void): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE })
    // mkdir's mode passes through the umask, which may only take bits away: 0700 or tighter.
    return
  }
  const mode = statSync(dir).mode & 0o777
  if (mode & 0o077)
    warn(
      `state directory ${dir} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); the journal inside is 0600, but others may delete or replace it (chmod 700 ${dir})`,
    )
}

/** Tightens an existing journal that others could read, saying so. */
function tightenFile(file: string, warn: (message: string) => void): void {
  const mode = statSync(file).mode & 0o777
  if ((mode & 0o077) === 0) return
  chmodSync(file, FILE_MODE)
  warn(
    `state journal ${file} was readable by other users (mode ${mode.toString(8).padStart(4, '0')}); it holds tokens and secrets, so it is now 0600`,
  )
}

/** Writes a new journal holding only its header, atomically (temporary file, fsync, rename, fsync of the directory). */
function createJournal(dir: string, header: JournalHeader): void {
  const file = join(dir, 'journal')
  const tmp = join(dir, 'journal.new')
  const fd = openSync(tmp, 'w', FILE_MODE)
  try {
    // A journal.new left by a crash keeps its old mode: set it.
    fchmodSync(fd, FILE_MODE)
    writeSync(fd, Buffer.concat([MAGIC, encodeRecord(header)]))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  const dfd = openSync(dir, 'r')
  try {
    fsyncSync(dfd)
  } finally {
    closeSync(dfd)
  }
}

export class StateJournal {
  private writer!: JournalWriter
  private header!: JournalHeader
  private replayed = 0
  private tornTail: StateInfo['tornTail'] = null

  private constructor(readonly dir: string) {}

  /** Opens (or starts) DIR's journal, replays it over `world`, and records the world's writes from now on. */
  static open(options: WorldSettings & { readonly stateDir?: string }, world: World, warn: (message: string) => void): StateJournal {
    const dir = options.stateDir!
    prepareDir(dir, warn)
    lockDir(dir)
    const self = new StateJournal(dir)
    const file = join(dir, 'journal')
    if (existsSync(file)) {
      tightenFile(file, warn)
      self.replay(file, options, world, warn)
    } else {
      self.header = headerFor(options, 'start')
      createJournal(dir, self.header)
    }
    self.attach(world, file)
    return self
  }

  private replay(file: string, options: WorldSettings, world: World, warn: (message: string) => void): void {
    let decoded
    try {
      decoded = decodeJournal(readFileSync(file))
    } catch (e) {
      if (e instanceof JournalCorruptError)
        throw new StateError(`state journal ${file}: ${e.message}; the mock will not replay past it (move the file away to start afresh)`)
      throw e
    }
    const [head, ...writes] = decoded.records
    if (!head || !isHeader(head.value)) throw new StateError(`state journal ${file} has no header record`)
    const problems = mismatches(head.value, options)
    if (problems.length) {
      throw new StateError(
        `state journal ${file} was written for another world (${head.value.cause} at ${head.value.createdAt}): ${problems.join('; ')}. Start with the journal's options, or use another --state directory.`,
      )
    }
    this.header = head.value
    for (const { offset, value } of writes) {
      try {
        applyWrite(world, value as Write)
      } catch (e) {
        throw new StateError(
          `state journal ${file}: the write at byte offset ${offset} (${(value as Write)?.t}) does not apply: ${(e as Error).message}`,
        )
      }
    }
    this.replayed = writes.length
    if (decoded.torn) {
      this.tornTail = decoded.torn
      warn(
        `state journal ${file}: dropped a torn last record at byte offset ${decoded.torn.offset} (${decoded.torn.bytes} bytes, ${decoded.torn.reason}); it was never acknowledged`,
      )
      const fd = openSync(file, 'r+')
      try {
        ftruncateSync(fd, decoded.validLength)
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
    }
  }

  private attach(world: World, file: string): void {
    this.writer = new JournalWriter(openSync(file, 'r+'), statSync(file).size)
    this.writer.records = this.replayed
    const writer = this.writer
    world.recorder.sink = (w) => writer.append(w)
  }

  /** Starts a new journal for a freshly seeded world (control API reset / seed): the old writes go with the old world. */
  restart(options: WorldSettings, world: World, cause: 'reset' | 'seed'): void {
    void this.writer.close()
    this.header = headerFor(options, cause)
    createJournal(this.dir, this.header)
    this.replayed = 0
    this.tornTail = null
    this.attach(world, join(this.dir, 'journal'))
  }

  /** What the server awaits before answering: undefined when every write so far is durable. */
  barrier(): Promise<void> | undefined {
    return this.writer.barrier()
  }

  info(): StateInfo {
    return {
      dir: this.dir,
      journalStartedBy: this.header.cause,
      journalCreatedAt: this.header.createdAt,
      replayed: this.replayed,
      records: this.writer.records,
      tornTail: this.tornTail,
    }
  }

  async close(): Promise<void> {
    await this.writer.close()
    rmSync(join(this.dir, 'lock'), { force: true })
  }
}
