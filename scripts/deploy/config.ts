// The configuration of a deployment: one plan (ports, names, secrets) and the files generated from it for
// PostgreSQL, the auth service (MAS) and the homeserver (Synapse). Values come from the plan only, so the
// same plan always gives the same files.
import { authServiceKeys, encryptionSecret, homeserverSigningKey, newClientId, randomAlnum, type SigningKey } from './secrets.ts'
import { delegationMode, homeserverKind, type DelegationMode } from './versions.ts'
import { Document, type ToStringOptions } from 'yaml'

export interface Client {
  id: string
  secret: string
}

export interface DeployPlan {
  /** every service binds here: containers share the host's network namespace */
  host: string
  serverName: string
  ports: { mas: number; homeserver: number; postgres: number }
  masUrl: string
  homeserverUrl: string
  db: { user: string; password: string; masDatabase: string; homeserverDatabase: string }
  /** static client listed in policy.data.admin_clients: client_credentials with urn:mas:admin */
  adminClient: Client
  /** static client without admin rights, for OAuth 2.0 session fixtures */
  fixtureClient: Client
  /** client the homeserver introspects with (msc3861 mode only) */
  homeserverClient: Client
  /** shared secret between the auth service and the homeserver (matrix.secret) */
  matrixSecret: string
  delegation: DelegationMode
  /** the homeserver keeps its data in SQLite inside its container (own-login mode without PostgreSQL) */
  sqlite: boolean
  homeserverKind: string
  mas: { encryption: string; keys: SigningKey[] }
  homeserver: { registrationSecret: string; macaroonSecret: string; formSecret: string; signingKey: string }
}

export interface PlanInput {
  host?: string
  serverName?: string
  ports: { mas: number; homeserver: number; postgres: number }
  masTag: string
  homeserverTag: string
  delegation?: DelegationMode
  /** SQLite for the homeserver instead of PostgreSQL */
  sqlite?: boolean
}

export function makePlan(input: PlanInput): DeployPlan {
  const host = input.host ?? '127.0.0.1'
  const delegation = input.delegation ?? delegationMode(input.homeserverTag)
  return {
    host,
    serverName: input.serverName ?? 'admin-conformance.test',
    ports: { ...input.ports },
    masUrl: `http://${host}:${input.ports.mas}/`,
    homeserverUrl: `http://${host}:${input.ports.homeserver}/`,
    db: { user: 'admin_conformance', password: randomAlnum(24), masDatabase: 'mas', homeserverDatabase: 'synapse' },
    adminClient: { id: newClientId(), secret: randomAlnum(40) },
    fixtureClient: { id: newClientId(), secret: randomAlnum(40) },
    homeserverClient: { id: newClientId(), secret: randomAlnum(40) },
    matrixSecret: randomAlnum(40),
    delegation,
    sqlite: input.sqlite ?? false,
    homeserverKind: homeserverKind(input.masTag, delegation),
    mas: { encryption: encryptionSecret(), keys: authServiceKeys() },
    homeserver: {
      registrationSecret: randomAlnum(40),
      macaroonSecret: randomAlnum(40),
      formSecret: randomAlnum(40),
      signingKey: homeserverSigningKey(),
    },
  }
}

/** Every secret of the plan, for redaction of anything printed. */
export function planSecrets(plan: DeployPlan): string[] {
  return [
    plan.db.password,
    plan.adminClient.secret,
    plan.fixtureClient.secret,
    plan.homeserverClient.secret,
    plan.matrixSecret,
    plan.mas.encryption,
    plan.homeserver.registrationSecret,
    plan.homeserver.macaroonSecret,
    plan.homeserver.formSecret,
  ]
}

function dbUri(plan: DeployPlan, database: string): string {
  const u = encodeURIComponent
  return `postgresql://${u(plan.db.user)}:${u(plan.db.password)}@${plan.host}:${plan.ports.postgres}/${u(database)}`
}

/** The auth service's config.yaml, as an object. */
export function masConfig(plan: DeployPlan): Record<string, unknown> {
  const clients: Record<string, unknown>[] = [
    { client_id: plan.adminClient.id, client_auth_method: 'client_secret_basic', client_secret: plan.adminClient.secret },
    // The other client authenticates in the request body, so both methods are exercised.
    { client_id: plan.fixtureClient.id, client_auth_method: 'client_secret_post', client_secret: plan.fixtureClient.secret },
  ]
  if (plan.delegation === 'msc3861') {
    clients.push({
      client_id: plan.homeserverClient.id,
      client_auth_method: 'client_secret_basic',
      client_secret: plan.homeserverClient.secret,
    })
  }
  return {
    http: {
      public_base: plan.masUrl,
      issuer: plan.masUrl,
      listeners: [
        {
          name: 'web',
          // Health sits on the same listener so that it is reachable from the host.
          resources: ['discovery', 'human', 'oauth', 'compat', 'graphql', 'assets', 'adminapi', 'health'].map((name) => ({ name })),
          binds: [{ address: `${plan.host}:${plan.ports.mas}` }],
        },
      ],
    },
    database: { uri: dbUri(plan, plan.db.masDatabase) },
    secrets: { encryption: plan.mas.encryption, keys: plan.mas.keys.map((k) => ({ kid: k.kid, key: k.key })) },
    // Password login is needed for compat sessions made through the client login API.
    passwords: { enabled: true, schemes: [{ version: 1, algorithm: 'argon2id' }] },
    matrix: { kind: plan.homeserverKind, homeserver: plan.serverName, secret: plan.matrixSecret, endpoint: plan.homeserverUrl },
    clients,
    policy: { data: { admin_clients: [plan.adminClient.id] } },
    // Fixtures log in many times from one address within seconds.
    rate_limiting: {
      login: { per_ip: { burst: 1000, per_second: 100 }, per_account: { burst: 1000, per_second: 100 } },
      registration: { burst: 1000, per_second: 100 },
    },
  }
}

