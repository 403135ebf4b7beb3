// Seeded OAuth 2.0 clients: the admin client of the options (and the homeserver's, when it
// delegates), three more static clients, and dynamically registered ones (public and confidential).
import type { Client, Micros } from '../../store/mas/index.ts'
import type { SeedContext } from './context.ts'
import { DAY_US, HOUR_US } from '../time.ts'

function staticClient(id: string, name: string, secret: string | null, grantTypes: string[], at: Micros): Client {
  return {
    id,
    kind: 'static',
    name,
    secret,
    authMethod: secret === null ? 'none' : 'client_secret_basic',
    grantTypes,
    redirectUris: [],
    createdAt: at,
  }
}

export function seedClients(ctx: SeedContext): void {
  const { options, E, d, pools, store } = ctx
  const clientId = d.ulid()
  const clients: Client[] = []
  const tClients = E - 400 * DAY_US
  clients.push(staticClient(options.adminClientId, 'Admin automation', options.adminClientSecret, ['client_credentials'], tClients))
  if (options.hsDelegateClientId && options.hsDelegateClientSecret && options.hsDelegateClientId !== options.adminClientId) {
    clients.push(staticClient(options.hsDelegateClientId, 'Homeserver', options.hsDelegateClientSecret, ['client_credentials'], tClients))
  }
  const nDynamic = Math.max(4, Math.ceil(options.sessions / 2000))
  const clientTimes = Array.from({ length: 3 + nDynamic }, (_, i) => tClients + (i + 1) * HOUR_US + d.int(HOUR_US))
  for (let i = 0; i < clientTimes.length; i++) {
    const at = clientTimes[i]!
    const id = clientId(at)
    if (i < 3) {
      clients.push(
        staticClient(
          id,
          d.pick(pools.clientNames),
          `secret-${d.alnum(24)}`,
          ['authorization_code', 'refresh_token', 'client_credentials'],
          at,
        ),
      )
    } else {
      const confidential = d.chance(0.6)
      const domain = d.pick(pools.domains)
      clients.push({
        id,
        kind: 'dynamic',
        name: d.chance(0.8) ? d.pick(pools.clientNames) : null,
        secret: confidential ? `secret-${d.alnum(24)}` : null,
        authMethod: confidential ? d.pick(['client_secret_basic', 'client_secret_post'] as const) : 'none',
        grantTypes: confidential && d.chance(0.5) ? ['client_credentials'] : ['authorization_code', 'refresh_token'],
        redirectUris: [`https://${domain}/oauth/callback`],
        createdAt: at,
      })
    }
  }
  clients.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  store.clients.load(clients)
  const staticIds = clients.filter((c) => c.kind === 'static' && c.id !== options.hsDelegateClientId).map((c) => c.id)
  ctx.clients = {
    otherStatic: staticIds.filter((id) => id !== options.adminClientId),
    dynamicUser: clients.filter((c) => c.kind === 'dynamic' && c.grantTypes.includes('authorization_code')).map((c) => c.id),
    dynamicCc: clients.filter((c) => c.kind === 'dynamic' && c.grantTypes.includes('client_credentials')).map((c) => c.id),
  }
}
