// Seeded policy data: three records (admin clients; then admin users; then client registration
// settings), the newest a week before the epoch.
import { type SeedContext, need } from './context.ts'
import { DAY_US } from '../time.ts'

export function seedPolicyData(ctx: SeedContext): void {
  const { options, E, d, store } = ctx
  const policyId = d.ulid()
  const adminNames = need(ctx.users, 'users')
    .filter((u) => u.admin && u.deactivatedAt === null)
    .slice(0, 3)
    .map((u) => u.username)
  const policies = [
    { at: E - 60 * DAY_US, data: { admin_clients: [options.adminClientId] } },
    { at: E - 30 * DAY_US, data: { admin_clients: [options.adminClientId], admin_users: adminNames } },
    {
      at: E - 7 * DAY_US + 123_456,
      data: {
        admin_clients: [options.adminClientId],
        admin_users: adminNames,
        client_registration: { allow_insecure_uris: false, allow_host_mismatch: false },
      },
    },
  ]
  store.policyData.load(policies.map((p) => ({ id: policyId(p.at), createdAt: p.at, data: p.data })))
}
