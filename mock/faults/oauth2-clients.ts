// Faults of the admin API's oauth2-clients family (mock/admin/oauth2-clients.ts), each caught by a
// named check of suites/admin/oauth2-clients.suite.ts.
import { fault } from './def.ts'

const a = <N extends string>(name: N, description: string, more?: Parameters<typeof fault>[3]) => fault(name, 'admin', description, more)

export const oauth2ClientFaults = [
  a(
    'oauth2-clients-unknown-grant-matches-all',
    'filter[grant-type] with a grant type no client can declare lists every client instead of none',
    { versions: { mas: 'oauth2-clients' } },
  ),
  a('oauth2-clients-active-counts-finished', 'filter[has-active-sessions] also counts finished sessions', {
    versions: { mas: 'oauth2-clients' },
  }),
]
