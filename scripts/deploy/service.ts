// One container of the deployment: started by testcontainers with host networking and project labels, its
// output captured to a file and a memory buffer, its state watched while health checks run.
import { createWriteStream, type WriteStream } from 'node:fs'
import type { Readable } from 'node:stream'
import type { ContainerRuntimeClient, StartedTestContainer } from 'testcontainers'
import { bounded, DeployError, sleep, throwIfAborted } from './errors.ts'
import { LABEL_PROJECT, LABEL_ROLE, LABEL_RUN, NAME_PREFIX, TESTCONTAINERS_HINT, TESTCONTAINERS_MISSING, testcontainers } from './engine.ts'

export type Role = 'postgres' | 'mas' | 'homeserver'

export const ROLE_TITLE: Record<Role, string> = { postgres: 'PostgreSQL', mas: 'auth service', homeserver: 'homeserver' }

export interface ServiceSpec {
  role: Role
  image: string
  command?: string[]
  entrypoint?: string[]
  env?: Record<string, string>
  files?: { content: string; target: string; mode?: number }[]
}

/** Captured output of a container: all of it in a file, the most recent part in memory. */
export class LogCapture {
  private lines: string[] = []
  private partial = ''
  private bytes = 0
  private readonly file: WriteStream
  private readonly maxBytes: number

  constructor(path: string, maxBytes = 16 * 1024 * 1024) {
    this.file = createWriteStream(path, { flags: 'a', mode: 0o600 })
    this.maxBytes = maxBytes
  }

  attach(stream: Readable): void {
    stream.on('data', (chunk: Buffer | string) => this.push(chunk.toString()))
    stream.on('error', () => {})
  }

  push(text: string): void {
    this.file.write(text)
    const parts = (this.partial + text).split('\n')
    this.partial = parts.pop() ?? ''
    for (const l of parts) {
      this.lines.push(l)
      this.bytes += l.length + 1
    }
    while (this.bytes > this.maxBytes && this.lines.length > 1) this.bytes -= this.lines.shift()!.length + 1
  }

  tail(n: number): string[] {
    const all = this.partial ? [...this.lines, this.partial] : this.lines
    return all.slice(-n)
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.file.end(resolve))
  }
}

export interface ContainerState {
  running: boolean
  status: string
  exitCode: number | undefined
  oomKilled: boolean
}

export class RunningService {
  readonly spec: ServiceSpec
  readonly name: string
  readonly log: LogCapture
  container: StartedTestContainer | undefined
  private readonly client: ContainerRuntimeClient

  constructor(client: ContainerRuntimeClient, spec: ServiceSpec, runId: string, logPath: string) {
    this.client = client
    this.spec = spec
    this.name = `${NAME_PREFIX}-${runId}-${spec.role}`
    this.log = new LogCapture(logPath)
  }

  get title(): string {
    return ROLE_TITLE[this.spec.role]
  }

  /** Create and start the container; on failure, what it printed is in the error's details. */
  async start(runId: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    const s = this.spec
    if (!testcontainers) throw new DeployError('engine', TESTCONTAINERS_MISSING, [TESTCONTAINERS_HINT])
    let gc = new testcontainers.GenericContainer(s.image)
      .withName(this.name)
      .withLabels({ [LABEL_PROJECT]: 'admin-conformance', [LABEL_RUN]: runId, [LABEL_ROLE]: s.role })
      .withNetworkMode('host')
      .withEnvironment(s.env ?? {})
      .withStartupTimeout(timeoutMs)
      .withLogConsumer((stream) => this.log.attach(stream))
    if (s.command) gc = gc.withCommand(s.command)
    if (s.entrypoint) gc = gc.withEntrypoint(s.entrypoint)
    if (s.files?.length)
      gc = gc.withCopyContentToContainer(s.files.map((f) => ({ content: f.content, target: f.target, mode: f.mode ?? 0o644 })))
    try {
      this.container = await bounded(gc.start(), timeoutMs, () => new Error(`not started within ${Math.round(timeoutMs / 1000)} s`), signal)
    } catch (e) {
      if (e instanceof DeployError && e.kind === 'interrupted') throw e
      await this.captureLogsById()
      throw new DeployError(
        'start',
        `${this.title} container (${s.image}) could not be started: ${(e as Error).message.split('\n')[0]}`,
        this.tailLines(),
      )
    }
  }

