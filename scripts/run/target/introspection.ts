// The run's one introspection client (lib/introspection.ts): against a real auth service with writes
// allowed, registered once here, before any suite starts, and handed to every suite file through the
// target. Suite files running side by side (--jobs) then never see a client appear while they walk the
// clients listing, and a run leaves one client behind, not one per file. The bundled mock needs none:
// its files run one after another, or each worker has a mock of its own.
import { HttpClient } from '../../../lib/http.ts'
import { introspectionClientMetadata, INTROSPECTION_LEFTOVER_REASON, readRegistration } from '../../../lib/introspection.ts'
import { knownTokens, leftoverComment, parseLeftoverComment, type Leftover, type Target } from '../../../lib/target.ts'
import type { Area } from '../../../lib/areas.ts'

export interface Registered {
  /** the client, for the summary's data left behind */
  leftover?: Leftover & { file: string }
  /** why no client was registered (the write checks that need one then skip with it) */
  warning?: string
}

export async function registerIntrospectionClient(target: Target, areas: readonly Area[]): Promise<Registered> {
  const mas = target.mas
  if (target.isMock || !target.allowWrites || !mas?.adminToken || !areas.includes('admin')) return {}
  const client = new HttpClient({
    allowWrites: true,
    connectTimeoutMs: target.timeouts.connectMs,
    requestTimeoutMs: target.timeouts.requestMs,
    userAgent: target.userAgent,
    secrets: knownTokens(target),
  })
  try {
    const res = await client.request(mas.url, '/oauth2/registration', { method: 'POST', body: introspectionClientMetadata(target.runId) })
    const reg = readRegistration(res.status, res.json)
    if (typeof reg === 'string') return { warning: `${reg}; each suite file that needs one registers its own` }
    mas.introspection = reg
    const leftover = { target: 'mas' as const, kind: 'oauth2-client', id: reg.clientId, reason: INTROSPECTION_LEFTOVER_REASON }
    return { leftover: { ...parseLeftoverComment(`# ${leftoverComment(leftover)}`)!, file: '(runner)' } }
  } catch (e) {
    return {
      warning: client.redact(
        `registering the run's introspection client failed: ${(e as Error).message}; each suite file that needs one registers its own`,
      ),
    }
  } finally {
    await client.close()
  }
}
