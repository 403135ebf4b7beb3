// What the seed reads of the mock's settings, and nothing else: the seed sits below the server and its
// options (a MockOptions is one of these), so it names the fields it needs instead of importing them.
export interface SeedSettings {
  seed: number
  /** sessions to seed in all, split evenly across compat, OAuth 2.0 and personal sessions */
  sessions: number
  /** event reports to seed */
  reports: number
  serverName: string
  /** fixed clock for seeding: same seed, same world */
  epoch: Date
  adminToken: string
  userToken: string
  hsAdminToken: string
  hsUserToken: string
  adminClientId: string
  adminClientSecret: string
  hsDelegateClientId?: string
  hsDelegateClientSecret?: string
  /** mixed into the seeded homeserver users' tokens; undefined: they follow the seed alone */
  tokenSecret?: string
  /** seed the policy data records (default true) */
  policyData?: boolean
}
