// Access to the Docker engine through testcontainers, with everything this project creates marked by
// labels under one prefix so that cleanup never touches anything else.
import type * as Testcontainers from 'testcontainers'
import type { ContainerRuntimeClient, ImageName } from 'testcontainers'
import { bounded, DeployError } from './errors.ts'

/**
 * testcontainers, which deploy alone needs: not installed with the package (an optional peer, 111
 * packages), loaded here once; undefined when it is not installed (requireEngine() then says how).
 */
export const testcontainers: typeof Testcontainers | undefined = await import('testcontainers').catch(() => undefined)

/** What deploy says when testcontainers is missing. */
export const TESTCONTAINERS_MISSING = 'deploy needs the package testcontainers, which is not installed'
export const TESTCONTAINERS_HINT =
  'install it beside admin-conformance: `npm install -g testcontainers@^11` for a global install, `npm install testcontainers@^11` in a project'

export const NAME_PREFIX = 'admin-conformance'
export const LABEL_PROJECT = 'dev.admin-conformance.project'
export const LABEL_RUN = 'dev.admin-conformance.run'
export const LABEL_ROLE = 'dev.admin-conformance.role'

/**
 * Settings testcontainers needs here: no reaper (it is an image from a registry) and the host reached on
 * loopback (all containers use host networking). Values already set in the environment are kept.
 */
export function configureTestcontainers(env: NodeJS.ProcessEnv = process.env): void {
  env.TESTCONTAINERS_RYUK_DISABLED ??= 'true'
  env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1'
}

export type EngineStatus = { ok: true; client: ContainerRuntimeClient } | { ok: false; reason: string }

/** Whether a Docker engine answers, within timeoutMs. */
export async function engineStatus(timeoutMs = 20_000): Promise<EngineStatus> {
  configureTestcontainers()
  if (!testcontainers) return { ok: false, reason: TESTCONTAINERS_MISSING }
  try {
    const client = await bounded(
      testcontainers.getContainerRuntimeClient(),
      timeoutMs,
      () => new Error(`no answer within ${timeoutMs / 1000} s`),
    )
    await bounded(client.container.dockerode.ping(), timeoutMs, () => new Error(`ping not answered within ${timeoutMs / 1000} s`))
    return { ok: true, client }
  } catch (e) {
    return { ok: false, reason: (e as Error).message }
  }
}

export async function requireEngine(timeoutMs?: number): Promise<ContainerRuntimeClient> {
  if (!testcontainers) throw new DeployError('engine', TESTCONTAINERS_MISSING, [TESTCONTAINERS_HINT])
  const s = await engineStatus(timeoutMs)
  if (!s.ok) {
    throw new DeployError('engine', `no Docker engine is reachable: ${s.reason}`, [
      'start one (for example `dockerd` or Docker Desktop), or point DOCKER_HOST at it',
    ])
  }
  return s.client
}

/** A syntactically valid image reference (`[registry/]name[:tag|@digest]`), or undefined. */
export function parseImage(ref: string): ImageName | undefined {
  if (!/^[a-z0-9][a-z0-9._\-/:@]*$/i.test(ref) || /\s/.test(ref)) return undefined
  // (without testcontainers the syntax above is the check: requireEngine() stops the run before any use)
  if (!testcontainers) return {} as ImageName
  try {
    return testcontainers.ImageName.fromString(ref)
  } catch {
    return undefined
  }
}

/** Make sure the image is present: use the local one, else pull it within timeoutMs. */
export async function ensureImage(
  client: ContainerRuntimeClient,
  ref: string,
  opts: { pullTimeoutMs: number; signal?: AbortSignal; onPull?: () => void },
): Promise<'local' | 'pulled'> {
  const name = parseImage(ref)
  if (!name) throw new DeployError('usage', `not a valid image reference: '${ref}'`)
  if (await client.image.exists(name)) return 'local'
  opts.onPull?.()
  try {
    await bounded(
      client.image.pull(name, { force: false, platform: undefined }),
      opts.pullTimeoutMs,
      () => new Error(`pull did not finish within ${Math.round(opts.pullTimeoutMs / 1000)} s`),
      opts.signal,
    )
  } catch (e) {
    if (e instanceof DeployError) throw e
    throw new DeployError('image', `image '${ref}' is not present locally and could not be pulled: ${firstLine((e as Error).message)}`, [
      'check the image name and tag, the registry login, and network access to the registry',
    ])
  }
  if (!(await client.image.exists(name))) throw new DeployError('image', `image '${ref}' is still missing after the pull`)
  return 'pulled'
}

function firstLine(s: string): string {
  return (
    s
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? s
  )
}

export interface LabelledContainer {
  id: string
  name: string
  state: string
  role: string | undefined
}

/** Containers carrying this project's label, optionally of one run only. */
export async function listProjectContainers(client: ContainerRuntimeClient, runId?: string): Promise<LabelledContainer[]> {
  const label = runId ? [`${LABEL_RUN}=${runId}`] : [LABEL_PROJECT]
  const infos = await client.container.dockerode.listContainers({ all: true, filters: { label } })
  return infos.map((i) => ({
    id: i.Id,
    name: (i.Names[0] ?? '').replace(/^\//, ''),
    state: i.State,
    role: i.Labels[LABEL_ROLE],
  }))
}

/** Force-remove the containers of a run (or of every run); returns the names removed. */
export async function removeProjectContainers(client: ContainerRuntimeClient, runId?: string): Promise<string[]> {
  const removed: string[] = []
  for (const c of await listProjectContainers(client, runId)) {
    try {
      await client.container.dockerode.getContainer(c.id).remove({ force: true, v: true })
      removed.push(c.name)
    } catch (e) {
      // Already gone (removed concurrently) is fine; anything else is reported by the caller's re-check.
      if (!/no such container|is already in progress/i.test((e as Error).message)) throw e
    }
  }
  return removed
}