  /** When start() failed part-way, fetch whatever the container printed through the engine. */
  private async captureLogsById(): Promise<void> {
    try {
      const c = this.client.container.dockerode.getContainer(this.name)
      const buf = (await c.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer
      this.log.push(demux(buf))
    } catch {
      // No container was created: nothing to show.
    }
  }

  async state(): Promise<ContainerState> {
    const info = await this.client.container.dockerode.getContainer(this.name).inspect()
    return {
      running: info.State.Running,
      status: info.State.Status,
      exitCode: info.State.Running ? undefined : info.State.ExitCode,
      oomKilled: info.State.OOMKilled,
    }
  }

  tailLines(n = 20): string[] {
    const lines = this.log.tail(n)
    return lines.length
      ? [`last ${lines.length} log lines of ${this.name}:`, ...lines.map((l) => `  | ${l}`)]
      : [`${this.name} printed nothing`]
  }

  /** Fail with the container's exit code and last log lines if it is no longer running. */
  async assertRunning(): Promise<void> {
    let st: ContainerState
    try {
      st = await this.state()
    } catch (e) {
      throw new DeployError('start', `${this.title} container disappeared: ${(e as Error).message.split('\n')[0]}`, this.tailLines())
    }
    if (!st.running) {
      // Give the log stream a moment to deliver the last lines before showing them.
      await sleep(300)
      const why = st.oomKilled ? 'was killed for lack of memory' : `exited with code ${st.exitCode}`
      throw new DeployError('start', `${this.title} container ${why} before it was healthy`, this.tailLines())
    }
  }

  /** Run a command in the container; undefined when the command cannot be run there at all. */
  async exec(
    command: string[],
    env: Record<string, string> = {},
    timeoutMs = 30_000,
  ): Promise<{ exitCode: number; output: string } | undefined> {
    if (!this.container) return undefined
    try {
      const r = await bounded(
        this.container.exec(command, { env }),
        timeoutMs,
        () => new Error(`${command[0]} did not finish within ${timeoutMs / 1000} s`),
      )
      return { exitCode: r.exitCode, output: r.output }
    } catch {
      return undefined
    }
  }

  /** Stop and remove; bounded by timeoutMs, then force-removed. */
  async remove(timeoutMs: number): Promise<void> {
    const c = this.client.container.dockerode.getContainer(this.name)
    try {
      await bounded(c.stop({ t: Math.max(1, Math.round(timeoutMs / 1000)) }), timeoutMs + 5_000, () => new Error('stop timed out'))
    } catch {
      // Not running, already gone, or too slow: the forced removal below settles all three.
    }
    try {
      await c.remove({ force: true, v: true })
    } catch (e) {
      if (!/no such container|is already in progress/i.test((e as Error).message)) throw e
    }
  }
}

/** The engine multiplexes stdout and stderr in 8-byte framed chunks when no TTY is attached. */
export function demux(buf: Buffer): string {
  if (!Buffer.isBuffer(buf)) return String(buf)
  let out = ''
  let i = 0
  while (i + 8 <= buf.length) {
    const type = buf[i]
    const size = buf.readUInt32BE(i + 4)
    if ((type !== 0 && type !== 1 && type !== 2) || i + 8 + size > buf.length) return out + buf.subarray(i).toString()
    out += buf.subarray(i + 8, i + 8 + size).toString()
    i += 8 + size
  }
  return out + buf.subarray(i).toString()
}