const BURST = { per_second: 1000, burst_count: 1000 }

/** The homeserver's homeserver.yaml, as an object. Paths are those inside the container (/data). */
export function homeserverConfig(plan: DeployPlan): Record<string, unknown> {
  const config: Record<string, unknown> = {
    server_name: plan.serverName,
    public_baseurl: plan.homeserverUrl,
    listeners: [
      {
        port: plan.ports.homeserver,
        bind_addresses: [plan.host],
        type: 'http',
        tls: false,
        x_forwarded: false,
        resources: [{ names: ['client'], compress: false }],
      },
    ],
    database: plan.sqlite
      ? // Inside the container, removed with it.
        { name: 'sqlite3', args: { database: '/tmp/homeserver.db' } }
      : {
          name: 'psycopg2',
          args: {
            user: plan.db.user,
            password: plan.db.password,
            dbname: plan.db.homeserverDatabase,
            host: plan.host,
            port: plan.ports.postgres,
            cp_min: 1,
            cp_max: 5,
          },
        },
    // The image runs Synapse as uid 991 without taking ownership of /data (root-owned, made by the copy), so
    // everything it writes goes to /tmp; /data only holds the files copied in, readable by all.
    media_store_path: '/tmp/media_store',
    signing_key_path: '/data/signing.key',
    trusted_key_servers: [],
    suppress_key_server_warning: true,
    report_stats: false,
    registration_shared_secret: plan.homeserver.registrationSecret,
    macaroon_secret_key: plan.homeserver.macaroonSecret,
    form_secret: plan.homeserver.formSecret,
    // Fixtures send many requests per second from one address.
    rc_message: BURST,
    rc_registration: BURST,
    rc_login: { address: BURST, account: BURST, failed_attempts: BURST },
    rc_joins: { local: BURST, remote: BURST },
    // Registration is by the shared secret only.
    enable_registration: false,
  }
  if (plan.delegation === 'none') {
    // The homeserver's own login: users registered with the shared secret log in with their passwords.
    config.password_config = { enabled: true }
  } else if (plan.delegation === 'stable') {
    // Auth is delegated: password login must be off or the homeserver refuses to start.
    config.password_config = { enabled: false }
    config.matrix_authentication_service = { enabled: true, endpoint: plan.masUrl, secret: plan.matrixSecret }
  } else {
    config.password_config = { enabled: false }
    config.experimental_features = {
      msc3861: {
        enabled: true,
        issuer: plan.masUrl,
        client_id: plan.homeserverClient.id,
        client_auth_method: 'client_secret_basic',
        client_secret: plan.homeserverClient.secret,
        admin_token: plan.matrixSecret,
        account_management_url: `${plan.masUrl}account`,
      },
    }
  }
  return config
}

/** SQL run once by PostgreSQL's entry point: one database per service; the homeserver needs C collation. */
export function postgresInitSql(plan: DeployPlan): string {
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`
  return [
    `CREATE DATABASE ${q(plan.db.masDatabase)} OWNER ${q(plan.db.user)};`,
    `CREATE DATABASE ${q(plan.db.homeserverDatabase)} OWNER ${q(plan.db.user)} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;`,
    '',
  ].join('\n')
}

export interface GeneratedFiles {
  masConfigYaml: string
  homeserverConfigYaml: string
  homeserverSigningKey: string
  postgresInitSql: string
}

// YAML 1.1 rules, because the homeserver reads its file with PyYAML: a key such as `on` or `yes` is
// quoted, and every string is written double-quoted with JSON escapes, so that no value can be read as a
// number, a boolean or null.
const YAML_OPTIONS = {
  version: '1.1',
  defaultStringType: 'QUOTE_DOUBLE',
  defaultKeyType: 'PLAIN',
  doubleQuotedAsJSON: true,
  lineWidth: 0,
} as const satisfies ToStringOptions & { version: '1.1' }

/** YAML text of a JSON-like value, with a comment on top; a value JSON could not hold is refused. */
export function configYaml(value: unknown, header?: string): string {
  const doc = new Document(
    value,
    (_key: unknown, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) throw new TypeError(`cannot write ${v} to YAML`)
      if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint')
        throw new TypeError(`cannot write a ${typeof v} to YAML`)
      return v
    },
    YAML_OPTIONS,
  )
  if (header)
    doc.commentBefore = header
      .split('\n')
      .map((l) => ` ${l}`)
      .join('\n')
  return doc.toString(YAML_OPTIONS)
}

export function generateFiles(plan: DeployPlan): GeneratedFiles {
  return {
    masConfigYaml: configYaml(masConfig(plan), 'auth service configuration generated by admin-conformance deploy (throwaway deployment)'),
    homeserverConfigYaml: configYaml(
      homeserverConfig(plan),
      'homeserver configuration generated by admin-conformance deploy (throwaway deployment)',
    ),
    homeserverSigningKey: plan.homeserver.signingKey,
    postgresInitSql: postgresInitSql(plan),
  }
}
